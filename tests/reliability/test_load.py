"""Load (issue 6): a large episodic store, then many recalls while another process keeps writing.

No error may surface (no "database is locked", no exception) and every recall returns; latency is printed
(p50 / p95 / max in milliseconds), never asserted (machines differ).
"""

from __future__ import annotations

import json
import random
import signal
import statistics
import subprocess
import sys
import time

import pytest

import memdir

from .helpers import WORKER, check_store, integrity, worker_env

WORDS = ("deploy cache queue retry schema index token build cluster shard replica lockfile migration pipeline "
         "部署 缓存 队列 重试 数据库 索引 构建 集群 分片 迁移 流水线 日志 监控 告警").split()


@pytest.mark.parametrize("events,recalls", [pytest.param(5_000, 100, id="5k-events-100-recalls"),
                                            pytest.param(100_000, 1_000, id="100k-events-1000-recalls",
                                                         marks=pytest.mark.slow)])
def test_recall_under_load_while_a_writer_runs(tmp_path, events, recalls):
    proj, home = tmp_path / "proj", tmp_path / "home"
    (proj / ".git").mkdir(parents=True)
    rng = random.Random(7)
    t0 = time.perf_counter()
    with memdir.open(proj, home=home, config={"capture.daily_cap": 0}) as m:
        stored = 0
        for start in range(0, events, 1_000):  # bursts of 1,000, one transaction each (like a transcript import)
            batch = [{"key": f"load:{i}", "role": ("user", "assistant", "tool")[i % 3], "session": f"s{i // 200}",
                      "text": f"turn {i}: " + " ".join(rng.choice(WORDS) for _ in range(12))} for i in range(start, min(events, start + 1_000))]
            stored += m.import_events(batch)["stored"]
        for i in range(50):  # and some through the capture gate
            assert m.capture({"role": "user", "session": "cap", "text": f"captured under load {i}: " + " ".join(rng.sample(WORDS, 6))}).stored
        m.remember("the load test's only curated note: shard the queue by tenant", category="decisions")
    fill_s = time.perf_counter() - t0
    assert stored == events

    log = (tmp_path / "writer.out").open("w")
    writer = subprocess.Popen([sys.executable, str(WORKER), json.dumps({"project": str(proj), "home": str(home), "wid": 99,
                              "seed": 1, "mode": "crash"})], stdout=log, stderr=subprocess.STDOUT, env=worker_env(home))
    lat = []
    hits_total = 0
    try:
        with memdir.open(proj, home=home) as m:
            for i in range(recalls):
                q = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
                t = time.perf_counter()
                hits = m.recall(q, k=8)
                lat.append((time.perf_counter() - t) * 1000)
                hits_total += len(hits)
                if i % 50 == 0:
                    assert m.context(q)
            assert writer.poll() is None, "the writer died during the recalls"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=60)
        log.close()
    out = (tmp_path / "writer.out").read_text()
    assert "database is locked" not in out and "ERR" not in out and "Traceback" not in out, out[-2000:]
    assert hits_total > 0
    assert integrity(proj / ".memory") == "ok"
    check_store(proj, home, compiled=False)
    q = statistics.quantiles(lat, n=20)
    writes = out.count("ACK ")
    print(f"\nload: {events:,} events stored in {fill_s:.1f}s; {recalls} recalls while a writer made {writes} writes: "
          f"p50 {statistics.median(lat):.1f} ms, p95 {q[18]:.1f} ms, max {max(lat):.1f} ms")

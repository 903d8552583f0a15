"""A hostile day on one project: everything that goes wrong in a working day, all at once, on a temp project and home.

While a long ``memdir import FILE.jsonl`` (memdir's own export format) runs:

1. four writer processes each capture ``--events`` events and remember ``--notes`` notes (the C7 worker of
   ``tests/reliability/_worker.py``), printing every acknowledged key or id as the call returns;
2. the import (``--import-events`` lines) is interrupted with SIGINT at about half way, then the same command is run
   again: in the end every line of the file must be stored exactly once;
3. ``--hooks`` hook processes arrive (``memdir hook claude-code user-prompt`` / ``post-tool-use``, payloads shaped like
   ``tests/fixtures/hooks/``, cwd = the project), each timed as a host sees it (a new process; the wall time includes
   the interpreter's start, which the hook's own budget ``hook.budget_ms`` does not count);
4. the hooks run with the hybrid recall channel against a local embedding endpoint that accepts ``POST
   /v1/embeddings`` and never answers: the prompt hooks must still inject the lexical block;
5. one writer is SIGKILLed at a random moment: what it acknowledged must be stored.

Then a final writer stores what hooks queued in the spool, and the harness counts: acknowledged vs stored (lost),
harness-written texts stored twice (duplicated), ``PRAGMA integrity_check``, ``memdir doctor``'s exit code. Last, a
read-only copy of the project's ``.memory/`` (``chmod -R a-w``) is asked ``memdir recall``, ``memdir status`` and a
prompt hook; whether each worked is reported, not required (as root the mode bits do not stop writes: said in the
table).

    python bench/hostile_day.py                      # the full run (make hostile-day): bench/results/hostile_day.md
    python bench/hostile_day.py --events 20 --import-events 2000 --hooks 8 --out /tmp/hd.md

``run()`` returns the figures as a dict; ``tests/reliability/test_hostile_day.py`` runs a smaller day and asserts them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE.parent / "tests"))

from reliability.helpers import check_store, integrity, parse, snapshot, spawn, worker_env  # noqa: E402

FIX = HERE.parent / "tests" / "fixtures" / "hooks"
OUT = HERE / "results" / "hostile_day.md"
SESSION = "7a0c4e1d-hd00-4d1e-9f3a-2b8c6d0e1f27"
IMPORT_PREFIX = "hd:import:"
#: the notes a prompt hook must find: (category, note, question, a string the block must then hold)
SEEDS = [
    ("facts", "The staging database listens on port 5433 at staging-db.internal.",
     "Which port does the staging database listen on?", "5433"),
    ("decisions", "Deploys go through scripts/deploy.sh on the kestrel cluster, never kubectl apply by hand.",
     "How do we deploy to the kestrel cluster?", "deploy.sh"),
    ("pitfalls", "test_invoice_rounding fails when TZ is not UTC: export TZ=UTC before running pytest.",
     "Why does test_invoice_rounding fail on my machine?", "TZ=UTC"),
    ("facts", "The nightly backup of the orders database runs at 02:00 from cron on backup-01.",
     "When does the nightly backup of the orders database run?", "02:00"),
]
WORDS = ("deploy cache queue retry schema index token build cluster shard replica lockfile migration pipeline "
         "部署 缓存 队列 重试 索引 构建 集群 迁移 日志 监控").split()


def normalize(text: str) -> str:
    from memdir.notes import markdown as notes_mod

    return notes_mod.normalize_text(text)


class HangingEndpoint:
    """``POST /v1/embeddings`` that reads the request and never answers (until :meth:`close`); ``hits`` counts them."""

    def __init__(self):
        self.hits = 0
        self.stop = threading.Event()
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                outer.hits += 1
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.stop.wait()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/embeddings"

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def build_import_file(path: Path, n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` event lines in memdir's export format (``portability/jsonl.py``), distinct texts; returns (key, text)."""
    rng = random.Random(seed)
    out = []
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            text = f"imported turn {i} hdimp{i:06d}: " + " ".join(rng.choice(WORDS) for _ in range(10))
            key = f"{IMPORT_PREFIX}{i}"
            f.write(json.dumps({"type": "event", "key": key, "role": ("user", "assistant", "tool")[i % 3], "text": text,
                                "session": f"imp-{i // 200}", "ts": f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
                                "scope": "project"}, ensure_ascii=False) + "\n")
            out.append((key, text))
    return out


def hook_payload(kind: str, i: int, project: Path) -> tuple[bytes, str]:
    """A payload in Claude Code's shape (from the fixtures) and the token that identifies what it should store/find."""
    if kind == "prompt":
        d = json.loads((FIX / "claude_user_prompt.json").read_text(encoding="utf-8"))
        seed = SEEDS[i % len(SEEDS)]
        d["prompt"] = f"{seed[2]} I am on ticket HD-{i:03d} and need it now."
        token = f"HD-{i:03d}"
    else:
        d = json.loads((FIX / "claude_post_tool_use_bash.json").read_text(encoding="utf-8"))
        token = f"hdtool{i:03d}"
        d["tool_input"] = {"command": f"make migrate STEP={i}", "description": "Run the pending migration"}
        d["tool_response"]["stdout"] = f"applying migration {i:04d}_{token}\nmigration {i:04d}_{token} applied in 3.{i % 10}s"
        d["tool_use_id"] = f"toolu_hd{i:03d}"
    d["session_id"], d["cwd"] = SESSION, str(project)
    return json.dumps(d).encode("utf-8"), token


def hook_env(home: Path, url: str) -> dict[str, str]:
    env = worker_env(home)
    env.update({"MEMDIR_EMBED_PROVIDER": "openai", "MEMDIR_EMBED_URL": url, "MEMDIR_RECALL_CHANNEL": "hybrid"})
    return env


def run_hook(kind: str, i: int, project: Path, env: dict[str, str]) -> dict:
    data, token = hook_payload(kind, i, project)
    event = "user-prompt" if kind == "prompt" else "post-tool-use"
    argv = [sys.executable, "-m", "memdir.cli.main", "hook", "claude-code", event]
    if env.get("MEMDIR_DEBUG"):  # where a hook is when its budget is nearly spent: a stack on its stderr
        argv[1:3] = ["-c", "import faulthandler, sys; faulthandler.dump_traceback_later(2.8); sys.argv[0] = 'memdir'; "
                     "from memdir.cli.main import main; main()"]
    t0 = time.perf_counter()
    r = subprocess.run(argv, input=data,
                       capture_output=True, cwd=str(project), env=env, timeout=120)
    ms = (time.perf_counter() - t0) * 1000
    block = ""
    if kind == "prompt" and r.stdout.strip():
        try:
            block = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            block = "(unreadable output) " + r.stdout.decode("utf-8", "replace")[:200]
    want = SEEDS[i % len(SEEDS)][3] if kind == "prompt" else None
    return {"kind": kind, "i": i, "token": token, "rc": r.returncode, "ms": ms, "block": block,
            "matched": bool(block) and block.startswith("<memory>") and want in block,
            "stderr": r.stderr.decode("utf-8", "replace")[-3000:]}


def stored_events(root: Path) -> dict[str, str]:
    """Every stored event ``{key: text}`` (``docs.text`` is generated through memdir's ``memdir_unz``)."""
    from memdir.store.sqlite.opening import add_functions

    con = sqlite3.connect(f"file:{root / '.memdir' / 'index.sqlite3'}?mode=ro", uri=True, timeout=30)
    try:
        add_functions(con)
        return dict(con.execute("SELECT ref, text FROM docs WHERE kind = 'event'"))
    finally:
        con.close()


def count_prefix(root: Path, prefix: str) -> int:
    """Committed events whose key starts with ``prefix`` (a read-only connection: WAL readers never wait)."""
    db = root / ".memdir" / "index.sqlite3"
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM docs WHERE kind = 'event' AND ref >= ? AND ref < ?",
                               (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1))).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def holds_lock(pid: int, root: Path) -> bool:
    """Whether process ``pid`` holds ``root``'s write lock (a ``flock`` listed in ``/proc/locks``; Linux only)."""
    try:
        ino = os.stat(root / ".memdir" / "write.lock").st_ino
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            for line in f:
                parts = line.split()
                if "FLOCK" in parts and "->" not in parts and len(parts) >= 6 and parts[4] == str(pid) \
                        and parts[5].rsplit(":", 1)[-1] == str(ino):
                    return True
    except OSError:
        pass
    return False


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (``/proc/<pid>/stat``; 0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def cli(args: list[str], *, home: Path, cwd: Path, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdir.cli.main", *args], capture_output=True, cwd=str(cwd),
                          env=env or worker_env(home), timeout=timeout)


def pct(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in (0, 1]), as bench/hook_latency.py."""
    s = sorted(samples)
    return s[max(0, math.ceil(q * len(s)) - 1)] if s else float("nan")


def run(work: Path, *, writers: int = 4, events: int = 100, notes: int = 10, import_events: int = 20_000,
        hooks: int = 30, hook_gap_s: float = 1.2, hook_parallel: int = 1, import_cpu_ms: float = 0.37,
        seed: int = 20261201, debug: bool = False, hook_budget_ms: float | None = None) -> dict:
    """One hostile day under ``work`` (a fresh directory); returns every figure (see the module docstring).

    ``hook_budget_ms``: the hooks' own budget (``MEMDIR_HOOK_BUDGET_MS``); None = the default ``hook.budget_ms``."""
    import memdir
    from memdir import config as cfgmod

    rng = random.Random(seed)
    project, home = work / "proj", work / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    root = project / ".memory"
    t_start = time.monotonic()
    with memdir.open(project, home=home) as m:
        for cat, text, _, _ in SEEDS:
            m.remember(text, category=cat)
    jsonl = work / "day.jsonl"
    written = build_import_file(jsonl, import_events, seed)
    res: dict = {"writers": writers, "events_per_writer": events, "notes_per_writer": notes, "import_lines": import_events,
                 "hooks": hooks, "load_start": os.getloadavg()[0], "import_cpu_ms": import_cpu_ms,
                 "budget_ms": hook_budget_ms or next(s[1] for s in cfgmod.SETTINGS if s[0] == "hook.budget_ms"),
                 "root_user": os.geteuid() == 0 if hasattr(os, "geteuid") else False}
    ep = HangingEndpoint()
    henv = hook_env(home, ep.url)
    if hook_budget_ms is not None:
        henv["MEMDIR_HOOK_BUDGET_MS"] = str(int(hook_budget_ms))
    if debug:  # each hook logs its steps and wall time in <home>/.memdir/debug.log
        henv["MEMDIR_DEBUG"] = "1"
    try:
        # 2 + 6. the long import, SIGINT at about half way (or once half its lines are committed), then again
        imp_state: dict = {}

        def importer() -> None:
            t0 = time.monotonic()
            p = subprocess.Popen([sys.executable, "-m", "memdir.cli.main", "import", str(jsonl)], cwd=str(project),
                                 env=worker_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # "half way": half its lines committed (an import that commits in batches), else, once it holds the write
            # lock (/proc/locks), half the CPU time its inserts take (lines x import_cpu_ms, measured on the 2-core
            # machine: CPU time, so other jobs' load does not move the moment), else a wall-time fallback
            held_at, cpu_at_lock = None, 0.0
            fallback = t0 + 30 + import_events / 500
            while p.poll() is None:
                now = time.monotonic()
                if held_at is None and holds_lock(p.pid, root):
                    held_at, cpu_at_lock = now, cpu_seconds(p.pid)
                if count_prefix(root, IMPORT_PREFIX) >= import_events // 2 or now >= fallback or (
                        held_at is not None
                        and cpu_seconds(p.pid) - cpu_at_lock >= 0.5 * import_events * import_cpu_ms / 1000):
                    break
                time.sleep(0.05)
            imp_state["lock_held_after_s"] = None if held_at is None else held_at - t0
            imp_state["sigint_at_s"] = time.monotonic() - t0
            imp_state["cpu_after_lock_s"] = cpu_seconds(p.pid) - cpu_at_lock if held_at is not None else None
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
            else:
                imp_state["finished_before_sigint"] = True
            _, err = p.communicate(timeout=600)
            imp_state.update(first_rc=p.returncode, first_err=err.decode("utf-8", "replace")[-300:],
                             first_s=time.monotonic() - t0, kept=count_prefix(root, IMPORT_PREFIX))
            t1 = time.monotonic()
            r = cli(["import", str(jsonl)], home=home, cwd=project, timeout=900)
            imp_state.update(rerun_s=time.monotonic() - t1, rerun_rc=r.returncode,
                             rerun_out=r.stdout.decode("utf-8", "replace").strip()[-300:],
                             rerun_err=r.stderr.decode("utf-8", "replace")[-300:])

        imp_thread = threading.Thread(target=importer)
        imp_thread.start()

        # 1 + 5. writers, started together; one is SIGKILLed after a random number of acknowledgements
        victim = rng.randrange(writers)
        kill_after = rng.randint(max(1, (events + notes) // 10), max(2, (events + notes) * 9 // 10))
        procs = [spawn({"project": str(project), "home": str(home), "wid": w, "seed": seed + w, "mode": "c7",
                        "events": events, "notes": notes, "barrier": True}, home) for w in range(writers)]
        for p in procs:
            assert p.stdout.readline().strip() == "READY"
        outputs: list[list[str]] = [[] for _ in procs]
        errs_text = [""] * writers

        def reader(w: int) -> None:
            p = procs[w]
            acks = 0
            for line in p.stdout:
                outputs[w].append(line)
                if line.startswith("ACK "):
                    acks += 1
                    if w == victim and acks == kill_after:
                        p.send_signal(signal.SIGKILL)
            errs_text[w] = p.stderr.read()
            p.wait(timeout=600)

        readers = [threading.Thread(target=reader, args=(w,)) for w in range(writers)]
        for t in readers:
            t.start()
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()

        # 3 + 4. hooks arriving meanwhile, against the hanging endpoint
        results: list[dict] = []
        with ThreadPoolExecutor(hook_parallel) as pool:
            futs = []
            for i in range(hooks):
                time.sleep(rng.uniform(0.5, 1.5) * hook_gap_s)
                futs.append(pool.submit(run_hook, "prompt" if i % 2 == 0 else "tool", i, project, henv))
            results = [f.result() for f in futs]
        for t in readers:
            t.join()
        imp_thread.join()
    finally:
        ep.close()
    res["endpoint_requests"] = ep.hits
    res["concurrent_s"] = time.monotonic() - t_start

    # the next writer stores what was queued while the lock was busy
    from memdir.engine import spool

    with memdir.open(project, home=home) as m:
        res["spooled_left"] = len(spool.pending(m.roots["project"]))
        m.capture({"role": "user", "session": "harness", "text": "end of the hostile day: count everything now"})
        res["spooled_after_final_writer"] = len(spool.pending(m.roots["project"]))

    # counts
    acked_events, acked_notes, worker_errs, skipped, spooled = set(), {}, [], 0, 0
    for w, lines in enumerate(outputs):
        acks, _, errs = parse(lines)
        worker_errs += [f"writer {w}: {e}" for e in errs]
        if "Traceback" in errs_text[w]:
            worker_errs.append(f"writer {w}: {errs_text[w][-300:]}")
        for a in acks:
            if a["op"] == "event":
                if a.get("stored"):
                    acked_events.add(a["key"])
                    spooled += a.get("reason") == "spooled"
                else:
                    skipped += 1
            elif a["op"] == "remember":
                acked_notes[a["id"]] = a["text"]
    res.update(victim=victim, kill_after=kill_after, victim_rc=procs[victim].returncode, worker_errors=worker_errs,
               other_rcs=[p.returncode for w, p in enumerate(procs) if w != victim], writer_skipped=skipped,
               writer_spooled=spooled)
    try:
        facts = check_store(project, home)
        res["store_check"] = "ok"
    except AssertionError as exc:
        res["store_check"] = f"failed: {str(exc)[:300]}"
        facts = None
    evs = stored_events(root)
    with memdir.open(project, home=home) as m:
        stored_notes = {n.id: n.text for n in m.inspect().notes}
    by_text: dict[str, int] = {}
    for t in evs.values():
        k = normalize(t)
        by_text[k] = by_text.get(k, 0) + 1

    def dups(texts) -> int:
        return sum(by_text.get(normalize(t), 0) - 1 for t in texts if by_text.get(normalize(t), 0) > 1)

    w_event_texts = [evs[k] for k in acked_events if k in evs]
    note_by_text: dict[str, int] = {}
    for t in stored_notes.values():
        note_by_text[normalize(t)] = note_by_text.get(normalize(t), 0) + 1
    res["writers_row"] = {
        "acked_events": len(acked_events), "acked_notes": len(acked_notes),
        "stored_events": sum(k in evs for k in acked_events), "stored_notes": sum(i in stored_notes for i in acked_notes),
        "lost": sum(k not in evs for k in acked_events) + sum(i not in stored_notes for i in acked_notes),
        "duplicated": dups(w_event_texts) + sum(note_by_text.get(normalize(t), 0) - 1 for t in set(acked_notes.values())
                                                if note_by_text.get(normalize(t), 0) > 1)}
    res["import_row"] = {
        "acked": len(written), "stored": sum(k in evs for k, _ in written), "lost": sum(k not in evs for k, _ in written),
        "duplicated": dups(t for _, t in written), **imp_state}
    tools = [r for r in results if r["kind"] == "tool"]
    prompts = [r for r in results if r["kind"] == "prompt"]
    tool_keys = {f"t:{SESSION}:toolu_hd{r['i']:03d}": r for r in tools}
    tool_texts = [evs[k] for k in tool_keys if k in evs]
    res["tool_row"] = {"hooks": len(tools), "exit0": sum(r["rc"] == 0 for r in tools),
                       "stored": sum(k in evs for k in tool_keys), "lost": sum(k not in evs for k in tool_keys),
                       "duplicated": dups(tool_texts), "ms": [r["ms"] for r in tools]}
    prompt_stored = sum(any(r["token"] in t for t in evs.values()) for r in prompts)
    res["prompt_row"] = {"hooks": len(prompts), "exit0": sum(r["rc"] == 0 for r in prompts), "stored": prompt_stored,
                         "blocks": sum(r["matched"] for r in prompts), "ms": [r["ms"] for r in prompts],
                         "unmatched": [(r["i"], r["block"][:120], r["stderr"][-120:]) for r in prompts if not r["matched"]]}
    res["stacks"] = [f"{r['kind']} {r['i']}: {r['stderr']}" for r in results if "Timeout (" in r["stderr"]]  # --debug
    res["integrity"] = integrity(root)
    d = cli(["doctor"], home=home, cwd=project)
    res["doctor_rc"], res["doctor_out"] = d.returncode, (d.stdout + d.stderr).decode("utf-8", "replace").strip()[-400:]
    res["total_events"] = len(evs)
    res["store_facts_ok"] = facts is not None

    # 7. a read-only copy of the project's memory
    res["readonly"] = readonly_phase(work, home, project)
    res["total_s"] = time.monotonic() - t_start
    res["load_end"] = os.getloadavg()[0]
    return res


def readonly_phase(work: Path, home: Path, project: Path) -> list[dict]:
    ro = work / "ro-proj"
    (ro / ".git").mkdir(parents=True)
    shutil.copytree(project / ".memory", ro / ".memory")
    subprocess.run(["chmod", "-R", "a-w", str(ro / ".memory")], check=True)
    mem = str(ro / ".memory")
    # root ignores mode bits: a read-only bind mount of the copy over itself is what a read-only volume is
    mounted = os.geteuid() == 0 and subprocess.run(["mount", "--bind", mem, mem], capture_output=True).returncode == 0
    if mounted and subprocess.run(["mount", "-o", "remount,ro,bind", mem, mem], capture_output=True).returncode != 0:
        subprocess.run(["umount", mem], capture_output=True)
        mounted = False
    READONLY_HOW[0] = "a read-only bind mount" if mounted else "`chmod -R a-w`"
    before = snapshot(ro / ".memory")
    out = []
    q = SEEDS[0][2]
    try:
        for name, args, stdin in [("memdir recall", ["recall", q], b""), ("memdir status", ["status"], b""),
                                  ("prompt hook", ["hook", "claude-code", "user-prompt"], hook_payload("prompt", 0, ro)[0])]:
            r = subprocess.run([sys.executable, "-m", "memdir.cli.main", *args], input=stdin, capture_output=True, cwd=str(ro),
                               env=worker_env(home), timeout=120)
            text = r.stdout.decode("utf-8", "replace")
            worked = r.returncode == 0 and (SEEDS[0][3] in text if name != "memdir status" else bool(text.strip()))
            after = snapshot(ro / ".memory")
            changed = sorted(set(after) ^ set(before) | {k for k in after if k in before and after[k][1] != before[k][1]})
            before = after
            out.append({"what": name, "rc": r.returncode, "worked": worked, "files_changed": len(changed),
                        "changed": changed[:4], "err": r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]})
    finally:
        if mounted:
            subprocess.run(["umount", mem], capture_output=True).returncode == 0 or \
                subprocess.run(["umount", "-l", mem], capture_output=True)
        subprocess.run(["chmod", "-R", "u+w", str(ro)], check=False)
    return out


READONLY_HOW = ["`chmod -R a-w`"]  # what phase 7 used, for the report


def ms3(samples: list[float]) -> str:
    if not samples:
        return "–"
    return f"{statistics.median(samples):,.0f} / {pct(samples, 0.95):,.0f} / {max(samples):,.0f}"


def table(r: dict) -> str:
    w, imp, tool, pr = r["writers_row"], r["import_row"], r["tool_row"], r["prompt_row"]
    b = f"{r['budget_ms']:,}"
    kept = "finished before the signal" if imp.get("finished_before_sigint") else f"kept {imp['kept']:,}"
    lines = [
        f"# Hostile day ({time.strftime('%Y-%m-%d', time.gmtime())}, `make hostile-day`, bench/hostile_day.py)",
        "",
        f"All at once on a temp project and home: {r['writers']} writer processes × ({r['events_per_writer']} captures + "
        f"{r['notes_per_writer']} notes), one SIGKILLed; a `memdir import` of {r['import_lines']:,} JSONL events SIGINTed "
        f"and run again; {r['hooks']} Claude Code hook processes on the hybrid channel against an embedding endpoint "
        "that never answers. Hook times are wall times of the whole process as a host sees it (interpreter start "
        f"included, which the hooks' own budget, {b} ms, does not count). A shared 2-core machine, load average "
        f"{r['load_start']:.1f} at the start and {r['load_end']:.1f} at the end.",
        "",
        "| phase | events acknowledged | stored | lost | duplicated | hooks (exit 0) | hook p50 / p95 / max ms (budget) "
        "| blocks injected / prompts |",
        "|---|---|---|---|---|---|---|---|",
        f"| 1+5. writers ({r['writers']} processes; writer {r['victim']} SIGKILLed after {r['kill_after']} acks) | "
        f"{w['acked_events']} events + {w['acked_notes']} notes | {w['stored_events']} + {w['stored_notes']} | {w['lost']} | "
        f"{w['duplicated']} | – | – | – |",
        f"| 2+6. import (SIGINT at {imp['sigint_at_s']:.1f} s: {kept}; re-run {imp['rerun_s']:.1f} s, exit {imp['rerun_rc']}) | "
        f"{imp['acked']:,} (the file) | {imp['stored']:,} | {imp['lost']} | {imp['duplicated']} | – | – | – |",
        f"| 3. post-tool-use hooks | {tool['exit0']} | {tool['stored']} | {tool['lost']} | {tool['duplicated']} | "
        f"{tool['hooks']} ({tool['exit0']}) | {ms3(tool['ms'])} ({b}) | – |",
        f"| 3+4. user-prompt hooks, hanging endpoint | – (prompts captured: {pr['stored']}) | – | – | – | "
        f"{pr['hooks']} ({pr['exit0']}) | {ms3(pr['ms'])} ({b}) | {pr['blocks']} / {pr['hooks']} |",
        "",
        f"- lost and duplicated are counted over what the harness wrote: acknowledged keys/ids missing from the store, and "
        f"stored events or notes whose normalized text appears more than once ({r['total_events']:,} events in the store).",
        f"- store after the run: `PRAGMA integrity_check` **{r['integrity']}**; consistency check (inspect, note files, "
        f"index.md/ROOT.md) **{r['store_check']}**; `memdir doctor` exit **{r['doctor_rc']}**.",
        f"- writers' captures queued in the spool (the lock was busy): {r['writer_spooled']}; queued files left when the "
        f"day ended: {r['spooled_left']}; after the next writer: {r['spooled_after_final_writer']}.",
        f"- the killed writer exited {r['victim_rc']}; the others {r['other_rcs']}; writer errors: "
        f"{len(r['worker_errors'])}; captures a gate refused: {r['writer_skipped']}.",
        f"- the interrupted import took the write lock at "
        + ("?" if imp.get("lock_held_after_s") is None else f"{imp['lock_held_after_s']:.1f} s")
        + f", was sent SIGINT at {imp['sigint_at_s']:.1f} s ("
        + ("?" if imp.get("cpu_after_lock_s") is None else f"{imp['cpu_after_lock_s']:.1f}")
        + f" s of its CPU after the lock: half of {r['import_lines']:,} lines × {r['import_cpu_ms']} ms), exited "
        f"{imp['first_rc']} and kept {imp['kept']:,} of {r['import_lines']:,} events; "
        f"the re-run printed: `{imp['rerun_out'][:160]}`.",
        "- a prompt hook without a block ran out of its budget and failed open (exit 0, no output); the hooks run "
        "one at a time, as one host session fires them, competing for the CPU with the writers and the import.",
        f"- the hanging endpoint received {r['endpoint_requests']} embedding request(s) from {pr['hooks']} prompt hooks: "
        "one deadline (`embed.recall_deadline_ms`) bounds a recall's embedding calls, a failure (0 requests when the "
        "deadline ran out before the request was sent) opens the breaker file, which keeps the next hooks from asking.",
        f"- wall time of the concurrent part {r['concurrent_s']:.0f} s; whole run {r['total_s']:.0f} s.",
        "",
        f"**7. A read-only copy** (`.memory/` copied to another project, then {READONLY_HOW[0]}"
        + ("; as root without a mount, mode bits are ignored and writes were not actually refused"
           if r["root_user"] and READONLY_HOW[0].startswith("`chmod") else "")
        + "): reads must work from it and change no file.",
        "",
        "| command | exit | worked | files changed in the copy |",
        "|---|---|---|---|",
    ]
    for x in r["readonly"]:
        lines.append(f"| {x['what']} | {x['rc']} | {'yes' if x['worked'] else 'no'} | {x['files_changed']}"
                     + (f" ({', '.join(x['changed'])})" if x["changed"] else "") + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--events", type=int, default=100, help="captures per writer")
    ap.add_argument("--notes", type=int, default=10, help="notes per writer")
    ap.add_argument("--import-events", type=int, default=20_000)
    ap.add_argument("--hooks", type=int, default=30)
    ap.add_argument("--hook-gap-s", type=float, default=1.2, help="mean gap between hook arrivals")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--hook-budget-ms", type=float, default=None, help="the hooks' budget (default: hook.budget_ms)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ap.add_argument("--work", type=Path, default=None, help="run in this new directory and keep it (default: a temp dir)")
    ap.add_argument("--debug", action="store_true", help="hooks write <work>/home/.memdir/debug.log")
    a = ap.parse_args()
    kw = dict(writers=a.writers, events=a.events, notes=a.notes, import_events=a.import_events, hooks=a.hooks,
              hook_gap_s=a.hook_gap_s, seed=a.seed, debug=a.debug, hook_budget_ms=a.hook_budget_ms)
    if a.work is not None:
        a.work.mkdir(parents=True)
        r = run(a.work, **kw)
    else:
        with tempfile.TemporaryDirectory(prefix="memdir-hostile-") as tmp:
            r = run(Path(tmp), **kw)
    md = table(r)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(md, encoding="utf-8")
    print(md)
    if a.json:
        print(json.dumps(r, default=str, indent=1))
    bad = (r["writers_row"]["lost"] + r["import_row"]["lost"] + r["tool_row"]["lost"] + r["writers_row"]["duplicated"]
           + r["import_row"]["duplicated"] + r["tool_row"]["duplicated"])
    sys.exit(1 if bad or r["integrity"] != "ok" else 0)


if __name__ == "__main__":
    main()

"""Tests of the speed benchmark (bench/speed.py) and its synthetic store generator (bench/synth.py).

A tiny run (200 items) checks that every table column is printed and the JSON is written; the generator
is checked for determinism and for the shape of what it yields. No wall-clock assertions.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import speed, synth  # noqa: E402


def _digest(items) -> str:
    return hashlib.sha256(json.dumps(list(items), ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def test_synth_is_deterministic():
    assert _digest(synth.events(300, seed=3)) == _digest(synth.events(300, seed=3))
    assert _digest(synth.notes(50, seed=3)) == _digest(synth.notes(50, seed=3))
    assert synth.queries(30, seed=3) == synth.queries(30, seed=3)
    assert _digest(synth.events(300, seed=3)) != _digest(synth.events(300, seed=4))
    # a prefix of a bigger store is the smaller store's texts (ts spacing depends on n, texts do not)
    small = [e["text"] for e in synth.events(50, seed=3)]
    big = [e["text"] for e in synth.events(500, seed=3)]
    assert big[:50] == small


def test_synth_shapes():
    evs = list(synth.events(400))
    assert len({e["key"] for e in evs}) == 400
    assert len({e["text"] for e in evs}) == 400  # no content-hash duplicates: every item gets stored
    assert all(synth.MIN_CHARS - 5 <= len(e["text"]) <= synth.MAX_CHARS for e in evs)
    assert {e["role"] for e in evs} == {"user", "assistant", "tool"}
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in e["text"]) for e in evs) > 100  # Chinese present
    assert sum(any("a" <= ch <= "z" for ch in e["text"]) for e in evs) > 100  # English present
    assert all("=" not in e["text"] and ":" not in e["text"] for e in evs)  # nothing the redactor rewrites
    ns = list(synth.notes(10))
    assert {n["category"] for n in ns} == set(synth.CATEGORIES)
    assert all(n["tags"] and n["summary"] for n in ns)
    with pytest.raises(ValueError):
        next(synth.events(-1))


def test_percentile_nearest_rank():
    xs = [float(x) for x in range(1, 21)]  # 1..20
    assert speed.percentile(xs, 50) == 10.0  # ceil(0.5 * 20) = 10th value
    assert speed.percentile(xs, 95) == 19.0  # ceil(0.95 * 20) = 19th value
    assert speed.percentile([5.0], 95) == 5.0
    with pytest.raises(ValueError):
        speed.percentile([], 50)


def test_split_counts():
    assert speed.split_counts(200) == (20, 180)
    assert speed.split_counts(100_000) == (speed.MAX_NOTES, 100_000 - speed.MAX_NOTES)


def test_bad_sizes_is_usage_error(capsys):
    assert speed.main(["--sizes", "abc", "--no-write"]) == 2
    assert "--sizes" in capsys.readouterr().err


@pytest.mark.slow  # over 7 s: CI runs it in `make test-slow`
@pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason="bm25s not installed (pip install 'memdir[bench]')")
def test_tiny_run_prints_every_column(tmp_path, capsys):
    rc = speed.main(["--sizes", "200", "--queries", "5", "--cold-repeat", "1", "--out", str(tmp_path), "--no-real",
                     "--rounds", "2", "--cache-dir", str(tmp_path / "cache")])
    assert rc == 0
    md = (tmp_path / "speed.md").read_text(encoding="utf-8")
    assert md in capsys.readouterr().out
    for col in speed.RECALL_COLUMNS + speed.INGEST_COLUMNS + speed.COLD_COLUMNS + speed.GOAL_COLUMNS:
        assert f" {col} |" in md, col
    assert "2-core" in md and "cores" in md
    data = json.loads((tmp_path / "speed.json").read_text(encoding="utf-8"))
    (size,) = data["sizes"]
    assert size["items"] == 200
    assert size["memdir"]["notes"] + size["memdir"]["events"] == 200
    assert size["memdir"]["lexical"]["n"] == 5 and size["reference"]["scan"]["n"] == 5
    assert size["memdir"]["database_bytes"] > 0 and size["memdir"]["peak_rss_mb"] > 0
    assert "python -c pass" in data["cold"]["times"]
    assert size["memdir"]["lexical"]["rounds"] == 2 and size["reference"]["bm25s"]["rounds"] == 2
    assert size["memdir"]["import_events_per_s"] > 0 and "database_bytes_open" in size["memdir"]
    assert "## Issue 12 goals" in md


def test_large_stores_are_built_once_and_reused(tmp_path, monkeypatch):
    monkeypatch.setattr(speed, "CACHE_MIN", 100)
    wd = tmp_path / speed.store_key(150, 7)
    first = speed.worker_memdir(150, wd, 3, 7, hybrid_max=0)
    assert first["cached"] is False and (wd / "build.json").exists()
    again = speed.worker_memdir(150, wd, 3, 7, hybrid_max=0)
    assert again["cached"] is True and again["import_events_per_s"] == first["import_events_per_s"]
    assert again["lexical"]["n"] == 3

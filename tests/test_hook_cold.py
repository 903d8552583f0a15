"""Issue 12: the new-process hook imports only what it uses and does no work a prompt hook does not need."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import memdir
from memdir.store.sqlite import opening

FIX = Path(__file__).parent / "fixtures" / "hooks"
#: modules the in-process hook path must not import: the debug log's logging (and its traceback/linecache chain), the
#: TOML parser without a config.toml, the other importers (claude-mem's pulls in urllib.request → http.client → email,
#: ssl), the tokenizer's and slug's CJK classes are not modules but are checked below
NOT_ON_THE_HOOK_PATH = ("logging", "traceback", "tomllib", "urllib.request", "http.client", "email", "ssl",
                        "tempfile", "memdir.debuglog", "memdir.portability.importers.claude_mem", "memdir.portability.importers.codex",
                        "memdir.portability.importers.opencode", "memdir.portability.importers.sqlite", "click", "memdir.engine.hybrid")


def _imported(stderr: bytes) -> set[str]:
    return {line.split("|")[-1].strip() for line in stderr.decode().splitlines() if line.startswith("import time:")}


def _hook(project: Path, home: Path, prompt: str) -> tuple[str, set[str]]:
    payload = (FIX / "claude_user_prompt.json").read_text(encoding="utf-8").replace("__CWD__", str(project))
    payload = json.dumps({**json.loads(payload), "prompt": prompt}, ensure_ascii=False)
    code = ("import sys; sys.argv = ['memdir', 'hook', 'claude-code', 'user-prompt']; import memdir.__main__ as e; "
            "e.main()")
    env = {**os.environ, "MEMDIR_HOOK_WARM": "0", "MEMDIR_HOME": str(home)}
    env.pop("MEMDIR_DEBUG", None)
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], input=payload.encode(), capture_output=True,
                       cwd=str(project), timeout=120, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.decode(), _imported(r.stderr)


def test_cold_hook_imports_only_what_it_uses_and_still_captures(project, tmp_path):
    home = tmp_path / "home"
    with memdir.open(project, home=home) as m:
        m.remember("The staging database listens on port 5433 at staging-db.internal.", category="facts")
        m.remember("部署脚本用 pnpm，数据库端口是 5433。", category="facts")
    for prompt in ("which port does the staging database use?", "数据库端口是多少？staging"):
        out, mods = _hook(project, home, prompt)
        assert "5433" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert "memdir.core" in mods and "memdir.capture.gates" in mods
        assert not set(NOT_ON_THE_HOOK_PATH) & mods, set(NOT_ON_THE_HOOK_PATH) & mods
    with memdir.open(project, home=home) as m:  # both prompts were captured (redacted, gated, stored)
        keys = {h.text for h in m.recall("staging database port 数据库端口", k=20, kinds=["event"])}
    assert {"which port does the staging database use?", "数据库端口是多少？staging"} <= keys


def test_opening_an_index_writes_nothing(project, tmp_path):
    """``PRAGMA auto_vacuum = INCREMENTAL`` is a write transaction and an fsync on an existing file: only a new
    file gets it (every hook process opened two indexes and paid it twice)."""
    with memdir.open(project, home=tmp_path / "home") as m:
        m.remember("deploy with pnpm", category="facts")
        path = m.roots["project"].db_path
    wal = Path(str(path) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    db, created = opening.open_index(path)
    try:
        assert not created
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # a new index vacuums incrementally, as before
        assert db.execute("SELECT count(*) FROM docs").fetchone()[0] == 1
        assert not wal.exists() or wal.stat().st_size == 0
    finally:
        db.close()


def test_lazy_logger_needs_logging_only_for_records_that_can_go_somewhere():
    code = """
import sys
from memdir.lazylog import getLogger
log = getLogger("memdir")
log.debug("dropped %s", 1)
log.info("dropped too")
assert "logging" not in sys.modules and not log.isEnabledFor(10)
log.warning("goes to stderr: %s", "lastResort")
assert "logging" in sys.modules
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "goes to stderr: lastResort" in r.stderr and "dropped" not in r.stderr


def test_lazy_logger_is_the_real_logger_once_logging_is_there(caplog):
    import logging

    from memdir.lazylog import getLogger

    log = getLogger("memdir.test")
    with caplog.at_level(logging.DEBUG, logger="memdir.test"):
        assert log.isEnabledFor(logging.DEBUG)
        log.debug("seen %d", 1)
        log.info("seen %d", 2)
    assert [r.getMessage() for r in caplog.records] == ["seen 1", "seen 2"]
    assert log.level == logging.getLogger("memdir.test").level  # any other attribute: the real logger's


def test_importers_load_on_first_use():
    code = """
import json, sys
import memdir.capture.tools
before = sorted(m for m in sys.modules if m.startswith(("memdir.portability.importers", "urllib.request", "http")))
from memdir.portability import importers
from memdir.portability.importers import *  # noqa: F403
names = sorted(importers.IMPORTERS)
print(json.dumps([before, names, importers.TOOL_SUMMARY_MAX_CHARS, callable(iter_codex)]))  # noqa: F405
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    before, names, cap, ok = json.loads(r.stdout)
    assert before == []  # the tool summaries (capture.tools) load no importer
    assert names == ["aider", "claude-code", "claude-export", "claude-mem", "codex", "dsh", "jsonl", "opencode", "specstory"] \
        and cap == 20_000 and ok


def test_date_expressions_are_compiled_only_for_a_text_that_may_name_a_date(monkeypatch):
    """The pre-check (a digit or one of a few words/characters) never hides a window the expressions would find."""
    import random
    from datetime import datetime, timezone

    from memdir.recall import dates

    now = datetime(2023, 5, 25, 12, tzinfo=timezone.utc)
    words = ("3 days ago", "two weeks ago", "last Saturday", "this past monday", "last weekend", "last month",
             "in the past 3 days", "the last few weeks", "yesterday", "the day before yesterday", "2023-05-20",
             "2023/5/2", "May 20, 2023", "on mar 3rd", "20th of May", "3 june", "三天前", "两个月之前", "昨天", "前天",
             "大前天", "上周六", "上个月", "去年", "前年", "5月20日", "2023年5月20日", "AGO", "LAST", "Yesterday", "١٢",
             "deploy", "the", "weeks", "of", "部署", "配置", "pnpm", " ", ",", "ſ", "K", "ı", "12", "a", "few", "ago")
    rng = random.Random(7)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    fast = [dates.windows(t, now) for t in texts]
    monkeypatch.setattr(dates, "_may_name_a_date", lambda low: True)
    assert [dates.windows(t, now) for t in texts] == fast
    assert sum(map(bool, fast)) > 1000  # the sample does name dates


# ---- the glossary's tables are made on demand: the same bridge as the whole table built at once -----------------
def _eager_bridge(text: str, tokens: list[str], weight: float) -> dict[str, float]:
    """memdir.recall.glossary.bridge as it was (f745412): both tables built whole, then looked up."""
    from memdir.recall.glossary import GLOSSARY, _bigrams, _en_tokens, is_cjk_char, normalize

    zh_en: dict[str, list[str]] = {}
    en_zh: dict[tuple[str, ...], list[str]] = {}
    for line in GLOSSARY.strip().splitlines():
        en, _, zh = line.partition("=")
        en_terms = [_en_tokens(w.strip()) for w in en.split(",") if w.strip()]
        zh_words = [w.strip() for w in zh.split(",") if len(w.strip()) >= 2]
        en_toks = [t for terms in en_terms for t in terms]
        zh_toks = [t for w in zh_words for t in _bigrams(w)]
        for w in zh_words:
            zh_en.setdefault(w, []).extend(en_toks)
        for terms in en_terms:
            en_zh.setdefault(terms, []).extend(zh_toks)
    longest = max(map(len, zh_en), default=0)
    by_first: dict[str, list] = {}
    for k, v in en_zh.items():
        by_first.setdefault(k[0], []).append((k, tuple(dict.fromkeys(v))))
    zh_en_t = {w: tuple(dict.fromkeys(v)) for w, v in zh_en.items()}
    if weight <= 0 or not isinstance(text, str) or not text:
        return {}
    have, out = set(tokens), {}
    if any(is_cjk_char(c) for c in text):
        t, i, found = normalize(text), 0, []
        while i < len(t):
            if not is_cjk_char(t[i]):
                i += 1
                continue
            for j in range(min(len(t), i + longest), i + 1, -1):
                if t[i:j] in zh_en_t:
                    found.append(t[i:j])
                    i = j
                    break
            else:
                i += 1
        for w in found:
            for x in zh_en_t[w]:
                if x not in have:
                    out[x] = weight
    for first in have:
        for terms, zh in by_first.get(first, ()):
            if all(x in have for x in terms[1:]):
                for x in zh:
                    if x not in have:
                        out[x] = weight
    return out


@pytest.mark.slow  # over 7 s: CI runs it in `make test-slow`
def test_glossary_on_demand_gives_the_whole_table_s_bridge():
    import random

    from memdir.recall import glossary
    from memdir.recall.tokenize import query_tokens

    lines = glossary.GLOSSARY.strip().splitlines()
    words = [w.strip() for line in lines for side in line.split("=") for w in side.split(",") if w.strip()]
    rng = random.Random(12)
    queries = words + ["我们怎么部署的？", "how do we deploy the database?", "open a pull request", "数据库迁移 and merge",
                       "部署 deploy", "", "pnpm", "参数客户端"]
    queries += [" ".join(rng.choice(words + ["的", "我们", "the", "please", "然后", "fix it"]) for _ in range(rng.randint(1, 6)))
                for _ in range(1500)]
    for q in queries:
        toks = query_tokens(q)
        assert list(glossary.bridge(q, toks, 0.5).items()) == list(_eager_bridge(q, toks, 0.5).items()), q

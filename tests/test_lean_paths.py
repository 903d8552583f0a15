"""Issue 12, item 4: the hook/recall path imports only what it uses; one static settings table; no feature
module imports the facade; the redaction pre-filter never hides a finding."""

import ast
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from memdir import config
from memdir.store.sqlite import opening
from memdir.capture import redact

SRC = Path(__file__).resolve().parents[1] / "src" / "memdir"
FEATURES = ["engine/hybrid.py", "engine/tiers.py", "capture/gates.py", "engine/rerank.py", "embed/__init__.py", "stores.py",
            "distill/flow.py"]  # warm, hooks, mcp: hosts of the facade


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            out.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_feature_module_imports_the_facade():
    for name in FEATURES:
        mods = _imports(SRC / name)
        assert not {".core", "..core", "memdir.core"} & mods, f"{name} imports the facade"


def test_every_key_is_in_the_static_table():
    static = {row[0] for row in config.SETTINGS}
    import memdir.capture.gates  # noqa: F401
    import memdir.distill.flow  # noqa: F401
    import memdir.embed  # noqa: F401
    import memdir.hosts.hooks  # noqa: F401
    import memdir.engine.tiers  # noqa: F401
    import memdir.engine.hybrid  # noqa: F401

    assert set(config.REGISTRY) == static  # importing the features added nothing


def test_config_lists_every_key_in_a_fresh_process(project):
    code = ("import json, sys; from memdir import config; c = config.Config(); "
            "print(json.dumps([[k for k, *_ in c.items()], sorted(m for m in sys.modules if m.startswith('memdir'))]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(project), timeout=120)
    keys, mods = json.loads(r.stdout)
    assert set(keys) == {row[0] for row in config.SETTINGS}
    assert "hook.budget_ms" in keys and "tiers.hot_max" in keys and "embed.provider" in keys
    assert not {"memdir.engine.hybrid", "memdir.engine.tiers", "memdir.embed", "memdir.capture.gates", "memdir.hosts.hooks"} & set(mods)


def test_cli_config_lists_feature_keys(project, monkeypatch):
    from memdir.cli.main import cli

    monkeypatch.chdir(project)
    r = CliRunner().invoke(cli, ["config", "--json"])
    assert r.exit_code == 0, r.output
    assert {"hook.budget_ms", "capture.daily_cap", "tiers.warm_max", "recall.rrf_k", "embed.batch"} <= set(json.loads(r.output))


def test_lexical_recall_and_capture_import_no_feature_or_cli_module(project):
    code = """
import json, sys
import memdir
with memdir.open(sys.argv[1]) as m:
    m.remember("deploy with pnpm", category="facts")
    m.import_events([{"key": "e1", "role": "user", "text": "how do we deploy the staging server", "session": "s"}])
    m.context("how to deploy")
    m.capture({"role": "user", "text": "deploy staging with pnpm please", "session": "s"})
print(json.dumps(sorted(sys.modules)))
"""
    r = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    mods = set(json.loads(r.stdout.splitlines()[-1]))
    for heavy in ("memdir.engine.hybrid", "memdir.engine.tiers", "memdir.embed", "click", "filelock", "numpy", "platformdirs"):
        assert heavy not in mods, heavy


def test_setting_embed_provider_is_still_checked(tmp_path):
    c = config.Config(overrides={"embed.provider": "no-such-provider"})
    assert c.get("embed.provider") == "none" and c.warnings
    assert config.Config(overrides={"embed.provider": "fake"}).get("embed.provider") == "fake"


def test_gate_covers_every_rule():
    """Each detector is reachable from the pre-filter's literal index (discord through its own shape check)."""
    indexed = {id(r) for _, rules in (*redact._EXACT_INDEX, *redact._LOWER_INDEX) for r in rules}
    for rule in (*redact._PROVIDER_RULES, *redact._KEYWORD_RULES):
        assert rule.kind == "discord_token" or id(rule) in indexed, rule.kind


def test_gate_skips_plain_text_and_keeps_findings():
    assert not redact._may_hold_secret("部署脚本用 pnpm 而不是 npm。", "部署脚本用 pnpm 而不是 npm。")
    for text in ("token = 8f3a9c1d2b7e4f60a1b2", "see postgres://app:hunter2x@db/prod",
                 "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs", "密码：Tr0ub4dor&3"):
        assert redact.find_secrets(text), text


# ---- storage (issue 12 item 3) ---------------------------------------------------------------------------------
def _wal(m):
    p = m.roots["project"].db_path
    w = p.with_name(p.name + "-wal")
    return w.stat().st_size if w.exists() else 0


def test_big_import_leaves_no_wal_and_forget_gives_space_back(m):
    import os

    evs = [{"key": f"e{i}", "role": "user", "text": f"turn {i} about deploying service {i % 97} with pnpm " * 8,
            "session": f"s{i // 50}"} for i in range(3000)]
    assert m.import_events(evs)["stored"] == 3000
    db = m.roots["project"].db
    assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # a new index vacuums incrementally
    assert _wal(m) == 0  # checkpointed and truncated after the bulk write
    assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0  # the pages FTS5's merges freed went back too
    size = os.path.getsize(m.roots["project"].db_path)
    for i in range(0, 3000, 2):
        db.execute("BEGIN IMMEDIATE")
        from memdir.store.sqlite import index

        index.delete_doc(db, f"e{i}")
        db.execute("COMMIT")
    assert m.forget("e1")
    assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0  # the freed pages went back to the file system
    assert os.path.getsize(m.roots["project"].db_path) < size
    assert [h.id for h in m.recall("deploying service 5", k=50) if h.id == "e5"] == ["e5"]


def test_doctor_converts_an_old_index(m, tmp_path):
    import sqlite3

    m.remember("deploy with pnpm", category="facts")
    path = m.roots["project"].db_path
    m.close()
    db = sqlite3.connect(str(path))
    opening.add_functions(db)  # docs.text is generated through memdir's memdir_unz (m009): VACUUM evaluates it
    db.execute("PRAGMA auto_vacuum = NONE")
    db.execute("VACUUM")
    assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    db.close()
    checks = m.doctor()
    assert any(c["check"] == "project storage" for c in checks)
    assert m.roots["project"].db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
    assert m.recall("pnpm")


# ---- issue 12: resync skips the listing when nothing changed; the thin hook client ---------------------------
def _age(root: Path, seconds: float = 3600) -> None:
    """Move every note file and directory of a memory root ``seconds`` into the past (a snapshot of them is then
    trusted: it is not within the racy window of the clock)."""
    import os
    import time

    when = time.time_ns() - int(seconds * 1e9)
    for p in sorted(root.rglob("*"), key=lambda x: -len(x.parts)) + [root]:
        if ".memdir" not in p.parts:
            os.utime(p, ns=(when, when))


def test_resync_sees_in_place_edits_new_and_deleted_files_after_a_trusted_snapshot(project, tmp_path):
    import os

    import memdir

    home = tmp_path / "g"
    live = memdir.open(project, home=home)
    try:
        a = live.remember("the deploy target is the staging cluster in frankfurt", category="facts")
        b = live.remember("the deploy window is friday afternoon", category="facts")
        root = a.path.parent.parent
        _age(root)
        live.recall("deploy")  # re-reads the notes (their mtimes moved) and recompiles the category index
        _age(root)
        assert {h.id for h in live.recall("deploy")} == {a.id, b.id}  # full scan: remembers the stats
        assert live.roots["project"]._seen is not None
        calls = []
        real_scan = live.roots["project"].scan
        live.roots["project"].scan = lambda: calls.append(1) or real_scan()
        assert {h.id for h in live.recall("deploy")} == {a.id, b.id}
        assert calls == []  # nothing changed: no listing
        # an editor rewrites a note in place, same size, an old but different mtime
        text = a.path.read_text(encoding="utf-8").replace("frankfurt", "helsinki")
        st = a.path.stat()
        with open(a.path, "w", encoding="utf-8") as f:
            f.write(text)
        os.utime(a.path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert [h.id for h in live.recall("helsinki")] == [a.id] and live.recall("frankfurt") == []
        assert calls
        _age(root)
        live.recall("deploy")
        # a file dropped into a category (by hand or another process) and one deleted
        (root / "facts" / "backup.md").write_text("---\nsummary: backups\n---\nnightly backup at 02:00\n", encoding="utf-8")
        assert [h.id for h in live.recall("nightly backup")] == ["facts/backup"]
        _age(root)
        live.recall("deploy")
        os.unlink(b.path)
        assert live.recall("friday") == []
    finally:
        live.close()


def test_thin_hook_client_finds_the_servers_socket(monkeypatch, tmp_path):
    from memdir.hosts import hookclient, warm

    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "h"))
    assert hookclient.socket_path() == str(warm.socket_path())
    assert hookclient.socket_path(str(tmp_path / "x")) == str(warm.socket_path(tmp_path / "x"))
    monkeypatch.delenv("MEMDIR_HOME")
    for xdg in (str(tmp_path / "xdg"), "", "  "):
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
        assert hookclient.socket_path() == str(warm.socket_path())
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert hookclient.socket_path() == str(warm.socket_path())


def test_thin_hook_client_json_is_json():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from memdir.hosts import hookclient

    @settings(max_examples=300, deadline=None)
    @given(st.text())
    def check(s):
        assert json.loads(hookclient.json_str(s)) == s.encode("utf-8", "replace").decode("utf-8", "replace") or \
            any("\ud800" <= c <= "\udfff" for c in s)

    check()
    req = json.loads(hookclient.request("claude-code", "user-prompt", '{"prompt": "a\\"b\n\u4e2d"}', None))
    assert req["v"] == hookclient.PROTOCOL and req["payload"] == '{"prompt": "a\\"b\n\u4e2d"}' and req["project_dir"] is None

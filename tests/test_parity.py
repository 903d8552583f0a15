"""Issue 13 (seed parity), the small items: forget by text/prefix, the embedding key in status and the global
.env, remember --title/--highlight, prune --force, near-duplicate notes, git worktrees sharing one memory,
recent/memory_list, role counts in inspect, the remember guidance. Half-life semantics and heat at import are
tested beside their modules (test_core_behaviour.py, test_tiers.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

import memdir
from memdir.cli.main import cli
from memdir.roots import main_worktree, project_root

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def run(args, home, proj, **kw):
    r = CliRunner().invoke(cli, ["--home", str(home), "--dir", str(proj), *args], catch_exceptions=False, **kw)
    return r


# ---- item 2: forget by text / by key prefix ---------------------------------------------------------------
def test_forget_query_previews_then_deletes_with_token(m, clock):
    a = m.remember("部署脚本用 PNPM 而不是 npm")
    m.remember("the cache lives in redis")
    m.import_events([{"key": "u:s:1", "session": "s", "text": "we switched   to pnpm today"},
                     {"key": "u:s:2", "session": "s", "text": "lunch was fine"}])
    pre = m.forget_matching(query="pnpm")
    assert pre["deleted"] is False and pre["count"] == 2 and pre["notes"] == 1 and pre["events"] == 1
    assert {x["id"] for x in pre["samples"]} == {a.id, "u:s:1"}
    assert m.get(a.id) is not None  # a preview deletes nothing
    assert m.forget_matching(query="SWITCHED TO PNPM")["count"] == 1  # case and spacing folded
    with pytest.raises(memdir.UsageError, match="token"):
        m.forget_matching(query="pnpm", token="0000000000")
    done = m.forget_matching(query="pnpm", token=pre["token"])
    assert done["deleted"] and done["count"] == 2
    assert m.get(a.id) is None and m.get("u:s:1") is None and m.get("u:s:2") is not None
    assert m.recall("pnpm") == []
    # tombstoned: a re-import of the same event stores nothing
    assert m.import_events([{"key": "u:s:1", "session": "s", "text": "we switched   to pnpm today"}])["stored"] == 0


def test_forget_query_token_is_tied_to_the_match_set(m):
    m.remember("deploy with pnpm")
    tok = m.forget_matching(query="pnpm")["token"]
    m.remember("pnpm lockfile is v9")
    with pytest.raises(memdir.UsageError, match="preview"):
        m.forget_matching(query="pnpm", token=tok)
    assert m.forget_matching(query="pnpm", force=True)["count"] == 2
    assert m.forget_matching(query="pnpm")["count"] == 0


def test_forget_prefix_undoes_an_import(m):
    m.import_events([{"key": f"import:oldtool:{i}", "text": f"imported line {i} about kafka"} for i in range(5)]
                    + [{"key": "u:s:9", "text": "kafka by hand"}])
    pre = m.forget_matching(prefix="import:oldtool")
    assert pre["count"] == 5 and pre["events"] == 5
    m.forget_matching(prefix="import:oldtool", token=pre["token"])
    assert [h.id for h in m.recall("kafka")] == ["u:s:9"]


def test_forget_matching_refuses_bad_requests(m):
    for kw in ({}, {"query": "x", "prefix": "y"}, {"query": " a "}, {"prefix": "  "}):
        with pytest.raises(memdir.UsageError):
            m.forget_matching(**kw)


def test_cli_forget_query_and_prefix(tmp_path, project):
    home = tmp_path / "g"
    run(["remember", "use pnpm for installs"], home, project)
    r = run(["forget", "--query", "PNPM"], home, project)
    assert r.exit_code == 0 and "1 memory matches" in r.output and "--token" in r.output
    tok = r.output.rsplit("--token ", 1)[1].split()[0]
    r = run(["--json", "forget", "--query", "PNPM", "--token", tok], home, project)
    assert r.exit_code == 0 and json.loads(r.output)["deleted"] is True
    r = CliRunner().invoke(cli, ["--home", str(home), "--dir", str(project), "forget", "--token", "x"])
    assert isinstance(r.exception, memdir.UsageError)
    r = CliRunner().invoke(cli, ["--home", str(home), "--dir", str(project), "--json", "forget", "--prefix", "import:none"])
    assert json.loads(r.stdout)["count"] == 0 and isinstance(r.exception, memdir.NotFound)  # exit 1: nothing matched


# ---- item 3: status/.env, --title, --highlight, prune --force ---------------------------------------------
def test_status_says_whether_the_key_is_set_never_its_value(tmp_path, project, monkeypatch):
    monkeypatch.delenv("MEMDIR_TEST_KEY", raising=False)
    home = tmp_path / "g"
    cfg = {"embed.api_key_env": "MEMDIR_TEST_KEY"}
    with memdir.open(project, home=home, config=cfg) as m:
        assert m.status()["embedding"]["api_key"] == {"env": "MEMDIR_TEST_KEY", "set": False, "source": None}
    home.mkdir(parents=True, exist_ok=True)
    (home / ".env").write_text("# keys\nMEMDIR_TEST_KEY='sk-fromdotenv1234567890'\n", encoding="utf-8")
    with memdir.open(project, home=home, config=cfg) as m:
        st = m.status()
        assert st["embedding"]["api_key"] == {"env": "MEMDIR_TEST_KEY", "set": True, "source": str(home / ".env")}
        assert "sk-fromdotenv" not in json.dumps(st)
    monkeypatch.setenv("MEMDIR_TEST_KEY", "sk-fromenv")
    with memdir.open(project, home=home, config=cfg) as m:
        assert m.status()["embedding"]["api_key"]["source"] == "environment"
    monkeypatch.setenv("MEMDIR_EMBED_API_KEY_ENV", "MEMDIR_TEST_KEY")
    r = run(["status"], home, project)
    assert "MEMDIR_TEST_KEY set (environment)" in r.output and "sk-fromenv" not in r.output


def test_openai_provider_reads_the_key_from_dotenv(tmp_path, project, monkeypatch):
    monkeypatch.delenv("MEMDIR_TEST_KEY", raising=False)
    home = tmp_path / "g"
    home.mkdir()
    (home / ".env").write_text("export MEMDIR_TEST_KEY=sk-dotenv-abc\n", encoding="utf-8")
    from memdir.embed.openai_compat import OpenAICompatProvider

    with memdir.open(project, home=home, config={"embed.api_key_env": "MEMDIR_TEST_KEY",
                                                  "embed.url": "http://127.0.0.1:9/v1/embeddings"}) as m:
        assert OpenAICompatProvider.from_config(m.config).api_key == "sk-dotenv-abc"


def test_remember_title_alias_and_highlight(tmp_path, project):
    home = tmp_path / "g"
    r = run(["--json", "remember", "pnpm, not npm", "--title", "包管理", "--highlight", "lockfiles differ"], home, project)
    note = json.loads(r.output)
    assert note["summary"] == "包管理" and note["highlight"] == "lockfiles differ"
    with memdir.open(project, home=home) as m:
        assert m.recall("lockfiles")[0].id == note["id"]  # the highlight is indexed with the title


def test_prune_force_deletes_only_cold_unpinned_events(tmp_path, project, clock):
    home = tmp_path / "g"
    clock.now = T0
    with memdir.open(project, home=home, clock=clock) as m:
        m.import_events([{"key": f"o{i}", "text": f"old chatter {i}", "ts": T0} for i in range(3)])
        m.remember("a curated note that stays")
        clock.now = T0 + timedelta(days=200)
        m.import_events([{"key": "fresh", "text": "fresh chatter"}])
        res = m.prune(90, force=True)
        assert res["deleted"] is True and res["count"] == 3
        assert m.get("fresh") is not None and len(m.inspect().notes) == 1
    r = run(["--json", "prune", "--days", "36500", "--force"], home, project)
    assert r.exit_code == 0 and json.loads(r.output)["count"] == 0


# ---- item 10: near-duplicate notes -------------------------------------------------------------------------
@pytest.mark.parametrize("again", ["use pnpm, not npm!", "Use  PNPM not npm", "use pnpm—not npm.", "ＵＳＥ pnpm, not npm"])
def test_near_duplicate_notes_are_reported_as_existing(m, again):
    first = m.remember("Use pnpm, not npm.")
    second = m.remember(again)
    assert second.existed and second.id == first.id
    assert len(m.inspect().notes) == 1


def test_different_notes_are_not_near_duplicates(m):
    m.remember("use C++ here")
    assert not m.remember("use C here").existed
    assert not m.remember("use pnpm, not npm").existed
    assert not m.remember("use npm, not pnpm").existed


# ---- item 9: git worktrees share the main repository's memory ---------------------------------------------
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_worktree_maps_to_the_main_repository(tmp_path):
    main = tmp_path / "repo"
    main.mkdir()
    git = lambda *a, cwd=main: subprocess.run(["git", *a], cwd=cwd, check=True, capture_output=True, text=True).stdout  # noqa: E731
    git("init", "-q")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init")
    wt = tmp_path / "wt" / "feature"
    git("worktree", "add", "-q", str(wt), "-b", "feature")
    (wt / "sub").mkdir()
    common = Path(git("rev-parse", "--path-format=absolute", "--git-common-dir", cwd=wt).strip())
    assert project_root(wt / "sub") == common.parent == main.resolve()
    assert project_root(main) == main
    with memdir.open(wt / "sub", home=tmp_path / "g") as m:
        note = m.remember("worktrees share one memory")
    assert note.path.is_relative_to(main / ".memory")
    assert not (wt / ".memory").exists()


def test_submodule_and_odd_git_files_keep_their_own_root(tmp_path):
    sub = tmp_path / "super" / "libs" / "x"
    sub.mkdir(parents=True)
    (tmp_path / "super" / ".git" / "modules" / "x").mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../../.git/modules/x\n")  # a submodule: no commondir
    assert main_worktree(sub) == sub
    (sub / ".git").write_text("garbage")
    assert main_worktree(sub) == sub


# ---- item 7: memory_list / recent, counts in inspect -------------------------------------------------------
def test_recent_lists_newest_by_kind_and_category(m, clock):
    m.remember("decided on pnpm", category="decisions")
    clock.now += timedelta(minutes=1)
    m.import_events([{"key": "u:s:1", "role": "user", "text": "first prompt here"},
                     {"key": "t:s:1", "role": "tool", "text": "Bash: ls"}])
    clock.now += timedelta(minutes=1)
    m.remember("redis holds the cache", category="facts")
    assert [h.id for h in m.recent(limit=2)][0].startswith("facts/")
    assert [h.kind for h in m.recent(kinds=["decision"])] == ["decision"]
    assert [h.id for h in m.recent(kinds=["user"])] == ["u:s:1"]
    assert [h.id for h in m.recent(category="facts")][0].startswith("facts/")
    assert len(m.recent(kinds=["event"])) == 2
    counts = m.inspect().counts["project"]
    assert counts["roles"] == {"user": 1, "tool": 1} and counts["categories"] == {"decisions": 1, "facts": 1}


def test_cli_recent(tmp_path, project):
    home = tmp_path / "g"
    run(["remember", "-c", "pitfalls", "sqlite busy timeout is 30 s"], home, project)
    r = run(["recent", "--kind", "pitfall"], home, project)
    assert r.exit_code == 0 and "pitfalls/" in r.output
    assert json.loads(run(["--json", "recent", "-n", "1"], home, project).output)[0]["kind"] == "pitfall"


# ---- item 12: guidance -------------------------------------------------------------------------------------
def test_guidance_in_mcp_instructions_and_readme():
    from memdir.server.mcp import INSTRUCTIONS

    for words in ("preferences", "decisions", "pitfalls", "conventions", "branch names", "file paths", "task"):
        assert words in INSTRUCTIONS
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert "safe to sync" in readme


# ---- where the seeds disagree: the other behaviour is a setting ------------------------------------------
def test_decay_curve_setting_offers_seed_004s_hyperbolic_decay(project, tmp_path, clock):
    from memdir.recall import rank

    assert rank.decay(28, 14, 0.1, curve="hyperbolic") == pytest.approx(1 / 3)
    assert rank.decay(14, 14, 0.1, curve="hyperbolic") == pytest.approx(0.5)
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"recall.decay_curve": "hyperbolic",
                                                                          "recall.decay_floor": 0.1}) as m:
        m.remember("the walrus service owns invoices")
        clock.now += timedelta(days=28)
        assert m.recall("walrus")[0].reasons["decay"] == pytest.approx(1 / 3, abs=1e-3)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_worktree_can_keep_its_own_memory(tmp_path, monkeypatch):
    main = tmp_path / "repo"
    main.mkdir()
    git = lambda *a: subprocess.run(["git", *a], cwd=main, check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init")
    git("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "x")
    assert project_root(tmp_path / "wt") == main.resolve()
    monkeypatch.setenv("MEMDIR_WORKTREE_MEMORY", "own")
    assert project_root(tmp_path / "wt") == tmp_path / "wt"


def test_reserved_device_name_never_becomes_a_slug(m):
    """Found by the hostile-text property test while landing issue 13: a note whose summary is `COM1…` got the id
    `facts/com1`, which forget then refused as a Windows device name."""
    note = m.remember("COM1\U0001dd07\xad\U00068c63\x14Ð")
    assert note.id == "facts/com1-note"
    assert m.forget(note.id)

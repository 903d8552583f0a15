import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

import memdir

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test with a clear message when it is absent (users' machines)."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"needs {p} (the team's shared data, present in CI but not in a user's checkout)")
    return p


class Clock:
    """An injectable clock: tests move time instead of sleeping."""

    def __init__(self, start=datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)):
        self.now = start

    def __call__(self):
        return self.now


@pytest.fixture(scope="session")
def _session_tmpdir():
    """One temporary directory for the run, open like /tmp (sticky, everyone may enter: a PostgreSQL test cluster's
    server user works in it), removed at the end: what memdir leaves for a user there (an edit's refused text) does
    not pile up in /tmp run after run."""
    import shutil
    import tempfile

    d = tempfile.mkdtemp(prefix="memdir-tests-")
    os.chmod(d, 0o1777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolate_home(tmp_path, monkeypatch, _session_tmpdir):
    # never touch the developer's real global root
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "global-home"))
    for k in list(os.environ):
        if k.startswith("MEMDIR_") and k != "MEMDIR_HOME":
            monkeypatch.delenv(k, raising=False)
    # hook subprocesses on a loaded CI machine must not trip the 3 s fail-open budget by accident
    # (tests of the budget itself pass --budget-ms explicitly)
    monkeypatch.setenv("MEMDIR_HOOK_BUDGET_MS", "60000")
    import tempfile

    monkeypatch.setenv("TMPDIR", _session_tmpdir)
    monkeypatch.setattr(tempfile, "tempdir", _session_tmpdir)


_CHECKOUT = Path(__file__).resolve().parents[1]


def _memory_dirs_near_the_checkout() -> list[Path]:
    """``.memory`` of this checkout and, when it is a git worktree, of the main repository (worktrees share it
    since issue 13): where a store opened without a project directory from the checkout would land."""
    out = [_CHECKOUT / ".memory"]
    dotgit = _CHECKOUT / ".git"
    if dotgit.is_file():  # a worktree: "gitdir: <main>/.git/worktrees/<name>"
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            out.append(Path(text[7:].strip()).resolve().parents[2] / ".memory")
    return out


@pytest.fixture(autouse=True)
def _no_memory_in_the_checkout():
    """A test must write under tmp_path only: fail the test that creates ``.memory`` in the checkout (a store
    opened with no project directory, from the repository as cwd)."""
    before = {p for p in _memory_dirs_near_the_checkout() if p.exists()}
    yield
    new = [p for p in _memory_dirs_near_the_checkout() if p.exists() and p not in before]
    if new:
        pytest.fail(f"this test created {', '.join(map(str, new))} (outside tmp_path): give the store a project directory")


@pytest.fixture(scope="session")
def pg():
    """A throwaway PostgreSQL cluster for the session (tests/pg_cluster.py); skips without the server binaries or
    psycopg, fails under MEMDIR_REQUIRE_POSTGRES=1."""
    import pg_cluster

    cluster = pg_cluster.start_cluster()
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg):
    """A fresh database of the session's cluster."""
    return pg.new_database()


@pytest.fixture(scope="session")
def pgvec():
    """A throwaway PostgreSQL cluster with pgvector (HNSW), from the ``pgserver`` package's bundled binaries
    (tests/pg_cluster.py); skips without pgserver or psycopg, fails under MEMDIR_REQUIRE_PGVECTOR=1."""
    import pg_cluster

    cluster = pg_cluster.start_vector_cluster()
    yield cluster
    cluster.stop()


@pytest.fixture
def pgvec_url(pgvec):
    """A fresh database of the pgvector cluster."""
    return pgvec.new_database()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def project(tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    return p


@pytest.fixture
def m(project, tmp_path, clock):
    store = memdir.open(project, home=tmp_path / "g", clock=clock)
    yield store
    store.close()


def run_cli(capsys, *args, stdin=None, monkeypatch=None):
    """``memdir ARGS`` through the real entry point, in this process: ``(exit code, stdout, stderr)``; ``stdin``
    (text) needs ``monkeypatch``."""
    import io
    import sys

    from memdir.cli import main as cli_mod

    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    try:
        cli_mod.main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


RULES_MARK = "<!-- notes in rules/ are injected into every prompt -->\n"


def add_root_rule(project, rule: str) -> None:
    """Write ``rule`` by hand into the project's ROOT.md, under its hard rules (as a person edits the page)."""
    page = project / ".memory" / "ROOT.md"
    page.write_text(page.read_text(encoding="utf-8").replace(RULES_MARK, f"{RULES_MARK}\n- {rule}\n", 1),
                    encoding="utf-8")


def pg_fts_rows(url):
    """A PostgreSQL team store's full-text rows and term counts, sorted: what a store written now must equal after a
    migration re-tokenizes an older one (tests of m014, m015)."""
    import psycopg

    with psycopg.connect(url) as c:
        fts = sorted(c.execute("SELECT d.ref, f.seq, f.tags, f.title, f.body, f.context, f.dl, f.tf::text "
                               "FROM fts f JOIN docs d ON d.id = f.doc_id").fetchall())
        df = sorted(c.execute("SELECT term, sum(df) FROM term_df GROUP BY term HAVING sum(df) <> 0").fetchall())
    return fts, df


def reopened_as_older(root_dir, home, text: str, dropped: str, caplog) -> bool:
    """A project at ``root_dir`` holding a note of ``text``, its index marked as built by the version before the
    ``dropped`` tail of :func:`memdir.store.sqlite.opening.index_version`, opened again: whether that open
    re-tokenized it (its one warning). The index's version is the current one afterwards either way."""
    import logging
    import sqlite3

    from memdir.store.sqlite import opening

    (root_dir / ".git").mkdir(parents=True)
    with memdir.open(root_dir, home=home) as m:
        m.remember(text)
        path = m.stores.root("project").db_path
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("UPDATE meta SET value = ? WHERE key = 'tokenizer'", (opening.index_version()[: -len(dropped)],))
    finally:
        db.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="memdir"):
        db, _ = opening.open_index(path)
    try:
        assert db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()[0] == opening.index_version()
    finally:
        db.close()
    return any("re-tokenizing" in r.getMessage() for r in caplog.records)

"""A throwaway PostgreSQL cluster for the tests (issue 14): ``initdb`` into a temporary directory, ``pg_ctl start``
listening on a unix socket only (no TCP port), stopped and deleted at the end of the session.

A cluster outlives its test run only if the run dies without reaching its teardown: the cluster is therefore also
stopped at interpreter exit (``atexit``) and on SIGTERM/SIGHUP (the handler stops it, then lets the signal do what it
did before), and every new cluster first sweeps the ones left behind: each cluster directory holds ``owner.json``
(the pid and start time of the process that made it); a cluster whose owner is gone is stopped and deleted
(:func:`sweep_stale`). A SIGKILLed run leaves its cluster until the next run sweeps it.

The server binaries come from Debian's ``postgresql`` package (``.ci/run`` installs it); they are looked up on
``PATH``, then under ``/usr/lib/postgresql/<version>/bin``. PostgreSQL refuses to run as root, so as root the cluster
belongs to the ``postgres`` user (created by the Debian package) and is started through ``runuser``. When no
binaries are found the tests skip with the reason, unless ``MEMDIR_REQUIRE_POSTGRES=1`` (set by ``.ci/run``), which
turns the skip into a failure.

pgvector (HNSW) tests use a second cluster started from the PyPI package ``pgserver``'s bundled binaries (PostgreSQL
16 with pgvector 0.6; the ``test`` extra installs it): :func:`start_vector_cluster`. Only its binaries are used (never
its Python API). As root, when the ``postgres`` user cannot read the package's directory, its server files are copied
into the cluster's temporary directory first. Without ``pgserver`` those tests skip with the reason, unless
``MEMDIR_REQUIRE_PGVECTOR=1`` (set by ``.ci/run``), which turns the skip into a failure.
"""

from __future__ import annotations

import atexit
import glob
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

REQUIRE = os.environ.get("MEMDIR_REQUIRE_POSTGRES", "").strip() in ("1", "true", "yes")
REQUIRE_PGVECTOR = os.environ.get("MEMDIR_REQUIRE_PGVECTOR", "").strip() in ("1", "true", "yes")


def _bindir() -> Path | None:
    for name in ("pg_ctl", "initdb"):
        found = shutil.which(name)
        if found and Path(found).resolve().with_name("postgres").exists():
            return Path(found).resolve().parent
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0,
                    reverse=True):
        if (Path(d) / "initdb").exists() and (Path(d) / "postgres").exists():
            return Path(d)
    return None


def pgserver_dir() -> Path | None:
    """``pginstall`` of the installed ``pgserver`` package (PostgreSQL + pgvector binaries), found without importing
    it; ``None`` when not installed or without pgvector."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("pgserver")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(list(spec.submodule_search_locations)[0]) / "pginstall"
    ok = (d / "bin" / "postgres").exists() and (d / "share" / "postgresql" / "extension" / "vector.control").exists()
    return d if ok else None


def _unavailable(reason: str, *, vector: bool = False):
    if vector and REQUIRE_PGVECTOR:
        pytest.fail(f"MEMDIR_REQUIRE_PGVECTOR=1 but {reason}", pytrace=False)
    if REQUIRE:
        pytest.fail(f"MEMDIR_REQUIRE_POSTGRES=1 but {reason}", pytrace=False)
    if vector:
        pytest.skip(f"{reason} (the pgvector tests need the `pgserver` package: `pip install -e '.[test,postgres]'`)")
    pytest.skip(f"{reason} (install Debian's postgresql package and psycopg, `pip install -e '.[postgres]'`)")


PREFIX = "memdir-pg-"
#: a cluster directory without ``owner.json`` (made before owners were recorded) is swept once it is this old
LEGACY_STALE_S = 6 * 3600

_live: list["Cluster"] = []
_hooked = False


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22), so a pid reused by
    another process is not taken for the owner; None where /proc is not there."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()[19]


def _alive(owner: dict) -> bool:
    pid = int(owner.get("pid") or 0)
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    started = owner.get("started")
    return started is None or _start_time(pid) in (None, started)


def _tool(bindir: Path, tool: str) -> list[str]:
    """The command running ``bindir/tool``. pgserver's relocatable build finds its libpq through an ``$ORIGIN`` rpath
    (``bin/../../../pgserver.libs``), which the dynamic loader resolves from ``/proc/self/exe``: where an unprivileged
    user cannot read ``/proc/self`` (some sandboxes) that fails ("libpq-….so: cannot open shared object file"), so
    the directory is also named in ``LD_LIBRARY_PATH`` (inherited by the ``postgres`` that ``pg_ctl`` starts)."""
    libs = bindir.parent.parent.parent / "pgserver.libs"
    env = ["env", f"LD_LIBRARY_PATH={libs}"] if libs.is_dir() else []
    return [*env, str(bindir / tool)]


def _stop_dir(d: Path, bindir: Path | None, as_user: str | None) -> None:
    """Stop the cluster in ``d`` (if its postmaster runs) and delete ``d``."""
    data = d / "data"
    if (data / "postmaster.pid").exists() and bindir is not None:
        cmd = [*_tool(bindir, "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "-t", "30", "stop"]
        if as_user:
            cmd = ["runuser", "-u", as_user, "--", *cmd]
        subprocess.run(cmd, capture_output=True, timeout=60)
    shutil.rmtree(d, ignore_errors=True)


def sweep_stale(tmp: str | None = None) -> list[str]:
    """Stop and delete clusters left by test runs that died before their teardown (SIGKILL, a crash, an older
    run without the exit handlers): a ``memdir-pg-*`` directory of the temp dir whose ``owner.json`` names a
    process that is gone, or, without ``owner.json``, one older than :data:`LEGACY_STALE_S`. Returns the
    directories removed."""
    import time

    gone = []
    bindir = _bindir()
    for d in sorted(Path(tmp or tempfile.gettempdir()).glob(PREFIX + "*")):
        try:
            if not d.is_dir():
                continue
            f = d / "owner.json"
            if f.exists():
                owner = json.loads(f.read_text() or "{}")
                if _alive(owner):
                    continue
            elif time.time() - d.stat().st_mtime < LEGACY_STALE_S:
                continue
            else:
                owner = {}
        except (OSError, ValueError):
            continue
        _stop_dir(d, bindir, owner.get("as_user") or ("postgres" if os.geteuid() == 0 else None))
        gone.append(str(d))
    return gone


def _stop_all() -> None:
    for c in list(_live):
        try:
            c.stop()
        except Exception:  # noqa: BLE001 — exiting anyway
            pass


def _on_signal(signum, frame) -> None:
    _stop_all()
    prev = _previous.get(signum, signal.SIG_DFL)
    if callable(prev):
        prev(signum, frame)
    else:  # the default action (terminate) for the same signal
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


_previous: dict[int, object] = {}


def _hook_exit() -> None:
    """Stop live clusters at interpreter exit and on SIGTERM/SIGHUP (once per process; signals only from the main
    thread, where Python allows a handler)."""
    global _hooked
    if _hooked:
        return
    _hooked = True
    atexit.register(_stop_all)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            prev = signal.getsignal(sig)
            if prev is signal.SIG_IGN:
                continue
            _previous[sig] = prev
            signal.signal(sig, _on_signal)


class Cluster:
    """A running cluster: ``url(db)`` gives a ``postgresql://`` URL over its unix socket."""

    def __init__(self, settings: str = "-c shared_buffers=32MB", *, bindir: Path | None = None) -> None:
        self.bindir = bindir or _bindir()
        if self.bindir is None:
            _unavailable("the PostgreSQL server binaries (initdb, pg_ctl, postgres) are not installed")
        self.as_user: str | None = None
        if os.geteuid() == 0:  # postgres will not run as root
            try:
                pwd.getpwnam("postgres")
                self.as_user = "postgres"
            except KeyError:
                self.as_user = "nobody"
        sweep_stale()
        _hook_exit()
        self.dir = Path(tempfile.mkdtemp(prefix=PREFIX))
        self.data = self.dir / "data"
        self.sock = self.dir
        (self.dir / "owner.json").write_text(json.dumps({"pid": os.getpid(), "started": _start_time(os.getpid()),
                                                         "as_user": self.as_user}))
        self._stopped = False
        _live.append(self)
        if self.as_user:
            pw = pwd.getpwnam(self.as_user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        os.chmod(self.dir, 0o755)  # the client (this user) reaches the socket inside
        if self.as_user and not self._reachable():
            self.bindir = self._copy_install()
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "memdir", "-E", "UTF8", "--locale=C.UTF-8",
                  "--no-sync")
        opts = f"-k {self.sock} -c listen_addresses='' -F -c max_connections=60 {settings}"
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-w", "-t", "60", "-l", str(self.dir / "server.log"), "start")
        self._dbs = 0

    def _reachable(self) -> bool:
        """Whether the server's user can run ``postgres`` and read the extension files beside it."""
        share = self.bindir.parent / "share"  # a relocatable build's extension files (Debian keeps them elsewhere)
        probe = ["runuser", "-u", self.as_user, "--", "sh", "-c", 'test -x "$1/postgres" && test -x "$2"', "sh",
                 str(self.bindir), str(share if share.exists() else self.bindir)]
        return subprocess.run(probe, capture_output=True).returncode == 0

    def _copy_install(self) -> Path:
        """Copy an installation the server's user cannot reach (e.g. pgserver in a virtualenv under /root) into the
        cluster's directory, keeping its layout (pgserver's tools find their libpq at ``bin/../../../pgserver.libs``);
        returns the new ``bin``."""
        src = self.bindir.parent
        dst = self.dir / "install" / src.parent.name / src.name
        for part in ("bin", "lib", "share"):
            if (src / part).exists():
                shutil.copytree(src / part, dst / part, symlinks=True)
        libs = src.parent.parent / f"{src.parent.name}.libs"  # pgserver.libs beside the package (auditwheel)
        if libs.exists():
            shutil.copytree(libs, self.dir / "install" / libs.name, symlinks=True)
        for root, dirs, files in os.walk(self.dir / "install"):
            for n in dirs + files:
                p = os.path.join(root, n)
                if not os.path.islink(p):
                    os.chmod(p, os.stat(p).st_mode | 0o055)
        os.chmod(self.dir / "install", 0o755)
        return dst / "bin"

    def _run(self, tool: str, *args: str) -> None:
        cmd = [*_tool(self.bindir, tool), *args]
        if self.as_user:
            cmd = ["runuser", "-u", self.as_user, "--", *cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            log = (self.dir / "server.log").read_text(errors="replace")[-2000:] if (self.dir / "server.log").exists() else ""
            raise RuntimeError(f"{tool} failed ({r.returncode}): {r.stderr.strip()[-2000:]}\n{log}")

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://memdir@/{db}?host={self.sock}"

    def new_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        self._dbs += 1
        name = f"t{os.getpid()}_{self._dbs}"
        with psycopg.connect(self.url(), autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self in _live:
            _live.remove(self)
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def start_cluster() -> Cluster:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg (the PostgreSQL driver, memdir's `postgres` extra) is not installed")
    return Cluster()


def start_vector_cluster() -> Cluster:
    """A cluster from ``pgserver``'s binaries, where ``CREATE EXTENSION vector`` works (pgvector with HNSW)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg (the PostgreSQL driver, memdir's `postgres` extra) is not installed", vector=True)
    d = pgserver_dir()
    if d is None:
        _unavailable("the `pgserver` package (PostgreSQL + pgvector binaries) is not installed", vector=True)
    return Cluster(bindir=d / "bin")

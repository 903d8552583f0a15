"""A throwaway PostgreSQL cluster for the tests (issue 14): ``initdb`` into a temporary directory, ``pg_ctl start``
listening on a unix socket only (no TCP port), stopped and deleted at the end of the session.

The server binaries come from Debian's ``postgresql`` package (``.ci/run`` installs it); they are looked up on
``PATH``, then under ``/usr/lib/postgresql/<version>/bin``. PostgreSQL refuses to run as root, so as root the cluster
belongs to the ``postgres`` user (created by the Debian package) and is started through ``runuser``. When no
binaries are found the tests skip with the reason, unless ``MEMDIR_REQUIRE_POSTGRES=1`` (set by ``.ci/run``), which
turns the skip into a failure.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REQUIRE = os.environ.get("MEMDIR_REQUIRE_POSTGRES", "").strip() in ("1", "true", "yes")


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


def _unavailable(reason: str):
    if REQUIRE:
        pytest.fail(f"MEMDIR_REQUIRE_POSTGRES=1 but {reason}", pytrace=False)
    pytest.skip(f"{reason} (install Debian's postgresql package and psycopg, `pip install -e '.[postgres]'`)")


class Cluster:
    """A running cluster: ``url(db)`` gives a ``postgresql://`` URL over its unix socket."""

    def __init__(self, settings: str = "-c shared_buffers=32MB") -> None:
        self.bindir = _bindir()
        if self.bindir is None:
            _unavailable("the PostgreSQL server binaries (initdb, pg_ctl, postgres) are not installed")
        self.as_user: str | None = None
        if os.geteuid() == 0:  # postgres will not run as root
            try:
                pwd.getpwnam("postgres")
                self.as_user = "postgres"
            except KeyError:
                self.as_user = "nobody"
        self.dir = Path(tempfile.mkdtemp(prefix="memdir-pg-"))
        self.data = self.dir / "data"
        self.sock = self.dir
        if self.as_user:
            pw = pwd.getpwnam(self.as_user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        os.chmod(self.dir, 0o755)  # the client (this user) reaches the socket inside
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "memdir", "-E", "UTF8", "--locale=C.UTF-8",
                  "--no-sync")
        opts = f"-k {self.sock} -c listen_addresses='' -F -c max_connections=60 {settings}"
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-w", "-t", "60", "-l", str(self.dir / "server.log"), "start")
        self._dbs = 0

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bindir / tool), *args]
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
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def start_cluster() -> Cluster:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg (the PostgreSQL driver, memdir's `postgres` extra) is not installed")
    return Cluster()

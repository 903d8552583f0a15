"""The warm hook path: a running ``memdir serve`` answers ``memdir hook …`` calls over a local socket.

A hook is a new process per prompt; most of its cost is start-up (imports, opening SQLite, reading the config).
While ``memdir serve`` runs, it also listens on a Unix socket in the global root, ``<home>/.memdir/hook.sock``
(mode 0600), and keeps the stores it opened; a hook process then only sends its payload there and prints the
answer. When no server answers (no socket, a stale one, a refusal) the hook runs in-process as before, so the
socket is only ever a shortcut.

Protocol: one JSON line as the request, ``{"v": 2, "host", "event", "payload" (the raw stdin text),
"project_dir", "cwd", "env" (the caller's ``MEMDIR_*`` variables)}``; the answer — sent as soon as the block is
known, before captures are written — is ``"1\n"`` and the text for the host, or ``"0\n"`` and a reason when the
server declines (another ``MEMDIR_*`` environment than its own), and the caller runs in-process. The client is
:mod:`memdir.hosts.hookclient` (standard library only, so a hook process imports nothing else when a server answers).
Protocol 1 requests (answer ``{"ok": true, "out"}`` / ``{"ok": false, "why"}`` as one JSON line) are still
answered.

``MEMDIR_HOOK_WARM=0`` (config key ``hook.warm``) turns the client off; a server started with ``hook.warm =
false`` in its config does not open the socket.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any, Callable

import memdir.foreground as foreground

log = logging.getLogger("memdir")

SOCKET_NAME = "hook.sock"
PROTOCOL = 2  # memdir.hosts.hookclient; protocol 1 (a JSON answer line) is still answered
CONNECT_TIMEOUT_S = 0.25
MAX_REQUEST_BYTES = 16 * 1024 * 1024 + 65536


def socket_path(home: str | os.PathLike | None = None) -> Path:
    """``<global root>/.memdir/hook.sock`` for ``home`` (as :func:`memdir.open`)."""
    from memdir.roots import DERIVED_DIRNAME, global_root

    return global_root(home) / DERIVED_DIRNAME / SOCKET_NAME


def enabled(env: dict[str, str] | None = None) -> bool:
    """False when ``MEMDIR_HOOK_WARM`` is 0/false/no/off."""
    v = (os.environ if env is None else env).get("MEMDIR_HOOK_WARM", "").strip().lower()
    return v not in ("0", "false", "no", "off")


def _env_signature(env: dict[str, str]) -> dict[str, str]:
    from memdir.hosts.hookclient import env_signature

    return env_signature(env)


# ---- client ------------------------------------------------------------------------------------------------
def ask(host: str, event: str, payload: str, *, project_dir: str | None = None, home: str | os.PathLike | None = None,
        timeout_s: float = 3.0) -> str | None:
    """Send one hook call to a running server (:func:`memdir.hosts.hookclient.ask`, the stdlib-only client a hook
    process uses); returns the host's output (``""`` for none), or ``None`` when no server took the call (no
    socket, refused, declined, broken answer) so the caller runs it in-process. A server that accepted the call
    but does not answer within ``timeout_s`` counts as "no output" (``""``): the hook fails open rather than
    doing the work twice."""
    from memdir.hosts.hookclient import ask as thin_ask

    return thin_ask(host, event, payload, project_dir=project_dir, home=None if home is None else str(home),
                    timeout_s=timeout_s)


# ---- server ------------------------------------------------------------------------------------------------
class WarmServer:
    """Answers hook calls on :func:`socket_path` from a thread of the calling process, keeping one open
    :class:`memdir.core.Memdir` per project (re-opened when a ``config.toml`` changes or an index file is
    replaced; hand edits of the Markdown are synced by the calls that read them). Calls are served one at a time.

    ``start()`` returns False (and logs why) when another live server holds the socket or it cannot be bound."""

    MAX_STORES = 8

    def __init__(self, home: str | os.PathLike | None = None, *, config: dict[str, Any] | None = None,
                 run: Callable[..., str] | None = None):
        self.home = home
        self.config = config
        self.path = socket_path(home)
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.RLock()
        self._stores: dict[tuple, tuple[tuple, Any]] = {}
        self._inode: int | None = None
        self._stop = threading.Event()
        self._run = run
        self._env = _env_signature(dict(os.environ))  # the settings this server's stores are opened with
        self.served = 0

    # lifecycle
    def start(self) -> bool:
        from memdir.roots import private_derived  # 0700: what is in it is one person's
        private_derived(self.path.parent)
        if self.path.exists() or self.path.is_symlink():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(CONNECT_TIMEOUT_S)
            try:
                probe.connect(str(self.path))
                log.warning("memdir: another memdir serve answers hooks on %s; this one does not", self.path)
                return False
            except OSError:
                try:
                    self.path.unlink()  # stale: its server is gone
                except OSError:
                    pass
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        except OSError as exc:
            sock.close()
            log.warning("memdir: cannot listen for hooks on %s (%s); hooks run in their own process", self.path, exc)
            return False
        finally:
            os.umask(old)
        sock.listen(16)
        sock.settimeout(0.5)
        self._sock = sock
        self._inode = os.stat(self.path).st_ino
        self._thread = threading.Thread(target=self._loop, name="memdir-warm-hooks", daemon=True)
        self._thread.start()
        log.debug("warm hooks: listening on %s", self.path)
        return True

    def close(self) -> None:
        """Stop listening, remove the socket (if still ours) and close the stores (safe to call twice)."""
        self._stop.set()
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
            self._sock = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        try:
            if self._inode is not None and os.stat(self.path).st_ino == self._inode:
                self.path.unlink()
        except OSError:
            pass
        self._inode = None
        with self._lock:
            for _, m in self._stores.values():
                try:
                    m.close()
                except Exception:  # noqa: BLE001
                    pass
            self._stores.clear()

    def __enter__(self) -> "WarmServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _loop(self) -> None:
        while not self._stop.is_set():
            sock = self._sock
            if sock is None:
                return
            try:
                conn, _ = sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            fg = foreground.active()  # from here on a background postings build steps aside (memdir.foreground)
            fg.__enter__()
            try:
                threading.Thread(target=self._serve_one, args=(conn, fg), daemon=True).start()
            except BaseException:
                fg.__exit__(None, None, None)
                raise

    @property
    def lock(self) -> Any:
        """The lock every call on this server's stores holds (re-entrant; ``memdir serve``'s MCP tools take it too)."""
        return self._lock

    def store_for(self, project_dir: str | None):
        """The open :class:`memdir.core.Memdir` of ``project_dir`` that hook calls use (opened if needed; held
        postings included): ``memdir serve``'s MCP tools use it too, under :attr:`lock`."""
        with self._lock:
            return self._store(project_dir)

    def prewarm(self, project_dir: str | None) -> threading.Thread:
        """Open the store of ``project_dir`` now, in a thread, and start building its postings (``memdir serve``
        calls this at start: the first hooks then find them built, or built while they were answered from SQL,
        instead of starting the build themselves). Returns the thread."""

        def run() -> None:
            try:
                with self._lock:
                    self._store(project_dir).keep_warm(start=True)
            except Exception as exc:  # noqa: BLE001 — a hook opens the store itself then
                log.debug("warm hooks: prewarm of %s failed: %s: %s", project_dir, type(exc).__name__, exc)

        t = threading.Thread(target=run, name="memdir-prewarm", daemon=True)
        t.start()
        return t

    # one call
    def _serve_one(self, conn: socket.socket, fg: Any = None) -> None:
        answered = False
        version = PROTOCOL

        def answer(obj: dict[str, Any]) -> None:
            nonlocal answered
            if answered:
                return
            answered = True
            if version == 1:
                data = json.dumps(obj, ensure_ascii=False).encode("utf-8", "replace") + b"\n"
            else:  # protocol 2: a status line, then the output as is (the client needs no JSON decoder)
                data = (b"1\n" + str(obj.get("out") or "").encode("utf-8", "replace") if obj.get("ok")
                        else b"0\n" + str(obj.get("why") or "").encode("utf-8", "replace"))
            try:
                conn.sendall(data)
                conn.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        try:
            conn.settimeout(5.0)
            buf = bytearray()
            while len(buf) < MAX_REQUEST_BYTES:
                chunk = conn.recv(1 << 20)
                if not chunk:
                    break
                buf += chunk
            req = json.loads(buf.decode("utf-8", "replace"))
            if not isinstance(req, dict) or req.get("v") not in (1, PROTOCOL):
                answer({"ok": False, "why": "protocol"})
                return
            version = req["v"]
            if _env_signature(req.get("env") or {}) != self._env:
                answer({"ok": False, "why": "different MEMDIR_* environment"})
                return
            with self._lock:
                self.served += 1
                self._call(req, lambda out: answer({"ok": True, "out": out}))
        except Exception as exc:  # noqa: BLE001 — fail open: the hook prints nothing
            log.debug("warm hook call failed open: %s: %s", type(exc).__name__, exc, exc_info=True)
        finally:
            answer({"ok": True, "out": ""})
            try:
                conn.close()
            except OSError:
                pass
            if fg is not None:  # the call is over (captures included): background work goes on
                fg.__exit__(None, None, None)

    def _call(self, req: dict[str, Any], emit: Callable[[str], None]) -> None:
        from memdir.hosts.hooks import run_hook

        cwd = req.get("cwd") if isinstance(req.get("cwd"), str) else None
        run = self._run or run_hook
        run(str(req.get("host") or ""), str(req.get("event") or ""), req.get("payload"),
            project_dir=req.get("project_dir") or None, home=self.home, config=self.config, emit=emit,
            open_store=lambda project_dir: self._store(project_dir or cwd))

    def _store(self, project_dir: str | None):
        """The open store for ``project_dir`` (re-opened when its config files or index files changed)."""
        from memdir.core import Memdir
        from memdir.roots import global_root, project_root

        proj = str(project_root(project_dir, home=global_root(self.home)))
        stamp = None
        cached = self._stores.get((proj,))
        m = cached[1] if cached else None
        if m is not None:
            stamp = _stamp(m)
            if stamp != cached[0]:
                m.close()
                m = None
        if m is None:
            m = Memdir(proj, home=self.home, config=self.config)
            m.keep_warm()  # recall's postings held in memory while the server runs (memdir.store.sqlite.postings)
            stamp = _stamp(m)
            if len(self._stores) >= self.MAX_STORES:
                _, (_, oldest) = next(iter(self._stores.items()))
                oldest.close()
                self._stores.pop(next(iter(self._stores)))
        # hand edits since the last call: the calls that read notes (context, recall) resync themselves (a stat per
        # note); doing it here as well stat'ed every note twice per hook
        self._stores[(proj,)] = (stamp, m)
        return m


def _stamp(m) -> tuple:
    """What makes a kept store stale: its config files and its index files (mtime/inode)."""
    out: list[Any] = []
    for p in (m.roots["global"].path / "config.toml", m.roots["project"].path / "config.toml",
              m.roots["project"].db_path, m.roots["global"].db_path):
        try:
            st = os.stat(p)
            out.append((st.st_ino, st.st_mtime_ns) if p.name == "config.toml" else st.st_ino)
        except OSError:
            out.append(None)
    return tuple(out)

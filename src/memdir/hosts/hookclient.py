"""The thin hook client: ``memdir hook <host> <event>`` asks a running ``memdir serve`` before anything else.

A host starts a new process for every hook event, so what that process imports is paid on every prompt. This
module uses the standard library's C parts only (``os``, ``sys``, ``time``, ``_socket``, ``select`` for a stdin left
open; no ``json``, ``re``, ``socket``,
``logging`` or ``pathlib``, and nothing else of memdir): when a warm server answers, the hook costs the
interpreter start-up plus one round trip (issue 12). When no server answers — no socket, refused, declined,
``MEMDIR_HOOK_WARM=0``, ``MEMDIR_DEBUG`` on (the full path logs), a platform without Unix sockets — the caller
runs the in-process hook (:mod:`memdir.hosts.hooks`) with the payload already read.

Protocol 2 (:mod:`memdir.hosts.warm` serves 1 and 2): the request is one JSON line, as in protocol 1; the answer is
``"1\\n"`` followed by the host's output (UTF-8, as is), or ``"0\\n"`` and a reason when the server declines.
"""

from __future__ import annotations

import os
import sys
import time

PROTOCOL = 2
SOCKET_NAME = "hook.sock"
CONNECT_TIMEOUT_S = 0.25
DEFAULT_BUDGET_MS = 3000.0  # hooks.DEFAULT_BUDGET_MS
MAX_PAYLOAD_BYTES = 16 * 1024 * 1024  # a hook payload larger than this is cut (hooks uses this value)
#: variables that may differ between the hook process and the server without changing what a hook does
ENV_FREE = frozenset({"MEMDIR_HOME", "MEMDIR_PROJECT_DIR", "MEMDIR_HOOK_BUDGET_MS", "MEMDIR_DEBUG", "MEMDIR_HOOK_WARM"})
_TRUE = ("1", "true", "yes", "on")


class Args:
    """``memdir hook`` arguments: ``[--budget-ms N] [--dir D] [--home H] <host> [<event> [<payload>]]``."""

    __slots__ = ("host", "event", "argv_payload", "project_dir", "home", "budget_ms")

    def __init__(self, host, event, argv_payload, project_dir, home, budget_ms):
        self.host, self.event, self.argv_payload = host, event, argv_payload
        self.project_dir, self.home, self.budget_ms = project_dir, home, budget_ms


def parse_args(args: list[str]) -> Args | None:
    """The hook's arguments (``None`` without a host). Unknown ``--options`` are ignored."""
    budget = None
    project_dir = os.environ.get("MEMDIR_PROJECT_DIR") or None
    home = None
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--budget-ms", "--dir", "--home") and i + 1 < len(args):
            val = args[i + 1]
            if a == "--budget-ms":
                try:
                    budget = float(val)
                except ValueError:
                    pass
            elif a == "--dir":
                project_dir = val
            else:
                home = val
            i += 2
            continue
        if not a.startswith("--"):
            rest.append(a)
        i += 1
    if not rest:
        return None
    return Args(rest[0], rest[1] if len(rest) > 1 else None, rest[2] if len(rest) > 2 else None, project_dir, home,
                budget)


def env_budget_ms() -> float:
    """``MEMDIR_HOOK_BUDGET_MS`` when it is a positive number, else the default 3,000 ms."""
    try:
        v = float(os.environ.get("MEMDIR_HOOK_BUDGET_MS", DEFAULT_BUDGET_MS))
        return v if v > 0 else DEFAULT_BUDGET_MS
    except ValueError:
        return DEFAULT_BUDGET_MS


def enabled(env=None) -> bool:
    """False when ``MEMDIR_HOOK_WARM`` is 0/false/no/off."""
    v = (os.environ if env is None else env).get("MEMDIR_HOOK_WARM", "").strip().lower()
    return v not in ("0", "false", "no", "off")


def env_signature(env) -> dict[str, str]:
    """The caller's ``MEMDIR_*`` settings that a server must share to answer for it."""
    return {k: v for k, v in env.items() if k.startswith("MEMDIR_") and k not in ENV_FREE}


def global_root(home: str | None = None) -> str | None:
    """The global root as :func:`memdir.roots.global_root` computes it, without importing ``platformdirs``:
    ``home``, else ``$MEMDIR_HOME``, else the platform's user data directory on Linux/BSD and macOS; ``None``
    elsewhere (the caller then takes the full path)."""
    home = home if home and home.strip() else None  # blank is unset, as memdir.roots.global_root takes it
    env = os.environ.get("MEMDIR_HOME")
    p = home or (env if env and env.strip() else None)
    if p and not home and not os.path.isabs(os.path.expanduser(p)):  # as memdir.roots.global_root: under ~, not cwd
        p = os.path.join(os.path.expanduser("~"), os.path.expanduser(p))
    if not p:
        from memdir.datadir import user_data_dir  # the rule memdir.roots.global_root reads too (standard library)

        p = user_data_dir()
        if p is None:
            return None
    return os.path.abspath(os.path.expanduser(p))


def socket_path(home: str | None = None) -> str | None:
    """``<global root>/.memdir/hook.sock`` (as :func:`memdir.hosts.warm.socket_path`), or ``None``."""
    root = global_root(home)
    return None if root is None else os.path.join(root, ".memdir", SOCKET_NAME)


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def json_str(s: str) -> str:
    """``s`` as a JSON string literal (what ``json.dumps(s, ensure_ascii=False)`` gives; lone surrogates are
    replaced, as the server decodes with ``errors="replace"``)."""
    out = []
    for ch in s:
        e = _ESCAPES.get(ch)
        if e is not None:
            out.append(e)
        elif ch < " " or ch == "\x7f" or "\ud800" <= ch <= "\udfff":
            out.append("\\u%04x" % (0xFFFD if "\ud800" <= ch <= "\udfff" else ord(ch)))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _json_value(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, dict):
        return "{" + ", ".join(json_str(str(k)) + ": " + _json_value(x) for k, x in v.items()) + "}"
    if isinstance(v, int):
        return str(v)
    return json_str(str(v))


def request(host: str, event: str, payload: str, project_dir: str | None) -> bytes:
    """The request line for one hook call (protocol 2)."""
    req = {"v": PROTOCOL, "host": host, "event": event, "payload": payload, "project_dir": project_dir,
           "cwd": os.getcwd(), "env": env_signature(os.environ)}
    return _json_value(req).encode("utf-8", "replace") + b"\n"


def ask(host: str, event: str, payload: str, *, project_dir: str | None = None, home: str | None = None,
        timeout_s: float = 3.0) -> str | None:
    """Send one hook call to a running server; returns the host's output (``""`` for none), or ``None`` when no
    server took the call (no socket, refused, declined, broken answer) so the caller runs it in-process.
    A server that accepted the call but does not answer within ``timeout_s`` counts as "no output" (``""``):
    the hook fails open rather than doing the work twice."""
    try:
        import _socket
    except ImportError:
        return None
    family = getattr(_socket, "AF_UNIX", None)
    path = socket_path(home)
    if family is None or path is None:
        return None
    s = _socket.socket(family, _socket.SOCK_STREAM)
    try:
        s.settimeout(CONNECT_TIMEOUT_S)
        try:
            s.connect(path)
        except OSError:
            return None
        try:
            s.sendall(request(host, event, payload, project_dir))
            s.shutdown(1)  # SHUT_WR
        except OSError:
            return None
        s.settimeout(max(0.05, timeout_s))
        chunks = []
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except TimeoutError:
            return ""
        except OSError:
            return None
        data = b"".join(chunks)
        if not data.startswith(b"1\n"):
            return None  # declined ("0\n<why>"), or an answer we cannot read
        return data[2:].decode("utf-8", "replace")
    finally:
        s.close()


def _write(out: str) -> None:
    if not out:
        return
    try:
        sys.stdout.buffer.write((out + "\n").encode("utf-8", errors="replace"))
        sys.stdout.flush()
    except (BrokenPipeError, OSError, AttributeError, ValueError):
        pass


#: a payload's short top-level fields, read from the head of one cut at MAX_PAYLOAD_BYTES
_HEAD_FIELDS = ("session_id", "sessionId", "cwd", "hook_event_name", "tool_name", "tool_use_id", "transcript_path")


def cut_payload(raw: "bytes | str") -> "dict | None":
    """What a payload cut at :data:`MAX_PAYLOAD_BYTES` still says (a tool call whose output or file content is larger:
    ``Write`` of a big file, a command printing megabytes): its short top-level fields and the call's arguments when
    they came before the cut, with the output replaced by a line saying it was not kept. A cut payload is no JSON, and
    the call was lost without a trace; now the tool line is captured like any other (gates included). ``None`` when
    nothing of it can be read."""
    import json  # here: this module imports no json or re on the hooks' path
    import re

    head = raw[: 1 << 20].decode("utf-8-sig", errors="replace") if isinstance(raw, bytes) else raw[: 1 << 20]
    out: dict = {}
    for name in _HEAD_FIELDS:
        m = re.search(r'"%s"\s*:\s*("(?:[^"\\]|\\.)*")' % name, head)
        if m:
            try:
                out[name] = json.loads(m.group(1))
            except ValueError:
                continue
    if not out:
        return None
    m = re.search(r'"tool_input"\s*:\s*', head)
    if m:  # the arguments whole when they end before the cut (they come before the response), else the command alone
        try:
            out["tool_input"], _ = json.JSONDecoder().raw_decode(head, m.end())
        except ValueError:
            c = re.search(r'"(command|file_path|path|url)"\s*:\s*("(?:[^"\\]|\\.){0,2000}")', head[m.end():])
            if c:
                try:
                    out["tool_input"] = {c.group(1): json.loads(c.group(2))}
                except ValueError:
                    pass
    size = f"{MAX_PAYLOAD_BYTES // (1 << 20)} MB"
    out["tool_response"] = f"(the hook's payload was over {size}: the output was not kept)"
    return out


#: seconds a pipe must stay quiet before what it gave is tried as the whole payload (its writer never closed it)
QUIET_S = 0.05


def _whole_json(data: bytes) -> bool:
    import json  # here: only a stdin left open gets this far

    try:
        json.loads(data.decode("utf-8-sig", errors="replace"))
        return True
    except ValueError:
        return False


def read_stdin(timeout_s: float | None = None) -> bytes:
    """The payload on stdin (``b""`` for a terminal or a closed stdin), at most :data:`MAX_PAYLOAD_BYTES`.

    ``timeout_s``: a writer that never closes stdin (a wrapper, a host keeping the pipe open) is not waited for past
    it: once the pipe has been quiet :data:`QUIET_S` and what it gave is one whole JSON value, that is the payload;
    else the read ends at ``timeout_s`` with what came (a cut payload, which the hook reads as none)."""
    stdin = sys.stdin
    if stdin is None or stdin.closed:
        return b""
    try:
        if stdin.isatty():
            return b""
        if timeout_s is None:
            return stdin.buffer.read(MAX_PAYLOAD_BYTES)
        return _read_until(stdin.buffer, timeout_s)
    except (OSError, ValueError, AttributeError):
        return b""


def _read_until(buf, timeout_s: float) -> bytes:
    import time

    try:
        import select

        fd = buf.fileno()
        select.select([fd], [], [], 0)
    except (ImportError, OSError, ValueError, AttributeError):  # no select on this stream (Windows pipes): as before
        return buf.read(MAX_PAYLOAD_BYTES)
    end = time.monotonic() + max(0.0, timeout_s)
    chunks: list[bytes] = []
    size = 0
    while size < MAX_PAYLOAD_BYTES:
        left = end - time.monotonic()
        if left <= 0:
            break
        ready = select.select([fd], [], [], min(left, QUIET_S))[0]
        if not ready:
            if chunks and _whole_json(b"".join(chunks)):
                break
            continue
        chunk = os.read(fd, min(1 << 20, MAX_PAYLOAD_BYTES - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def run(args: list[str]) -> tuple[bool, bytes | None]:
    """Try the warm server for ``memdir hook`` ``args``: ``(True, None)`` when the call is done (answered and
    printed, or a distiller's session where hooks do nothing), else ``(False, raw)``: run it in-process with
    ``raw``, the payload already read (``None``: not read yet). Never raises."""
    raw: bytes | None = None
    try:
        if os.environ.get("MEMDIR_DISTILLING"):
            return True, None
        if os.environ.get("MEMDIR_DEBUG", "").strip().lower() in _TRUE or not enabled():
            return False, None
        a = parse_args(args)
        if a is None:
            return False, None
        budget_s = (a.budget_ms or env_budget_ms()) / 1000.0
        end = time.monotonic() + budget_s
        # a stdin never closed is read for half the budget at most: the rest is the hook's
        raw = a.argv_payload.encode("utf-8", "replace") if a.argv_payload is not None else read_stdin(budget_s / 2)
        out = ask(a.host, a.event or "", raw.decode("utf-8-sig", "replace"), project_dir=a.project_dir,
                  home=a.home, timeout_s=end - time.monotonic() - 0.05)
        if out is None:
            return False, raw
        _write(out)
        return True, None
    except BaseException:  # noqa: BLE001 — the in-process path decides (it fails open itself)
        return False, raw

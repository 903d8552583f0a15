"""The light start of ``memdir mcp``: a small JSON-RPC loop on stdin/stdout (standard library only) that answers
what a host asks first — ``initialize``, ``tools/list``, ``ping`` and notifications, or ``server/discover`` and
``tools/list`` in the 2026-07-28 per-request envelope — from a table of the MCP SDK's
own answers, while the SDK and memdir's engine load in a background thread (1.5–1.9 s on two cores, measured in
``bench/results/mcp_ready.md``; Codex CLI waits 1,000 ms by default for the first tool list).

A ``memory_recall`` that comes before the SDK has loaded is answered from memdir's engine, which that thread loads
first (``early``, :mod:`memdir.server.mcpearly`). The first message the loop does not answer itself (another
``tools/call``, a ``tools/list`` with a cursor, anything it does not know) waits for the full server and is then
handed over: the SDK server is fed, through an in-memory line stream, the ``initialize`` requests (under ids of its own, ``memdir-replay-N``; their replies are dropped) and the
notifications the loop took so far, then that message and every later one, in arrival order. The loop stays the
transport: it reads every line, answers a line that is not JSON with a JSON-RPC parse error (``-32700``, id null:
the SDK would drop it without a reply), and writes the SDK's replies. Nothing but JSON-RPC reaches the protocol
stream: it is a private duplicate of fd 1, and fd 1 itself points at stderr from the start (fd 0 at the null
device), so a stray ``print`` or a child process cannot write into it.

The table (``memdir/data/mcp_light.json``) is written from the SDK server by
:func:`memdir.server.mcptable.write_light_table` and checked equal to it by ``tests/test_mcp_fast_start.py``; it names
the SDK version it came from, and when another version is installed the light loop is not used (plain SDK start).
"""

from __future__ import annotations

import json
import os
import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, BinaryIO, Callable

    #: ``serve(next_line, write_line)``: runs the SDK server until ``next_line()`` returns ``None``
    Serve = Callable[[Callable[[], "str | None"], Callable[[str], None]], None]

TABLE_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "mcp_light.json")
REPLAY_ID = "memdir-replay-"  # prefix of the ids the replayed initialize requests carry
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: the deepest nesting of arrays and objects a message may have: the SDK's JSON parser (pydantic-core) drops a line
#: nested deeper (201 levels pass) without a reply, and Python's raises RecursionError at about 1,000
MAX_DEPTH = 200
#: the ``_meta`` keys of the per-request protocol envelope (2026-07-28 era)
ENVELOPE_NS = "io.modelcontextprotocol/"
ENVELOPE_KEY = ENVELOPE_NS + "protocolVersion"
ENVELOPE_KEYS = frozenset({ENVELOPE_KEY, ENVELOPE_NS + "clientInfo", ENVELOPE_NS + "clientCapabilities"})


def repair_json_text(line: str) -> str:
    """Replace JSON escapes of lone UTF-16 surrogates (``\\ud800`` not followed by a low surrogate, or a lone
    low one) with ``\\ufffd``; valid pairs and escaped backslashes are kept. The SDK's JSON parser rejects a
    lone surrogate escape, and a request it cannot parse gets no answer at all, so the client would hang
    (case C9). Text without such an escape is returned unchanged (fast path, no regular expression)."""
    if "\\u" not in line and "\\U" not in line:
        return line
    import re

    if not re.search(r"\\u[dD][89a-fA-F]", line):
        return line

    def fix(m: "re.Match") -> str:
        tok = m.group(0)
        return "\\ufffd" if len(tok) == 6 and tok[1] == "u" else tok

    return re.sub(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a valid surrogate pair
                  r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"                               # a lone surrogate
                  r"|\\.", fix, line, flags=re.S)                                   # any other escape


def load_table(path: str = TABLE_PATH) -> "dict[str, Any] | None":
    """The SDK's recorded answers (``{"sdk", "handshake_versions", "initialize": {version: result},
    "tools_list": {version: result}, "ping"}``, see
    :func:`memdir.server.mcptable.light_table`), or ``None`` when the file is missing or unreadable or the installed ``mcp``
    SDK is not the version it was recorded from (then ``memdir mcp`` starts the plain SDK server)."""
    try:
        with open(path, encoding="utf-8") as f:
            table = json.load(f)
    except (OSError, ValueError):
        return None
    return table if sdk_installed(str(table.get("sdk", ""))) else None


def sdk_installed(version: str) -> bool:
    """True when the ``mcp`` SDK of ``version`` is importable from ``sys.path`` (its ``mcp-<version>.dist-info``
    stands next to its package: a few ``stat`` calls, where ``importlib.metadata`` costs about 100 ms)."""
    if not version:
        return False
    for entry in sys.path:
        base = entry or "."
        if os.path.isdir(os.path.join(base, "mcp")):
            return os.path.isdir(os.path.join(base, f"mcp-{version}.dist-info"))
    return False


def claim_stdio() -> "tuple[BinaryIO, BinaryIO]":
    """Private duplicates of fds 0 and 1 as binary files (reader, writer), with fd 0 then pointing at the null device
    and fd 1 at stderr, so that nothing else in the process, nor a child, reads the requests or writes into the
    replies. Falls back to the streams themselves when a descriptor cannot be duplicated."""
    try:
        import fcntl  # POSIX: duplicates above the standard range, closed on exec

        rfd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        wfd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    except (ImportError, OSError):
        try:
            rfd, wfd = os.dup(0), os.dup(1)  # not inherited by children either
        except OSError:
            return sys.stdin.buffer, sys.stdout.buffer
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        sys.stdout.flush()
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    return os.fdopen(rfd, "rb"), os.fdopen(wfd, "wb", buffering=0)


class LightServer:
    """The light loop over ``reader``/``writer`` (binary, one JSON-RPC message per line).

    ``table``: from :func:`load_table`. ``load()`` runs in a background thread (started by :meth:`serve`) and returns
    ``serve(next_line, write_line)``, which runs the full SDK server over those two callables until ``next_line()``
    returns ``None`` (:func:`memdir.server.mcp.serve_lines`); when ``load`` raises, requests that need the full server
    get a JSON-RPC internal error (``-32603``) with a one-line message, and the light answers go on.

    ``early`` (optional) runs in that thread before ``load`` and returns ``call(name, arguments)``: the ``result`` of a
    ``tools/call`` answered without the SDK, or ``None`` to leave it to the SDK (:func:`memdir.server.mcpearly.early_tools`).
    A ``tools/call`` that comes after ``initialize`` and before the SDK has loaded waits for ``early`` only (a fraction
    of the SDK's load) and is answered by it when it can; when ``early`` fails, the SDK answers as before.

    A reply that cannot be written (EPIPE: the host died) ends the session's work: the calls still queued are not
    answered (nobody would read them) and ``on_gone`` (optional) is called once, to turn away those already running.
    """

    def __init__(self, table: "dict[str, Any]", load: "Callable[[], Serve]", reader: "BinaryIO", writer: "BinaryIO",
                 early: "Callable[[], Callable[[str, Any], dict | None]] | None" = None,
                 on_gone: "Callable[[], None] | None" = None):
        self.table = table
        self._on_gone = on_gone
        self._load = load
        self._early_load = early
        self._early: "Callable[[str, Any], dict | None] | None" = None
        self._early_ready = threading.Event()
        self.early_answers = 0  # tools/call requests answered by ``early``
        self._reader = reader
        self._writer = writer
        self._write_lock = threading.Lock()
        self._gone = threading.Event()  # a reply could not be written: the host is gone, nobody reads what follows
        self._loaded = threading.Event()
        self._serve: "Serve | None" = None
        self.load_error: "BaseException | None" = None
        self._replay: list[dict] = []  # what the loop took that the SDK must see first, in order
        self._replay_ids: set[str] = set()  # the replayed initialize requests whose reply has not come yet
        self._replays = 0
        self._version: "str | None" = None  # the protocol version the last initialize negotiated
        self._feed: "Any" = None  # queue.Queue of lines for the SDK, once handed over
        self._sdk: "threading.Thread | None" = None
        self.handed_over = False
        self._pending: set[str] = set()  # ids (as JSON text) of requests the SDK has not answered yet
        self._answered = threading.Condition()

    @property
    def loaded(self) -> bool:
        """True once the background load has finished (with the full server, or with ``load_error``)."""
        return self._loaded.is_set()

    # ---- output ------------------------------------------------------------------------------------
    def _write(self, text: str) -> None:
        data = text.encode("utf-8", "replace") + b"\n"
        with self._write_lock:
            try:
                self._writer.write(data)
                self._writer.flush()
            except (BrokenPipeError, ValueError, OSError):
                # the client went away: what it queued is not worked through for nobody (reading stdin ends the loop)
                if not self._gone.is_set():
                    self._gone.set()
                    with self._answered:
                        self._answered.notify_all()
                    if self._on_gone is not None:
                        self._on_gone()

    def _reply(self, msg_id: "Any", result: "dict | None" = None, error: "dict | None" = None) -> None:
        out: dict = {"jsonrpc": "2.0", "id": msg_id}
        out.update({"error": error} if error is not None else {"result": result})
        self._write(json.dumps(out, ensure_ascii=False, separators=(",", ":")))

    def _from_sdk(self, text: str) -> None:
        """A line the SDK server wrote: dropped when it answers a replayed initialize, else written."""
        try:
            msg = json.loads(text)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and "method" not in msg and "id" in msg:  # a response
            if isinstance(msg["id"], str) and msg["id"] in self._replay_ids:
                # the first reply under a replay id answers the replayed initialize (fed first, answered first); a
                # later one answers a client request that happens to use the same id, and is passed on
                self._replay_ids.discard(msg["id"])
                if "error" in msg:  # the light loop accepted an initialize the SDK refuses: say so where it shows
                    print(f"memdir: the MCP server refused the session's initialize: {msg['error']}", file=sys.stderr,
                          flush=True)
                return
            with self._answered:
                self._pending.discard(json.dumps(msg["id"]))
                self._answered.notify_all()
        self._write(text.rstrip("\n"))

    def _forward(self, line: str, msg: "Any", replayed: bool = False) -> None:
        if isinstance(msg, dict) and isinstance(msg.get("method"), str):
            if "id" in msg and not replayed:  # nobody waits for a replayed initialize's reply
                with self._answered:
                    self._pending.add(json.dumps(msg["id"]))
            elif msg["method"] == "notifications/cancelled" and isinstance(msg.get("params"), dict):
                with self._answered:  # a cancelled request gets no response
                    self._pending.discard(json.dumps(msg["params"].get("requestId")))
        self._feed.put(line)

    def _drain(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until the SDK has answered every request it was given."""
        import time

        end = time.monotonic() + timeout
        with self._answered:
            while self._pending and self._sdk.is_alive() and not self._gone.is_set() and time.monotonic() < end:
                self._answered.wait(min(1.0, max(0.0, end - time.monotonic())))

    # ---- loading and handing over -----------------------------------------------------------------
    def _load_in_background(self) -> None:
        if self._early_load is not None:
            try:
                self._early = self._early_load()
            except BaseException as exc:  # noqa: BLE001 — the SDK answers every call instead
                print(f"memdir: the early MCP answers are off: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            finally:
                self._early_ready.set()
        try:
            self._serve = self._load()
        except BaseException as exc:  # noqa: BLE001 — reported to stderr and to every request that needed it
            self.load_error = exc
            print(f"memdir: the MCP server failed to start: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            self._loaded.set()

    def _hand_over(self) -> bool:
        """Wait for the full server, start it and feed it what it must see first; False when it failed to load."""
        self._loaded.wait()
        if self._serve is None:
            return False
        import queue

        self._feed = queue.Queue()
        serve = self._serve
        self._sdk = threading.Thread(target=serve, args=(self._feed.get, self._from_sdk), name="memdir-mcp-sdk",
                                     daemon=True)
        self._sdk.start()
        for msg in self._replay:
            self._forward(json.dumps(msg, ensure_ascii=False, separators=(",", ":")), msg, replayed=True)
        self._replay.clear()
        self.handed_over = True
        return True

    # ---- the loop ---------------------------------------------------------------------------------
    def serve(self, drain_timeout: float = 60.0) -> None:
        """Answer messages until the reader ends; then let the full server (when it runs) answer the requests it has
        (at most ``drain_timeout`` seconds), end it and return."""
        threading.Thread(target=self._load_in_background, name="memdir-mcp-load", daemon=True).start()
        for raw in iter(self._reader.readline, b""):
            line = repair_json_text(raw.decode("utf-8", "replace").rstrip("\r\n"))
            if line.strip():
                try:
                    self.handle(line)
                except Exception as exc:  # noqa: BLE001 — a defect here must not end the session
                    print(f"memdir: the MCP light loop failed on a message: {type(exc).__name__}: {exc}",
                          file=sys.stderr, flush=True)
        if self._feed is not None:
            self._drain(drain_timeout)
            while self._gone.is_set():  # the host died: the calls it queued go unanswered
                try:
                    self._feed.get_nowait()
                except Exception:  # noqa: BLE001 - queue.Empty: nothing left
                    break
            self._feed.put(None)
            self._sdk.join(10)

    def handle(self, line: str) -> None:
        """One line from the client: a parse error, a light answer, or a message for the full server."""
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            self._reply(None, error={"code": PARSE_ERROR, "message": "Parse error"})
            return
        if too_deep(line, msg):
            if not (isinstance(msg, dict) and "method" in msg and "id" not in msg):  # a notification gets no reply
                msg_id = msg.get("id") if isinstance(msg, dict) and valid_message(msg) else None
                self._reply(msg_id, error={"code": INVALID_REQUEST, "message": (
                    f"Invalid Request: arrays and objects nested more than {MAX_DEPTH} levels deep")})
            return
        if not valid_message(msg):  # the SDK drops it without a reply: the client would wait forever
            self._reply(None, error={"code": INVALID_REQUEST, "message": (
                "Invalid Request: a JSON-RPC 2.0 message is an object with a string method (a request's id a string "
                "or an integer) or a response's id with a result or an error")})
            return
        if "method" in msg and msg.get("params") is not None and not isinstance(msg["params"], dict):
            if "id" in msg:  # dropped by the SDK too; a notification gets no reply either way
                self._reply(msg["id"], error={"code": INVALID_PARAMS,
                                              "message": "Invalid params: MCP's params are an object"})
            return
        if self._feed is None and not self._light(msg):
            if self._answer_early(msg):
                return
            if not self._hand_over():
                if isinstance(msg, dict) and "method" in msg and msg.get("id") is not None:
                    self._reply(msg["id"], error={"code": INTERNAL_ERROR, "message": (
                        f"memdir: the MCP server failed to start: {type(self.load_error).__name__}: "
                        f"{str(self.load_error).splitlines()[0] if str(self.load_error) else ''}")[:300]})
                return
        if self._feed is not None:
            self._forward(line, msg)

    def _answer_early(self, msg: "Any") -> bool:
        """Answer a ``tools/call`` with ``early`` when the session was initialized here, the SDK has not loaded yet and
        ``early`` gives a result (waiting for ``early`` to load, never for the SDK); False leaves it to the SDK."""
        if self._early_load is None or self._version is None or self._loaded.is_set():
            return False
        if not isinstance(msg, dict) or msg.get("method") != "tools/call":
            return False
        msg_id, params = msg.get("id"), msg.get("params")
        if isinstance(msg_id, bool) or not isinstance(msg_id, (str, int)) or not isinstance(params, dict):
            return False
        meta = params.get("_meta")
        if params.keys() - {"name", "arguments", "_meta"} or not isinstance(params.get("name"), str) or (
                meta is not None and (not isinstance(meta, dict) or meta.keys() & ENVELOPE_KEYS)):
            return False
        self._early_ready.wait()
        if self._early is None:
            return False
        try:
            result = self._early(params["name"], params.get("arguments"))
        except Exception as exc:  # noqa: BLE001 — a defect here leaves the call to the SDK, never unanswered
            print(f"memdir: an early MCP answer failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            result = None
        if result is None:
            return False
        self.early_answers += 1
        self._reply(msg_id, result)
        return True

    def _light_modern(self, msg: "dict", method: str, params: "dict", meta: "Any") -> bool:
        """A request in the per-request envelope: answered when the table holds it, else False (for the SDK)."""
        msg_id = msg.get("id")
        if isinstance(msg_id, bool) or not isinstance(msg_id, (str, int)):
            return False
        result = _envelope_answer(self.table, method, params, meta)
        if result is None:
            return False
        self._reply(msg_id, result)
        return True

    def _light(self, msg: "Any") -> bool:
        """Answer or take ``msg`` without the SDK when it is one of the messages the table covers; False otherwise."""
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
            return False
        method, params = msg["method"], msg.get("params")
        if params is not None and not isinstance(params, dict):
            return False
        meta = (params or {}).get("_meta")
        if meta is not None and (not isinstance(meta, dict) or ENVELOPE_KEY in meta):
            return self._light_modern(msg, method, params, meta)
        if "id" not in msg:  # a notification
            if method != "notifications/cancelled":  # cancelling a request already answered: nothing to do
                self._replay.append(msg)
            return True
        msg_id = msg["id"]
        if isinstance(msg_id, bool) or not isinstance(msg_id, (str, int)):
            return False
        if method == "ping" and not (params or {}).keys() - {"_meta"}:
            self._reply(msg_id, dict(self.table["ping"]))
            return True
        if method == "initialize":
            version = _requested_version(params)
            if version is None:
                return False  # let the SDK word the error
            versions = self.table["handshake_versions"]
            self._version = version if version in versions else versions[-1]
            result = self.table["initialize"][self._version]
            self._replays += 1
            replayed = dict(msg, id=f"{REPLAY_ID}{self._replays}")
            self._replay_ids.add(replayed["id"])
            self._replay.append(replayed)
            self._reply(msg_id, result)
            return True
        if method == "tools/list" and self._version is not None and not (params or {}).keys() - {"_meta"}:
            self._reply(msg_id, self.table["tools_list"][self._version])
            return True
        return False


def too_deep(line: str, msg: "Any") -> bool:
    """True when ``msg`` (``line`` parsed) nests arrays and objects more than :data:`MAX_DEPTH` levels deep."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:
        return False
    stack = [(msg, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return True
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


def valid_message(msg: "Any") -> bool:
    """True when ``msg`` (parsed JSON) is a JSON-RPC 2.0 message the server can act on: an object with ``"jsonrpc":
    "2.0"`` that is a request (a string ``method``, an ``id`` that is a string or an integer, not a boolean), a
    notification (a string ``method``, no ``id``) or a response (an ``id`` and a ``result`` or an ``error``, no
    ``method``). Anything else gets ``-32600 Invalid Request`` with id null (JSON-RPC 2.0, section 5)."""
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        return False
    has_id = "id" in msg
    ok_id = not has_id or (isinstance(msg["id"], (str, int)) and not isinstance(msg["id"], bool))
    if "method" in msg:
        return isinstance(msg["method"], str) and ok_id
    return has_id and ("result" in msg or "error" in msg) and (ok_id or msg["id"] is None)


def _envelope_answer(table: "dict[str, Any]", method: str, params: "dict", meta: "Any") -> "dict | None":
    """The recorded answer to a ``server/discover`` or ``tools/list`` request in the per-request envelope of a
    version the table holds, carrying nothing else (no cursor, no other ``_meta`` key); else ``None``."""
    if not isinstance(meta, dict) or params.keys() - {"_meta"} or meta.keys() - ENVELOPE_KEYS:
        return None
    return (table.get("modern") or {}).get(meta.get(ENVELOPE_KEY), {}).get(method)


def _requested_version(params: "Any") -> "str | None":
    """The ``protocolVersion`` of well-formed ``initialize`` params (the fields the SDK requires), else ``None``."""
    if not isinstance(params, dict):
        return None
    info, version = params.get("clientInfo"), params.get("protocolVersion")
    if not isinstance(version, str) or not isinstance(params.get("capabilities"), dict) or not isinstance(info, dict):
        return None
    if not isinstance(info.get("name"), str) or not isinstance(info.get("version"), str):
        return None
    return version


def run(load: "Callable[[], Serve]", table: "dict[str, Any]",
        early: "Callable[[], Callable[[str, Any], dict | None]] | None" = None,
        on_gone: "Callable[[], None] | None" = None) -> "LightServer":
    """Serve this process's stdin/stdout with the light loop (see the module docstring) until stdin closes; returns
    the finished :class:`LightServer`. ``table`` from :func:`load_table`, ``load`` and ``early`` as for
    :class:`LightServer`; ``on_gone`` is called once when a reply cannot be written (the host is gone)."""
    reader, writer = claim_stdio()
    server = LightServer(table, load, reader, writer, early, on_gone)
    server.serve()
    return server

"""``memdir hook <host> <event>``: the command a host runs on each hook event.

It reads the host's JSON payload on stdin (Codex's ``notify`` passes it as the last argument instead), calls the
facade, prints what the host expects, and **fails open**: on any error, on a payload it cannot read, or when
the time budget (``hook.budget_ms``, default 3,000 ms; env ``MEMDIR_HOOK_BUDGET_MS``) runs out, it prints
nothing and exits 0, so memory can never block or break a prompt. Errors are logged at debug level (``memdir
--debug hook …`` or ``MEMDIR_DEBUG=1``, which writes ``<home>/.memdir/debug.log``).

What each event does (hosts and payload fields: :mod:`memdir.hosts.adapters`):

=================  =====================================================================================
event              action
=================  =====================================================================================
``session-start``  print rules + outline, at most ``hook.session_max_chars`` (4,000); the host keeps it in
                   the session, so it reaches every request of the session once
``user-prompt``    print the block for the prompt (``inject.max_chars``, 1,200 by default), then capture
                   the prompt. Claude Code and Codex: only the matching entries (rules and outline came with
                   session-start); OpenCode (no session-start hook): the whole block, which its plugin adds
                   to each request of the turn
``context``        OpenCode per-request transform (fallback when the prompt hook did not run): print the
                   block, capture the recent user texts
``post-tool-use``  capture a tool summary (name + main argument + first output lines)
``stop``           capture the last assistant message (Claude Code without ``last_assistant_message``: the
                   last reply in ``transcript_path``; DSH: its newest turns' replies from its session log);
                   print nothing (a Stop hook's output would make Claude Code continue)
``notify``         Codex legacy notify: capture the turn's user messages and the assistant reply
``session-end``    nothing but the distillation trigger below
=================  =====================================================================================

Every hook runs synchronously within its budget (hosts drop ``"async"`` hooks in headless runs). With debug
logging on, each call logs its wall time (``hook <host> <event>: done in N ms (process M ms)``, the second
figure with the interpreter's start-up).

On ``stop`` (Claude Code / Codex Stop, OpenCode ``session.idle``) and ``session-end`` (SessionEnd), when
``distill.auto`` is on, :func:`memdir.distill.flow.trigger` starts a detached distiller for the session and returns
at once (the hook never waits for it).

Every block handed to a host is capped at :data:`memdir.hosts.adapters.HOOK_MAX_CHARS` (9,000) characters: Claude
Code shows the model only a preview of ``additionalContext`` above 10,000. The block is computed *before* the
prompt is captured (so the prompt never recalls itself) and printed before the capture is written.

The hook path imports only the core (no click on ``python -m memdir.hosts.hooks``, no mcp, numpy or tqdm).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, Callable

from memdir.errors import ReadOnlyStore
from memdir.hosts.once import first_copy
from memdir.hosts.upgrading import hand_over_upgrade, under_way
from memdir.lazylog import getLogger

log = getLogger("memdir")  # imports logging only when a record can go somewhere

# settings: the hook.* keys of memdir.config.SETTINGS
DEFAULT_BUDGET_MS = 3000
from memdir.hosts.hookclient import MAX_PAYLOAD_BYTES, read_stdin as _read_stdin  # one copy: the thin client's (stdlib only)
#: hosts whose session-start hook output stays in the session: their prompt blocks carry only the matches
SESSION_BLOCK_HOSTS = ("claude-code", "codex")
ALL_SECTIONS = ("rules", "outline", "hits")


#: seconds a hook whose budget is spent may take to queue the turns it has not stored (the process ends then)
LAST_WORDS_S = 1.5


class _Watchdog:
    """Hard-exits the process with status 0 and no output once the budget is spent (fail open).

    ``claim()`` is taken by whoever finishes first: the main thread before printing, or the timer before
    exiting, so output is never cut in half."""

    def __init__(self, budget_ms: float, start: float | None = None):
        self.start = time.monotonic() if start is None else start
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        self.reset(budget_ms)

    def reset(self, budget_ms: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.deadline = self.start + budget_ms / 1000.0  # time.monotonic() when the process is ended
        remaining = max(0.0, budget_ms / 1000.0 - (time.monotonic() - self.start))
        self.timer = threading.Timer(remaining, self._fire)
        self.timer.daemon = True
        self.timer.start()

    def _fire(self) -> None:
        if self.lock.acquire(blocking=False):
            log.debug("hook: time budget spent after %.0f ms; exiting without output", (time.monotonic() - self.start) * 1000)
            hand_over_upgrade()
            # the turns not stored yet go to the spool (a loaded machine: the block came late, or the store opened
            # late); LAST_WORDS_S more at most, then the process ends whatever they are doing
            stop = threading.Timer(LAST_WORDS_S, os._exit, (0,))
            stop.daemon = True
            stop.start()
            try:
                self.last_words()
            except Exception as exc:  # noqa: BLE001 — the hook is leaving anyway
                log.debug("hook: captures not queued: %s", exc)
            os._exit(0)

    def last_words(self) -> None:
        """Replaced by :func:`run_hook` with what queues the call's captures not made yet."""

    def claim(self) -> bool:
        return self.lock.acquire(blocking=False)

    def release(self) -> None:
        try:
            self.lock.release()
        except RuntimeError:
            pass

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


def _env_budget() -> float:
    from memdir.hosts.hookclient import env_budget_ms

    return env_budget_ms()


def decode_payload(raw: bytes | str | dict | None) -> Any:
    """The JSON payload from stdin bytes (UTF-8, BOM tolerated). Raises ``ValueError`` when it is missing,
    empty or not JSON (a hook without a payload does nothing)."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        raise ValueError("no payload")
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8-sig", errors="replace")
    raw = raw.strip()
    if not raw:
        raise ValueError("empty payload")
    return json.loads(raw)


def queue_late(m: Any, where: str | None, home: str | None, config: dict[str, Any] | None,
               pending: list[dict[str, Any]]) -> None:
    """A hook's last words (its budget spent): ``pending`` turns into the root's spool
    (:meth:`memdir.Memdir.queue_capture`), through ``m``, or a store handle made now when the hook's own was not open
    yet (reading the settings only: the index is not opened)."""
    if not pending:
        return
    if m is None:
        from memdir.core import Memdir

        m = Memdir(where, home=home, config=config)
    for ev in list(pending):
        m.queue_capture(ev)


def run_hook(host: str, event: str, raw: bytes | str | dict | None, *, project_dir: str | None = None,
             home: str | None = None, config: dict[str, Any] | None = None,
             emit: Callable[[str], None] | None = None, on_open: Callable[[Any], None] | None = None,
             open_store: Callable[[str | None], Any] | None = None, leave_open: bool = False,
             dog: "_Watchdog | None" = None) -> str:
    """Run one hook: parse, open the store, inject and/or capture. Returns what the host should read on stdout
    (``""`` for nothing); ``emit(output)`` is called as soon as the output is known, before captures are written.

    ``project_dir``: overrides the payload's ``cwd``. ``home``/``config``: as :func:`memdir.open`.
    ``on_open(m)``: called with the open store (the CLI uses it to apply ``hook.budget_ms``).
    ``open_store(project_dir)``: returns an already open store to use and keep open (the warm server's).
    ``leave_open``: do not close the store (a process about to ``os._exit``: closing the last connection would
    checkpoint the WAL and delete it, a write and an fsync the host waits for; the next opener carries on).
    ``dog``: the watchdog that ends the process when the budget is spent; its last words queue the prompt (and the
    other turns of the call) not stored yet in the root's spool (:meth:`memdir.Memdir.queue_capture`), so a block
    that came too late on a loaded machine costs the block, never the turn.
    Raises on bad input or store errors; the CLI wrapper turns every exception into "no output, exit 0".
    """
    from memdir.hosts import adapters

    try:
        payload = decode_payload(raw)
    except ValueError:
        # cut where the read stopped (MAX_PAYLOAD_BYTES, here or in the thin client a warm server was asked by)
        if not isinstance(raw, (bytes, str)) or len(raw) < MAX_PAYLOAD_BYTES // 4:
            raise
        from memdir.hosts.hookclient import cut_payload

        payload = cut_payload(raw)
        if payload is None:
            raise
        log.debug("hook %s %s: payload cut at %d; read from its head: %s", host, event, len(raw), sorted(payload))
    call = adapters.parse(host, event, payload)
    out = ""
    if call.event == "ignore":
        log.debug("hook %s %s: nothing to do for this event", call.host, event)
        if emit:
            emit(out)
        return out
    where = project_dir or call.cwd or None
    if where and not os.path.isdir(where):
        # a directory removed since (`make clean` under the project): its project takes the turn; a deleted
        # worktree or project is not made again for it
        from memdir.roots import global_root, surviving_project

        alive = surviving_project(where, home=global_root(home))
        where = str(alive) if alive is not None else None
        if where is None:
            log.debug("hook %s %s: %s and its project are gone; nothing captured", call.host, event,
                      project_dir or call.cwd)
            if emit:
                emit(out)
            return out
    source = {"source": call.host}

    def turn(role: str, text: str) -> dict[str, Any]:
        return {"role": role, "text": text, "session": call.session, "cwd": call.cwd, **source}

    known: list[dict[str, Any]] = []  # the turns the payload itself holds (a Stop's reply may be in a transcript)
    if call.event == "user-prompt" and call.prompt:
        known.append(turn("user", call.prompt))
    if call.event in ("context", "notify"):
        known += [turn("user", t) for t in call.messages]
    if call.event in ("stop", "notify") and call.assistant:
        known.append(turn("assistant", call.assistant))
    if call.event == "post-tool-use" and call.tool:
        known.append({"role": "tool", "tool": call.tool, "input": call.tool_input, "output": call.tool_output,
                      "call_id": call.call_id, "is_error": call.is_error, "session": call.session, "cwd": call.cwd,
                      **source})
    pending = list(known)  # what the watchdog queues if the budget runs out before the capture below
    held: dict[str, Any] = {}
    if dog is not None:
        dog.last_words = lambda: queue_late(held.get("m"), where, home, config, pending)
    if open_store is not None:
        m = open_store(where)
    else:
        from memdir.core import Memdir

        m = Memdir(where, home=home, config=config)
    held["m"] = m
    from memdir.portability.dropimport import spawn_if_pending

    spawn_if_pending(m.home, m.project_root)  # files dropped in <global root>/import/: a detached importer (issue 13)
    waiting = open_store is None and under_way(m)  # a detached process upgrades an index: its lock is not waited on
    try:
        if on_open is not None:
            on_open(m)
        block, query = "", ""
        try:
            if waiting:
                log.debug("hook %s %s: no block while the index is upgraded", call.host, call.event)
            elif not first_copy([r.derived for r in m.roots.values()], call, payload):  # memdir's hooks registered twice: one block
                log.debug("hook %s %s: another copy of this call answered it", call.host, call.event)
            elif call.event == "session-start":
                limit = min(int(m.config.get("hook.session_max_chars")), adapters.HOOK_MAX_CHARS)
                if not int(m.config.get("inject.max_chars")) or call.host not in SESSION_BLOCK_HOSTS:
                    limit = 0  # "no block" holds here too; a host whose prompt blocks carry rules + outline gets none
                block = m.context("", max_chars=limit)
                out = adapters.render(call, block)
            elif call.event in ("user-prompt", "context"):
                from memdir.capture.gates import strip_injected

                query, removed = strip_injected(call.prompt or "")
                limit = min(int(m.config.get("inject.max_chars")), adapters.HOOK_MAX_CHARS)
                if removed and not query and call.event == "user-prompt":  # injected text only (DSH runs this hook
                    limit = 0  # on each step; its late SessionStart block comes back as a "prompt"): no second block
                sections = ("hits",) if call.event == "user-prompt" and call.host in SESSION_BLOCK_HOSTS else ALL_SECTIONS
                block = m.context(query, max_chars=limit, sections=sections)
                out = adapters.render(call, block)
        except Exception as exc:  # noqa: BLE001 - a block that cannot be built costs the block, never the capture
            log.debug("hook %s %s: no block (%s: %s); the event is still captured", call.host, call.event,
                      type(exc).__name__, str(exc)[:200])
            block, out = "", ""
        if emit:
            emit(out)
        if out and block:  # what the model saw, for `memdir ui` (a bounded log; never raises)
            m.record_injection(block, prompt=query, host=call.host, event=call.event, session=call.session)
        replies: list[str] = []
        if call.event == "stop" and not call.assistant and call.host == "dsh":
            from memdir.hosts.adapters.dsh import stop_replies

            replies = stop_replies(call)  # DSH's Stop has no reply: its session log has
        elif call.event == "stop" and not call.assistant and call.transcript_path:
            from memdir.hosts.adapters.claude_code import last_assistant_text

            call.assistant = last_assistant_text(call.transcript_path)
        events = [turn("assistant", t) for t in replies] + known
        if call.event == "stop" and call.assistant and not any(ev["role"] == "assistant" for ev in known):
            events.append(turn("assistant", call.assistant))  # read from the transcript just now
        pending[:] = events
        if waiting:  # the next writer stores them, once
            log.debug("hook %s %s: %d turn(s) queued during the upgrade", call.host, call.event,
                      sum(m.queue_capture(ev) for ev in events))
            pending.clear()
            return out
        for ev in events:
            try:
                r = m.capture(ev)
            except ReadOnlyStore as exc:  # C36: the block went out already; the capture is skipped, the hook fails open
                log.debug("hook %s %s: capture skipped (read_only): %s", call.host, call.event, exc)
                pending.clear()
                return out
            except Exception as exc:
                from memdir.store.sqlite.migrations import NewerIndex

                if not isinstance(exc, NewerIndex):
                    raise
                # a newer memdir wrote the index (a second install, a roll-back): its next write stores them
                log.debug("hook %s %s: %d turn(s) queued for a newer memdir: %s", call.host, call.event,
                          sum(m.queue_capture(rest) for rest in pending), exc)
                pending.clear()
                return out
            if pending and pending[0] is ev:
                pending.pop(0)
            log.debug("hook %s %s: %s %s", call.host, call.event, r.reason, r.key or "")
        if call.event in ("stop", "session-end"):  # distill.auto: a detached distiller; the hook never waits for it
            from memdir.distill.flow import trigger

            trigger(m, call.session)
    finally:
        if open_store is None and not leave_open:
            m.close()
    return out


def _write(out: str) -> None:
    if not out:
        return
    data = (out + "\n").encode("utf-8", errors="replace")
    try:
        sys.__stdout__.buffer.write(data)  # type: ignore[union-attr]
        sys.__stdout__.flush()  # type: ignore[union-attr]
    except (BrokenPipeError, OSError, AttributeError):
        pass


class _Quiet:
    """For one hook call: ``sys.stdout`` and ``sys.stderr`` become a sink whose lines go to the debug log, and the
    logging handlers writing to the real stderr are held above every level, so nothing of memdir's (a warning about a
    note, an index set aside) reaches the host's stderr; hosts show it to the user or count it as a failed hook.
    With ``--debug`` the handlers keep writing (their lines were asked for). :meth:`stop` puts everything back."""

    def __init__(self) -> None:
        self.saved: tuple[Any, Any] | None = None
        self.handlers: list[tuple[Any, int]] = []

    def write(self, text: str) -> int:
        for line in str(text).splitlines():
            if line.strip():
                log.debug("hook output held back: %s", line[:500])
        return len(text)

    def flush(self) -> None:
        pass

    def start(self) -> None:
        self.saved = (sys.stdout, sys.stderr)
        streams = {id(sys.stderr), id(sys.__stderr__)}
        if "logging" in sys.modules:
            import logging

            if logging.getLogger("memdir").isEnabledFor(logging.DEBUG) and os.environ.get("MEMDIR_DEBUG") is None:
                return self._streams()  # `--debug` asked for its lines on stderr: they stay
            for lg in (logging.getLogger(), logging.getLogger("memdir")):
                for h in lg.handlers:
                    if isinstance(h, logging.StreamHandler) and id(getattr(h, "stream", None)) in streams:
                        self.handlers.append((h, h.level))
                        h.setLevel(logging.CRITICAL + 1)
        self._streams()

    def _streams(self) -> None:
        sys.stdout = sys.stderr = self  # type: ignore[assignment]

    def stop(self) -> None:
        if self.saved is not None:
            sys.stdout, sys.stderr = self.saved
            self.saved = None
        for h, level in self.handlers:
            h.setLevel(level)
        self.handlers.clear()


def _process_age_ms() -> float | None:
    """Wall time since this process started (interpreter start-up included), in ms, from ``/proc`` (10 ms
    resolution); ``None`` where ``/proc`` is missing."""
    try:
        with open("/proc/self/stat", "rb") as f:
            start_ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", "rb") as f:
            uptime_s = float(f.read().split()[0])
        return max(0.0, (uptime_s - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000)
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def execute(host: str, event: str | None, argv_payload: str | None = None, *, project_dir: str | None = None,
            home: str | None = None, budget_ms: float | None = None, raw: bytes | None = None,
            warm_tried: bool = False, leave_open: bool = False, started: float | None = None) -> int:
    """The fail-open wrapper used by the CLI and ``python -m memdir.hosts.hooks``: always returns 0.

    Reads stdin (or ``argv_payload`` when given, for Codex ``notify``), runs :func:`run_hook` with a watchdog,
    prints at most one output, and swallows every error (logged at debug level). Does nothing at all inside a
    distiller's own model session (``MEMDIR_DISTILLING`` set, see :mod:`memdir.distill.flow`). ``raw``: the payload
    when the caller already read it; ``warm_tried``: the warm server was already asked (:mod:`memdir.hosts.hookclient`);
    ``started``: ``time.monotonic()`` when the call began (the budget counts from then: the thin client's read of
    stdin came first). A stdin its writer never closes is read for half the budget at most."""
    if os.environ.get("MEMDIR_DISTILLING"):
        return 0
    debug = os.environ.get("MEMDIR_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")
    if debug:
        from memdir.debuglog import enable_debug_log
        from memdir.roots import global_root

        try:
            enable_debug_log(global_root(home))
        except Exception:  # noqa: BLE001
            pass
    dog = _Watchdog(budget_ms or _env_budget(), start=started)
    quiet = _Quiet()
    printed = False

    def emit(out: str) -> None:
        nonlocal printed
        if printed or not out:
            return
        if dog.claim():  # the watchdog cannot fire while we print
            try:
                _write(out)
                printed = True
            finally:
                dog.release()

    def on_open(m) -> None:
        if budget_ms is None and "MEMDIR_HOOK_BUDGET_MS" not in os.environ:
            dog.reset(float(m.config.get("hook.budget_ms")))
        # a capture stops waiting for the write lock in time to queue its event before the watchdog ends the
        # process (it waited capture.lock_wait_ms whatever was left, and a hook late in its budget lost the event)
        from memdir.engine.events import CAPTURE_DEADLINE

        m.stores.state[CAPTURE_DEADLINE] = dog.deadline

    said = ""
    try:
        quiet.start()  # nothing but our one answer reaches the host's stdout, and nothing its stderr
        if raw is None:
            raw = argv_payload.encode("utf-8", "replace") if argv_payload is not None else \
                _read_stdin((dog.deadline - time.monotonic()) / 2)
        if not warm_tried and _ask_warm(host, event or "", raw, project_dir=project_dir, home=home, emit=emit,
                     budget_s=(budget_ms or _env_budget()) / 1000.0 - (time.monotonic() - dog.start)):
            return 0
        run_hook(host, event or "", raw, project_dir=project_dir, home=home, emit=emit, on_open=on_open,
                 leave_open=leave_open, dog=dog)
        age = _process_age_ms()
        log.debug("hook %s %s: done in %.0f ms (process %s ms)", host, event, (time.monotonic() - dog.start) * 1000,
                  "?" if age is None else f"{age:.0f}")
    except BaseException as exc:  # noqa: BLE001 — fail open, whatever happened
        if isinstance(exc, KeyboardInterrupt):
            return 0
        log.debug("hook %s %s failed open: %s: %s", host, event, type(exc).__name__, exc, exc_info=True)
        from memdir.hosts.adapters import HOSTS, normalize_event, normalize_host

        # a mistyped host or event (whatever failed first, an empty payload too): told to a person trying the hook
        # by hand (below)
        if normalize_host(host) is None:
            said = f"unknown host {host!r}: use one of {', '.join(HOSTS)}"
        elif event and normalize_event(event) is None:
            said = f"unknown event {event!r} for {normalize_host(host)}"
    finally:
        quiet.stop()
        dog.cancel()
    if said and (debug or _tty(sys.stderr)):  # a host runs hooks with neither: silent
        print(f"memdir hook: {said} (nothing done; exit 0 so a host is never blocked)", file=sys.stderr)
    return 0


def _tty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _ask_warm(host: str, event: str, raw: bytes, *, project_dir: str | None, home: str | None,
              emit: Callable[[str], None], budget_s: float) -> bool:
    """Hand the call to a running ``memdir serve`` (:mod:`memdir.hosts.warm`); True when it took it (its answer is
    emitted), False when the call must run in-process."""
    from memdir.hosts import hookclient

    if not hookclient.enabled() or budget_s <= 0:
        return False
    out = hookclient.ask(host, event, raw.decode("utf-8-sig", "replace"), project_dir=project_dir, home=home,
                   timeout_s=budget_s - 0.05)
    if out is None:
        return False
    emit(out)
    return True


# ---- click wiring (memdir.cli.main loads `hook` lazily) -------------------------------------------------------
def _make_group():
    import click

    from memdir.hosts.adapters import HOSTS

    def host_command(name: str) -> click.Command:
        @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                               "help_option_names": ["-h", "--help"]})
        @click.argument("event", required=False)
        @click.argument("payload", nargs=-1, type=click.UNPROCESSED)
        @click.option("--budget-ms", type=float, default=None, help="Time budget (default: hook.budget_ms, 3000).")
        @click.option("--json", "as_json", is_flag=True, hidden=True, help="Accepted for uniformity; output is the host's format.")
        @click.pass_context
        def cmd(ctx, event, payload, budget_ms, as_json):
            obj = (ctx.find_root().obj or {}) if ctx.find_root() is not None else {}
            argv_payload = payload[-1] if payload else None
            code = execute(name, event, argv_payload, project_dir=obj.get("dir"), home=obj.get("home"), budget_ms=budget_ms)
            ctx.exit(code)

        cmd.help = (f"Run the {name} hook for EVENT (session-start, user-prompt, post-tool-use, stop"
                    f"{', context' if name == 'opencode' else ''}{', notify' if name == 'codex' else ''}; the host's "
                    "own names work too). Reads the JSON payload on stdin; always exits 0.")
        return cmd

    class HookGroup(click.Group):
        def list_commands(self, ctx):
            return list(HOSTS)

        def get_command(self, ctx, name):
            # any host name gets a command, so a typo in a host's settings fails open (exit 0), never exit 2,
            # which Claude Code would treat as "block this prompt"
            return host_command(name)

    @click.group("hook", cls=HookGroup, invoke_without_command=True)
    @click.pass_context
    def hook(ctx):
        """Host hook entry point: `memdir hook <host> <event>` (see docs/HOSTS-USAGE.md). Fails open."""
        if ctx.invoked_subcommand is None:
            click.echo(ctx.get_help())

    return hook


def __getattr__(name: str):
    if name == "hook":  # built on first use so `python -m memdir.hosts.hooks` never imports click
        grp = _make_group()
        globals()["hook"] = grp
        return grp
    raise AttributeError(name)


def main(argv: list[str] | None = None, *, raw: bytes | None = None, warm_tried: bool = False,
         leave_open: bool = False, started: float | None = None) -> int:
    """``python -m memdir.hosts.hooks <host> <event> [payload]`` — the same as ``memdir hook``, without click.
    ``raw``/``warm_tried``/``leave_open``/``started``: as :func:`execute` (``memdir.__main__`` asks the warm server
    first and leaves with ``os._exit``)."""
    from memdir.hosts.hookclient import parse_args

    a = parse_args(list(sys.argv[1:] if argv is None else argv))
    if a is None:
        return 0
    return execute(a.host, a.event, a.argv_payload, project_dir=a.project_dir, home=a.home, budget_ms=a.budget_ms,
                   raw=raw, warm_tried=warm_tried, leave_open=leave_open, started=started)


if __name__ == "__main__":
    sys.exit(main())

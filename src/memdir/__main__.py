"""The ``memdir`` console script (and ``python -m memdir``).

``memdir hook <host> <event>`` — what a host runs on every prompt — first asks a running ``memdir serve``
(:mod:`memdir.hosts.hookclient`, standard library only), then goes to :mod:`memdir.hosts.hooks`, which does not import
click, the facade or any feature module before it knows it needs them. ``memdir mcp`` starts its light loop
(:mod:`memdir.cli.mcpstart`) before click is imported. Every other command is the click CLI (:func:`memdir.cli.main.main`).
"""

from __future__ import annotations

import sys

#: group options that may stand before ``hook`` (``memdir --dir X hook claude-code user-prompt``)
_VALUE_OPTS = ("--dir", "--home")
_FLAG_OPTS = ("--debug", "--json")


def _hook_argv(argv: list[str]) -> list[str] | None:
    """The argument list for :func:`memdir.hosts.hooks.main` when ``argv`` is a plain ``hook`` call, else ``None``
    (help, unknown options: the click CLI handles those)."""
    pre: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "hook":
            rest = argv[i + 1:]
            if not rest or any(x in ("-h", "--help") for x in rest):
                return None
            return pre + rest
        if a in _VALUE_OPTS and i + 1 < len(argv):
            pre += [a, argv[i + 1]]
            i += 2
            continue
        if a.startswith(tuple(o + "=" for o in _VALUE_OPTS)):
            name, _, val = a.partition("=")
            pre += [name, val]
            i += 1
            continue
        if a in _FLAG_OPTS:
            if a == "--debug":
                pre.append(a)
            i += 1
            continue
        return None
    return None


def _leave(code: int) -> None:
    """End a hook process at once: output flushed, the debug log flushed, no interpreter teardown and no
    close-time WAL checkpoint (the store is left open; the next opener carries on, as after any exit)."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    shutdown = getattr(sys.modules.get("logging"), "shutdown", None)  # None while another thread still imports it
    if shutdown is not None:
        try:
            shutdown()
        except Exception:  # noqa: BLE001 — leaving anyway
            pass
    os._exit(code)


def main(argv: list[str] | None = None, *, module: str = "memdir") -> None:
    """``module``: what ``python -m`` names to start this command again (``memdir.cli`` runs this same entry)."""
    hooking = _hook_argv(list(sys.argv[1:] if argv is None else argv)) is not None
    try:
        if argv is None:  # a process of its own (not a caller's main([...])): its locale's text edges set once
            from memdir.stdio import utf8_mode, utf8_streams

            utf8_mode(module)
            utf8_streams()
        _main(argv)
    except KeyboardInterrupt:  # Ctrl-C while a command's modules still load, before its own handler runs: no traceback
        _leave(130)
    except (ImportError, SyntaxError) as exc:  # memdir's own files missing or cut: `pip install` is replacing them
        _incomplete(exc, hooking)
    except Exception:  # noqa: BLE001 — a hook fails open, whatever happened before its own handler ran
        if not hooking:
            raise
        _leave(0)


def _incomplete(exc: BaseException, hooking: bool) -> None:
    """Leave when memdir's installed files cannot be imported (an upgrade under way, a broken install): a hook exits
    0 with nothing for the host to show (fail open; said on a terminal), any other command with one error line."""
    what = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    line = (f"memdir: error: memdir's installed files are incomplete ({what}); if an upgrade is under way run the "
            "command again when it ends, else install memdir again the way you installed it")
    if not hooking or sys.stderr.isatty():
        try:
            print(line if not hooking else line.replace("error:", "hook skipped:", 1), file=sys.stderr)
        except (OSError, ValueError):
            pass
    _leave(0 if hooking else 1)


def _main(argv: list[str] | None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    hook_args = _hook_argv(args)
    if hook_args is not None:
        if "--debug" in hook_args:
            import os

            hook_args.remove("--debug")
            os.environ["MEMDIR_DEBUG"] = "1"
        import time

        from memdir.hosts.hookclient import run as ask_warm  # standard library only: a warm server's answer costs no imports

        started = time.monotonic()  # the budget counts the read of stdin too
        done, raw = ask_warm(hook_args)
        if done:
            _leave(0)
        from memdir.hosts.hooks import main as hook_main

        _leave(hook_main(hook_args, raw=raw, warm_tried=raw is not None, leave_open=True,
                         started=started if raw is not None else None))
    if "mcp" in args:
        from memdir.cli.mcpstart import mcp_argv, run_session  # standard library only until the session starts

        plain = mcp_argv(args)
        try:
            if plain is not None and run_session(*plain):  # `memdir mcp`: answered before click and the SDK are imported
                return
        except KeyboardInterrupt:  # Ctrl-C while the session starts or ends: quietly, as every command leaves
            _leave(130)
    from memdir.cli.main import main as cli_main

    cli_main(argv)


if __name__ == "__main__":
    main()

"""The ``memdir`` command: a thin layer over the Python API, same names, ``--json`` everywhere.

Exit codes: 0 ok, 1 not found (or an operational error), 2 usage error, 130 stopped by Ctrl-C (an import says how
far it got). Errors are one line on stderr;
a traceback is shown only with ``--debug``.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sqlite3
import sys
from typing import Any

import click

import memdir.registry as registry
from memdir.cli import dashes
from memdir.debuglog import RedactingFormatter
from memdir.errors import Interrupted, MemdirError, UsageError, damaged_index, disk_full
from memdir.stopsignals import received, watch_ctrl_c

log = logging.getLogger("memdir")

#: extra commands living in other modules, loaded only when used (keeps `memdir recall` start-up light)
LAZY_COMMANDS = registry.COMMANDS


#: words people type for a command memdir names otherwise (the MCP tool memory_list is `memdir recent`)
ALIASES = {"list": "recent", "ls": "recent", "search": "recall", "find": "recall", "query": "recall",
           "delete": "forget", "remove": "forget", "rm": "forget", "add": "remember", "save": "remember",
           "show": "get", "read": "get", "check": "doctor"}


#: characters of one word an error line repeats whole (an id, a path, a value the user gave); a longer one keeps its
#: two ends, so the line stays one line a person reads
WORD_ECHO = 120


def bounded_words(msg: str) -> str:
    """``msg`` with each run of more than :data:`WORD_ECHO` non-blank characters cut to its first 80 and last 30,
    joined by ``…[N characters cut]…``; a file's path or a URL is kept whole."""
    import re

    def cut(m: "re.Match[str]") -> str:
        w = m.group(0)
        bare = w.strip("'\"(")
        if bare.startswith(("/", "~", "./", "../", "\\")) or "://" in bare or re.match(r"[A-Za-z]:[\\/]", bare):
            return w  # a file's path or a URL: the person needs it whole
        return f"{w[:80]}…[{len(w) - 110:,} characters cut]…{w[-30:]}"

    return re.sub(r"\S{%d,}" % (WORD_ECHO + 1), cut, msg) if msg and len(msg) > WORD_ECHO else msg


class Stopped(Exception):
    """Ctrl-C stopped a command part-way (:class:`memdir.errors.Interrupted`): its one line, exit 130. Raised out of
    the group so click does not turn it into a bare ``Aborted!``."""


class LazyGroup(click.Group):
    def make_context(self, *args, **kwargs):
        try:  # --help and --version print while the arguments are read
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:
            _stdout_gone()
            raise click.exceptions.Exit(0) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Interrupted as exc:  # how far an import got (what it committed stays)
            raise Stopped(str(exc)) from None
        except BrokenPipeError:  # the reader left (`| head -1`): done, not failed (click's own answer is exit 1)
            _stdout_gone()
            raise click.exceptions.Exit(0) from None

    def list_commands(self, ctx):
        names = set(super().list_commands(ctx))
        names.update(n for n, target in LAZY_COMMANDS.items() if _find_spec(target))
        return sorted(names)

    def resolve_command(self, ctx, args):
        name = args[0] if args else ""
        if name and not name.startswith("-") and not ctx.resilient_parsing and self.get_command(ctx, name) is None:
            import difflib

            known = {**{n: n for n in self.list_commands(ctx)}, **ALIASES}
            close = difflib.get_close_matches(name.lower(), list(known), 1, 0.6)
            guess = known[close[0]] if close else None
            if name.lower() in ("uninstall", "remove-hooks", "deinstall"):  # not a command: install's own flag
                guess = "install HOST --uninstall"
            hint = f": did you mean `memdir {guess}`?" if guess else ": `memdir --help` lists the commands"
            raise click.UsageError(f"No such command {name!r}{hint}", ctx)
        return super().resolve_command(ctx, args)

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in LAZY_COMMANDS:
            return _accept_global_options(cmd) if cmd is not None else None
        mod_name, attr = LAZY_COMMANDS[name].split(":")
        try:
            mod = importlib.import_module(mod_name)
        except ImportError as exc:
            missing = str(getattr(exc, "name", None) or exc)
            if missing == "memdir" or missing.startswith("memdir."):
                raise  # our own module or name is missing: a defect, never hidden as "no such command"
            return _unavailable(name, f"needs an optional dependency ({missing}); see README 'Install'")
        return _accept_global_options(getattr(mod, attr))


def _stdout_gone() -> None:
    """Point stdout at the null device once its reader left: what is still buffered goes nowhere, so the flush at
    exit raises no second ``BrokenPipeError``."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (a caller's captured stream): nothing to do
        pass


def _set_global(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """A group option given after the command (``memdir recall x --dir P``): the same as before it."""
    if value is None or value is False:
        return
    obj = ctx.find_root().obj
    if param.name == "debug":
        _debug_logging()
    obj[param.name] = value


def _accept_global_options(cmd: click.Command) -> click.Command:
    """Let ``cmd`` (and the commands of a sub-group) take ``--dir``, ``--home``, ``--debug`` and ``--json`` after its
    name too (hidden: the group's help lists them); a command with its own option of that name keeps it (``serve``,
    ``mcp``, every command that prints)."""
    if getattr(cmd, "_memdir_globals", False):
        return cmd
    cmd._memdir_globals = True  # type: ignore[attr-defined]
    taken = {o for p in cmd.params for o in getattr(p, "opts", ())}
    extra = [click.Option(["--dir", "dir"], type=click.Path(exists=True, file_okay=False), hidden=True,
                          expose_value=False, callback=_set_global),
             click.Option(["--home", "home"], type=click.Path(file_okay=False), hidden=True, expose_value=False,
                          callback=_set_global),
             click.Option(["--debug", "debug"], is_flag=True, hidden=True, expose_value=False, callback=_set_global),
             click.Option(["--json", "json"], is_flag=True, hidden=True, expose_value=False, callback=_set_global)]
    cmd.params += [o for o in extra if o.opts[0] not in taken]
    dashes.guard(cmd)  # `—category` (autocorrect's long dash) is one usage line, never the note's text
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            _accept_global_options(sub)
    return cmd


def _find_spec(target: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(target.split(":")[0]) is not None
    except (ImportError, ValueError):
        return False


def _unavailable(name: str, why: str) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    def cmd():
        raise UsageError(f"`memdir {name}` {why}")

    return cmd


@click.group(cls=LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--dir", "dir_", type=click.Path(exists=True, file_okay=False), envvar="MEMDIR_PROJECT_DIR",
              help="Project directory to use (default: $MEMDIR_PROJECT_DIR, else the working directory; its git top-level is the project root).")
@click.option("--home", type=click.Path(file_okay=False), help="Global memory root (default: $MEMDIR_HOME or the user data dir).")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON (any command).")
@click.option("--debug", is_flag=True, help="Log ranking and skip decisions to stderr; show tracebacks.")
@click.option("--version", is_flag=True, is_eager=True, expose_value=False, callback=lambda c, p, v: _version(c, v),
              help="Show the version and exit.")
@click.pass_context
def cli(ctx: click.Context, dir_: str | None, home: str | None, as_json: bool, debug: bool) -> None:
    """memdir — long-term memory for AI coding agents: Markdown you can read, recall that finds it."""
    ctx.obj = {"dir": dir_, "home": home, "json": as_json, "debug": debug, "store": None}
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(0)
    if debug:
        _debug_logging()


def _version(ctx: click.Context, value: bool) -> None:
    """``--version``: ``memdir, version X`` (``--json`` anywhere on the line: ``{"version": "X"}``), then exit 0."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    v = version("memdir")
    as_json = bool((ctx.obj or {}).get("json")) if isinstance(ctx.obj, dict) else False  # main() saw --json
    click.echo(json.dumps({"version": v}) if as_json else f"memdir, version {v}")
    ctx.exit(0)


def _debug_logging() -> None:
    if log.propagate is False:
        return  # already on
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("memdir: %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False  # one line per message (not again through the root handler)


def _root_named(filename: object, argv: list[str] | None) -> str:
    """`` (the global root: …)`` when ``filename`` is the global memory root or lies inside it (a ``--home`` or
    ``MEMDIR_HOME`` naming a folder that cannot be made), so the one-line error says which setting to change."""
    if not isinstance(filename, (str, os.PathLike)):
        return ""
    try:
        from memdir.roots import global_root

        args = list(argv or [])
        home = next((a.split("=", 1)[1] for a in args if a.startswith("--home=")), None)
        if home is None and "--home" in args[:-1]:
            home = args[args.index("--home") + 1]
        root = os.path.abspath(global_root(home))
        path = os.path.abspath(os.fspath(filename))
        if path == root or path.startswith(root + os.sep) or root.startswith(path + os.sep):
            return " (the global memory root: --home or MEMDIR_HOME names a folder that cannot be made or written)"
    except Exception:  # noqa: BLE001 - a hint only: the error line itself is what matters
        pass
    return ""


def _cut(msg: str, limit: int = 200) -> str:
    """An unexpected error's text as its one line quotes it: redacted, then cut (a cut first could leave the first
    part of a key, which no pattern knows)."""
    from memdir.capture.redact import redact

    return redact(msg)[:limit]


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, mapping errors to one line on stderr and exit codes 0/1/2."""
    args = list(argv if argv is not None else sys.argv[1:])
    opts = args[:args.index("--")] if "--" in args else args
    debug = "--debug" in opts
    as_json = "--json" in opts

    def fail(msg: str, code: int, prefix: str = "error") -> None:
        """One line on stderr (``--json``: one JSON object, ``{"error", "exit_code"}``), then exit ``code``. The line
        is redacted: it can quote what was typed (an id, an option's value, a path) or an error text naming a key."""
        from memdir.capture.redact import redact

        msg = redact(msg or "")
        if as_json:
            click.echo(json.dumps({"error": msg or prefix, "exit_code": code, **({"internal": True} if prefix == "internal error" else {})},
                                  ensure_ascii=False), err=True)
        else:  # a person's one line: a pasted id of thousands of characters keeps its two ends (a script gets it whole)
            from memdir.cli.output import shown

            msg = shown(bounded_words(msg))
            click.echo(f"memdir: {prefix}: {msg}" if msg and prefix else f"memdir: {msg or prefix}", err=True)
        sys.exit(code)

    had = list(logging.getLogger().handlers)
    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    for h in logging.getLogger().handlers:  # the terminal gets warnings; MEMDIR_DEBUG's records go to debug.log only
        if h not in had:  # only the handler added here: a program embedding main() keeps its own
            h.setLevel(logging.WARNING)
            # redacted as debug.log is: a warning can quote a setting's value, a turn or an endpoint's answer
            h.setFormatter(RedactingFormatter("%(message)s"))
    watch_ctrl_c()
    try:
        rv = cli.main(args=argv, prog_name="memdir", standalone_mode=False, obj={"json": as_json})
        if isinstance(rv, int) and rv:
            sys.exit(rv)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # click's own messages may span lines (a choice list): one line here
        msg = " ".join(x.strip() for x in exc.format_message().splitlines() if x.strip())
        group = getattr(exc, "ctx", None)
        if group is not None and isinstance(group.command, click.Group) and (isinstance(
                exc, getattr(click.exceptions, "NoArgsIsHelpError", ())) or msg == "Missing command."):
            # a group named without its command: its whole help page was the "one line"
            names = ", ".join(group.command.list_commands(group))
            msg = f"`{group.command_path}` needs a command: {names} (`{group.command_path} --help` says more)"
        text = next((a for a in opts if a.startswith("-") and (a.startswith("---") or len(a.split()) > 1)), None)
        if isinstance(exc, click.exceptions.NoSuchOption) and text is not None:
            # text that starts with a dash was read as an option: `--` before it makes it text
            name = next((a for a in opts if a in LAZY_COMMANDS or a in cli.commands), "COMMAND")
            msg += f" (text starting with '-' goes after --: memdir {name} -- {text!r})"
        fail(msg, exc.exit_code)
    except click.exceptions.Abort:
        fail("", 130, "aborted")
    except Stopped as exc:  # `memdir: interrupted after N of M events; run the same command again …`
        fail(str(exc), 130, "")
    except MemdirError as exc:
        if debug:
            debug_traceback(exc, exc.exit_code)
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # the reader left while the command ended (an OSError too: before that handler)
        _stdout_gone()
        sys.exit(0)
    except OSError as exc:  # a file the user named cannot be read or written
        if debug:
            debug_traceback(exc, 1)
        advice = disk_full(exc)  # no room on the disk: what to do, and that nothing stored was lost
        if advice is not None:
            fail(advice, 1)
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        fail(f"{exc.strerror or exc}{where}{_root_named(exc.filename, opts)}", 1)
    except sqlite3.DatabaseError as exc:
        if "user-defined function" in str(exc) and received():  # Ctrl-C (or SIGTERM) SQLite swallowed in a function
            sys.exit(130)
        if debug:
            debug_traceback(exc, 1)
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        advice = damaged_index(exc) or disk_full(exc)  # damaged after it opened, or no room: what to do, not a bug
        if advice is None:
            fail(f"{type(exc).__name__}: {_cut(msg)} (rerun with --debug for details)", 1, "internal error")
        fail(advice, 1)
    except Exception as exc:  # noqa: BLE001 — the promise is "never a traceback"
        if debug:
            debug_traceback(exc, 1)
        if _command(opts) == "hook":  # a host's hook fails open (its module cut by an upgrade under way): exit 0, quiet
            sys.exit(0)
        msg = str(exc).splitlines()[0] if str(exc) else ""
        fail(f"{type(exc).__name__}: {_cut(msg)} (rerun with --debug for details)", 1, "internal error")


def _command(opts: list[str]) -> str | None:
    """The command word of a command line (after the group's options and their values)."""
    it = iter(opts)
    for a in it:
        if a in ("--dir", "--home"):
            next(it, None)
        elif not a.startswith("-"):
            return a
    return None


def debug_traceback(exc: BaseException, code: int) -> None:
    """``--debug``: ``exc``'s whole traceback on stderr, redacted as the one-line error is (an exception's message
    and the arguments a frame quotes can hold a key the user typed), then exit ``code``."""
    import traceback

    from memdir.capture.redact import redact

    sys.stderr.write(redact("".join(traceback.format_exception(exc))))
    sys.stderr.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()

"""Does a shell command only show, search or list files? :func:`is_shell_read` — the shell forms of the
Read/Grep/Glob/LS tools (``sed -n '1,180p' a.py``, ``rg -n foo src``, ``ls``), whose file dumps capture keeps as a
one-line fact (:func:`memdir.capture.evidence.read_fact`), never as the dump (:mod:`memdir.capture.gates`).

Reads joined into one command are one read: ``sed -n 1,200p README.md && echo ---- && sed -n 1,50p setup.py`` (a
banner between them prints only its own words), ``for f in a.py b.py; do cat "$f"; done``, and ``git show
HEAD:src/a.py`` (a file as a revision holds it). What only moves or reports is no read: ``cd src`` alone, ``echo
$PATH`` or ``echo $?`` (a value, not a banner), ``git show :/retry-limit`` (a commit found by its message)."""

from __future__ import annotations

import re

from memdir.capture.evidence import SHOW_TEXT, git_file, git_subcommand, shell_words
from memdir.capture.webfetch import MAX_NESTING, SHELL_WRAPPERS

#: commands that only show files, search them or list them (the Read/Grep/Glob/LS tools' work); ``cd``/``pwd``
#: may come with them (:data:`_MOVES`), but read nothing themselves. ``sed`` only with ``-n`` and without ``-i``; ``find`` without ``-exec``/``-delete``/``-ok``.
READ_COMMANDS = frozenset({"cat", "nl", "head", "less", "more", "bat", "batcat", "sed", "wc", "rg", "grep",
                           "egrep", "fgrep", "ag", "ack", "ls", "find", "fd", "fdfind", "tree", "cd", "pwd", "git"})
#: what a read of such a file shows is what happened, not a file's source: a log, a background task's output
#: (``tail`` is left out of READ_COMMANDS for the same reason: it is how logs are read)
_RUNTIME_OUTPUT = re.compile(r"(?:^|/)(?:tmp|var/log|logs?)/|\.(?:log|out|output|err|stderr|stdout)$")
#: git subcommands that search or list files; ``show``/``cat-file`` read one when every operand is ``REV:PATH``
_GIT_READS = ("grep", "ls-files")
#: commands that come with reads but read nothing: a command of these alone (``cd /repo``) is no read
_MOVES = frozenset({"cd", "pwd"})
_NO, _PLAIN, _READ = 0, 1, 2  # a line: not a read / only banners, moves and loop words / reads something
#: what a banner may name besides its rule of punctuation: a path (``src/a.py``, ``README.md``), an escape, a format
_NAMED = re.compile(r"[\w.-]*[./][\w./-]*|\\[nt]|%[-\d.]*[sd]")
#: a shell variable or parameter (``$f``, ``${f}``, ``$?``, ``$1``, ``${PATH:-x}``)
_VARIABLE = re.compile(r"\$(?:\{[^}]*\}?|\w+|[?#$!@*-])")


def _is_banner(args: list[str], loop_vars: frozenset[str] = frozenset()) -> bool:
    """True when ``echo``/``printf`` ``args`` only separate reads (``----``, ``== $f ==``, ``=== README.md ===``, a
    blank line), a variable in them being a ``for`` loop's (``loop_vars``: the file the loop reads next). Words
    (``echo "No lock files"``, ``echo "Run this from your terminal: …"``) are what the agent found or wants said, and
    any other variable (``echo $PATH``, ``echo $?``, ``echo "== $TOTAL =="``) reports a value: the command is then no
    plain read, and its output is kept."""
    text = " ".join(a for a in args if a not in ("-e", "-n", "-en", "-ne", "-E"))
    for m in _VARIABLE.finditer(text):
        if m.group().strip("${}") not in loop_vars:
            return False
    text = _NAMED.sub(" ", _VARIABLE.sub(" ", text))
    return not re.search(r"[^\W\d_]", text)


def is_shell_read(command: str, _depth: int = 0) -> bool:
    """True when every part of ``command`` (split at ``&&``, ``||``, ``;``, ``|``, newlines) only shows, searches or
    lists files (:data:`READ_COMMANDS`, ``git show REV:PATH``), with no output redirected into a file, and one part at
    least reads: ``sed -n '1,180p' a.py``, ``cd src && rg -n foo . | head``, ``nl -ba x | sed -n 1,80p``, ``sed -n
    1,80p a.py && echo ---- && cat b.py``, ``for f in a b; do cat "$f"; done``. A ``bash -lc '…'`` wrapper is looked
    into (wrappers nested deeper than :data:`memdir.capture.webfetch.MAX_NESTING` are no read). Anything that does not
    parse is not a read; ``echo hi``, ``cd src`` alone are not one."""
    return _depth <= MAX_NESTING and _script_kind(command, _depth) == _READ


def _script_kind(command: str, depth: int) -> int:
    lines = [x for x in command.strip().splitlines() if x.strip()]
    # a script: every line must be a read, a banner or a loop's words (a quoted line break fails to parse: not a read)
    loop_vars = frozenset(re.findall(r"\bfor\s+(\w+)\s+in\b", command))
    kinds = [_line_kind(x, depth, loop_vars) for x in lines]
    return _NO if not kinds or _NO in kinds else max(kinds)


def _line_kind(command: str, depth: int, loop_vars: frozenset[str]) -> int:
    tokens = shell_words(command)
    if tokens is None:
        return _NO
    if len(tokens) >= 3 and tokens[0] in SHELL_WRAPPERS and tokens[1] in ("-c", "-lc", "-cl"):
        return _READ if len(tokens) == 3 and is_shell_read(tokens[2], depth + 1) else _NO
    parts: list[list[str]] = [[]]
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in ("&&", "||", ";", "|", "&"):
            parts.append([])
        elif t and set(t) <= set("<>&|;()"):  # a redirection (or a subshell: not a plain read)
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if t.startswith(">") and t not in (">&",) and nxt != "/dev/null":
                return _NO  # output written to a file
            if t in ("(", ")", "((", "))"):
                return _NO
            i += 1  # the redirection's target
        else:
            parts[-1].append(t)
        i += 1
    kinds = [_part_kind(p[1:] if p[0] == "do" else p, loop_vars) for p in parts if p]
    return _NO if not kinds or _NO in kinds else max(kinds)


def _part_kind(words: list[str], loop_vars: frozenset[str]) -> int:
    if not words or words == ["done"]:
        return _PLAIN
    cmd, args = words[0].rsplit("/", 1)[-1], words[1:]
    if any("$(" in a or "`" in a for a in args):
        return _NO  # a command run inside an argument
    if cmd in SHOW_TEXT:
        return _PLAIN if _is_banner(args, loop_vars) else _NO
    if cmd == "for" and len(args) >= 2 and args[1] == "in":
        return _PLAIN  # a loop over the files the body reads
    if cmd not in READ_COMMANDS or any(_RUNTIME_OUTPUT.search(a) for a in args):
        return _NO
    if cmd in _MOVES:
        return _PLAIN
    if cmd == "sed" and ("-n" not in args or any(a.startswith(("-i", "--in-place")) for a in args)):
        return _NO
    if cmd == "find" and any(a in ("-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint", "-fls") for a in args):
        return _NO
    if cmd == "git":
        sub = git_subcommand(args)
        operands = [a for a in sub[1:] if not a.startswith("-")]
        if not sub or not (sub[0] in _GIT_READS or (sub[0] in ("show", "cat-file") and operands
                                                     and all(git_file(a) for a in operands))):
            return _NO
    return _READ

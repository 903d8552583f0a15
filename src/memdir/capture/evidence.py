"""What a tool call leaves as evidence when its full output is not what a later question needs.

Two kinds, both pure functions of the call (no store, deterministic, so capture keys built from the text stay
stable):

* **why a command failed** — :func:`exit_status` (the exit code a host wrote into the output: Claude Code's
  ``Exit code 1``, ``Process exited with code 2``, ``exit status 127`` …) and :func:`failure_lines` (the lines of an
  output that say why: compiler and linter errors, failing tests, tracebacks' last lines, ``npm ERR!``, ``fatal:`` …,
  found by pattern, bounded by :data:`FAILURE_MAX_LINES` × :data:`FAILURE_LINE_MAX_CHARS`). A failed call's summary
  starts with them (:func:`memdir.capture.tools.summarise_tool`), so the one line a block shows of it is the error;
* **what the agent looked at** — :func:`read_fact`: a read, search or listing (the Read/Grep/Glob/LS tools, or their
  shell forms ``sed -n``/``cat``/``rg``/``ls`` …) is stored as one line, ``read src/a.py``, ``searched "compact" in
  src``, ``listed docs``, without the file dump it returned.
"""

from __future__ import annotations

import re
from typing import Any

FAILURE_MAX_LINES = 6
"""Failure lines kept at most (up to four naming an error, then the last verdicts)."""
FAILURE_LINE_MAX_CHARS = 200
"""Each failure line is cut to this many characters."""

_EXIT = re.compile(r"(?im)^\s*(?:exit code|process exited with code|command exited with code|exit status|exited with "
                   r"(?:exit )?code)[:\s]+(-?\d+)\b")
#: a line that says why something failed, in the forms the usual tools print (case-insensitive where the tools vary)
_FAILURE = re.compile(
    r"(?:\b(?:error|fatal|panic(?:ked)?|exception|traceback|failed|failure|fail|segmentation fault|abort(?:ed)?)\b"
    r"|\berror\[|\berror (?:TS|CS)\d+|\b[A-Z]\w*(?:Error|Exception|Exit)\b|npm ERR!|ERR_[A-Z_]+|\bE\d{3,4}\b"
    r"|command not found|no such file or directory|permission denied|cannot find|can't find|could not|couldn't"
    r"|not found|undefined reference|unresolved|denied|refused|timed? ?out|✗|✘|×|❌"
    r"|错误|失败|异常|报错|找不到|无法)", re.I)
#: a line that says what went wrong, not only that something failed: an error's type or message, a compiler's error
#: code, ``fatal:``, ``npm ERR!``, a panic
_CAUSE = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b|\berror(?:\[\w+\]| (?:TS|CS)\d+)?:|\bfatal:|npm ERR!|ERR_[A-Z_]+"
                    r"|panicked at|\bE\d{3,4}\b|command not found|no such file or directory|permission denied|错误[:：]", re.I)
#: the same pattern for the block's window (:func:`memdir.inject.kinds.answer_line`): the line a "why did it fail"
#: question's answer sits on
CAUSE_LINE = _CAUSE
#: a source location (``src/a.ts:253:33``, ``a.py:12``)
_LOCATION = re.compile(r"[\w./\\-]+\.\w{1,5}:\d+(?::\d+)?\b")
#: a line that mentions failure only to say there was none
_NO_FAILURE = re.compile(r"\b(?:0|no) (?:errors?|failures?|failed|problems?)\b|\berrors?: 0\b|\bfailed: 0\b|"
                         r"\b0 failing\b|without errors?", re.I)


def exit_status(output: str | None) -> int | None:
    """The exit code a host wrote into a command's output (first match of ``Exit code N``, ``Process exited with code
    N``, ``exit status N`` … at a line start), or ``None``."""
    if not output:
        return None
    m = _EXIT.search(output[:2000]) or _EXIT.search(output[-2000:])
    return int(m.group(1)) if m else None


def is_exit_line(line: str) -> bool:
    """True when ``line`` only reports an exit code (``Exit code 1``): the summary's status says it already."""
    m = _EXIT.match(line)
    return bool(m) and not line[m.end():].strip()


def _cut(line: str) -> str:
    s = " ".join(line.split())
    return s if len(s) <= FAILURE_LINE_MAX_CHARS else s[: FAILURE_LINE_MAX_CHARS - 1] + "…"


def failure_lines(lines: list[str]) -> list[str]:
    """The lines of an output (``lines``: its non-blank lines, in order) that say why it failed, whitespace-collapsed
    and cut to :data:`FAILURE_LINE_MAX_CHARS`; repeats dropped; at most :data:`FAILURE_MAX_LINES`: the first four
    lines naming an error (``TypeError: …``, ``error TS2322: …``, ``fatal: …``, and the source location after the
    first of them), then the last of the others (a test runner's verdict). Lines naming an error come first in the
    result (a one-line view shows the first), the others after them in output order. ``[]`` when no line reads as a
    failure."""
    found: list[tuple[int, str, bool]] = []  # (position, line, says what went wrong)
    seen: set[str] = set()
    first_cause = -1
    for n, ln in enumerate(lines):
        cause = bool(_CAUSE.search(ln))
        if not cause and first_cause >= 0 and n - first_cause <= 12 and _LOCATION.search(ln):
            cause = True  # where the first error was raised (`src/a.test.ts:253:33`)
        elif is_exit_line(ln) or not (cause or _FAILURE.search(ln)) or _NO_FAILURE.search(ln):
            continue
        if cause and first_cause < 0:
            first_cause = n
        s = _cut(ln)
        if s and s not in seen:
            seen.add(s)
            found.append((n, s, cause))
    if len(found) > FAILURE_MAX_LINES:  # the lines naming an error first (its first four), then the last verdicts
        keep = [x for x in found if x[2]][:4]
        rest = [x for x in found if x not in keep]
        found = sorted(keep + rest[len(rest) - (FAILURE_MAX_LINES - len(keep)):])
    # what went wrong first (a one-line view shows the first), then the rest in output order
    return [s for _, s, c in found if c] + [s for _, s, c in found if not c]


# ---- reads, searches and listings ------------------------------------------------------------------------------
#: a command without quotes or backslashes, split as shlex does with ``punctuation_chars``: runs of ``();<>|&`` are
#: words of their own, the rest splits at shlex's whitespace (space, tab, CR, LF)
_PLAIN_WORDS = re.compile(r"[();<>|&]+|[^ \t\r\n();<>|&]+")


def shell_words(command: str) -> list[str] | None:
    """``command`` split as a POSIX shell would (quotes removed, ``|``/``;``/``&&`` as words of their own, no
    comments); ``None`` when it does not parse (an open quote)."""
    if not ('"' in command or "'" in command or "\\" in command):
        # nothing quoted or escaped: the words shlex would give, without its per-character loop (~0.1 ms a command
        # on every shell call an import gates; tests/test_evidence.py compares the two)
        return _PLAIN_WORDS.findall(command)
    import shlex

    try:
        lex = shlex.shlex(command, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        lex.commenters = ""
        return list(lex)
    except ValueError:
        return None


#: tool names (case-folded) whose calls are reads, searches or listings, and the verb of their one-line fact
READ_TOOLS = {"read": "read", "read_file": "read", "view": "read", "notebookread": "read", "cat": "read",
              "grep": "searched", "grep_search": "searched", "search": "searched", "rg": "searched",
              "search_files": "searched", "codesearch_local": "searched",
              "glob": "searched files", "find_files": "searched files", "file_search": "searched files",
              "ls": "listed", "list": "listed", "list_dir": "listed", "list_directory": "listed"}
#: file tools under other names (an MCP server's, another host's): ``read_text_file``, ``read_multiple_files``,
#: ``get_file_contents``, ``view_file`` read; ``list_directory_with_sizes``, ``directory_tree`` list; ``search_files``,
#: ``grep_files`` search. Matched on the whole name or an MCP tool's own part (``mcp__filesystem__read_file``)
_FILE_TOOL = [(re.compile(r"(?:read|view|cat|open|get|show)_(?:[a-z]+_){0,2}(?:file|file_contents?|notebook)"
                          r"|read_(?:[a-z]+_)?files"), "read"),
              (re.compile(r"(?:list|tree)_(?:dir|directory|directories|files)(?:_[a-z_]+)?|directory_tree"), "listed"),
              (re.compile(r"(?:search|find|grep|glob)_files|file_search|grep_search"), "searched")]
FACT_MAX_CHARS = 300
"""Upper bound (chars) of one read/search fact."""
_SEARCH_CMDS = frozenset({"rg", "grep", "egrep", "fgrep", "ag", "ack"})
_LIST_CMDS = frozenset({"ls", "tree"})
_FIND_CMDS = frozenset({"find", "fd", "fdfind"})
#: options that take a value, per program (the value is not a file name)
_VALUE_OPTS = {
    "search": frozenset({"-e", "--regexp", "-f", "--file", "-g", "--glob", "-t", "--type", "-T", "--type-not", "-A",
                         "-B", "-C", "-m", "--max-count", "--include", "--exclude", "--context", "--after-context",
                         "--before-context", "--color", "--colors", "-M", "--max-columns", "--max-depth", "-d"}),
    "find": frozenset({"-name", "-iname", "-path", "-ipath", "-type", "-maxdepth", "-mindepth", "-newer", "-size",
                       "-mtime", "-e", "--extension", "-t", "-d", "--max-depth", "-E", "--exclude"}),
    "list": frozenset({"-L", "-I", "--ignore", "-P"}),
    "read": frozenset({"-n", "-c", "--lines", "--bytes", "-w", "-s", "-v"}),
    "sed": frozenset({"-e", "--expression", "-f", "--file", "-l"}),
}


def _rel(path: str, cwd: str | None) -> str:
    p = str(path).strip()
    base = str(cwd or "").rstrip("/\\")
    if base and p.startswith(base + "/"):
        return p[len(base) + 1:]
    return "." if base and p == base else p


def _fact(text: str) -> str:
    s = " ".join(text.split())
    return s if len(s) <= FACT_MAX_CHARS else s[: FACT_MAX_CHARS - 1] + "…"


def read_verb(name: str) -> str | None:
    """The verb of the one-line fact tool ``name``'s calls leave when it reads, searches or lists files (``"read"``,
    ``"searched"``, ``"searched files"``, ``"listed"``), else ``None``: :data:`READ_TOOLS` by the whole name, or a file
    tool's name (``read_file``, ``read_text_file``, ``read_multiple_files``, ``list_directory``, ``search_files``) as
    the whole name or an MCP tool's own part (``mcp__filesystem__read_text_file`` → ``"read"``)."""
    n = name.strip().casefold()
    if n in READ_TOOLS:
        return READ_TOOLS[n]
    parts = n.split("__")
    tool = "__".join(parts[2:]) if len(parts) >= 3 and parts[0] == "mcp" else n
    if tool != n and tool in READ_TOOLS and "_" in tool:  # `mcp__x__read_file`, not a bare `mcp__x__search`
        return READ_TOOLS[tool]
    return next((verb for rx, verb in _FILE_TOOL if rx.fullmatch(tool)), None)


def _tool_fact(verb: str, args: dict[str, Any], cwd: str | None) -> str | None:
    def get(*keys: str) -> str:
        for k in keys:
            v = args.get(k)
            if isinstance(v, str) and v.strip():
                return v.strip()
        return ""

    path = get("file_path", "filePath", "path", "notebook_path", "dir_path", "directory", "target_file", "file")
    where = _rel(path, cwd) if path else ""
    many = args.get("paths") or args.get("file_paths")
    if not where and isinstance(many, list):  # read_multiple_files: {"paths": [...]}
        where = ", ".join(_rel(p, cwd) for p in many if isinstance(p, str) and p.strip())
    if verb == "read":
        if not where:
            return None
        rng = ""
        off, lim = args.get("offset"), args.get("limit")
        if isinstance(off, int) and isinstance(lim, int) and lim > 0:
            rng = f" (lines {off}-{off + lim - 1})" if off > 0 else f" (lines 1-{lim})"
        return f"read {where}{rng}"
    if verb in ("searched", "searched files"):
        pattern = get("pattern", "query", "regex", "glob", "search")
        if not pattern:
            return None
        extra = get("glob", "include", "type") if verb == "searched" else ""
        extra = f" ({extra})" if extra and extra != pattern else ""
        return f'{verb} "{pattern}"{extra} in {where or "."}'
    return f"listed {where or '.'}"


def _shell_fact(words: list[str], cwd: str | None, here: str = "") -> str | None:
    """One fact for one part of a shell read (``["sed", "-n", "1,80p", "a.py"]``), or ``None`` (``cd``, ``pwd``,
    a filter reading its input from a pipe). ``here``: the directory an earlier ``cd`` moved to."""
    cmd, args = words[0].rsplit("/", 1)[-1], words[1:]
    if cmd in ("cd", "pwd") or cmd in SHOW_TEXT:
        return None
    if cmd == "git":
        args = git_subcommand(args)
        if not args:
            return None
        if args[0] in ("show", "cat-file"):  # a file as a revision holds it: `git show HEAD:src/a.py`
            revs = [f for f in map(git_file, args[1:]) if f]
            return "; ".join(f"read {_rel(here_path(path, here), cwd)}" + (f" (at {rev})" if rev else "")
                             for rev, path in revs) or None
        cmd, args = ("rg" if args[0] == "grep" else "ls"), args[1:]
    kind = "search" if cmd in _SEARCH_CMDS else "find" if cmd in _FIND_CMDS else "list" if cmd in _LIST_CMDS else \
        "sed" if cmd == "sed" else "read"
    opts = _VALUE_OPTS[kind]
    plain: list[str] = []
    values: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and len(a) > 1:
            if a in opts and i + 1 < len(args):
                values.setdefault(a, args[i + 1])
                i += 1
        else:
            plain.append(a)
        i += 1
    if cmd in _SEARCH_CMDS and (values.get("-e") or values.get("--regexp")):
        plain.insert(0, values.get("-e") or values["--regexp"])
    if cmd == "sed" and not (values.get("-e") or values.get("--expression")):
        plain = plain[1:]  # the script ('1,80p')
    if here:
        import posixpath

        plain[1 if cmd in _SEARCH_CMDS else 0:] = [p if p.startswith("/") else posixpath.normpath(posixpath.join(here, p))
                                                   for p in plain[1 if cmd in _SEARCH_CMDS else 0:]]
        if kind != "read" and kind != "sed" and not plain[1 if cmd in _SEARCH_CMDS else 0:]:
            plain.append(here)
    if cmd in _SEARCH_CMDS:
        if not plain:
            return None
        return f'searched "{plain[0]}" in {", ".join(_rel(p, cwd) for p in plain[1:]) or "."}'
    if cmd in _FIND_CMDS:
        pattern = next((values[k] for k in ("-name", "-iname", "-path", "-ipath") if k in values), "")
        where = plain if cmd == "find" else plain[1:]
        pattern = pattern or (plain[0] if cmd != "find" and plain else "")
        if not pattern:
            return f'listed {", ".join(_rel(p, cwd) for p in where) or "."}'
        return f'searched files "{pattern}" in {", ".join(_rel(p, cwd) for p in where) or "."}'
    if cmd in _LIST_CMDS:
        return f'listed {", ".join(_rel(p, cwd) for p in plain) or "."}'
    if not plain:
        return None  # a filter on a pipe (`| head`, `| wc -l`)
    return "read " + ", ".join(_rel(p, cwd) for p in plain)


#: commands that print their own words, not a file: a banner between reads (``sed -n 1,80p a.py && echo ---- && …``)
SHOW_TEXT = frozenset({"echo", "printf", "true", ":"})
#: git's own options before its subcommand (``git --no-pager show …``, ``git -C src grep …``); the ``-C``/``-c`` ones
#: take a value
_GIT_OPTS = ("-C", "-c", "--git-dir", "--work-tree")


def git_subcommand(args: list[str]) -> list[str]:
    """``git``'s arguments from its subcommand on, past git's own options (``["--no-pager", "show", "HEAD:a.py"]`` →
    ``["show", "HEAD:a.py"]``)."""
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in _GIT_OPTS else 1
    return args[k:]


def git_file(arg: str) -> tuple[str, str] | None:
    """``(rev, path)`` when ``git show``/``git cat-file`` operand ``arg`` names a file as a revision (or, ``rev`` empty,
    the index) holds it: ``HEAD:src/a.py`` → ``("HEAD", "src/a.py")``, ``HEAD@{2.days.ago}:a.py``, ``:0:a.py``;
    ``None`` for a commit (``HEAD``, ``HEAD@{2}``, ``main@{10:30}``, ``:/retry-limit`` and ``HEAD^{/fix: x}``: found by
    their message), an option, or a tree without a path (``HEAD:``). A ``:`` inside ``@{…}``/``^{…}`` separates
    nothing."""
    if arg.startswith("-"):
        return None
    depth = 0
    for k, c in enumerate(arg):
        if c == "{" and k and arg[k - 1] in "@^":
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        elif c == ":" and not depth:
            rev, path = arg[:k], arg[k + 1:]
            if not rev and path.startswith("/"):
                return None  # `:/text`: the youngest commit whose message matches
            if not rev and re.match(r"[0-3]:", path):
                path = path[2:]  # `:0:a.py`: a stage of the index
            return (rev, path) if path else None
    return None


def here_path(path: str, here: str) -> str:
    """``path`` as seen from the directory an earlier ``cd`` moved to (``here``; unchanged when empty or absolute)."""
    if not here or path.startswith("/"):
        return path
    import posixpath

    return posixpath.normpath(posixpath.join(here, path))


def loop_part(part: list[str], loops: dict[str, list[str]]) -> list[str]:
    """One part of a shell command with a ``for`` loop's words put in: ``for f in a.py b.py`` is recorded in ``loops``
    (``{"f": ["a.py", "b.py"]}``) and gives ``[]``, as ``done`` does; ``do`` is dropped before a body's command, and
    ``$f``/``${f}`` become the loop's words (``["do", "cat", "$f"]`` → ``["cat", "a.py", "b.py"]``)."""
    if part[:1] == ["do"]:
        part = part[1:]
    if not part or part == ["done"]:
        return []
    if len(part) >= 3 and part[0] == "for" and part[2] == "in":
        loops[part[1]] = part[3:]
        return []
    out: list[str] = []
    for w in part:
        m = re.fullmatch(r"\$\{?(\w+)\}?", w)
        out.extend(loops[m.group(1)] if m and m.group(1) in loops else [w])
    return out


def read_fact(name: str, tool_input: Any, *, command: str | None = None, cwd: str | None = None) -> str | None:
    """The one-line fact a read, search or listing leaves (``read src/a.py (lines 1-80)``, ``searched "compact" in
    src``, ``searched files "*.md" in docs``, ``listed .``; several parts of one shell command joined by ``; ``), at most
    :data:`FACT_MAX_CHARS` chars; ``None`` when ``name`` is no read tool (:data:`READ_TOOLS`) and ``command`` (the
    shell command a shell tool ran, already known to be a read) is not given, or nothing names a file."""
    if command:
        lines = [x for x in command.strip().splitlines() if x.strip()]
        facts: list[str] = []
        here = ""
        loops: dict[str, list[str]] = {}
        for line in lines:
            words = shell_words(line) or []
            if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh") and words[1] in ("-c", "-lc", "-cl"):
                words = shell_words(words[2]) or []
            part: list[str] = []
            k = 0
            words = [*words, ";"]
            while k < len(words):
                w = words[k]
                if w in ("&&", "||", ";", "|", "&"):
                    part = loop_part(part, loops)
                    if len(part) == 2 and part[0] == "cd":
                        here = part[1]
                    fact = _shell_fact(part, cwd, here) if part else None
                    if fact and fact not in facts:
                        facts.append(fact)
                    part = []
                elif w and set(w) <= set("<>&|;()"):
                    if part and part[-1].isdigit() and w.startswith(">"):
                        part.pop()  # `2>`: the stream number
                    k += 1  # the redirection's target
                else:
                    part.append(w)
                k += 1
        return _fact("; ".join(facts)) if facts else None
    verb = read_verb(name)
    if verb is None:
        return None
    args = tool_input
    if isinstance(args, str):
        import json

        try:
            args = json.loads(args)
        except ValueError:
            return _fact(f"{verb} {args}") if args.strip() and verb != "listed" else None
    if not isinstance(args, dict):
        return None
    fact = _tool_fact(verb, args, cwd)
    return _fact(fact) if fact else None

"""Does a shell command download from another machine? :func:`fetches_web` (``curl https://…``, ``timeout 10 wget
…``, ``if curl -s …; then``, ``echo $(curl …)``, ``sh -xc 'curl …'``, PowerShell's ``iwr …``): what such a call returns
is web content, kept by capture as its call line alone (:mod:`memdir.capture.gates`).

A command is read the way a shell runs it, not by its first word: what runs inside ``$( … )``, backticks, ``<( … )``,
a ``bash -c``/``pwsh -Command``/``cmd /c``/``eval`` argument or a here-document fed to a shell is looked at as a command
of its own; shell keywords (``if``, ``do``, ``!``, ``{`` …) and runners (``timeout 10``, ``sudo -u bob``, ``command``)
are passed to reach the program. A program that only *names* a URL (a test run's ``--base-url https://…``) fetches
nothing."""

from __future__ import annotations

import re

from memdir.capture.evidence import shell_words

#: programs that download from a URL when a shell tool runs them (``curl https://…``; PowerShell's ``iwr``/``irm`` and
#: their long names): web content too, unless every URL they are given is this machine's (``localhost``, ``127.x``,
#: ``[::1]``, ``0.0.0.0``). Compared lower-cased, without a directory or ``.exe`` (``/usr/bin/curl``, ``curl.exe``)
WEB_COMMANDS = frozenset({"curl", "wget", "wget2", "curlie", "http", "https", "httpie", "xh", "xhs", "httpx", "lynx",
                          "w3m", "links", "links2", "elinks", "aria2c", "axel", "lwp-request", "lwp-download",
                          "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "start-bitstransfer"})
_LOCAL_URL = re.compile(r"^(?:[a-z]+://)?(?:[^@/\s]*@)?(?:localhost|127\.[\d.]+|\[::1\]|0\.0\.0\.0)(?:[:/?#]|$)", re.I)
#: shells whose ``-c`` argument is the command they run
SHELL_WRAPPERS = ("bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox-sh"})
_POWERSHELLS = frozenset({"powershell", "pwsh"})
#: interpreters whose inline code (``python -c``, ``node -e`` …) is looked into for a web call
_INLINE = {"python": ("-c",), "node": ("-e", "-p", "--eval", "--print"), "nodejs": ("-e", "-p", "--eval", "--print"),
           "bun": ("-e", "--eval", "-p", "--print"), "deno": ("eval",), "ruby": ("-e",), "perl": ("-e", "-E"),
           "php": ("-r",)}
#: the library calls such code downloads with; with a URL of another machine in the command, a download
_CODE_FETCH = re.compile(r"urlopen|urlretrieve|requests\.(?:get|post|request|head|Session)|httpx\.|aiohttp|urllib3"
                         r"|http\.client|HTTPSConnection|\bfetch\(|https?\.get\(|axios|\bgot\(|Net::HTTP|open-uri"
                         r"|URI\.open|LWP::|HTTP::Tiny|file_get_contents|curl_exec|WebClient|Invoke-WebRequest")
_REMOTE_URL = re.compile(r"https?://(?!(?:[^@/\s]*@)?(?:localhost|127\.[\d.]+|\[::1\]|0\.0\.0\.0)(?:[:/?#'\"\s]|$))",
                         re.I)
#: .NET's downloader as PowerShell calls it (``(New-Object Net.WebClient).DownloadString('https://…')``), with a URL of
#: another machine in the command
_DOTNET_FETCH = re.compile(r"\.Download(?:String|File|Data)(?:Async)?\s*\(", re.I)
#: what must be in a command for it to need :func:`_unnest`: a substitution, a backtick, a comment, a here-document,
#: a line break or an escape
_NESTED = re.compile(r"[`#\n\\]|[$<>]\(|<<")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([^\s;&|<>()]+))")
#: how deep commands inside commands are looked into (``bash -c``, a here-document, ``$( … )``, backticks,
#: ``<( … )``): anything deeper is plain words, not a download (a command nested past it runs nothing this module
#: follows, and its words are still read as the words of the text around it)
MAX_NESTING = 6


def fetches_web(command: str, _depth: int = 0) -> bool:
    """True when a part of shell ``command`` runs a downloader (:data:`WEB_COMMANDS`: ``curl``, ``wget``, ``iwr`` …)
    on anything but this machine, wherever the shell would run it: ``curl -s https://example.com/install.sh | sh``,
    ``wget $URL``, ``if curl -s https://x; then …; fi``, ``echo `curl https://x```, ``bash -e -c 'curl …'``,
    ``command curl …``, ``irm https://x | iex``, ``python3 -c "…urlopen('https://x')…"``; not
    ``curl localhost:8080/healthz``, ``command -v curl``, ``pytest --base-url https://x``. A command that does not
    parse is looked at word by word."""
    if _depth > MAX_NESTING or not command:
        return False
    flat, scripts, code = _unnest(command, MAX_NESTING - _depth)
    if any(fetches_web(s, _depth + level) for s, level in scripts) or any(_code_fetches(c, c) for c in code):
        return True
    if _DOTNET_FETCH.search(flat) and _REMOTE_URL.search(flat):
        return True
    words = shell_words(flat)
    if words is None:
        words = flat.split()
    parts: list[list[str]] = [[]]
    for w in words:
        if w and set(w) <= set("<>&|;()"):
            parts.append([])
        else:
            parts[-1].append(w)
    return any(_part_fetches(p, _depth) for p in parts if p)


def program_name(word: str) -> str:
    """The program a command word names, as compared with :data:`WEB_COMMANDS`: no directory, lower-cased, no
    ``.exe`` (``/usr/bin/curl`` → ``curl``, ``curl.exe`` → ``curl``, ``Invoke-WebRequest`` → ``invoke-webrequest``)."""
    name = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def _part_fetches(part: list[str], depth: int) -> bool:
    i = _program_at(part)
    if i >= len(part):
        return False
    prog, args = program_name(part[i]), part[i + 1:]
    if prog in WEB_COMMANDS:
        rest = [a for a in args if not a.startswith("-")]
        if not rest:  # `curl --version` asks the program, not a server; `curl -s $URL` has its URL in `rest`
            return not any(a in ("--version", "-V", "--help", "-h") for a in args)
        return not all(_LOCAL_URL.match(a.strip("'\"")) for a in rest if "." in a or ":" in a or "$" in a)
    script = None
    if prog in _SHELLS:
        script = _shell_script(args)
    elif prog in _POWERSHELLS:
        script = _powershell_script(args)
    elif prog == "cmd":
        k = next((j for j, a in enumerate(args) if a.lower() in ("/c", "/k", "/r")), None)
        script = " ".join(args[k + 1:]) if k is not None else None
    elif prog == "eval":
        script = " ".join(args)
    elif re.sub(r"[\d.]+$", "", prog) in _INLINE:
        flags = _INLINE[re.sub(r"[\d.]+$", "", prog)]
        k = next((j for j, a in enumerate(args) if a in flags), None)
        return k is not None and k + 1 < len(args) and _code_fetches(args[k + 1], " ".join(args))
    return script is not None and fetches_web(script, depth + 1)


def _code_fetches(code: str, context: str) -> bool:
    """Inline code (``python -c``'s argument, a here-document fed to ``python3 -``) that calls a download library
    while the command names a URL of another machine (``context``: the code with its arguments)."""
    return bool(_CODE_FETCH.search(code)) and bool(_REMOTE_URL.search(context))


def _shell_script(args: list[str]) -> str | None:
    """The command a POSIX shell runs from its arguments: the first operand after an option cluster holding ``c``
    (``-c``, ``-lc``, ``-xc``, ``-e -c``, ``-ic``); ``None`` for a script file or standard input."""
    saw_c = False
    k = 0
    while k < len(args):
        a = args[k]
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            k += 2  # an option with its value
            continue
        if a == "--":
            k += 1
            break
        if a.startswith("--") or (len(a) > 1 and a[0] in "-+"):
            saw_c = saw_c or (a[0] == "-" and not a.startswith("--") and "c" in a)
            k += 1
            continue
        break
    return args[k] if saw_c and k < len(args) else None


def _powershell_script(args: list[str]) -> str | None:
    """What ``powershell``/``pwsh`` runs from its arguments: after ``-Command`` (or any prefix of it, ``-c``), a
    decoded ``-EncodedCommand``, or — without ``-File`` — the words left after its options."""
    import base64
    import binascii

    k = 0
    while k < len(args):
        a = args[k].lower()
        if len(a) > 1 and "-command".startswith(a):
            return " ".join(args[k + 1:])
        if a in ("-e", "-ec", "-en", "-enc") or a.startswith("-encod"):
            try:
                return base64.b64decode(args[k + 1]).decode("utf-16-le") if k + 1 < len(args) else None
            except (binascii.Error, ValueError, UnicodeDecodeError):
                return None
        if a in ("-file", "-f"):
            return None
        if not a.startswith("-"):
            return " ".join(args[k:])
        # an option; those that take a value skip it (-ExecutionPolicy Bypass, -WindowStyle Hidden …)
        k += 2 if a.startswith(("-ex", "-ep", "-w", "-v", "-inputf", "-outputf", "-conf", "-settings")) else 1
    return None


def _unnest(command: str, limit: int = MAX_NESTING) -> tuple[str, list[tuple[str, int]], list[str]]:
    """Split what a shell runs out of ``command``: ``(flat, scripts, code)``. ``flat``: the command with each
    ``$( … )``, backtick pair, ``<( … )``/``>( … )`` replaced by a placeholder word, comments and line continuations
    removed, here-document bodies taken out, and line breaks outside quotes turned into ``;``; ``scripts``: the texts of
    those substitutions and of here-documents fed to a shell (commands of their own), each with how deep it is nested
    (1: in ``command`` itself); ``code``: here-documents fed to an interpreter (``python3 - <<EOF``). Single quotes are
    literal (a ``$(`` in them runs nothing). Substitutions nested deeper than ``limit`` are plain characters of the
    text around them."""
    if not _NESTED.search(command):
        return command, [], []
    scripts: list[tuple[str, int]] = []
    code: list[str] = []
    flat, _ = _scan(command, 0, (0, limit), scripts, code)
    return flat, scripts, code


def _scan(s: str, i: int, levels: tuple[int, int], scripts: list[tuple[str, int]],
          code: list[str]) -> tuple[str, int]:
    """The flat text of ``s`` from ``i`` (:func:`_unnest`) and where it ended: at the end of ``s``, or past the ``)``
    that closes a substitution when ``levels[0]`` (how many substitutions are open around ``i``) is not 0. A ``$(``,
    ``<(``, ``>(`` or backtick with ``levels[1]`` (the limit) open around it already is kept as plain characters (a
    parenthesis still counted), so the scan never recurses deeper than the limit."""
    level, limit = levels
    nested = level > 0
    out: list[str] = []
    quote = ""
    depth = 0
    line_start = 0
    pending: list[tuple[str, str]] = []  # here-documents opened on this line: (delimiter, what they feed)
    n = len(s)
    while i < n:
        c = s[i]
        if quote == "'":
            quote = "" if c == "'" else quote
            out.append(c)
            i += 1
            continue
        if c == "\\":
            if i + 1 < n and s[i + 1] == "\n":  # a line continuation
                i += 2
                continue
            out.append(s[i:i + 2])
            i += 2
            continue
        if c == "`" and level < limit:
            end = s.find("`", i + 1)
            end = n if end < 0 else end
            scripts.append((s[i + 1:end], level + 1))
            out.append(" _ ")
            i = end + 1
            continue
        if s.startswith("(", i + 1) and (c == "$" or (not quote and c in "<>")) and level < limit:
            inner, i = _scan(s, i + 2, (level + 1, limit), scripts, code)
            scripts.append((inner, level + 1))
            out.append(" _ ")
            continue
        if quote == '"':
            quote = "" if c == '"' else quote
            out.append(c)
            i += 1
            continue
        if c in "'\"":
            quote = c
        elif c == "(" and nested:
            depth += 1
        elif c == ")" and nested:
            if depth == 0:
                return "".join(out), i + 1
            depth -= 1
        elif c == "#" and (i == 0 or s[i - 1] in " \t\n;&|()"):
            end = s.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c == "<" and s.startswith("<<", i) and not s.startswith("<<<", i):
            m = _HEREDOC.match(s, i)
            if m:
                feeds = {program_name(w) for w in "".join(out[line_start:]).split()}
                kind = "script" if feeds & _SHELLS else "code" if {re.sub(r"[\d.]+$", "", w) for w in feeds} & set(
                    _INLINE) else ""
                pending.append((next(g for g in m.groups()[1:] if g is not None), kind))
                out.append(" ")
                i = m.end()
                continue
        elif c == "\n":
            out.append(" ; ")
            i += 1
            for delim, kind in pending:
                body: list[str] = []
                while i < n:
                    end = s.find("\n", i)
                    end = n if end < 0 else end
                    line, i = s[i:end], end + 1
                    if line.strip() == delim:
                        break
                    body.append(line)
                if kind == "script":
                    scripts.append(("\n".join(body), level + 1))
                elif kind:
                    code.append("\n".join(body))
            pending = []
            line_start = len(out)
            continue
        out.append(c)
        i += 1
    return "".join(out), n


#: programs that run the command after them (with their own options and numbers: ``timeout 10``, ``nice -n 5``,
#: ``sudo -u bob``, ``xargs -n 1``, ``watch -n 5``, ``torsocks``, ``strace -f``); ``flock`` takes a lock file first;
#: ``command``/``builtin``/``busybox`` run the program named next (``command -v curl`` only looks for it)
_RUNNERS = frozenset("sudo doas env time nohup timeout nice ionice stdbuf chrt taskset exec caffeinate unbuffer setsid "
                     "flock xargs watch torsocks torify proxychains proxychains4 tsocks strace ltrace parallel command "
                     "builtin busybox noglob nocorrect".split())
#: shell words before a command that are not programs (``if curl …``, ``do wget …``, ``! curl``, ``{ curl …; }``)
_KEYWORDS = frozenset("if then else elif do while until ! { } fi done esac".split())
#: words that open a part without a command to run: its other words are values (``for u in a b``, ``case $x in``)
_NO_COMMAND = frozenset({"for", "select", "case", "in"})
_NUMBER = re.compile(r"\d+(?:\.\d+)?[smhd]?|[+-]?\d+")


def _runs_something(word: str) -> bool:
    """True when ``word`` names a program this module looks into (a downloader, a runner, a shell, an interpreter):
    after ``sudo -E`` it is the program, not the option's value."""
    name = program_name(word)
    return (name in WEB_COMMANDS or name in _RUNNERS or name in _SHELLS or name in _POWERSHELLS
            or name in ("cmd", "eval") or re.sub(r"[\d.]+$", "", name) in _INLINE)


def _program_at(words: list[str]) -> int:
    """The index of the program a shell command part runs: past shell keywords (``if``, ``do``, ``!``, ``{``),
    ``X=1`` assignments (a PowerShell ``$r =`` too) and runners (:data:`_RUNNERS`) with their options (a two-letter
    option's value too: ``-u bob``, ``-s KILL``), numbers and ``flock``'s lock file (``env X=1 timeout -s KILL 10
    sudo -u bob curl …`` → ``curl``); ``len(words)`` when the part runs nothing (``for u in a b``, ``command -v
    curl``)."""
    i = 0
    while i < len(words):
        w = words[i]
        if w in _KEYWORDS:
            i += 1
            continue
        if w in _NO_COMMAND:
            return len(words)
        if w == "function":
            i += 2  # its name
            continue
        if w.startswith("$") and i + 1 < len(words) and words[i + 1] == "=":
            i += 2  # a PowerShell assignment
            continue
        if "=" in w.split("/")[0]:  # an environment assignment
            i += 1
            continue
        if program_name(w) not in _RUNNERS:
            break
        if w == "command" and i + 1 < len(words) and words[i + 1][:1] == "-" and set(words[i + 1]) & set("vV"):
            return len(words)  # `command -v curl`: is it there?
        i += 1
        while i < len(words) and (words[i].startswith("-") or _NUMBER.fullmatch(words[i])):
            opt = words[i]
            i += 1
            if (len(opt) == 2 and opt[1].isalpha() and i < len(words) and not words[i].startswith("-")
                    and not _runs_something(words[i])):
                i += 1  # the option's value
        if program_name(w) == "flock" and i < len(words):
            i += 1  # its lock file
    return i

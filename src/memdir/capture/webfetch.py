"""Does a shell command download from another machine? :func:`fetches_web` (``curl https://…``, ``timeout 10 wget
…``): what such a call returns is web content, kept by capture as its call line alone (:mod:`memdir.capture.gates`)."""

from __future__ import annotations

import re

from memdir.capture.evidence import shell_words

#: programs that download from a URL when a shell tool runs them (``curl https://…``): web content too, unless every
#: URL they are given is this machine's (``localhost``, ``127.x``, ``[::1]``, ``0.0.0.0``)
WEB_COMMANDS = frozenset({"curl", "wget", "http", "https", "httpie", "xh", "lynx", "w3m", "links", "elinks", "aria2c"})
_LOCAL_URL = re.compile(r"^(?:[a-z]+://)?(?:[^@/\s]*@)?(?:localhost|127\.[\d.]+|\[::1\]|0\.0\.0\.0)(?:[:/?#]|$)", re.I)
#: shells whose ``-c`` argument is the command they run
SHELL_WRAPPERS = ("bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash")


def fetches_web(command: str) -> bool:
    """True when a part of shell ``command`` runs a downloader (:data:`WEB_COMMANDS`: ``curl``, ``wget`` …) on
    anything but this machine: ``curl -s https://example.com/install.sh | sh``, ``wget $URL``; not
    ``curl localhost:8080/healthz``. A command that does not parse is looked at word by word."""
    words = shell_words(command)
    if words is None:
        words = command.split()
    if len(words) >= 3 and words[0] in SHELL_WRAPPERS and words[1] in ("-c", "-lc", "-cl"):
        return fetches_web(words[2])
    parts: list[list[str]] = [[]]
    for w in words:
        if w and set(w) <= set("<>&|;()"):
            parts.append([])
        else:
            parts[-1].append(w)
    for p in parts:
        i = _program_at(p)
        if i >= len(p) or p[i].rsplit("/", 1)[-1] not in WEB_COMMANDS:
            continue
        args = [a for a in p[i + 1:] if not a.startswith("-")]
        if not args or not all(_LOCAL_URL.match(a.strip("'\"")) for a in args if "." in a or ":" in a or "$" in a):
            return True
    return False


#: programs that run the command after them (with their own options and numbers: ``timeout 10``, ``nice -n 5``,
#: ``sudo -u bob``, ``xargs -n 1``, ``watch -n 5``, ``torsocks``, ``strace -f``); ``flock`` takes a lock file first
_RUNNERS = frozenset("sudo doas env time nohup timeout nice ionice stdbuf chrt taskset exec caffeinate unbuffer setsid "
                     "flock xargs watch torsocks torify proxychains proxychains4 tsocks strace ltrace".split())
_NUMBER = re.compile(r"\d+(?:\.\d+)?[smhd]?|[+-]?\d+")


def _program_at(words: list[str]) -> int:
    """The index of the program a shell command part runs: past ``X=1`` assignments and runners (:data:`_RUNNERS`)
    with their options (a two-letter option's value too: ``-u bob``, ``-s KILL``), numbers and ``flock``'s lock
    file (``env X=1 timeout -s KILL 10 sudo -u bob curl …`` → ``curl``)."""
    def named(w: str) -> str:
        return w.rsplit("/", 1)[-1]

    i = 0
    while i < len(words):
        w = words[i]
        if "=" in w.split("/")[0]:  # an environment assignment
            i += 1
            continue
        if named(w) not in _RUNNERS:
            break
        i += 1
        while i < len(words) and (words[i].startswith("-") or _NUMBER.fullmatch(words[i])):
            opt = words[i]
            i += 1
            if (len(opt) == 2 and opt[1].isalpha() and i < len(words) and not words[i].startswith("-")
                    and named(words[i]) not in WEB_COMMANDS and named(words[i]) not in _RUNNERS):
                i += 1  # the option's value
        if named(w) == "flock" and i < len(words):
            i += 1  # its lock file
    return i

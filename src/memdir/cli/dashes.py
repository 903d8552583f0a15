"""Options typed with a long dash. Autocorrect (macOS, iOS "smart punctuation", word processors) turns ``--`` into an
em or en dash, a Japanese IME in full-width mode types ``－－ｊｓｏｎ``, and a command copied from a web page or a
chat may carry a minus sign or a horizontal bar: ``memdir remember "…" —category pitfalls``. Click reads such a
word as text, so the option's name and its value went into the note. A word of that shape naming one of the
command's own options is refused with one usage line saying what to type; any other word (a dash in prose, a dash
naming no option) and everything after ``--`` stays text."""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from memdir.notes.nearchars import LONG_DASHES


_TYPED = re.compile(rf"([-{LONG_DASHES}]+)([a-z][a-z0-9-]*)(?:=.*)?", re.S)


def typed_option(word: str, options: Iterable[str]) -> str | None:
    """The option (``--category``, ``-k``) ``word`` stands for when it is one typed with a long dash or in full
    width (``—category``, ``–c``, ``—category=x``, ``－－ｃａｔｅｇｏｒｙ``) and ``options`` has it, else ``None``. A word
    spelled with ASCII hyphens and letters alone is Click's to read."""
    if not isinstance(word, str) or word.split("=", 1)[0].isascii() or len(word) > 80:
        return None  # ASCII (`--json=日本` too): Click's to read
    m = _TYPED.fullmatch(unicodedata.normalize("NFKC", word).casefold())
    if m is None:
        return None
    name = m.group(2)
    known = set(options)
    for opt in ((f"-{name}", f"--{name}") if len(name) == 1 else (f"--{name}",)):
        if opt in known:
            return opt
    return None


def refusal(args: list[str], options: Iterable[str], valued: Iterable[str] = ()) -> str | None:
    """The one usage line for the first word of ``args`` (before a ``--``) that :func:`typed_option` reads as one of
    ``options``, else ``None``. A word that is the value of an option in ``valued`` (options that take one:
    ``forget --query '—force'``) is that value, never refused."""
    known, takes = frozenset(options), frozenset(valued)
    prev = None
    for word in args:
        if word == "--":
            return None
        if prev in takes:
            prev = None
            continue
        prev = word
        opt = typed_option(word, known)
        if opt is not None:
            shown = word.split("=", 1)[0]
            return (f"{shown!r} looks like the option {opt} typed with a long dash (autocorrect turns -- into —): "
                    f"type {opt} with plain hyphens, or put -- before text that should keep it; nothing was done")
    return None


def guard(cmd) -> None:
    """Make ``cmd`` (a ``click.Command``) refuse, before it reads its arguments, a word :func:`refusal` names."""
    import click

    parse = cmd.parse_args

    def parse_args(ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:
            opts = [o for p in cmd.params for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))]
            valued = [o for p in cmd.params if isinstance(p, click.Option) and not p.is_flag and not p.count
                      for o in p.opts]
            msg = refusal(args, opts, valued)
            if msg is not None:
                raise click.UsageError(msg, ctx)
        return parse(ctx, args)

    cmd.parse_args = parse_args

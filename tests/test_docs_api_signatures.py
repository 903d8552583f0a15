"""docs/API.md is the facade's contract: each method its table names takes the parameters it shows, in the way it
shows them (positional, or keyword-only after `*`), with the defaults it shows; and every public method of
`Memdir` is documented. A caller copying `m.distill("sess")` or `m.proposals("accepted")` from the table got a
TypeError, and `recall(k=8)` hid that `k` follows `recall.k`."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import memdir
from memdir.core import Memdir

API = (Path(__file__).parents[1] / "docs" / "API.md").read_text(encoding="utf-8")


def _split_top(params: str) -> list[str]:
    out, depth, cur, quote = [], 0, "", None
    for ch in params:
        if quote:
            cur += ch
            quote = None if ch == quote else quote
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _documented() -> list[tuple[str, list[str]]]:
    """(method, [param texts]) for every signature in the first cell of the method table."""
    sigs = []
    for line in API.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split(" | ")[0][2:]
        for part in cell.split(" / "):
            m = re.fullmatch(r"`([a-z_]+)\((.*)\)`", part.strip())
            if m:
                sigs.append((m.group(1), _split_top(m.group(2))))
    return sigs


def _check(name: str, func, params: list[str]) -> list[str]:
    wrong = []
    sig = inspect.signature(func)
    code = {p.name: p for p in sig.parameters.values() if p.name != "self" and p.kind is not p.VAR_KEYWORD}
    keyword_only = False
    named = set()
    for text in params:
        if text == "*":
            keyword_only = True
            continue
        pname, _, default = text.partition("=")
        pname = pname.strip()
        named.add(pname)
        p = code.get(pname)
        if p is None:
            wrong.append(f"{name}: documents {pname!r}, which it does not take")
            continue
        if keyword_only != (p.kind is p.KEYWORD_ONLY):
            wrong.append(f"{name}: {pname!r} is {'keyword-only' if p.kind is p.KEYWORD_ONLY else 'positional'} "
                         f"in the code, not as documented")
        if default.strip():
            try:
                doc_default = ast.literal_eval(default.strip())
            except (ValueError, SyntaxError):
                continue
            if p.default is p.empty or p.default != doc_default:
                wrong.append(f"{name}: {pname!r} defaults to {p.default!r} in the code, {doc_default!r} in the docs")
    for pname in code:
        if pname not in named:
            wrong.append(f"{name}: takes {pname!r}, which the table leaves out")
    return wrong


def test_every_method_in_the_api_table_has_the_documented_signature():
    sigs = _documented()
    assert len(sigs) > 40
    wrong = []
    for name, params in sigs:
        func = getattr(Memdir, name, None)
        if func is None:
            wrong.append(f"{name}: documented, but Memdir has no such method")
            continue
        wrong += _check(name, func, params)
    assert not wrong, "\n".join(wrong)


def test_memdir_open_has_the_documented_signature():
    m = re.search(r"m = memdir\.open\((.*)\)", API)
    assert m and not _check("open", memdir.open, _split_top(m.group(1)))


def test_every_public_method_of_the_facade_is_documented():
    missing = [name for name, _ in inspect.getmembers(Memdir, inspect.isfunction)
               if not name.startswith("_") and not re.search(rf"(?<![\w.])(Memdir\.|m\.)?{name}\(", API)]
    assert not missing, f"public methods of Memdir that docs/API.md never names: {missing}"

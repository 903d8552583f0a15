"""Markdown notes with YAML frontmatter (seed 000's format), read as-is and written atomically.

Reading accepts the seed's fields (``id, kind, summary, highlight, created, updated, load_when, pinned,
supersedes, superseded_by``, plus ``tags``) including millisecond epochs; unknown fields are kept on rewrite;
the body is kept byte for byte. Writing emits ISO 8601 UTC times.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
from datetime import datetime
from pathlib import Path
from typing import Any

from memdir.errors import MemdirError, UsageError
from memdir.notes import nearchars
from memdir.recall.tokenize import nfkc
from memdir.timeutil import iso, parse_ts, typed_time

_HANDLER = None


def _handler():
    """python-frontmatter's YAML handler, imported on first use (keeps the recall path's start-up light)."""
    global _HANDLER
    if _HANDLER is None:
        import frontmatter

        _HANDLER = frontmatter.YAMLHandler()
    return _HANDLER
MAX_NOTE_BYTES = 1_000_000  # a larger file is reported as unreadable, not parsed
#: Unicode's default-ignorable code points (DerivedCoreProperties.txt, Default_Ignorable_Code_Point): invisible when
#: rendered (zero-width space and joiners, soft hyphen, bidi marks, variation selectors, the BOM, tags)
INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                       "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
                       "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
#: C0 controls other than tab and line feed, and DEL: a bell, a backspace, what is left of an escape sequence
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


#: a terminal's escape sequences (ECMA-48), in their 7-bit forms: a control sequence (``ESC [``, parameters, a final
#: byte: colours, cursor moves, line clears), a string command up to its terminator (``ESC ]`` OSC: a window title;
#: DCS, SOS, PM, APC; its body holds no ESC or BEL, so a scan stops at the next one) and the short ``ESC x`` forms.
#: The 8-bit C1 forms are left alone: those code points are far more often UTF-8 read as Latin-1 (``â\x80\x9c``)
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]{0,1024}(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]")


def without_escapes(text: str) -> str:
    """``text`` as a terminal shows it: the escape sequences of a coloured or redrawn output (``\\x1b[32mPASSED\\x1b[0m``
    is ``PASSED``) left out, so their letters do not join the words next to them (``32mpassed``) nor show as
    ``[32m`` in the block; an ESC left over (one that starts no sequence, or whose removal joined the text into a
    new one) goes too, so the result holds no ESC and cleaning it again changes nothing. Linear in the text's length;
    a text without ESC is returned as it is."""
    if "\x1b" not in text:
        return text
    return _ESCAPES.sub("", text).replace("\x1b", "")


def plain_text(text: str) -> str:
    """``text`` as a note file keeps it: a terminal's escape sequences left out (:func:`without_escapes`), line
    breaks as ``\\n`` (``\\r\\n`` and a lone ``\\r`` too), every other C0 control character (NUL, a bell, a
    backspace) and DEL left out, so a note read with ``cat`` or shown in a terminal cannot recolour, retitle or clear
    it. Invisible format characters stay: inside a text they join an emoji or a word."""
    return _CONTROL.sub("", without_escapes(text).replace("\r\n", "\n").replace("\r", "\n"))


def is_blank(text: str) -> bool:
    """True when ``text`` shows nothing: only white space, control characters and :data:`INVISIBLE` ones."""
    return not INVISIBLE.sub("", plain_text(text)).strip()


def kind_for(category: str) -> str:
    """Default ``kind`` of a category: ``rules`` → ``rule``, ``pitfalls`` → ``pitfall``, else the name."""
    return {"rules": "rule", "preferences": "preference", "decisions": "decision", "pitfalls": "pitfall",
            "facts": "fact"}.get(category, category[:-1] if category.endswith("s") and len(category) > 3 else category)


def normalize_text(text: str) -> str:
    """The form used for duplicate detection: NFKC, whitespace runs collapsed, stripped."""
    # str.split() and re's \s agree on what whitespace is (str.isspace); NFKC leaves ASCII alone
    return " ".join((text if text.isascii() else nfkc(text)).split())


def near_key(text: str) -> str:
    """The form two notes share when they differ only by case, spacing or punctuation (issue 13 item 10, seed 000's
    "同一件事记两遍"): NFKC, casefolded, every whitespace, invisible (:data:`INVISIBLE`: zero-width, soft hyphen, byte-order
    mark) and Unicode punctuation character (categories P*) removed. Symbols such as ``+`` or ``$`` and all letters/digits
    are kept, so ``C++`` ≠ ``C``. A text of punctuation only keys on its normalized self. ASCII: :func:`nearchars.ascii_key`."""
    if text.isascii():
        return nearchars.ascii_key(text)
    t = nearchars.casefolded(INVISIBLE.sub("", unicodedata.normalize("NFKC", text)))  # zero-width, soft hyphen, İ
    key = nearchars.without_space_and_punctuation(t)  # one test per distinct character, not per character
    return key or normalize_text(t)


def content_hash(text: str) -> str:
    """SHA-256 hex of :func:`normalize_text` (case C5: same text with other whitespace is the same memory)."""
    return hashlib.sha256(normalize_text(text).encode("utf-8", "replace")).hexdigest()


def version(raw: str) -> str:
    """The version of a note file's whole text (frontmatter + body, exactly as :func:`read_text` returns it): the
    first 12 hex digits of its SHA-256. An editor records it when it reads the note and hands it back as
    ``Memdir.edit(..., expect=)``: a file changed on disk meanwhile has another version (case C35)."""
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:12]


_SLUG_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_LATIN_ACCENT = re.compile(r"(?<=[a-z])[\u0300-\u036f]+")
_LATIN_PLAIN = str.maketrans({"æ": "ae", "ø": "o", "ł": "l", "đ": "d", "œ": "oe", "þ": "th", "ı": "i"})
_slug_runs: re.Pattern[str] | None = None  # ``[a-z0-9]+|[CJK]+``, compiled by the first slugify (not at import: ~1 ms)


def slugify(summary: str, taken: set[str] | None = None, *, exists=None) -> str:
    """A file-name slug from ``summary``: lower-case ASCII words and CJK runs joined by ``-``, at most 8 runs
    and 48 characters (``部署脚本用 pnpm`` → ``部署脚本用-pnpm``); a summary with neither gets ``note-<hash>``.
    ``-2``, ``-3`` … are appended while the slug is in ``taken`` or ``exists(slug)`` is true."""
    text = INVISIBLE.sub("", unicodedata.normalize("NFKC", summary)).casefold()  # kube+ZWSP+rnetes: one word
    if not text.isascii():  # a Latin letter's accent is dropped, not the letter: réunion → reunion (was r-union)
        text = unicodedata.normalize("NFC", _LATIN_ACCENT.sub("", unicodedata.normalize("NFD", text))).translate(_LATIN_PLAIN)
    global _slug_runs
    if _slug_runs is None:
        _slug_runs = re.compile(rf"[a-z0-9]+|[{_SLUG_CJK}]+")
    runs = _slug_runs.findall(text)
    base = ""
    for r in runs[:8]:
        cand = f"{base}-{r}" if base else r
        if len(cand) > 48:
            if not base:
                base = r[:48]
            break
        base = cand
    if len(base) < 2 or (base.isascii() and len(base) < 3):
        base = "note-" + hashlib.sha256(summary.encode("utf-8", "replace")).hexdigest()[:8]
    from memdir.roots import RESERVED

    if base in RESERVED:
        base += "-note"  # `com1`, `nul`…: Windows device names are refused as ids, so never made into one
    slug, n = base, 2
    while (taken and slug in taken) or (exists is not None and exists(slug)):
        slug, n = f"{base}-{n}", n + 1
    return slug


def load_frontmatter(fm: str) -> Any:
    """``fm`` parsed by libyaml's parser when PyYAML has it (the same safe constructor, ~5x faster: inspect reads every
    note), else, or when libyaml refuses what the Python parser reads (an escaped lone surrogate ``"\\ud800"``), by
    PyYAML's own; raises ``yaml.YAMLError`` when neither can."""
    import yaml  # lazily: a hook that reads no note never imports it

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return yaml.load(fm, Loader=fast)
        except yaml.YAMLError:
            pass
    return yaml.safe_load(fm)


#: the frontmatter keys memdir writes (:func:`render`): two of them before a ``---`` line read as a frontmatter
_FRONTMATTER_KEYS = re.compile(r"^(?:id|kind|summary|highlight|created|updated|tags|load_when|pinned|supersedes"
                               r"|superseded_by):(?:\s|$)")


def lost_opening(text: str, note_id: str | None = None) -> bool:
    """True when ``text`` (which :func:`split` reads as all body) is a note whose frontmatter lost its ``---`` lines:
    at least two of memdir's frontmatter keys (``id:``, ``kind:``, ``summary:`` …) on lines before a ``---`` line
    among its first 40 lines, or, with ``note_id``, among its first 12 lines with one of them ``id: <note_id>`` (both
    fence lines gone). Saved as a body, those lines would become the note's text."""
    lines = text.replace("\r\n", "\n").split("\n")[:40]
    keys = [bool(_FRONTMATTER_KEYS.match(ln)) for ln in lines]
    if note_id is not None:
        own = re.compile(r"^id:\s*['\"]?" + re.escape(note_id) + r"['\"]?\s*$")
        if sum(keys[:12]) >= 2 and any(own.match(ln) for ln in lines[:12]):
            return True
    if "---" not in (ln.rstrip() for ln in lines):
        return False
    end = [ln.rstrip() for ln in lines].index("---")
    return sum(keys[:end]) >= 2


def split(raw: str) -> tuple[dict[str, Any], str, str | None]:
    """Split a note file into ``(metadata, body, frontmatter_text)``; raises ``UsageError`` for broken YAML.

    A file without frontmatter is all body. ``body`` is the exact text after the closing ``---`` line's newline.
    """
    if raw.startswith("\ufeff"):
        raw = raw[1:]
    import yaml

    handler = _handler()
    if not handler.detect(raw):
        return {}, raw, None
    try:
        _, fm, body = handler.FM_BOUNDARY.split(raw, 2)
    except ValueError:
        raise UsageError("frontmatter opened with '---' but never closed: end it with a line of '---', or start the "
                         "text with something else to keep it all as the note's body") from None
    if body.startswith("\r\n"):
        body = body[2:]
    elif body.startswith("\n"):
        body = body[1:]
    try:
        meta = load_frontmatter(fm) if fm.strip() else {}
    except yaml.YAMLError as exc:
        # where YAML stopped, as the file's line (or where what it could not finish began: an unclosed "[")
        first = raw.count("\n", 0, raw.find(fm)) if fm else 0  # the file's lines before the frontmatter's text
        lines = fm.split("\n")
        where, problem = "", getattr(exc, "problem", None) or str(exc).splitlines()[0]
        for mark, said in ((getattr(exc, "problem_mark", None), problem),
                           (getattr(exc, "context_mark", None), getattr(exc, "context", None))):
            row = mark.line if mark is not None else -1
            if 0 <= row < len(lines) and lines[row].strip():
                where = f" (line {first + row + 1}: {lines[row].strip()[:60]!r})"
                problem = problem if said is problem else f"{problem}, {said}"
                break
        raise UsageError(f"invalid YAML frontmatter: {problem}{where}") from None
    except (ValueError, OverflowError, TypeError) as exc:  # a value YAML reads as a date that is none: 2026-02-30
        raise UsageError(f"invalid YAML frontmatter: {(str(exc).splitlines() or [type(exc).__name__])[0]}") from None
    except RecursionError:
        raise UsageError("invalid YAML frontmatter: nested too deeply") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise UsageError("frontmatter is not a mapping of fields")
    return meta, body, fm


def body_of_broken(raw: str) -> str:
    """The body of a note whose frontmatter :func:`split` refuses: the text after the closing ``---`` line, or
    after the opening one when the frontmatter is never closed (so the note stays findable by its words while the
    user repairs it)."""
    if raw.startswith("\ufeff"):
        raw = raw[1:]
    parts = _handler().FM_BOUNDARY.split(raw, 2)
    if len(parts) == 3:
        return parts[2].lstrip("\r\n")
    return raw.split("\n", 1)[1] if "\n" in raw else ""


def _str(v: Any) -> str:
    """``str(v)`` stripped, with lone surrogates (YAML ``"\\ud800"`` escapes) turned into U+FFFD; a YAML boolean
    reads as YAML writes it (``tags: [ci, true]`` keeps ``true``, not Python's ``True``)."""
    s = ("true" if v else "false") if isinstance(v, bool) else str(v)
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        s = s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return s.strip()


def _strlist(v: Any) -> tuple[str, ...]:
    if v is None:
        return ()
    if isinstance(v, (str, int, float)):
        v = [v]
    if not isinstance(v, (list, tuple)):
        return ()
    return tuple(_str(x) for x in v if x is not None and not isinstance(x, (dict, list)) and _str(x))


def _opt_str(v: Any) -> str | None:
    if v is None or isinstance(v, (dict, list)):
        return None
    s = _str(v)
    return s or None


def fields(meta: dict[str, Any], body: str, *, category: str, fallback_time: datetime) -> dict[str, Any]:
    """Typed view of the frontmatter: strings, tuples, booleans and aware UTC datetimes (never raises)."""
    created = parse_ts(typed_time(meta.get("created")), default=fallback_time) if meta.get("created") is not None else fallback_time
    updated = parse_ts(typed_time(meta.get("updated")), default=created) if meta.get("updated") is not None else created
    summary = _opt_str(meta.get("summary")) or _first_line(body)
    return {
        "kind": _opt_str(meta.get("kind")) or kind_for(category),
        "summary": summary,
        "highlight": _opt_str(meta.get("highlight")),
        "created": created,
        "updated": updated,
        "load_when": _strlist(meta.get("load_when")),
        "tags": _strlist(meta.get("tags")),
        "pinned": flag(meta.get("pinned")) is True,
        "supersedes": _opt_str(meta.get("supersedes")),
        "superseded_by": _opt_str(meta.get("superseded_by")),
    }


def flag(v: Any) -> bool | None:
    """A hand-written ``pinned``: YAML's true/false, ``yes``/``no``/``on``/``off`` or ``1``/``0``, quoted or not; else None."""
    t = str(v).strip().lower() if isinstance(v, (str, int)) and not isinstance(v, bool) else v
    return True if t in (True, "true", "yes", "on", "1") else None if t not in (False, "false", "no", "off", "0", "") else False


def field_problems(meta: dict[str, Any]) -> list[str]:
    """What :func:`fields` had to ignore or replace in ``meta`` (one short phrase each; ``memdir inspect``): a
    list or mapping where text belongs, a time that does not parse, a ``pinned`` that is not true/false, a
    mapping as tags or load_when, a field named a letter or two off one memdir reads (``sumary``, ``tagz``)."""
    out = []
    for k in ("summary", "highlight", "kind", "supersedes", "superseded_by"):
        if isinstance(meta.get(k), (dict, list)):
            out.append(f"{k} is not text (ignored)")
    for k in ("created", "updated"):
        v = meta.get(k)
        if v is not None:
            try:
                parse_ts(v)
            except UsageError:
                out.append(f"{k} {str(v)[:40]!r} is not a time (the file's time is used)")
    if (p := meta.get("pinned")) is not None and flag(p) is None:
        out.append(f"pinned {str(p)[:20]!r} is not true/false (taken as false)")
    for k in ("tags", "load_when"):
        if isinstance(meta.get(k), dict):
            out.append(f"{k} is not a list (ignored)")
    import difflib

    for k in meta:  # a field of one's own is kept as written; one a letter off memdir's own is a typo, said
        if not isinstance(k, str) or k in _READ_FIELDS or k in _WRITTEN_FIELDS:
            continue
        low = k.lower()
        if low in _READ_FIELDS:  # Summary, Pinned: the name in another case is not read
            out.append(f"field {k!r} is not read (did you mean {low!r}?)")
        elif not any(low.startswith(f) or low.endswith(f) for f in _READ_FIELDS):  # pinned_by, kinds: one's own
            near = difflib.get_close_matches(low, _READ_FIELDS, 1, 0.75)
            if near:
                out.append(f"field {k!r} is not read (did you mean {near[0]!r}?)")
    return out


#: the frontmatter fields memdir reads, and the provenance ones it writes (a distilled or proposed note's)
_READ_FIELDS = ("id", "kind", "summary", "highlight", "tags", "load_when", "pinned", "created", "updated", "supersedes",
                "superseded_by")
_WRITTEN_FIELDS = ("source", "sessions", "model", "proposal", "title", "category")


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:120]
    return ""


def render(meta: dict[str, Any], body: str) -> str:
    """Serialize frontmatter + body. Datetimes become ISO 8601 UTC strings; key order is kept."""
    import yaml

    clean = {k: (iso(v) if isinstance(v, datetime) else v) for k, v in meta.items() if v is not None}
    fm = yaml.safe_dump(clean, allow_unicode=True, sort_keys=False, width=1000, default_flow_style=False)
    if body and not body.endswith("\n"):
        body += "\n"
    return f"---\n{fm}---\n{body}"


def update_fields(raw: str, changes: dict[str, Any]) -> str:
    """Return ``raw`` with frontmatter fields changed (``None`` removes a field); the body and unknown fields
    are kept byte for byte / as they were. Raises ``UsageError`` if the frontmatter is broken."""
    meta, body, _ = split(raw)
    for k, v in changes.items():
        if v is None:
            meta.pop(k, None)
        else:
            meta[k] = v
    return render(meta, body)


class FileChanged(MemdirError):
    """The file changed on disk (another program saved it) between the read a rewrite was made from and the
    rewrite: nothing was written (:func:`atomic_write` with ``expect``)."""


#: a file this many nanoseconds old or younger and empty is taken for one an editor is saving in place (it truncates,
#: then writes): a rewrite made from it would throw the editor's text away
SAVING_NS = 2_000_000_000


def file_state(path: Path) -> tuple[int, int, int] | None:
    """``(inode, size, mtime_ns)`` of ``path``, or ``None`` when it does not exist: what :func:`atomic_write`'s
    ``expect`` compares. Take it before reading the file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def being_saved(state: tuple[int, int, int] | None) -> bool:
    """True for an empty file modified in the last :data:`SAVING_NS`: an editor saving it in place, mid-write."""
    if state is None or state[1] != 0:
        return False
    import time

    return time.time_ns() - state[2] < SAVING_NS


_ANY = object()


def atomic_write(path: Path, text: Any, *, private: bool = False, expect: Any = _ANY,
                 within: Path | None = None) -> None:
    """Write ``text`` (UTF-8; or an iterable of strings, written as they come) to ``path`` via a temp file in the same
    directory + fsync + ``os.replace``, so a reader never sees a half-written file, even if the writer is killed. A new file gets the user's usual mode
    (a note is meant to be read and committed), one rewritten keeps its own, and ``private`` makes it 0600 (an
    export of captured turns).
    ``expect``: the :func:`file_state` the new text was made from; when the file's state differs just before the
    replace (another program saved it meanwhile), nothing is written and :class:`FileChanged` is raised, so the
    caller reads it again rather than throwing that program's text away.
    ``within``: a ``path`` that is a link to an existing note file inside this folder (a note's root: a ``.md`` file,
    not ``ROOT.md`` nor memdir's own under ``.memdir/`` or ``.proposals/``) is written through:
    the target gets the text and the link stays a link (a note kept as a link into a shared folder). Any other link is
    replaced by the file, as without ``within``: a link a cloned repository carries never gets a file outside it
    rewritten (case C14)."""
    if within is not None and os.path.islink(path) and os.path.isfile(path):
        real, inside = os.path.realpath(path), os.path.realpath(within)
        rel = Path(os.path.relpath(real, inside)).parts
        # a note file in the root: Markdown, not ROOT.md, not memdir's own (.memdir/, .proposals/)
        if (os.path.commonpath([real, inside]) == inside and real.endswith(".md") and rel[-1] != "ROOT.md"
                and rel[0] not in (".memdir", ".proposals")):
            path = Path(real)
    from memdir.fileio import part_beside  # only writers need it (a hook that only reads pays nothing)

    try:  # a file rewritten keeps its mode: a note the person made 0600 stays private after a pin or an edit
        was = stat.S_IMODE(os.stat(path).st_mode) if not private else None
    except OSError:
        was = None
    if was is not None:  # a rewrite keeps the file's CRLF line ends and byte-order mark
        from memdir.fileio import same_style

        text = same_style(path, text if isinstance(text, str) else "".join(text))
    fd, tmp = part_beside(path)  # its missing folders made, never writable by group or others
    try:
        if not private:
            # mkstemp makes 0600; a new note is read as the user's umask says (it is meant to be read and committed),
            os.chmod(tmp, was if was is not None else 0o644 & ~_umask())  # never written by group or others
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.writelines([text] if isinstance(text, str) else text)
            f.flush()
            os.fsync(f.fileno())
        if expect is not _ANY and file_state(path) != expect:
            raise FileChanged(f"{path} changed on disk while memdir rewrote it; nothing was written")
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.errno and not exc.filename:  # a failed write names no file: say which
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise


def rewrite_compiled(path: Path, make: Any, read: Any, tries: int = 3) -> tuple[bool, list[str]]:
    """Rewrite a compiled page (ROOT.md, an index.md) from the file as it is: ``read(path)`` gives its text (or
    ``None``), ``make(text)`` the new text and its problems; written with :func:`atomic_write`'s ``expect``, read and
    made again when another program saved it meanwhile. Returns ``(done, problems)``: ``done`` False when it was left
    for the next compile (emptied a moment ago: :func:`being_saved`; or saved again at each of ``tries`` attempts).
    ``OSError`` from ``read`` propagates."""
    for _ in range(tries):
        state = file_state(path)
        existing = read(path)
        if being_saved(state):
            return False, []
        text, problems = make(existing)
        if text == existing or (existing is not None and text.lstrip("\ufeff").replace("\r\n", "\n")
                                == existing.lstrip("\ufeff").replace("\r\n", "\n")):
            return True, problems  # the same page in the file's own line ends: nothing to write
        try:
            atomic_write(path, text, expect=state)
        except FileChanged:
            continue
        return True, problems
    return False, []


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: why a path named like a note is not read: a FIFO would block its reader, a device never ends
NOT_REGULAR = "not a regular file (a FIFO, a device or a directory)"


def read_text(path: Path) -> str:
    """Read a note file as UTF-8; raises ``UsageError`` for binary, oversized or non-UTF-8 files and for what is not a
    regular file (a FIFO named ``x.md`` blocked every command that read it), ``OSError`` when it cannot be read."""
    from memdir.fileio import NotRegularFile, lf_for_lone_cr, open_regular

    try:
        with open_regular(path) as f:
            data = f.read(MAX_NOTE_BYTES + 1)
    except NotRegularFile:
        raise UsageError(NOT_REGULAR) from None
    if len(data) > MAX_NOTE_BYTES:
        raise UsageError(f"file is larger than {MAX_NOTE_BYTES} bytes")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # Windows PowerShell's `>` and Out-File write this: not binary
        raise UsageError("file is UTF-16 text (a Windows editor or PowerShell's > saved it so): save it as UTF-8")
    if b"\x00" in data:
        raise UsageError("file is binary (contains NUL bytes)")
    try:
        return lf_for_lone_cr(data.decode("utf-8"))  # a classic Mac note's lines (same_style keeps its CRs)
    except UnicodeDecodeError as exc:
        raise UsageError(f"file is not UTF-8 (byte {exc.start})") from None


#: frontmatter fields with a fixed type (anything else is kept as written)
_STR_FIELDS = ("id", "kind", "summary", "highlight", "supersedes", "superseded_by")
#: fields of a note's frontmatter (what an edit that closed its frontmatter early carries into the body)
_FIELD_LINE = re.compile(r"^(id|kind|summary|highlight|supersedes|superseded_by|tags|load_when|pinned|created|updated"
                         r"|source|sessions|model|distill_run|category):(?:\s|$)")


def _fields_in_body(body: str) -> list[str]:
    """The frontmatter field names ``body`` begins with when a ``---`` line follows them: what was meant as the
    frontmatter's end (``[]`` otherwise: a body that merely mentions ``pinned:`` is a body)."""
    names: list[str] = []
    for line in body.lstrip("\n").split("\n")[:40]:
        if line.strip() == "---":
            return names
        m = _FIELD_LINE.match(line)
        if m:
            names.append(m.group(1))
        elif not line.startswith((" ", "-")) and line.strip():  # a list item or a continuation belongs to a field
            return []
    return []
_LIST_FIELDS = ("tags", "load_when")
_TIME_FIELDS = ("created", "updated")


def check_edit(raw: str, *, note_id: str, before: str | None = None) -> tuple[dict[str, Any], str]:
    """Validate a whole note file (frontmatter + body) submitted as an edit of ``note_id``.

    Returns ``(meta, body)``; raises ``UsageError`` with every reason found, joined by ``; `` (nothing is written
    by this function). Checks: the YAML parses to a mapping; ``id``, when present, is ``note_id`` (an edit cannot
    move a note); ``kind``/``summary``/``highlight``/``supersedes``/``superseded_by`` are strings; ``tags`` and
    ``load_when`` are lists of strings (or one string); ``pinned`` is true/false; ``created``/``updated`` are
    times; ``supersedes`` is an id of the form ``category/slug`` other than this note; the body is not empty and
    under ``MAX_NOTE_BYTES - 100,000`` bytes (the bound :meth:`memdir.Memdir.remember` has), the file under
    :data:`MAX_NOTE_BYTES`; the body does not begin with frontmatter fields and a ``---`` line that ``before`` (the
    note's body now) did not begin with (a ``---`` typed inside the frontmatter closed it early).
    """
    from memdir.roots import split_id

    if not isinstance(raw, str):
        raise UsageError("the note must be text")
    if len(raw.encode("utf-8", "replace")) > MAX_NOTE_BYTES:  # the file a reader would refuse
        raise UsageError(f"note too long: keep it under {MAX_NOTE_BYTES - 100_000:,} bytes")
    try:
        meta, body, _ = split(raw.replace("\r\n", "\n"))
    except UsageError as exc:
        raise UsageError(f"edit refused: {exc}") from None
    problems: list[str] = []
    for k in _STR_FIELDS:
        if k in meta and meta[k] is not None and not isinstance(meta[k], str):
            problems.append(f"{k} must be text, not {type(meta[k]).__name__}")
    if isinstance(meta.get("id"), str) and meta["id"].strip() != note_id:
        problems.append(f"id must stay {note_id!r} (an edit cannot rename a note; remember a new one and supersede this)")
    if isinstance(meta.get("summary"), str) and not meta["summary"].strip():
        problems.append("summary is empty (remove the field to use the first line)")
    for k in _LIST_FIELDS:
        v = meta.get(k)
        if v is None or isinstance(v, str):
            continue
        if not isinstance(v, list) or any(isinstance(x, (dict, list)) or x is None for x in v):
            problems.append(f"{k} must be a list of words, like [deploy, 部署]")
    if "pinned" in meta and not isinstance(meta["pinned"], bool):
        problems.append(f"pinned must be true or false, not {meta['pinned']!r}")
    for k in _TIME_FIELDS:
        if meta.get(k) is not None:
            try:
                parse_ts(meta[k])
            except (UsageError, ValueError, TypeError, OverflowError):
                problems.append(f"{k} is not a time: {str(meta[k])[:40]!r} (use ISO 8601, e.g. 2026-11-30T12:00:00Z)")
    for k in ("supersedes", "superseded_by"):
        v = meta.get(k)
        if isinstance(v, str) and v.strip():
            try:
                split_id(v)
            except UsageError as exc:
                problems.append(f"{k}: {exc}")
            if v.strip() == note_id:
                problems.append(f"{k} cannot name the note itself")
    closed_early = _fields_in_body(body)
    # a `---` typed inside the frontmatter closed it: the fields after it would become the body; a note remembered
    # with such a text (``model: …`` then ``---``: ``before``, its body now) keeps it
    if closed_early and closed_early != _fields_in_body(before or ""):
        problems.append(f"the body begins with note fields ({', '.join(closed_early)}) and a '---' line: a '---' "
                        "closes the frontmatter early; remove it")
    if is_blank(body):  # white space, or characters that show nothing
        problems.append("the body is empty (forget the note instead)")
    elif len(body.encode("utf-8", "replace")) > MAX_NOTE_BYTES - 100_000:  # the bound remember has: a note it wrote
        problems.append(f"note too long: keep it under {MAX_NOTE_BYTES - 100_000:,} bytes")  # can be saved unchanged
    if problems:
        raise UsageError("edit refused: " + "; ".join(problems))
    return meta, body

"""Hostile input (issue 6): property tests on the facade plus a corpus of broken files, timestamps and CLI misuse.

Promise checked everywhere: a clear one-line ``MemdirError`` (``UsageError``/``PathError``/``NotFound``) or a
documented skip with a warning/problem entry — never another exception, never a traceback, never data loss
(files memdir cannot read are reported by ``inspect()`` and left byte-for-byte as they were).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memdir
from memdir import MemdirError, UsageError
from memdir.notes.markdown import is_blank

from .helpers import assert_clean_cli, check_store, run_cli

FAST, FULL = 50, 1000
ANY_TEXT = st.text(alphabet=st.characters(codec=None, blacklist_categories=()), max_size=300)  # incl. lone surrogates
NASTY = st.sampled_from(["\ud800", "\udfff", "\x00", "\u202e", "\u200d", "👨‍👩‍👧", "</memory>", "---", "\r\n", "|", "<!--",
                         "-->", "\\", "\ufeff", "部署", "ｍｅｍｏｒｙ", "\x1b[31m", "%s", "{0}", "\t", " ", "\u2028"])
MIXED = st.lists(st.one_of(ANY_TEXT, NASTY), max_size=8).map("".join)


def _open(tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True, exist_ok=True)
    return memdir.open(p, home=tmp_path / "home")


def _budget(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def _property_any_text_through_the_facade(tmp, n):
    """One store for all examples (damage accumulates); each example: remember, import, recall, context, forget."""
    stats = {"examples": 0, "usage_errors": 0}
    m = _open(tmp)

    @_budget(n)
    @given(text=MIXED, summary=st.one_of(st.none(), MIXED), tag=MIXED, key=MIXED, query=MIXED)
    def run(text, summary, tag, key, query):
        stats["examples"] += 1
        try:
            note = m.remember(text, summary=summary, tags=[tag], load_when=[tag])
        except UsageError:
            assert is_blank(text), text  # only a text that shows nothing (white space, control or invisible characters)
            stats["usage_errors"] += 1
            note = None
        if note is not None:
            assert m.get(note.id) is not None
        c = m.import_events([{"key": key or None, "text": text, "session": tag, "role": "user"}])
        assert c["read"] == 1 and c["stored"] + c["duplicate"] + c["skipped"] == 1
        m.recall(query)
        block = m.context(query)
        assert block == "" or (block.startswith("<memory>") and block.endswith("</memory>"))
        if note is not None and not note.existed:
            assert m.forget(note.id)
        try:
            m.forget(key)
        except MemdirError as exc:  # a key that looks like a bad note id: a clear one-line refusal is fine
            assert len(str(exc).splitlines()) == 1

    try:
        run()
        assert m.inspect().problems == []
    finally:
        m.close()
    check_store(tmp / "proj", tmp / "home")
    return stats["examples"]


@pytest.mark.parametrize("n", [pytest.param(FAST, id=f"{FAST}-examples"),
                               pytest.param(FULL, id=f"{FULL}-examples", marks=pytest.mark.slow)])
def test_property_any_text_never_raises_unexpectedly(tmp_path, n):
    seen = _property_any_text_through_the_facade(tmp_path, n)
    print(f"\nhostile: {seen} hypothesis examples (text, summary, tag, key, query incl. lone surrogates, NUL, RTL, ZWJ)")


@pytest.mark.parametrize("text", ["bad \ud800 text", "pair \ud83d\ude00 ok", "\udfff"])
def test_lone_surrogates_are_replaced_not_raised(tmp_path, text):
    """Found by the property test: a lone surrogate raised UnicodeEncodeError, and one in a tag wrote a note
    file that then made every later open fail."""
    with _open(tmp_path) as m:
        note = m.remember(text + " with words", summary=text, tags=[text], load_when=[text])
        assert "\ud800" not in note.text and "\udfff" not in note.summary
        m.import_events([{"key": text, "text": text + " event", "session": text}])
        assert m.forget(text) in (True, False) and m.get(text) is None or True
        assert m.inspect().problems == []
    with _open(tmp_path) as m:
        assert m.recall("words")


def test_ten_megabyte_inputs(tmp_path):
    big = ("lorem ipsum 部署 " * 700_000)[:10_000_000]
    with _open(tmp_path) as m:
        with pytest.raises(UsageError, match="too long"):
            m.remember(big)
        assert not list((tmp_path / "proj" / ".memory").rglob("lorem*.md")), "a refused note must leave no file"
        c = m.import_events([{"key": "big", "text": big}])
        assert c["stored"] == 1
        ev = m.get("big")
        assert len(ev.text) <= 20_100 and "elided by memdir" in ev.text
        assert m.recall("部署")
        assert len(m.context("lorem")) <= 1200
    check_store(tmp_path / "proj", tmp_path / "home")


def _write(p, data):
    p.parent.mkdir(parents=True, exist_ok=True)
    (p.write_bytes if isinstance(data, bytes) else p.write_text)(data)


HOSTILE_FILES = {
    "bad-utf8.md": b"bad \xff\xfe utf8\n",
    "nul-byte.md": b"nul\x00byte\n",
    "binary.md": bytes(range(256)) * 12,
    "huge.md": "y" * 1_100_000,
    "deep-flow.md": "---\na: " + "[" * 50_000 + "]" * 50_000 + "\n---\nbody\n",
    "malformed.md": "---\nsummary: [unclosed\n---\nbody\n",
    "unclosed.md": "---\nsummary: never closed\nbody\n",
    "list-frontmatter.md": "---\n- a\n- b\n---\nbody\n",
    "python-tag.md": "---\nx: !!python/object/apply:os.system [\"echo pwned\"]\n---\nbody\n",
}
READABLE_FILES = {
    "surrogate-yaml.md": '---\nsummary: "s \\ud800"\ntags: ["\\udfff", ok]\nload_when: "\\ud801 x"\n---\nreadable body one\n',
    "odd-fields.md": "---\ncreated: not a date\nupdated: 99999999999999999999\npinned: [1]\nsupersedes: {a: 1}\n---\nreadable body two\n",
    "laughs.md": "---\nsummary: laughs\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                 "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n---\nreadable body three\n",
    "dup-a.md": "---\nid: facts/dup\nsummary: first\n---\nreadable duplicate id one\n",
    "dup-b.md": "---\nid: facts/dup\nsummary: second\n---\nreadable duplicate id two\n",
    "rtl-zwj.md": "\u202eevil\u202d zwj 👨\u200d👩\u200d👧 emoji readable body six\n",
    "bom.md": "\ufeff---\nsummary: bom\n---\nreadable body seven\n",
}


@pytest.mark.slow  # over 7 s: CI runs it in `make test-slow`
def test_hostile_files_in_a_category_dir(tmp_path):
    root = tmp_path / "proj" / ".memory"
    before = {}
    for name, data in {**HOSTILE_FILES, **READABLE_FILES}.items():
        _write(root / "facts" / name, data)
    _write(root / "facts" / "image.png", b"\x89PNG\r\n\x1a\n" + bytes(100))
    _write(root / "ROOT.md", "# mine\n<!-- auto:begin registry\n| a |\n<!-- auto:begin routing -->\nhand text\n")
    for p in root.rglob("*"):
        if p.is_file():
            before[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
    with _open(tmp_path) as m:
        rep = m.inspect()
        bad = {p["path"].rsplit("/", 1)[-1] for p in rep.problems if p["kind"] == "unreadable"}
        assert bad == set(HOSTILE_FILES), bad ^ set(HOSTILE_FILES)
        assert all(len(p["detail"].splitlines()) == 1 for p in rep.problems)
        assert any(p["kind"] == "markers" for p in rep.problems)
        ids = {n.id for n in rep.notes}
        # a text file whose frontmatter is broken is listed (and recalled) by its body alone until repaired
        broken_fm = {"deep-flow.md", "malformed.md", "unclosed.md", "list-frontmatter.md", "python-tag.md"}
        assert ids == {f"facts/{n[:-3]}" for n in {*READABLE_FILES, *broken_fm}}, ids
        assert {n.text for n in rep.notes if n.id in {f"facts/{x[:-3]}" for x in broken_fm}} <= {"body", "summary: never closed\nbody"}
        assert {h.id for h in m.recall("readable duplicate")} >= {"facts/dup-a", "facts/dup-b"}
        m.remember("a new note beside hostile files")
        assert m.recall("hostile")
        m.reindex()
    for name in list(HOSTILE_FILES) + ["image.png", "ROOT.md"]:  # never rewritten, never deleted
        p = root / ("ROOT.md" if name == "ROOT.md" else f"facts/{name}")
        assert hashlib.sha256(p.read_bytes()).hexdigest() == before[name], name


def test_unknown_frontmatter_fields_kept_on_rewrite(tmp_path):
    root = tmp_path / "proj" / ".memory"
    raw = ("---\nsummary: old way\nowner: team-a\nreview: {every: 90d, next: 2027-01-01}\nx-custom: [1, 2]\n---\n"
           "Use the old deploy script.\n")
    _write(root / "decisions" / "old-way.md", raw)
    with _open(tmp_path) as m:
        m.remember("Use the new deploy script.", category="decisions", supersedes="decisions/old-way")
    text = (root / "decisions" / "old-way.md").read_text()
    for kept in ("owner: team-a", "x-custom:", "every: 90d", "Use the old deploy script.\n", "superseded_by: decisions/"):
        assert kept in text, (kept, text)


TS_FORMS = [
    (datetime(2026, 5, 1, 12, 0), "2026-05-01T12:00:00.000Z"),                                       # naive = local (UTC here)
    (datetime(2026, 5, 1, 20, 0, tzinfo=timezone(timedelta(hours=8))), "2026-05-01T12:00:00.000Z"),  # +08:00
    (1777636800000, "2026-05-01T12:00:00.000Z"),                                                     # epoch ms
    (1777636800, "2026-05-01T12:00:00.000Z"),                                                        # epoch s
    (1777636800.5, "2026-05-01T12:00:00.500Z"),
    ("2026-05-01T12:00:00Z", "2026-05-01T12:00:00.000Z"),
    ("2026-05-01T20:00:00+08:00", "2026-05-01T12:00:00.000Z"),
    ("2026-05-01 12:00:00", "2026-05-01T12:00:00.000Z"),
    ("2026-05-01", "2026-05-01T00:00:00.000Z"),
    ("1777636800000", "2026-05-01T12:00:00.000Z"),
    ("12:00 pm on 1 May, 2026", "2026-05-01T12:00:00.000Z"),
    ("2026/05/01 12:00", "2026-05-01T12:00:00.000Z"),
]
BAD_TS = ["yesterday", "2026-13-45", float("nan"), float("inf"), 10**30, [1], {"a": 1}, True, "--", "\ud800"]


def test_c13_timestamps_of_every_form(tmp_path):
    with _open(tmp_path) as m:
        evs = [{"key": f"ts{i}", "text": f"timestamp form number {i}", "ts": ts} for i, (ts, _) in enumerate(TS_FORMS)]
        evs += [{"key": f"bad{i}", "text": f"bad timestamp {i}", "ts": ts} for i, ts in enumerate(BAD_TS)]
        c = m.import_events(evs)
        assert c == {"read": len(evs), "stored": len(TS_FORMS), "duplicate": 0, "skipped": len(BAD_TS)}
        for i, (_, want) in enumerate(TS_FORMS):
            ev = m.get(f"ts{i}")
            assert ev.ts.tzinfo is not None and ev.ts.utcoffset() == timedelta(0)
            assert memdir.timeutil.iso(ev.ts) == want, (i, TS_FORMS[i])
        hits = m.recall("timestamp form", k=50)
        assert len(hits) == len(TS_FORMS)
        for ts in BAD_TS:  # capture gives a skip, never a TypeError
            r = m.capture({"role": "user", "text": "a captured prompt with a bad time", "ts": ts})
            assert r.stored is False and r.reason == "invalid"


# ---- the CLI with bad input: exit 0/1/2, one line on stderr, never a traceback -------------------------
BAD_CLI = [
    (["remember", ""], 2), (["remember", "x", "-c", "../etc"], 2), (["remember", "x", "-c", "nope"], 2),
    (["remember", "x", "--supersedes", "/etc/passwd"], 2), (["remember", "x", "--scope", "moon"], 2),
    (["forget", "../../etc/passwd"], 2), (["forget", "/etc/passwd"], 2), (["forget", "facts/none"], 1),
    (["forget", "C:\\x\\y"], 2), (["forget", "con/aux"], 2), (["recall", ""], 2), (["recall", "x", "-k", "0"], 2),
    (["recall", "x", "-k", "abc"], 2), (["recall", "nothing-matches-this"], 0),  # an empty store (C4)
    (["context", "--max-chars", "-5"], 2),
    (["import", "/nonexistent/file.jsonl"], 2), (["import", "jsonl"], 2), (["export", "/dev/null/y.jsonl"], 2),
    (["no-such-command"], 2), (["recall"], 2), (["--dir", "/dev/null", "status"], 0),
]


@pytest.mark.parametrize("args,code", BAD_CLI, ids=[" ".join(a)[:40] for a, _ in BAD_CLI])
def test_cli_bad_input_is_one_line_and_exit_code(tmp_path, args, code):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    r = run_cli(["--dir", str(proj), *args] if args[0] != "--dir" else args, home=tmp_path / "home", cwd=proj)
    err = assert_clean_cli(r, allow_internal=args[0] == "export")  # an OSError is reported as "internal error"
    assert r.returncode == code, (r.returncode, err)


def test_cli_hostile_stdin_and_files(tmp_path):
    proj, home = tmp_path / "proj", tmp_path / "home"
    (proj / ".git").mkdir(parents=True)
    base = ["--dir", str(proj)]
    r = run_cli(base + ["remember", "-"], home=home, stdin=b"invalid \xff\xfe utf8 and NUL \x00 in a note")
    assert_clean_cli(r, codes=(2,))  # binary or non-UTF-8 input is refused with one line, not stored as U+FFFD
    r = run_cli(base + ["remember", "-"], home=home, stdin=b"caf\xe9 written in latin-1 by an old editor")
    assert_clean_cli(r, codes=(2,))
    assert b"not UTF-8 text" in r.stderr and not (proj / ".memory" / "facts").exists()
    r = run_cli(base + ["recall", "-"], home=home, stdin=b"\xff\xfe")
    assert_clean_cli(r)
    # a program piped in by mistake is refused (it searched, and counted its hits as recalled); a pasted log whose
    # stray NUL comes late still searches
    elf = b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 8
    for cmd in ("recall", "context"):
        r = run_cli(base + [cmd], home=home, stdin=elf)
        assert_clean_cli(r, codes=(2,))
        assert b"binary data" in r.stderr
    r = run_cli(base + ["recall"], home=home, stdin=b"deploy failed " * 700 + b"\x00 late NUL")
    assert_clean_cli(r, codes=(0, 1))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"text": "ok line one here", "key": "a"}\nnot json\n\xff\xfe\n[1,2]\n{"type": "note", "category": "../x", "text": "t"}\n'
                    + json.dumps({"text": "\ud800 surrogate escape", "key": "s"}).encode() + b"\n")
    r = run_cli(base + ["--json", "import", str(bad)], home=home)
    assert_clean_cli(r, codes=(0,))
    out = json.loads(r.stdout)
    assert out["stored"] == 2 and out["bad_lines"] == 4, out
    r = run_cli(base + ["inspect"], home=home)
    assert_clean_cli(r, codes=(0,))

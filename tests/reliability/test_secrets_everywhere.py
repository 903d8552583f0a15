"""Secrets everywhere (issue 6, case C15): every format of the redaction corpus (tests/test_redact.py, built at run
time so no live-looking key is committed) goes in through every door — remember (text, summary, tags), capture,
import_events (text and meta), import_jsonl — and must not come out of any: the Markdown, the SQLite files (WAL
included), an export, recall hits, the context block, the CLI. False positives are measured on the ordinary
prose corpus through the same doors.
"""

from __future__ import annotations

import json

import pytest

import memdir

from .helpers import run_cli

test_redact = pytest.importorskip("test_redact", reason="the secret corpus lives in tests/test_redact.py")
CASES = test_redact.CASES


def _fragments(text: str, secret: str) -> list[str]:
    """The secret and its 12-char pieces that do not also occur in the text around it."""
    rest = text.replace(secret, "")
    return [secret] + [c for c in (secret[i:i + 12] for i in range(0, max(1, len(secret) - 11), 6))
                       if c.strip() and c not in rest and "\n" not in c]


def _all_bytes(*dirs) -> bytes:
    out = []
    for d in dirs:
        if d.exists():
            out += [p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()]
    return b"\n".join(out)


def _one_per_kind():
    seen, out = set(), []
    for c in CASES:
        if c[0] not in seen:
            seen.add(c[0])
            out.append(c)
    return out


@pytest.mark.parametrize("cases", [pytest.param("one-per-format", id="one-per-format"),
                                   pytest.param("all", id="all-cases", marks=pytest.mark.slow)])
def test_no_secret_leaves_through_any_door(tmp_path, cases):
    CASES = _one_per_kind() if cases == "one-per-format" else test_redact.CASES
    proj, home = tmp_path / "proj", tmp_path / "home"
    (proj / ".git").mkdir(parents=True)
    jsonl = tmp_path / "in.jsonl"
    with jsonl.open("w", encoding="utf-8") as f:
        for i, (_, text, _) in enumerate(CASES):
            f.write(json.dumps({"type": "event", "key": f"j{i}", "text": f"imported line {i}: {text}"}) + "\n")
            f.write(json.dumps({"type": "note", "category": "facts", "text": f"imported note {i}: {text}"}) + "\n")
    outputs: list[str] = []
    captured_texts: list[str] = []
    with memdir.open(proj, home=home, config={"capture.daily_cap": 0}) as m:
        for i, (kind, text, secret) in enumerate(CASES):
            n = m.remember(f"note {i}: {text}", summary=f"summary {i} {text}", tags=[f"t{i} {text}"],
                           load_when=[f"when {text}"], category="pitfalls")
            outputs.append(json.dumps(n.to_dict(), default=str))
            r = m.capture({"role": "user", "session": "s", "text": f"captured {i}: {text}"})
            assert r.stored, r
            captured_texts.append(r.text)  # CaptureResult.text: see test_capture_result_text_is_redacted
            m.capture({"role": "tool", "session": "s", "tool": "Bash", "call_id": f"c{i}", "input": {"command": text},
                       "output": f"ran with {text}"})
            m.import_events([{"key": f"e{i}", "text": f"event {i}: {text}", "meta": {"cmd": text, "nested": [text]}}])
        m.import_jsonl(jsonl)
        m.export(tmp_path / "export.jsonl")
        for i, (kind, text, secret) in enumerate(CASES):
            for q in (kind.replace("_", " "), f"note {i} captured {i} event {i}"):
                outputs += [json.dumps(h.to_dict(), default=str) for h in m.recall(q, k=20)]
            outputs.append(m.context(f"note {i} {kind}", max_chars=20_000, max_entries=50))
        m.roots["project"].db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    cli = run_cli(["--dir", str(proj), "--json", "recall", "note about", "-k", "200"], home=home)
    outputs.append(cli.stdout.decode("utf-8", "replace"))
    disk = _all_bytes(proj / ".memory", home) + (tmp_path / "export.jsonl").read_bytes()
    out = "\n".join(outputs)
    leaks = []
    for kind, text, secret in CASES:
        for frag in _fragments(text, secret):
            if frag.encode() in disk or frag in out:
                leaks.append((kind, frag[:24], "disk" if frag.encode() in disk else "output"))
                break
    kinds = sorted({k for k, _, _ in CASES})
    print(f"\nsecrets: {len(CASES)} cases, {len(kinds)} formats x 7 doors (remember text/summary/tags, capture user+tool, "
          f"import_events text+meta, import_jsonl, export, recall, context, CLI): {len(leaks)} leaks")
    assert leaks == [], leaks
    assert "[redacted:" in out


def test_false_positives_through_the_pipeline(tmp_path):
    lines = test_redact._prose_lines()
    assert len(lines) >= 200
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    fps = []
    with memdir.open(proj, home=tmp_path / "home") as m:
        c = m.import_events([{"key": f"p{i}", "text": line} for i, line in enumerate(lines)])
        for i, line in enumerate(lines):
            ev = m.get(f"p{i}")
            if ev is None or ev.text != line.strip():
                fps.append(line)
        for line in lines[:40]:
            note = m.remember(line)
            if note.text != line.strip():
                fps.append(line)
    print(f"\nfalse positives: {len(fps)} of {len(lines)} ordinary code/prose lines (events) + 40 (notes); stored {c}")
    assert fps == [], fps[:5]


def _label_leaks() -> list[tuple[str, str]]:
    from memdir.capture.redact import redact

    out = []
    for kind, text, secret in CASES:
        o = redact(f"note about {kind}: {text}")
        if any(f in o for f in _fragments(text, secret)):
            out.append((kind, text))
    return out


def test_secret_after_a_keyword_label_is_redacted():
    leaks = _label_leaks()
    print(f"\nkeyword-label leaks: {len(leaks)} of {len(CASES)}: {sorted({k for k, _ in leaks})}")
    assert leaks == []


def test_capture_result_text_is_redacted(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    kind, text, secret = _one_per_kind()[0]
    with memdir.open(proj, home=tmp_path / "home") as m:
        r = m.capture({"role": "user", "session": "s", "text": f"captured: {text}"})
        assert r.stored and secret not in m.get(r.key).text
        assert secret not in r.text

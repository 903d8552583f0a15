"""Import counts per real transcript: what the importers read and what ends up stored, by role and by reason.

    python bench/import_counts.py [--shared ../shared] [--out bench/results/import-counts.md]

Each transcript in ``<shared>/data/transcripts/{claude-code,codex}/`` is imported alone into a fresh throwaway
store (``memdir import <host> FILE --here``: every session into that store, whatever its recorded directory) and
the store is exported. Columns: events read by role (u/a/t), stored by role, skipped by reason (the capture gates
plus the parser's own skips of structural lines such as thinking blocks or progress lines), and, for Codex, the
tool events that are only a command's "still running" notice or a bare ``write_stdin`` poll (output split from
its command). Runs against whatever ``memdir`` is importable, so the same script measured the code before the
change (``PYTHONPATH=<old checkout>/src``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import memdir
from memdir.portability.transcripts import import_host

HERE = Path(__file__).resolve().parent
PARSER_NOISE = ("lines", "parts", "bad_ts", "info:")


def measure(source: str, file: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        proj = Path(tmp) / "proj"
        (proj / ".git").mkdir(parents=True)
        with memdir.open(proj, home=Path(tmp) / "home") as m:
            kw = {"progress": False}
            if "projects" in inspect.signature(import_host).parameters:
                kw["projects"] = "here"
            out = import_host(m, source, file, **kw)
            m.export(Path(tmp) / "x.jsonl")
        rows = [json.loads(line) for line in (Path(tmp) / "x.jsonl").read_text(encoding="utf-8").splitlines()]
    events = [r for r in rows if r.get("type") == "event"]
    stored = Counter(e["role"] for e in events)
    split = sum(1 for e in events if e["role"] == "tool" and (
        "still running in session" in e["text"] or e["text"].startswith("write_stdin: session")))
    dumps = sum(1 for e in events if e["role"] == "tool" and e["text"].startswith(("Read:", "Grep:", "Glob:", "LS:")))
    read = out.get("read_by_role") or {}
    if "parser_skipped" in out:
        skipped, parser = out["skipped_by"], out["parser_skipped"]
    else:  # the code before the gates were applied on import: every reason came from the parser
        skipped, parser = {}, {k: v for k, v in (out.get("skipped_by") or {}).items() if not k.startswith(PARSER_NOISE)}
    return {"file": file.name, "source": source, "read": out.get("read"), "read_by_role": read,
            "stored": dict(stored), "stored_total": sum(stored.values()), "split_tool_events": split, "file_dumps": dumps,
            "duplicate": out.get("duplicate"), "skipped": out.get("skipped"), "skipped_by": skipped,
            "parser_skipped": parser}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(HERE.parent.parent / "shared"))
    ap.add_argument("--out", default=None, help="also write the table (Markdown) and the JSON beside it")
    args = ap.parse_args(argv)
    base = Path(args.shared) / "data" / "transcripts"
    if not base.is_dir():
        print(f"no transcripts at {base}: pass --shared", file=sys.stderr)
        return 1
    results = []
    for source in ("claude-code", "codex"):
        for f in sorted((base / source).glob("*.jsonl")):
            results.append(measure(source, f))
    lines = ["| transcript | read u/a/t | stored u/a/t | stored | split cmd/output | Read/Grep/Glob stored | duplicate | skipped by the capture gate | not events (parser) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        rr, st = r["read_by_role"], r["stored"]
        read = "/".join(str(rr.get(k, "?")) for k in ("user", "assistant", "tool")) if rr else f"{r['read']} (no split)"
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(r["skipped_by"].items(), key=lambda kv: -kv[1])) or "–"
        parser = ", ".join(f"{k} {v}" for k, v in sorted(r["parser_skipped"].items(), key=lambda kv: -kv[1])[:5])
        lines.append(f"| {r['source']}/{r['file'][:24]} | {read} | {st.get('user', 0)}/{st.get('assistant', 0)}/"
                     f"{st.get('tool', 0)} | {r['stored_total']} | {r['split_tool_events']} | {r['file_dumps']} | {r['duplicate']} | {reasons} | {parser} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        out = Path(args.out)
        out.write_text(table + "\n", encoding="utf-8")
        out.with_suffix(".json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

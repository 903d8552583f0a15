"""`make demo` / `python -m memdir.demo`: memdir's main job on a shipped sample, in a throwaway store.

Imports a fictional bilingual coding session (about 100 turns, through the capture gates when available) and
a dozen curated notes, then prints recall results for a Chinese and an English query and the ``<memory>``
block an agent would receive. With ``--transcript PATH`` it imports a Claude Code session file too.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from importlib import resources
from pathlib import Path

import memdir


def _lines(name: str) -> list[dict]:
    text = resources.files("memdir").joinpath("data", name).read_text(encoding="utf-8")
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def _show(m, query: str, k: int = 3) -> None:
    print(f"\n$ memdir recall {query!r}")
    hits = m.recall(query, k=k)
    if not hits:
        print("  (no match)")
    from memdir.cli.memory import hit_line, unsecret  # what `memdir recall` itself prints

    for i, h in enumerate(hits, 1):
        print(hit_line(i, unsecret(h)))


def load_sample(m) -> tuple[int, int, int]:
    """Capture the shipped sample session through the gates and remember the sample notes into ``m``.
    Returns ``(turns stored, turns skipped, notes remembered)``. Used by the demo, the viewer's tests and its
    screenshots."""
    stored = skipped = 0
    for ev in _lines("sample_session.jsonl"):
        ok = bool(m.capture(ev).stored)
        stored += ok
        skipped += not ok
    n_notes = 0
    for note in _lines("sample_notes.jsonl"):
        m.remember(note.pop("text"), **note)
        n_notes += 1
    return stored, skipped, n_notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="memdir-demo", description=__doc__.splitlines()[0])
    ap.add_argument("--transcript", help="also import this Claude Code session JSONL")
    ap.add_argument("--keep", help="use this directory instead of a temporary one (kept afterwards)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memdir-demo-") as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        project = base / "tally"
        (project / ".git").mkdir(parents=True, exist_ok=True)
        with memdir.open(project, home=base / "global") as m:
            stored, skipped, n_notes = load_sample(m)
            print(f"captured {stored} of {stored + skipped} session turns ({skipped} skipped by the gates or as duplicates)")
            print(f"remembered {n_notes} curated notes in {m.roots['project'].path}")
            if args.transcript:
                from memdir.portability.transcripts import import_host

                print("imported transcript:", import_host(m, "claude-code", Path(args.transcript), projects="here", progress=False))
            _show(m, "缓存串租户是怎么回事")
            _show(m, "why did the test only fail in the nightly run")
            _show(m, "database password")
            prompt = "部署之前要注意什么？ how do I roll back a bad deploy?"
            print(f"\n$ memdir context {prompt!r}")
            print(m.context(prompt))
            root_md = m.roots["project"].path / "ROOT.md"
            where = root_md if args.keep else "ROOT.md"
            print(f"\n{where} (compiled tables{'' if args.keep else '; the demo deletes its files when it ends: --keep DIR keeps them'}):")
            # the Routing table with its header row, not the page's last lines (rows cut from their header, a marker)
            table = [ln for ln in root_md.read_text(encoding="utf-8").split("## Routing", 1)[-1].splitlines()
                     if ln.startswith("|")]
            more = len(table) - 17
            print("\n".join(["## Routing", *table[:17]] + ([f"… {more} more rows"] if more > 0 else [])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

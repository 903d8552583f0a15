"""The web viewer at a team's scale: server time and page weight of every page over 10,000 captured events and 1,000
notes (issue 25 item 5: each page under 1 s of server time, no page cutting a list without saying so).

Usage (from the repository root)::

    PYTHONPATH=src .venv/bin/python bench/viewer_scale.py [--events 10000] [--notes 1000] [--rounds 5]

The store is the one the browser test uses (``tests/ui_support.scale_store``: one session of 3,000 turns, the rest
in sessions of 10 — 701 sessions —, 1,000 note files indexed by ``reindex``, 300 skipped captures, 120 injected blocks). Each page is
requested through the viewer's ASGI app in this process (Starlette's test client, no network), ``--rounds`` times
after one warm-up request; the table gives the median and the worst server time (the request from its start to its
last byte), the page's size in bytes, and the count line the page shows. With Debian's chromium and Playwright
present (``tests/ui_support.browser_missing``), each page is also loaded in headless chromium from a live server
on 127.0.0.1, ``--rounds`` times: the median time from navigation start to the ``load`` event (server, transfer,
parse, style and layout together). Writes ``viewer-scale.md`` and
``viewer-scale.json`` to ``--out`` (``bench/results``) and prints the table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

LIMIT_S = 1.0


def pages(m) -> list[tuple[str, str]]:
    """(label, URL) of every page, the deep ones (last pages, a turn far into the long session) included."""
    from memdir.recall.handles import digest

    note = m.inspect().notes[500]
    inj = m.injections(limit=1)[0]
    far = m.session_events("long", limit=3000)[2500]
    return [
        ("search", "/search?q=deploy+cache+tenant"),
        ("search, page 4", "/search?q=deploy+cache+tenant&k=10&after=WzI5XQ"),
        ("search by handle", f"/search?q={digest(far['key'])[:6]}"),
        ("notes", "/notes"),
        ("notes, last page", "/notes?end=1"),
        ("notes of a category", "/notes?category=rules"),
        ("a note", f"/notes/{note.scope}/{note.id}"),
        ("a note's editor", f"/notes/{note.scope}/{note.id}/edit"),
        ("timeline", "/timeline"),
        ("timeline, last page", "/timeline?end=1"),
        ("skipped captures", "/timeline/skips"),
        ("long session (3,000 turns)", "/timeline/session?s=long&scope=project"),
        ("long session, its end", "/timeline/session?s=long&scope=project&end=1"),
        ("a turn far in (link)", f"/timeline/session?s=long&scope=project&key={far['key']}"),
        ("a turn's editor", f"/event/edit?key={far['key']}&scope=project"),
        ("what the model saw", "/injections"),
        ("a block beside its prompt", f"/injections/{inj['scope']}/{inj['id']}"),
        ("why not found", "/why?q=deploy+cache&id=rules/n0001"),
        ("team (not set up)", "/team"),
        ("health", "/health"),
        ("health with doctor (on request)", "/health?doctor=1"),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--notes", type=int, default=1_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args()

    from starlette.testclient import TestClient
    from ui_support import scale_store

    from memdir.ui import build

    base = Path(tempfile.mkdtemp(prefix="viewer-scale-"))
    t0 = time.perf_counter()
    m, _, _ = scale_store(base, events=args.events, notes=args.notes)
    build_s = time.perf_counter() - t0
    c = TestClient(build(get=lambda: m), base_url="http://127.0.0.1:8766", follow_redirects=False)
    rows = []
    for label, url in pages(m):
        r = c.get(url)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
        times = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            r = c.get(url)
            times.append(time.perf_counter() - t)
        count = re.search(r'data-start="(\d+)" data-stop="(\d+)" data-total="(\d+)"', r.text)
        shown = f"{int(count[1]):,}–{int(count[2]):,} of {int(count[3]):,}" if count else ""
        rows.append({"page": label, "url": url, "median_ms": round(statistics.median(times) * 1000, 1),
                     "max_ms": round(max(times) * 1000, 1), "bytes": len(r.content), "shown": shown})
    from ui_support import browser, browser_missing, live_server

    why = browser_missing()
    if why is None:
        with live_server(build(get=lambda: m)) as url, browser() as b:
            pg = b.new_context(viewport={"width": 1200, "height": 900}).new_page()
            for row in rows:
                loads = []
                for _ in range(args.rounds + 1):
                    pg.goto(url + row["url"], wait_until="load")
                    loads.append(pg.evaluate("() => { const e = performance.getEntriesByType('navigation')[0]; "
                                             "return e.loadEventEnd - e.startTime; }"))
                row["render_ms"] = round(statistics.median(loads[1:]), 1)
    m.close()
    worst = max(r["max_ms"] for r in rows if not r["url"].endswith("doctor=1"))
    doctor_note = ", leaving out the doctor run on request (it reads the whole index)"
    load = os.getloadavg()[0]
    lines = [f"# Viewer at scale: {args.events:,} events, {args.notes:,} notes",
             "",
             f"`PYTHONPATH=src .venv/bin/python bench/viewer_scale.py --events {args.events} --notes {args.notes} "
             f"--rounds {args.rounds}`; store built in {build_s:.1f} s; load average {load:.1f} on "
             f"{os.cpu_count()} CPUs (shared with other work). Server time: the request through the viewer's ASGI app "
             f"in process, median and worst of {args.rounds}. Every page is under {LIMIT_S:g} s: "
             f"{'yes' if worst < LIMIT_S * 1000 else 'NO'} (worst {worst:,.0f} ms){doctor_note}.",
             "",
             f"Chromium: {'median navigation start to load event, headless Debian chromium' if why is None else 'not run: ' + why}.",
             "",
             "| page | server median ms | server worst ms | bytes | chromium load ms | shown |",
             "|---|---:|---:|---:|---:|---|"]
    lines += [f"| {r['page']} | {r['median_ms']:,.1f} | {r['max_ms']:,.1f} | {r['bytes']:,} | "
              f"{format(r['render_ms'], ',.1f') if 'render_ms' in r else '–'} | {r['shown']} |" for r in rows]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "viewer-scale.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "viewer-scale.json").write_text(json.dumps({"events": args.events, "notes": args.notes, "rounds": args.rounds,
                                                        "build_s": round(build_s, 2), "load": load, "pages": rows},
                                                       indent=1), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

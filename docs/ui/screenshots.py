"""Regenerate the viewer's screenshots (docs/ui/*.png) on the shipped sample data.

    .venv/bin/python docs/ui/screenshots.py        # needs Debian's chromium (+ fonts-noto-cjk for Chinese)

Loads src/memdir/data into a throwaway store (the session through the capture gates, the notes, one real
Claude Code UserPromptSubmit hook run), serves the viewer on 127.0.0.1 and photographs each page.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))

from ui_support import browser, browser_missing, live_server, sample_store  # noqa: E402

from memdir.ui import build  # noqa: E402


def main() -> int:
    why = browser_missing()
    if why:
        print(f"cannot take screenshots: {why}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="memdir-shots-") as tmp:
        m, _, _ = sample_store(Path(tmp))
        note = next(n for n in m.inspect().notes if n.id.startswith("pitfalls/"))
        inj = m.injections(limit=1)[0]
        shots = [
            ("search", "/search?q=" + quote("部署 rollback") + "&lang=en", None),
            ("notes", "/notes", None),
            ("note", f"/notes/{note.scope}/{quote(note.id)}", None),
            ("edit-refused", f"/notes/{note.scope}/{quote(note.id)}/edit", "refuse"),
            ("timeline", "/timeline", None),
            ("session", "/timeline/session?s=sample-s1&scope=project", None),
            ("injection", f"/injections/{inj['scope']}/{inj['id']}", None),
            ("why", "/why?q=" + quote("nightly 测试为什么失败") + "&id=" + quote(note.id), None),
            ("search-zh", "/search?q=" + quote("缓存串租户") + "&lang=zh", None),
        ]
        with live_server(build(get=lambda: m)) as url, browser() as b:
            ctx = b.new_context(viewport={"width": 1200, "height": 820}, locale="en-US")
            page = ctx.new_page()
            for name, path, action in shots:
                page.goto(url + path)
                if action == "refuse":
                    fm = page.input_value("#frontmatter")
                    page.fill("#frontmatter", fm.replace("pinned: false", "pinned: maybe"))
                    page.click("#save")
                    page.wait_for_selector("#refused")
                out = HERE / f"{name}.png"
                page.screenshot(path=str(out))
                print(f"{out.relative_to(HERE.parents[1])}: {out.stat().st_size:,} bytes")
            ctx.close()
            # health, seen 400 days later after a sweep, so the prune preview has cold memories and a token to show
            from datetime import datetime, timedelta, timezone

            import memdir

            later = datetime.now(timezone.utc) + timedelta(days=400)
            with memdir.open(m.project_root, home=m.home, clock=lambda: later) as old:
                old.sweep()
                old.propose("发版前必须先在 staging 跑一遍 deploy.sh 并确认 /healthz 通过", summary="发版前先在 staging 验证",
                            source="distill")
                with live_server(build(get=lambda: old)) as url2:
                    ctx = b.new_context(viewport={"width": 1200, "height": 820}, locale="en-US")
                    page = ctx.new_page()
                    page.goto(url2 + "/health?days=90")
                    out = HERE / "health.png"
                    page.screenshot(path=str(out))
                    print(f"{out.relative_to(HERE.parents[1])}: {out.stat().st_size:,} bytes")
                    ctx.close()
        m.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

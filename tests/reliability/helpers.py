"""Shared checks for the reliability suites: worker processes, store consistency, tables, snapshots, the CLI."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import memdir
from memdir.notes import markdown as notes_mod

WORKER = Path(__file__).resolve().parent / "_worker.py"
SRC = Path(__file__).resolve().parents[2] / "src"
LINK = re.compile(r"^- \[([^\]]+)\]\(([^)]+)\.md\)")


def worker_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_")}
    env["MEMDIR_HOME"] = str(home)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONHASHSEED"] = "0"
    return env


def spawn(spec: dict[str, Any], home: Path) -> subprocess.Popen:
    """Start ``_worker.py`` with ``spec``; stdout/stderr piped as text, stdin piped (for the barrier)."""
    return subprocess.Popen([sys.executable, str(WORKER), json.dumps(spec)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                            env=worker_env(home))


def parse(lines: list[str]) -> tuple[list[dict], list[dict], list[str]]:
    """Split worker output into (acks, begins, error lines)."""
    acks, begins, errs = [], [], []
    for line in lines:
        if line.startswith("ACK "):
            acks.append(json.loads(line[4:]))
        elif line.startswith("BEGIN "):
            begins.append(json.loads(line[6:]))
        elif line.startswith("ERR"):
            errs.append(line.strip())
    return acks, begins, errs


def integrity(root: Path) -> str:
    """``PRAGMA integrity_check`` of a root's index (read-only connection)."""
    db = root / ".memdir" / "index.sqlite3"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return "; ".join(r[0] for r in con.execute("PRAGMA integrity_check"))
    finally:
        con.close()


def note_files(root: Path) -> dict[str, Path]:
    """Every note file ``{category/slug: path}`` (dot-files and index.md excluded, as memdir's scan does)."""
    out = {}
    for cat in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for f in sorted(cat.glob("*.md")):
            if f.name != "index.md" and not f.name.startswith("."):
                out[f"{cat.name}/{f.stem}"] = f
    return out


def split_row(line: str) -> list[str]:
    """Cells of one Markdown table row, honouring ``\\|`` escapes (and ``\\\\`` before a real pipe)."""
    s = line.strip()
    cells, cur, i = [], "", 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            cur += s[i:i + 2]
            i += 2
            continue
        if ch == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    cells.append(cur)
    return cells[1:-1] if s.startswith("|") and s.endswith("|") else cells


def auto_block(text: str, name: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if re.match(rf"^\s*<!--\s*auto:begin\s+{name}\b", ln))
    end = next(i for i in range(start + 1, len(lines)) if re.match(r"^\s*<!--\s*auto:end\b", lines[i]))
    return lines[start + 1:end]


def table_problems(rows: list[str]) -> list[str]:
    """Rows of a compiled table whose column count differs from the header's (or that are not rows)."""
    if not rows:
        return ["empty table"]
    n = len(split_row(rows[0]))
    return [r for r in rows if not r.strip().startswith("|") or len(split_row(r)) != n]


def check_store(project: Path, home: Path, *, expect_notes: set[str] | None = None, compiled: bool = True) -> dict[str, Any]:
    """Open the store and assert it is consistent; returns facts for further checks.

    Asserts: it opens, ``PRAGMA integrity_check`` is ok, ``inspect()`` reports no problems, every note file
    parses, no temp file is listed as a note, each ``index.md`` links exactly the files present, ROOT.md's
    registry counts equal the files per category and its tables are well formed. ``compiled=False`` skips the
    checks of the compiled files (index.md / ROOT.md) and tolerates ``index_missing_file`` problems.
    """
    root = project / ".memory"
    with memdir.open(project, home=home) as m:
        rep = m.inspect()
        problems = [p for p in rep.problems if compiled or p["kind"] != "index_missing_file"]
        assert problems == [], problems
        ids = {n.id for n in rep.notes}
        events = {r[0]: r[1] for r in m.roots["project"].db.execute(
            "SELECT ref, text FROM docs WHERE kind = 'event'")} if m.roots["project"].exists() else {}
        status = m.status()
    assert integrity(root) == "ok"
    files = note_files(root)
    assert set(files) == ids, (set(files) ^ ids)
    for nid, f in files.items():
        notes_mod.split(notes_mod.read_text(f))  # parses (raises otherwise)
    temp = [p for p in root.rglob(".tmp-*.part")]
    out = {"ids": ids, "files": files, "events": events, "status": status, "temp_files": temp, "notes": rep.notes}
    if expect_notes is not None:
        assert expect_notes <= ids, expect_notes - ids
    if not compiled:
        return out
    by_cat: dict[str, set[str]] = {}
    for nid in files:
        c, s = nid.split("/")
        by_cat.setdefault(c, set()).add(s)
    for cat, slugs in by_cat.items():
        listed = set()
        for ln in auto_block((root / cat / "index.md").read_text(encoding="utf-8"), "index"):
            mm = LINK.match(ln)
            if mm:
                listed.add(mm.group(2))
        assert listed == slugs, (cat, listed ^ slugs)
    root_md = (root / "ROOT.md").read_text(encoding="utf-8") if files else ""
    if files:
        reg = auto_block(root_md, "registry")
        assert table_problems(reg) == [], reg
        counts = {split_row(r)[0].strip().rstrip("/"): int(split_row(r)[2].split()[0]) for r in reg[2:]}
        assert counts == {c: len(s) for c, s in by_cat.items()}, counts
        assert table_problems(auto_block(root_md, "routing")) == []
    return out


def texts_of(notes: list[memdir.Note]) -> dict[str, int]:
    """How many notes hold each normalized text."""
    out: dict[str, int] = {}
    for n in notes:
        k = notes_mod.normalize_text(n.text)
        out[k] = out.get(k, 0) + 1
    return out


def snapshot(d: Path) -> dict[str, tuple[int, str]]:
    """``{relative path: (mode, sha256 of content or link target)}`` of everything under ``d``."""
    out = {}
    for p in sorted(d.rglob("*")):
        rel = str(p.relative_to(d))
        if p.is_symlink():
            out[rel] = (0, os.readlink(p))
        elif p.is_file():
            out[rel] = (p.stat().st_mode, hashlib.sha256(p.read_bytes()).hexdigest())
        else:
            out[rel] = (p.stat().st_mode, "dir")
    return out


def run_cli(args: list[str], *, home: Path, cwd: Path | None = None, stdin: bytes | None = None,
            timeout: int = 60) -> subprocess.CompletedProcess:
    """Run ``python -m memdir.cli ARGS`` in a subprocess (bytes in, text out with replacement)."""
    return subprocess.run([sys.executable, "-m", "memdir.cli", *args], input=stdin if stdin is not None else b"",
                          capture_output=True, env=worker_env(home), cwd=cwd, timeout=timeout)


def assert_clean_cli(r: subprocess.CompletedProcess, codes=(0, 1, 2), *, allow_internal: bool = False) -> str:
    """The CLI promise: exit code in ``codes``, no traceback, and stderr at most one line (warnings aside)."""
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode in codes, (r.returncode, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    lines = [ln for ln in err.splitlines() if ln.startswith("memdir: error") or ln.startswith("memdir: internal")]
    assert len(lines) <= 1, err
    assert allow_internal or "internal error" not in err, err
    if r.returncode:
        assert lines or err.strip(), "a failing command must say why on stderr"
    return err

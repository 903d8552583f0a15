"""``memdir migrate --from PATH | --scan DIR [--dry-run] [--purge]``: bring other memory stores into this one
(issue 13 item 1; seed 001's ``migrate``).

Sources (found by what a path holds):

* **alice-memory** data directories (seed 001): ``memories.sqlite3`` with ``memories`` (``occurred_at,
  local_date, kind turn|note, user_text, assistant_text, content, content_sha256, heat0, reinforced_at,
  half_life_days, tier, embedding_status, pinned, importance``), ``vectors`` (``memory_id, vector, model,
  dimensions``), ``tombstones`` and ``meta``; or the older two-file layout with the vectors in a separate
  ``vectors.sqlite3`` beside it. A ``turn`` becomes a user and an assistant event (keys
  ``alice:<id>:u|a``, session ``alice:<local_date>``); a ``note`` becomes a Markdown note in ``facts/``
  (pinned kept). Tombstoned memories are not brought over.
* **memdir roots and seed 000 Markdown memory directories** (``ROOT.md`` and/or ``<category>/<slug>.md`` with
  frontmatter): every note keeps its id when free (else a new slug), its times, tags, highlight and pins; a
  memdir root's episodic events are read from its index (opened read-only).
* **memdir exports** (``memdir export`` JSONL): through :meth:`Memdir.import_jsonl`.

Safe to re-run: events dedup by key and by content hash, notes by text (near-duplicates included), so a second
run stores nothing. An event key that already holds another text is renamed (``alice:7:u~2``). Vectors are
copied only when this store's embedding provider has the same model (and dimension, when it fixes one), only
for memories whose stored text is exactly what was embedded, and never over an existing vector; everything
else is left pending for ``memdir backfill``. ``dry_run`` opens sources read-only and writes nothing.
``purge`` deletes a source directory afterwards only when it holds nothing but store files (alice-memory's
``memories.sqlite3``/``vectors.sqlite3`` with their ``-wal``/``-shm``/``-journal`` companions and a ``legacy/``
folder of the same), the migration of that source read it without an error and every memory in it came over
(none ``failed``); anything else is refused and reported.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from memdir.engine import restore
from memdir.portability.jsonl import forgotten_note, survey
from memdir.notes import markdown as notes, synccopy
from memdir.errors import NotFound, UsageError, path_arg
from memdir.capture.redact import redact
from memdir.timeutil import iso, parse_ts

if TYPE_CHECKING:
    from memdir.core import Memdir

log = logging.getLogger("memdir")

ALICE_DB = "memories.sqlite3"
ALICE_VECTORS = "vectors.sqlite3"
_COMPANIONS = ("", "-wal", "-shm", "-journal")
STORE_FILES = frozenset(name + suffix for name in (ALICE_DB, ALICE_VECTORS) for suffix in _COMPANIONS)
SCAN_DEPTH = 6
_SKIP_DIRS = {".git", "node_modules", ".venv", "__pycache__", ".memdir"}


# ---- finding sources -----------------------------------------------------------------------------------
def detect(path: Path) -> str | None:
    """``"alice"``, ``"memdir"`` (a memdir root or seed 000 Markdown directory), ``"export"`` (a JSONL file)
    or ``None`` for what ``path`` holds."""
    if path.is_file():
        if path.name == ALICE_DB:
            return "alice"
        if path.suffix == ".jsonl":
            return "export"
        return None
    if not path.is_dir():
        return None
    if (path / ALICE_DB).is_file():
        return "alice"
    if (path / ".memdir" / "index.sqlite3").is_file() or (path / "ROOT.md").is_file():
        return "memdir"
    return None


def scan(top: Path, *, exclude: tuple[Path, ...] = ()) -> list[tuple[Path, str]]:
    """Every store under ``top`` (depth ≤ 6; ``.git``, ``node_modules``, virtualenvs skipped), nearest first;
    a store's own subdirectories (an alice ``legacy/``, a root's categories) are not searched again."""
    out: list[tuple[Path, str]] = []
    excl = {os.path.realpath(p) for p in exclude}

    def walk(d: Path, depth: int) -> None:
        if os.path.realpath(d) in excl:
            return
        kind = detect(d)
        if kind:
            out.append((d, kind))
            return
        if depth >= SCAN_DEPTH:
            return
        try:
            subs = sorted((e for e in os.scandir(d) if e.is_dir(follow_symlinks=False) and e.name not in _SKIP_DIRS),
                          key=lambda e: e.name)
        except OSError:
            return
        for e in subs:
            walk(Path(e.path), depth + 1)

    walk(top, 0)
    return out


# ---- alice-memory --------------------------------------------------------------------------------------
def _ro(path: Path) -> sqlite3.Connection:
    from memdir.portability.importers.sqlite import connect_ro

    db = connect_ro(path, expected="an alice-memory data directory (memories.sqlite3)")
    db.row_factory = sqlite3.Row
    return db


def _cols(db: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None


def read_alice(path: Path) -> dict[str, Any]:
    """Read an alice-memory store (directory or its ``memories.sqlite3``): ``{"memories": [dict],
    "vectors": {memory_id: (model, dims, blob)}, "tombstones": {"ids", "shas"}, "meta": {k: v}, "layout":
    "single"|"two-file"}``. Raises ``UsageError`` when the file is not such a store."""
    d = path if path.is_dir() else path.parent
    db_path = d / ALICE_DB
    try:
        db = _ro(db_path)
        if not _has(db, "memories"):
            raise UsageError(f"{db_path} has no `memories` table: not an alice-memory store")
        meta = {str(r[0]): r[1] for r in db.execute("SELECT * FROM meta")} if _has(db, "meta") else {}
        memories = [dict(r) for r in db.execute("SELECT * FROM memories ORDER BY id")]
        tomb_ids: set[str] = set()
        tomb_shas: set[str] = set()
        if _has(db, "tombstones"):
            cols = _cols(db, "tombstones")
            for r in db.execute("SELECT * FROM tombstones"):
                r = dict(r)
                for c in ("memory_id", "id"):
                    if c in cols and r.get(c) is not None:
                        tomb_ids.add(str(r[c]))
                for c in ("content_sha256", "sha256", "hash"):
                    if c in cols and r.get(c):
                        tomb_shas.add(str(r[c]))
        vectors: dict[str, tuple[str | None, int | None, bytes]] = {}
        layout = "single"
        vdb = db
        if not _has(db, "vectors") and (d / ALICE_VECTORS).is_file():
            vdb, layout = _ro(d / ALICE_VECTORS), "two-file"
        if _has(vdb, "vectors"):
            cols = _cols(vdb, "vectors")
            for r in vdb.execute("SELECT * FROM vectors"):
                r = dict(r)
                blob = r.get("vector") or r.get("embedding")
                if r.get("memory_id") is None or not isinstance(blob, bytes):
                    continue
                model = r.get("model") if "model" in cols else meta.get("model")
                dims = r.get("dimensions") if "dimensions" in cols else meta.get("dimensions")
                vectors[str(r["memory_id"])] = (model, int(dims) if dims else None, blob)
        if vdb is not db:
            vdb.close()
        db.close()
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"cannot read {db_path}: {exc}") from None
    return {"memories": memories, "vectors": vectors, "tombstones": {"ids": tomb_ids, "shas": tomb_shas},
            "meta": meta, "layout": layout}


def _alice_items(store: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """One dict per memdir item: ``{"type": "event"|"note", "source_id", "embedded", ...}``; tombstoned and
    empty memories are left out."""
    tomb = store["tombstones"]
    for mem in store["memories"]:
        mid = str(mem.get("id"))
        if mid in tomb["ids"] or (mem.get("content_sha256") and mem["content_sha256"] in tomb["shas"]):
            continue
        ts = mem.get("occurred_at") or mem.get("created_at")
        content = (mem.get("content") or "").strip()
        if (mem.get("kind") or "turn") == "note":
            text = content or (mem.get("user_text") or "").strip()
            if text:
                yield {"type": "note", "source_id": mid, "text": text, "ts": ts, "pinned": bool(mem.get("pinned")),
                       "embedded": content}
            continue
        session = f"alice:{mem.get('local_date') or str(ts or '')[:10] or 'undated'}"
        for role, field, suffix in (("user", "user_text", "u"), ("assistant", "assistant_text", "a")):
            text = (mem.get(field) or "").strip()
            if not text and role == "user" and not (mem.get("assistant_text") or "").strip():
                text = content  # an old row with only the joined text
            if text:
                yield {"type": "event", "source_id": mid, "key": f"alice:{mid}:{suffix}", "role": role, "text": text,
                       "ts": ts, "session": session, "embedded": content,
                       "meta": {"migrated_from": "alice-memory", "alice_id": mid, "tier": mem.get("tier")}}


# ---- memdir roots / seed 000 Markdown ------------------------------------------------------------------
def _markdown_notes(root: Path) -> Iterator[dict[str, Any]]:
    for cat in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for f in sorted(cat.glob("*.md")):
            if f.name == "index.md" or f.name.startswith("."):  # a temp file, a Finder or an editor's lock file
                continue
            copied = synccopy.problem_detail(str(cat), cat.name, f.stem)
            if copied:  # a sync tool's twin of a note: its note comes over, the copy is said and left in place
                log.warning("memdir: migrate: %s skipped: %s", f, copied)
                continue
            try:
                meta, body, _ = notes.split(notes.read_text(f))
                fl = notes.fields(meta, body, category=cat.name, fallback_time=parse_ts(f.stat().st_mtime))
            except Exception as exc:  # noqa: BLE001 — one unreadable file must not stop the migration
                log.warning("memdir: migrate: %s skipped: %s", f, str(exc)[:120])
                continue
            if not body.strip():
                continue
            yield {"type": "note", "id": f"{cat.name}/{f.stem}", "category": cat.name, "text": body.strip(),
                   "summary": fl["summary"], "kind": fl["kind"], "tags": list(fl["tags"]), "load_when": list(fl["load_when"]),
                   "pinned": fl["pinned"], "highlight": fl["highlight"], "created": iso(fl["created"]),
                   "updated": iso(fl["updated"]), "supersedes": fl["supersedes"], "superseded_by": fl["superseded_by"]}


def _memdir_events(root: Path) -> Iterator[dict[str, Any]]:
    db_path = root / ".memdir" / "index.sqlite3"
    if not db_path.is_file():
        return
    db = _ro(db_path)
    from memdir.store.sqlite.opening import add_functions

    add_functions(db)  # docs.text of a store since m009 is generated through memdir_unz
    try:
        for r in db.execute("SELECT ref, role, text, session, ts, meta FROM docs WHERE kind = 'event' ORDER BY ts_epoch, id"):
            yield {"type": "event", "key": r["ref"], "role": r["role"], "text": r["text"], "session": r["session"],
                   "ts": r["ts"], "meta": json.loads(r["meta"]) if r["meta"] else None}
    finally:
        db.close()


STATE_FILE = ".state.json"
MAX_CARRIED_HITS = 10_000  # per note: a counter beyond this is carried as this


def read_state(root: Path) -> dict[str, tuple[int, str | None]]:
    """Hit counters of a seed 000 memory directory (``<root>/.state.json``, kept out of Git): ``{note id: (hits,
    last hit as ISO text or None)}``. Read shapes: ``{id: n}``, ``{id: {"hits"|"count": n, "lastHit"|"last"|…:
    time}}``, either one under a ``"hits"`` (or ``"notes"``, ``"counters"``) key; an id may be written
    ``category/slug``, ``category/slug.md`` or as a path ending so. A missing or unreadable file (logged) or an
    entry that is not such a counter is left out."""
    f = root / STATE_FILE
    if not f.is_file():
        return {}
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("memdir: migrate: %s skipped: %s", f, str(exc)[:120])
        return {}
    if not isinstance(data, dict):
        return {}
    for key in ("hits", "notes", "counters"):
        if isinstance(data.get(key), dict):
            data = data[key]
            break
    out: dict[str, tuple[int, str | None]] = {}
    for raw, val in data.items():
        last = None
        if isinstance(val, dict):
            n = next((val[k] for k in ("hits", "count", "hit", "n") if k in val), None)
            t = next((val[k] for k in ("lastHit", "last_hit", "last", "lastHitAt", "at") if val.get(k)), None)
            try:
                last = iso(parse_ts(t)) if t is not None else None
            except UsageError:
                last = None
            val = n
        if isinstance(val, bool) or not isinstance(val, (int, float)) or val < 1:
            continue
        ref = str(raw).replace("\\", "/").strip().removesuffix(".md")
        parts = [p for p in ref.split("/") if p not in ("", ".")]
        if len(parts) >= 2:
            out["/".join(parts[-2:])] = (min(int(val), MAX_CARRIED_HITS), last)
    return out


def carry_hits(m: "Memdir", hits: dict[str, tuple[int, str | None]], ids: dict[str, str]) -> int:
    """Raise the recall (rehearsal) counter of each migrated note (``ids``: source id → id here) to its
    ``.state.json`` count — never lowered, never added twice, so a re-run changes nothing — then sweep the tiers
    so the counts are heat too. Returns the notes whose counter rose."""
    root = m.roots["project"]
    if not root.exists():
        return 0
    want = {ids[src]: h for src, h in hits.items() if src in ids}
    if not want:
        return 0
    raised = 0
    with root.locked(), root.store.transaction() as st:
        have = {r["ref"]: int(r["rcount"] or 0) for r in st.tier_rows() if r["ref"] in want}
        for ref, (n, last) in sorted(want.items()):
            if ref not in have or n <= have[ref]:
                continue
            for _ in range(n - have[ref]):  # the Store interface counts one recall at a time, on either engine
                st.bump_rehearsal([ref], last or iso(m.clock()))
            raised += 1
    if raised:
        m.sweep()
    return raised


# ---- writing --------------------------------------------------------------------------------------------
def _existing(store, sha: str, key: str | None) -> tuple[bool, bool]:
    """(``sha`` already stored, ``key`` held by another text); ``store`` is the project root's index
    (:class:`memdir.store.protocol.Store`: SQLite or PostgreSQL) or ``None`` when the root does not exist yet."""
    if store is None:
        return False, False
    dup = store.has_text(sha)
    other = False
    if key:
        have = store.ref_sha(key)
        other = have is not None and have != sha
    return dup, other


def _free_key(store, key: str, sha: str) -> str:
    """``key``, or ``key~2``, ``key~3`` … when another text holds it (rename on id conflict)."""
    if store is None:
        return key
    n = 1
    cand = key
    while True:
        have = store.ref_sha(cand)
        if have is None or have == sha:
            return cand
        n += 1
        cand = f"{key}~{n}"


def _provider_model(m: "Memdir") -> tuple[Any, str | None, int | None]:
    from memdir.engine import hybrid as vectors

    prov = vectors.provider_for(m)
    if prov is None:
        return None, None, None
    return prov, getattr(prov, "model_name", None) or getattr(prov, "model", None), getattr(prov, "dim", None) or None


def _copy_vector(m: "Memdir", ref: str, embedded: str, vec: tuple[str | None, int | None, bytes], counts: dict) -> None:
    """Store an alice vector for ``ref`` when the models match, the stored text is what was embedded, and no
    vector is there yet (never overwritten)."""
    prov, name, dim = _provider_model(m)
    model, dims, blob = vec
    if prov is None:
        counts["vectors_pending"] += 1  # no embedding provider here: `memdir backfill` embeds them once one is set
        return
    if not model or model not in (name, getattr(prov, "model", None)) or (dim and dims and dim != dims):
        counts["vectors_skipped_model"] += 1
        return
    if dims and len(blob) != 4 * dims:
        counts["vectors_skipped_model"] += 1
        return
    from memdir.engine.hybrid import embed_text

    root = m.roots["project"]
    with root.locked(), root.store.transaction() as st:
        row = st.get_doc(ref)
        if row is None or embed_text(row).strip() != embedded.strip():
            counts["vectors_skipped_text"] += 1
            return
        if not st.vector_copy(ref, row["content_sha256"], prov.model, blob, iso(m.clock())):
            counts["vectors_kept"] += 1
            return
        counts["vectors_copied"] += 1


def _store_items(m: "Memdir", items: list[dict[str, Any]], vectors: dict, *, dry_run: bool,
                 ids: dict[str, str] | None = None) -> dict[str, int]:
    """Store ``items``; ``ids`` (when given) collects ``{source note id: note id here}``."""
    from collections import Counter

    counts: Counter = Counter()
    root = m.roots["project"]
    db = root.store if root.exists() else None  # the project's index, whichever engine holds it
    events: list[dict[str, Any]] = []
    forgotten: dict[str, Any] = {}
    for it in items:
        counts["read"] += 1
        text = redact(it["text"].replace("\x00", "")).strip()
        sha = notes.content_hash(text)
        if it["type"] == "note":
            dup = db is not None and db.has_text(sha, "note")
            if dry_run:
                counts["notes_existing" if dup else "notes_new"] += 1
                continue
            obj = {"type": "note", "text": it["text"], "scope": "project", "category": it.get("category") or "facts"}
            for k in ("id", "summary", "kind", "tags", "load_when", "pinned", "highlight", "supersedes", "superseded_by"):
                if it.get(k) not in (None, "", [], ()):
                    obj[k] = it[k]
            for k in ("created", "updated"):
                if it.get(k) or it.get("ts"):
                    obj[k] = it.get(k) or it.get("ts")
            if forgotten_note(m.stores, obj, forgotten):  # forgotten since an earlier run: stays so
                counts["skipped"] += 1
                continue
            try:
                note = restore.restore_note(m.stores, obj)
            except UsageError as exc:  # not here: the source still holds it, so --purge keeps the source
                counts["failed"] += 1
                log.warning("memdir: migrate: note not migrated: %s", exc)
                continue
            counts["notes_existing" if note.existed else "notes_new"] += 1
            if ids is not None and it.get("id"):
                ids[it["id"]] = note.id
            db = root.store
            if not note.existed and it.get("source_id") in vectors:
                _copy_vector(m, note.id, it.get("embedded") or "", vectors[it["source_id"]], counts)
            continue
        dup, _ = _existing(db, sha, it.get("key"))
        if dry_run:
            from memdir.capture.gates import gate

            counts["events_existing" if dup else "events_new" if gate(it, m.config).keep else "skipped"] += 1
            continue
        ev = {k: it[k] for k in ("key", "role", "text", "session", "ts", "meta") if it.get(k) is not None}
        if ev.get("key") and not dup:
            renamed = _free_key(db, ev["key"], sha)
            if renamed != ev["key"]:
                counts["renamed"] += 1
                ev["key"] = renamed
        ev["_source_id"] = it.get("source_id")
        ev["_embedded"] = it.get("embedded")
        events.append(ev)
    if events and not dry_run:
        from memdir.capture.gates import gate_all

        dropped: list[dict[str, Any]] = []
        events, gated = gate_all(events, m.config, dropped)  # the capture gate, as for hooks and transcript imports
        for e in dropped:  # an event no import could store (an unreadable time) is not noise: it failed
            if e["reason"] == "invalid":
                log.warning("memdir: migrate: event %s not migrated: its role, text or time (%s) cannot be read",
                            e.get("key"), str(e.get("ts"))[:60])
        counts["failed"] += gated.pop("invalid", 0)
        counts["skipped"] += sum(gated.values())
        c = m.import_events([{k: v for k, v in e.items() if not k.startswith("_")} for e in events])
        counts["events_new"] += c["stored"]
        counts["events_existing"] += c["duplicate"]
        counts["skipped"] += c["skipped"]
        for e in events:
            if e["_source_id"] in vectors and e.get("_embedded"):
                _copy_vector(m, e["key"], e["_embedded"], vectors[e["_source_id"]], counts)
    return dict(counts)


# ---- the command ----------------------------------------------------------------------------------------
def _purge(path: Path) -> str | None:
    """Delete ``path`` if it holds only alice-memory store files (and a ``legacy/`` of the same); returns
    ``None`` when deleted, else the reason it was refused."""
    if not path.is_dir():
        return "not a directory"
    for p in path.iterdir():
        if p.is_dir() and not p.is_symlink() and p.name == "legacy":
            extra = [q.name for q in p.iterdir() if q.name not in STORE_FILES or not q.is_file()]
            if extra:
                return f"legacy/ holds other files ({', '.join(sorted(extra)[:3])})"
            continue
        if p.name not in STORE_FILES or not p.is_file() or p.is_symlink():
            return f"holds other files ({p.name})"
    shutil.rmtree(path)
    return None


def migrate(m: "Memdir", *, from_path: str | os.PathLike | None = None, scan_dir: str | os.PathLike | None = None,
            dry_run: bool = False, purge: bool = False) -> dict[str, Any]:
    """Migrate the store at ``from_path``, or every store found under ``scan_dir``, into ``m``'s project root.

    Returns ``{"dry_run", "sources": [{"path", "type", "layout"?, "found": {...}, "result": {...}, "error"?}],
    "purged": [paths], "purge_refused": [{"path", "reason"}]}``. ``result`` counts ``notes_new``,
    ``notes_existing``, ``events_new``, ``events_existing``, ``renamed``, ``skipped`` (noise, forgotten here),
    ``failed`` (could not be stored: a warning says why, and ``purge`` keeps the source), ``vectors_copied``,
    ``vectors_kept`` (already embedded here), ``vectors_skipped_model``/``_text``, ``vectors_pending`` (no provider); in a dry run only the
    new/existing counts, nothing written. Raises ``UsageError`` (neither or both given, purge with dry run) and
    ``NotFound`` (a path that holds no store)."""
    if (from_path is None) == (scan_dir is None):
        raise UsageError("migrate needs exactly one of --from PATH or --scan DIR")
    if purge and dry_run:
        raise UsageError("--purge deletes directories: run it without --dry-run")
    own = tuple(r.path for r in m.roots.values())
    if from_path is not None:
        p = path_arg(from_path, "from_path").expanduser().absolute()
        kind = detect(p)
        if kind is None:
            raise NotFound(f"no memory store at {p}: give an alice-memory data directory (memories.sqlite3), a memdir "
                           "root or Markdown memory directory (ROOT.md, <category>/<slug>.md) or a memdir export (.jsonl)")
        sources = [(p, kind)]
    else:
        top = path_arg(scan_dir, "scan").expanduser().absolute()
        if not top.is_dir():
            raise NotFound(f"no such directory to scan: {top}")
        sources = scan(top, exclude=own)
    out: dict[str, Any] = {"dry_run": dry_run, "sources": [], "purged": [], "purge_refused": []}
    for path, kind in sources:
        if any(os.path.realpath(path) == os.path.realpath(o) for o in own):
            out["sources"].append({"path": str(path), "type": kind, "error": "this is the current store itself; skipped"})
            continue
        rec: dict[str, Any] = {"path": str(path), "type": kind}
        try:
            if kind == "alice":
                store = read_alice(path)
                items = list(_alice_items(store))
                rec["layout"] = store["layout"]
                rec["found"] = {"memories": len(store["memories"]), "vectors": len(store["vectors"]),
                                "tombstones": len(store["tombstones"]["ids"] | store["tombstones"]["shas"]),
                                "items": len(items)}
                rec["result"] = _store_items(m, items, store["vectors"], dry_run=dry_run)
            elif kind == "memdir":
                items = list(_markdown_notes(path)) + list(_memdir_events(path))
                hits = read_state(path)
                rec["found"] = {"notes": sum(i["type"] == "note" for i in items), "events": sum(i["type"] == "event" for i in items)}
                if hits:
                    rec["found"]["hit_counts"] = len(hits)
                ids: dict[str, str] = {}
                rec["result"] = _store_items(m, items, {}, dry_run=dry_run, ids=ids)
                if hits and not dry_run:
                    rec["result"]["hits_carried"] = carry_hits(m, hits, ids)
            else:
                if dry_run:
                    rec["found"] = _count_export(path)
                    rec["result"] = {}
                else:
                    rec["result"] = m.import_jsonl(path)
        except (UsageError, sqlite3.DatabaseError, OSError) as exc:
            rec["error"] = str(exc).splitlines()[0][:300]
        out["sources"].append(rec)
        if purge:
            target = path if path.is_dir() else path.parent
            reason = ("its migration failed" if "error" in rec else None) if kind == "alice" else \
                "only alice-memory data directories are purged (this one holds Markdown or other files)"
            if reason is None and (rec.get("result") or {}).get("failed"):
                reason = f"{rec['result']['failed']} of its memories did not come over (the warnings say why)"
            if reason is None:
                reason = _purge(target)
            if reason is None:
                out["purged"].append(str(target))
            else:
                out["purge_refused"].append({"path": str(target), "reason": reason})
    return out


def _count_export(path: Path) -> dict[str, int]:
    """What ``Memdir.import_jsonl`` would read from an export (a dry run): notes, events, bad lines (and tombstones,
    never counted as events)."""
    return survey(path)

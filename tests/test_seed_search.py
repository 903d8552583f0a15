"""Seed 004 parity, search: an imported record's tags and title are searched as a note's are (tags ×4, title ×3), on
SQLite (FTS5 and the postings held in memory) and PostgreSQL alike; and ``memory_read`` pages through a whole memory
that ``memory_recall`` cut."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

import memdir
from memdir.store.sqlite import index, opening

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)

FILLER = " ".join(f"the retry loop step{i} reads the queue" for i in range(40))


@pytest.fixture(params=["sqlite-fts5", "sqlite-postings", "postgresql"])
def engine(request, tmp_path, project):
    cfg = {"embed.provider": "none", "recall.memory_index": "on" if request.param == "sqlite-postings" else "off"}
    if request.param == "postgresql":
        cfg["store"] = request.getfixturevalue("pg_url")
    m = memdir.open(project, home=tmp_path / "g", clock=lambda: T0, config=cfg)
    yield m
    m.close()


def drop(m, records: list[dict], name: str = "local-memory-import.jsonl") -> dict:
    d = m.home / "import"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return m.import_pending()


def test_a_query_naming_only_a_tag_finds_the_imported_note(engine):
    m = engine
    res = drop(m, [{"id": "n1", "kind": "note", "title": "Release checklist", "tags": ["kubernetes", "helmfile"],
                    "body": "Bump the chart version before the smoke run.", "ts": "2026-10-20T10:00:00Z"},
                   {"id": "n2", "kind": "note", "tags": "grafana, alerts", "body": "Pager rules live beside the dashboards.",
                    "ts": "2026-10-21T10:00:00Z"},
                   {"id": "n3", "kind": "note", "body": "Nothing labelled here about charts.", "ts": "2026-10-22T10:00:00Z"}])
    assert res["files"][0]["stored"] == 3
    for q, want in (("helmfile", "import:local-memory-import:n1"), ("kubernetes", "import:local-memory-import:n1"),
                    ("grafana", "import:local-memory-import:n2")):  # tags as a list and as a comma-separated string
        hits = m.recall(q)
        assert [h.id for h in hits] == [want], q
        assert hits[0].reasons["fields"].get("tags"), q  # the reason names the field it matched in
    assert m.recall("checklist")[0].reasons["fields"].get("title")


def test_a_title_word_ranks_above_a_body_word(engine):
    m = engine
    drop(m, [{"id": "titled", "kind": "note", "title": "Webpack cache", "body": FILLER, "ts": "2026-10-30T10:00:00Z"},
             {"id": "deep", "kind": "note",  # the word twice, but only deep in its body
              "body": FILLER + " then webpack rebuilds and webpack warms up.", "ts": "2026-10-30T10:00:00Z"}])
    hits = m.recall("webpack")
    assert [h.id for h in hits] == ["import:local-memory-import:titled", "import:local-memory-import:deep"]
    # a curated note's summary weighs the same way
    m.remember(FILLER + " and the linter runs too", category="facts", summary="Linter setup")
    m.remember(FILLER + " then the linter runs and the linter exits", category="facts", summary="Queue notes")
    assert m.recall("linter")[0].summary == "Linter setup"


def test_events_without_labels_index_as_before(m):
    """A captured or transcript turn has no tags or title: its full-text row holds empty labels, as before."""
    m.import_events([{"key": "u:s:1", "session": "s", "text": "we deploy on friday", "meta": {"cwd": "/x"}}])
    db = m.stores.live("project")[0].store.db
    assert not opening.labeled_events(db)
    rows = db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'tags:deploy OR title:deploy'").fetchone()[0]
    assert rows == 0 and index.check_fts(db) == []


def test_an_index_of_the_version_before_labels_is_rebuilt_only_when_an_event_has_labels(tmp_path):
    from memdir.store.sqlite.store import SqliteStore

    def make(path, meta):
        s = SqliteStore.open(path)
        with s.transaction():
            s.insert_event({"kind": "event", "ref": "import:x:1", "content_sha256": "a" * 64, "role": "user", "session": None,
                            "ts": "2026-10-01T00:00:00Z", "ts_epoch": 1.0, "text": "bump the chart", "meta": meta})
        db = s.db
        # as the version before wrote it: no labels in the row, the marker without LABELS
        db.execute("BEGIN")
        db.execute("INSERT INTO fts(fts, rowid, tags, title, body, context) VALUES ('delete', 1, ?, ?, ?, '')",
                   (*index.event_values(db.execute("SELECT * FROM docs").fetchone(), index.Tokens(db))[:3],))
        db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (1, '', '', ?, '')", (index.body0("bump the chart", "user"),))
        db.execute("UPDATE meta SET value = ? WHERE key = 'tokenizer'",  # the version before labels (and the dotted I)
                   (opening.index_version()[:-len(opening.LABELS + opening.DOTTED_I + opening.UNSPACED + opening.MARKS
                                              + opening.DOTLESS_I + opening.PICTOGRAPHS)],))
        db.execute("COMMIT")
        s.close()

    labeled, plain = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"
    make(labeled, json.dumps({"tags": ["helmfile"]}))
    make(plain, json.dumps({"cwd": "/x"}))
    for path, rebuilt in ((labeled, True), (plain, False)):
        db, _ = opening.open_index(path)
        assert index.meta_int(db, "fts_epoch") == (1 if rebuilt else 0)
        assert index.check_fts(db) == []
        assert db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()[0] == opening.index_version()
        db.close()


# ---- memory_read: the rest of a text memory_recall cut ----------------------------------------------------
BUDGET = 20_000  # the whole reply of a tool, as memory_recall keeps it (memdir.server.tools.MAX_RECALL_CHARS)


def _reply_chars(result) -> int:
    """Characters of a reply as the wire carries it: the text content, and the structured content as JSON."""
    text = "".join(getattr(b, "text", "") or "" for b in result.content)
    return max(len(text), len(json.dumps(result.structured_content, ensure_ascii=False)))


def test_memory_read_pages_through_a_long_memory_with_no_loss(tmp_path, project):
    mcp = pytest.importorskip("mcp", reason="needs the optional `mcp` SDK")
    import anyio
    from mcp import Client

    from memdir.server.mcp import build_server

    # 50k characters with quotes, backslashes, newlines and CJK (escaped or wide in the JSON reply)
    unit = 'line {i}: "quoted" path\\to\\file 部署脚本 tab\there\n'
    whole = "release notes webpack\n" + "".join(unit.format(i=i) for i in range(2_000))
    whole = whole[:50_000]
    m = memdir.open(project, home=tmp_path / "g", clock=lambda: T0)
    note = m.remember(whole, category="facts", summary="release notes")
    server = build_server(memdir=m)

    async def main():
        async with Client(server) as c:
            hit = (await c.call_tool("memory_recall", {"query": "webpack release"})).structured_content["hits"][0]
            assert hit["truncated"] and hit["id"] == note.id and hit["handle"]
            assert f"memory_read id='{hit['handle']}'" in hit["text"]
            shown = int(hit["text"].rsplit("offset=", 1)[1].rstrip("]"))
            assert hit["text"].startswith(whole[:shown])
            got, offset, pages = [], 0, 0
            while offset is not None:
                r = await c.call_tool("memory_read", {"id": hit["handle"], "offset": offset})
                assert not r.is_error and _reply_chars(r) < BUDGET, (offset, _reply_chars(r))
                page = r.structured_content
                assert page["offset"] == offset and page["total_chars"] == len(whole) and page["id"] == note.id
                got.append(page["text"])
                offset, pages = page["next_offset"], pages + 1
            assert "".join(got) == whole and pages >= 3
            # from where recall cut it, by the note id, a smaller page
            r = (await c.call_tool("memory_read", {"id": note.id, "offset": shown, "max_chars": 500})).structured_content
            assert r["text"] == whole[shown:shown + len(r["text"])] and 0 < len(r["text"]) <= 500
            assert r["next_offset"] == shown + len(r["text"])
            # past the end: nothing, no next page
            r = (await c.call_tool("memory_read", {"id": note.id, "offset": 10 ** 6})).structured_content
            assert r["text"] == "" and r["next_offset"] is None
            # an unknown handle: one line
            bad = await c.call_tool("memory_read", {"id": "zzzzzz"})
            assert bad.is_error and "\n" not in bad.content[0].text and "zzzzzz" in bad.content[0].text

    anyio.run(main)
    m.close()


def test_memory_read_reads_an_event_by_its_key_and_lists_as_a_tool(tmp_path, project):
    pytest.importorskip("mcp", reason="needs the optional `mcp` SDK")
    import anyio
    from mcp import Client

    from memdir.server.mcp import build_server

    m = memdir.open(project, home=tmp_path / "g", clock=lambda: T0)
    m.import_events([{"key": "u:s:1", "session": "s", "text": "short turn about pnpm"}])
    server = build_server(memdir=m)

    async def main():
        async with Client(server) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            t = tools["memory_read"]
            assert t.annotations.read_only_hint is True and t.annotations.destructive_hint is False
            assert {"id", "offset", "max_chars"} <= set(t.input_schema["properties"]) and t.input_schema["required"] == ["id"]
            r = (await c.call_tool("memory_read", {"id": "u:s:1"})).structured_content
            assert r["text"] == "short turn about pnpm" and r["next_offset"] is None and r["kind"] == "user"

    anyio.run(main)
    m.close()


def test_memdir_import_of_a_jsonl_file_keeps_its_titles_and_tags(m, tmp_path):
    from memdir.portability.importers.jsonl import iter_jsonl

    f = tmp_path / "old.jsonl"
    f.write_text(json.dumps({"text": "bump the chart before the smoke run", "title": "Release checklist",
                             "tags": ["helmfile"], "ts": "2026-10-20T10:00:00Z"}) + "\n", encoding="utf-8")
    m.import_events(list(iter_jsonl(f)))
    assert [h.reasons["fields"] for h in m.recall("helmfile checklist")] == [{"tags": ["helmfil"], "title": ["checklist"]}]


def test_labeled_events_score_the_same_from_fts5_and_the_held_postings_through_writes(m):
    """Labels in every write path (alone, in a session, neighbours re-contexted, forgotten, rebuilt): the index holds
    exactly what docs says (check_fts) and the postings held in memory score as FTS5, to the last bit."""
    from memdir.recall import bm25
    from memdir.recall.tokenize import query_tokens
    from memdir.store.sqlite.postings import MemIndex

    def ev(i, session="s", **meta):
        return {"key": f"import:x:{i}", "session": session, "text": f"turn {i} about the retry queue and chart {i % 3}",
                "ts": f"2026-10-{1 + i:02d}T10:00:00Z", "meta": meta or None}

    queries = [query_tokens(q) for q in ("helmfile", "release checklist", "retry chart", "grafana queue")]

    def same():
        assert index.check_fts(store.db) == []
        with mem.lock:
            assert mem.refresh(), mem.disabled
            for toks in queries:
                want = [tuple(r) for r in bm25.score(store.db, toks, weights=(4.0, 3.0, 1.0, 0.3), limit=20, with_terms=True)]
                assert mem.score(toks, weights=(4.0, 3.0, 1.0, 0.3), limit=20) == want, toks

    m.import_events([ev(0, tags=["helmfile"]), ev(2, title="Release checklist"), ev(4), ev(6, session=None, tags="grafana")])
    store = m.stores.live("project")[0].store
    mem = MemIndex(store.db)
    same()
    m.import_events([ev(1, title="checklist two", tags=["helmfile", "grafana"]), ev(3)])  # between labeled neighbours
    same()
    assert m.forget("import:x:2") and m.forget("import:x:4")  # their neighbours re-contexted with their labels
    same()
    m.reindex()
    with mem.lock:
        mem.refresh()
    same()
    assert {h.id for h in m.recall("helmfile")} == {"import:x:0", "import:x:1"}


def test_postgres_rows_written_before_labels_get_them_at_migration(pg_url):
    """m010: an event row written before (labels empty) gets its tags and title, and the counters move with it, so
    N, avgdl and every n_t equal those of a store that wrote the labels in the first place."""
    psycopg = pytest.importorskip("psycopg")
    from psycopg.rows import dict_row

    from memdir.recall.tokenize import query_tokens
    from memdir.store import open_store
    from memdir.store.postgres.migrations import relabel_events

    s = open_store(pg_url, project="p")
    try:
        with s.transaction():
            pending: dict[int, str] = {}
            for i, meta in enumerate(({"tags": ["helmfile"], "title": "Release checklist"}, None, {"title": "chart notes"})):
                s.insert_event({"kind": "event", "ref": f"import:x:{i}", "content_sha256": f"{i:064d}", "role": "user",
                                "session": "s" if i < 2 else None, "ts": "2026-10-01T00:00:00Z", "ts_epoch": 1.0 + i,
                                "text": f"bump the chart {i}", "meta": json.dumps(meta) if meta else None}, pending=pending)
            s.flush_events(pending)
        terms = ["helmfil", "checklist", "chart", "note", "bump"]
        labeled = (s.stats(), s.doc_freqs(terms))
        with psycopg.connect(pg_url, row_factory=dict_row) as conn, conn.cursor() as cur:
            assert relabel_events(cur, lambda meta: ("", "")) == 2  # the rows as the version before wrote them
        assert s.search(query_tokens("helmfile"), weights=(4.0, 3.0, 1.0, 0.3), limit=5) == []
        with psycopg.connect(pg_url, row_factory=dict_row) as conn, conn.cursor() as cur:
            assert relabel_events(cur) == 2
            assert relabel_events(cur) == 0  # once
        assert (s.stats(), s.doc_freqs(terms)) == labeled
        assert [r["ref"] for r in s.search(query_tokens("helmfile"), weights=(4.0, 3.0, 1.0, 0.3), limit=5)] == ["import:x:0"]
    finally:
        s.close()

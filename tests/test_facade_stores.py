"""The facade on both stores (issue 14): ``Memdir`` with the SQLite index (default) and with ``store =
"postgresql://…"`` gives the same answers — remember / recall / the hook block / forget / supersede / import /
inspect / prune / export — and several projects share one database without seeing each other's memory.

The PostgreSQL cases run against the session's throwaway cluster (tests/pg_cluster.py); without the server binaries
or psycopg they skip with the reason (and fail under MEMDIR_REQUIRE_POSTGRES=1, as in CI). The shared-behaviour
tests of test_core_behaviour / test_cases_core / test_block that use only the facade run here again on PostgreSQL
(imported below): the same test functions, on both stores.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from memdir.errors import UsageError

import memdir
from memdir.store.postgres.store import PgStore
from memdir.store.sqlite.store import SqliteStore

# the same tests, now on PostgreSQL (their home modules run them on SQLite) -------------------------------------
from test_block import (  # noqa: F401
    test_at_200_chars_rules_and_outline_degrade_visibly,
    test_c24_a_matched_question_brings_its_answer_and_the_prompt_never_returns_itself,
    test_file_dumps_take_no_slot_from_a_decision,
    test_headers_are_short_handles_that_get_and_forget_accept,
    test_the_matching_passage_of_a_long_text_is_shown_not_its_start,
    test_the_outline_does_not_repeat_the_rules_section_and_has_no_trailing_space,
    test_tool_calls_that_are_not_the_evidence_are_one_line,
)
from test_cases_core import (  # noqa: F401
    test_c1_cjk_two_char_word_ranks_first,
    test_c2_quoted_and_unquoted_chinese_query,
    test_c3_query_syntax_never_errors,
    test_c3_words_are_found,
    test_c5_same_text_twice_is_one_memory,
    test_c6_supersede,
    test_c6_unknown_supersedes_is_usage_error,
    test_c10_budget_with_200_long_notes,
    test_c12_forgotten_never_appears,
)
from test_cases_recall import test_c17_single_cjk_character_matches_inside_a_run  # noqa: F401
from test_recall_signals import test_a_chinese_query_finds_a_memory_sharing_single_characters  # noqa: F401
from test_glossary import (  # noqa: F401
    test_a_chinese_question_finds_the_english_memory_and_the_own_language_note_ranks_first,
    test_readme_example_how_do_we_deploy_finds_the_chinese_note,
)
from test_core_behaviour import (  # noqa: F401
    test_block_keeps_chinese_punctuation,
    test_decay_prefers_recent_and_pinned_is_exempt,
    test_export_import_keeps_note_ids_times_and_supersede_links,
    test_forget_event_writes_tombstone_blocking_reimport,
    test_forgetting_a_replacement_brings_the_old_note_back,
    test_global_rules_always_resident_before_project_rules,
    test_hand_edits_are_picked_up,
    test_import_events_dedup_and_time_forms,
    test_inspect_reports_index_missing_file_and_dangling_supersedes,
    test_long_event_is_bounded_and_recallable,
    test_neighbouring_turns_are_indexed_and_forget_clears_them,
    test_project_beats_global_on_equal_text,
    test_supersede_across_roots,
)


def _open_pg(project, home, clock, url, name="proj", **cfg):
    return memdir.open(project, home=home, clock=clock, config={"store": url, "remote.project": name, **cfg})


@pytest.fixture
def m(project, tmp_path, clock, pg_url):
    """This module's ``m``: the facade on PostgreSQL (the imported tests above use it)."""
    store = _open_pg(project, tmp_path / "g", clock, pg_url)
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def both(request, project, tmp_path, clock):
    """The facade on each store in turn."""
    if request.param == "sqlite":
        store = memdir.open(project, home=tmp_path / "g", clock=clock)
    else:
        store = _open_pg(project, tmp_path / "g", clock, request.getfixturevalue("pg_url"))
    yield store
    store.close()


def test_the_project_root_uses_the_configured_store(both):
    both.remember("the store answers", category="facts")
    root = both.roots["project"]
    want = SqliteStore if not root.store_spec else PgStore
    assert isinstance(root.store, want)
    assert isinstance(both.roots["global"].store, SqliteStore)  # the personal (global) root stays local
    st = both.status()["project"]
    assert st["notes"] == 1 and st["events"] == 0
    assert ("store" in st) == bool(root.store_spec)


def test_remember_recall_get_forget(both):
    n = both.remember("We deploy with blue-green releases behind the load balancer", category="decisions",
                      tags=["deploy"])
    assert not n.existed
    assert both.remember("we deploy with Blue-Green releases, behind the load balancer!", category="decisions").existed
    hits = both.recall("how do we deploy?")
    assert hits and hits[0].id == n.id and hits[0].reasons["terms"]
    assert both.get(n.id).text == n.text
    assert both.get(hits[0].handle).id == n.id  # the short handle resolves
    assert both.forget(hits[0].handle)
    assert both.recall("blue-green deploy") == []
    assert both.inspect().counts["project"]["tombstones"] == 1


def test_context_block_rules_outline_hits_and_rehearsal(both):
    both.remember("Never force-push to main", category="rules")
    both.remember("The payments service retries webhooks three times", category="facts")
    both.import_events([{"key": "e1", "role": "user", "text": "why do webhooks fail on payments?", "session": "s",
                         "ts": "2026-10-30T10:00:00Z"},
                        {"key": "e2", "role": "assistant", "text": "the payments webhook secret rotated last week",
                         "session": "s", "ts": "2026-10-30T10:00:05Z"}])
    block = both.context("payments webhooks retries")
    assert block.startswith("<memory>") and "Never force-push to main" in block
    assert "retries webhooks three times" in block and "secret rotated" in block
    assert "episodic: 2 captured turns" in block
    hit = both.recall("payments webhooks retries", rehearse=False)[0]
    assert hit.reasons["rehearsal"] > 1.0  # the block's entries were rehearsed


def test_supersede_and_forget_the_replacement(both):
    old = both.remember("The API listens on port 8080", category="facts")
    new = both.remember("The API listens on port 9090", category="facts", supersedes=old.id)
    assert [h.id for h in both.recall("API port")] == [new.id]
    assert both.get(old.id).superseded_by == new.id
    assert both.forget(new.id)
    assert [h.id for h in both.recall("API port")] == [old.id]


def test_import_dedup_tombstones_counts_recent_and_export(both, tmp_path):
    evs = [{"key": f"k{i}", "role": "user" if i % 2 == 0 else "assistant", "text": f"turn {i} about the cache layer",
            "session": "s1", "ts": f"2026-10-{10 + i:02d}T09:00:00Z"} for i in range(6)]
    assert both.import_events(evs) == {"read": 6, "stored": 6, "duplicate": 0, "skipped": 0}
    again = both.import_events(evs + [{"key": "other", "text": "turn 0 about the cache layer", "ts": "2026-10-01"}])
    assert again["stored"] == 0 and again["duplicate"] == 7
    assert both.forget("k3")
    assert both.import_events([evs[3]])["skipped"] == 1
    since = datetime(2026, 10, 12, tzinfo=timezone.utc)
    assert both.count_events(since=since) == 3  # k2, k4, k5
    assert both.count_events(since=since, key_prefixes=["k4", "k5"]) == 2
    assert [h.id for h in both.recent(kinds=["event"], limit=3)] == ["k5", "k4", "k2"]
    assert [h.id for h in both.recent(kinds=["assistant"], limit=5)] == ["k5", "k1"]
    counts = both.inspect().counts["project"]
    assert counts["events"] == 5 and counts["roles"] == {"user": 3, "assistant": 2} and counts["tombstones"] == 1
    out = tmp_path / "export.jsonl"
    assert both.export(out) == {"notes": 0, "events": 5, "tombstones": 1}
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["key"] for x in lines if x["type"] == "event"] == ["k0", "k1", "k2", "k4", "k5"]  # oldest first
    assert [x["ref"] for x in lines if x["type"] == "tombstone"] == ["k3"]  # forgetting survives a restore
    done = both.forget_matching(prefix="k", force=True)
    assert done["deleted"] and done["events"] == 5 and both.count_events(since=since - timedelta(days=30)) == 0


def test_prune_preview_then_delete(both, clock):
    t0 = clock.now
    both.import_events([{"key": f"old{i}", "text": f"old chatter number {i}", "ts": t0 - timedelta(days=300)}
                        for i in range(3)])
    both.remember("an old curated note", category="facts")
    clock.now = t0 + timedelta(days=200)
    both.import_events([{"key": "new", "text": "fresh memory", "ts": clock.now}])
    pre = both.prune(90)
    assert pre["count"] == 3 and {s["id"] for s in pre["samples"]} == {"old0", "old1", "old2"} and pre["bytes"] > 0
    done = both.prune(90, token=pre["token"])
    assert done["deleted"] and done["count"] == 3
    assert both.get("old0") is None and both.get("new") is not None
    assert both.status()["project"]["tombstones"] == 3
    assert both.import_events([{"key": "old1", "text": "old chatter number 1"}])["skipped"] == 1
    assert sum(both.sweep()["project"][t] for t in ("hot", "warm", "cold", "archive")) == 2


def test_event_neighbours_on_both_stores(both, clock):
    """recall.context_share reads each candidate turn's neighbours: the same answer from SQLite (docs.ctx_prev /
    ctx_next) and PostgreSQL (session order)."""
    t0 = clock()
    both.import_events([{"key": f"k{i}", "role": "user" if i % 2 == 0 else "assistant", "text": f"turn number {i} about {w}",
                         "session": "s1" if i < 3 else "s2", "ts": t0 + timedelta(minutes=i)}
                        for i, w in enumerate(["keys", "vault", "lunch", "deploy", "pasta"])])
    both.import_events([{"key": "lone", "role": "user", "text": "no session here", "ts": t0}])
    store = next(iter(both.stores.live(None))).store
    assert store.event_neighbours(["k0", "k1", "k2", "k3", "k4", "lone", "missing"]) == {
        "k0": (None, "k1"), "k1": ("k0", "k2"), "k2": ("k1", None), "k3": (None, "k4"), "k4": ("k3", None)}
    assert store.event_neighbours([]) == {}


def test_events_after_stops_before_a_role_on_both_stores(both, clock):
    t0 = clock()
    both.import_events([{"key": f"k{i}", "role": role, "text": f"turn {i} {role}", "session": "s",
                         "ts": t0 + timedelta(minutes=i)}
                        for i, role in enumerate(["user", "assistant", "tool", "assistant", "user", "assistant"])])
    store = next(iter(both.stores.live(None))).store
    assert [r["ref"] for r in store.events_after("k0", "s", 80)] == ["k1", "k2", "k3", "k4", "k5"]
    assert [r["ref"] for r in store.events_after("k0", "s", 80, until_role="user")] == ["k1", "k2", "k3"]
    assert [r["text"] for r in store.events_after("k4", "s", 80, until_role="user")] == ["turn 5 assistant"]


def test_reindex_keeps_events(both):
    both.remember("notes come back from the Markdown", category="facts")
    both.import_events([{"key": "e", "text": "an event stays", "session": "s"}])
    assert both.reindex()["project"] == 1
    assert {h.id for h in both.recall("notes Markdown event stays")} == {"facts/notes-come-back-from-the-markdown", "e"}


def test_viewer_sessions_and_injection_log(both):
    both.import_events([{"key": "u1", "role": "user", "text": "where do the nightly backups go?", "session": "s9",
                         "ts": "2026-10-30T10:00:00Z", "meta": {"source": "claude", "cwd": "/src/app"}},
                        {"key": "a1", "role": "assistant", "text": "nightly backups go to the cold bucket", "session": "s9",
                         "ts": "2026-10-30T10:00:05Z"}])
    [s] = both.sessions()
    assert (s["session"], s["turns"], s["roles"]["user"], s["source"], s["cwd"]) == ("s9", 2, 1, "claude", "/src/app")
    assert [e["key"] for e in both.session_events("s9")] == ["u1", "a1"]
    block = both.context("nightly backups bucket")
    assert both.record_injection(block, prompt="nightly backups bucket", host="test") is not None
    assert both.injections()[0]["hit_ids"] == ["a1"]  # the handle in the block resolved through the store


# ---- PostgreSQL alone: projects sharing a database, same answers as SQLite ----------------------------------------
def test_projects_sharing_one_database_never_see_each_other(tmp_path, clock, pg_url):
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    for d in (a_dir, b_dir):
        (d / ".git").mkdir(parents=True)
    with _open_pg(a_dir, tmp_path / "ga", clock, pg_url, name="alpha") as a, \
            _open_pg(b_dir, tmp_path / "gb", clock, pg_url, name="beta") as b:
        a.remember("alpha uses PostgreSQL 15 in production", category="facts")
        a.import_events([{"key": "shared-key", "text": "alpha talks about the rollout", "session": "s"}])
        b.import_events([{"key": "shared-key", "text": "beta talks about the rollout", "session": "s"}])
        assert b.recall("PostgreSQL production") == []
        assert [h.text for h in b.recall("rollout")] == ["beta talks about the rollout"]
        assert [h.text for h in a.recall("rollout")] == ["alpha talks about the rollout"]
        assert b.get("shared-key").text.startswith("beta") and a.get("shared-key").text.startswith("alpha")
        assert b.forget("shared-key") and a.get("shared-key") is not None
        assert a.inspect().counts["project"]["events"] == 1 and b.inspect().counts["project"]["events"] == 0


def test_postgres_facade_ranks_like_sqlite(tmp_path, clock, pg_url):
    """Same notes and events into both stores: recall gives the same ids, scores and reasons; the block is the same."""
    corpus = [
        ("user", "How do I rotate the staging database password?"),
        ("assistant", "Run `make rotate-db ENV=staging`; the vault path is secret/staging/db."),
        ("tool", "bash: make rotate-db ENV=staging → rotated 1 credential, vault version 14"),
        ("user", "部署流程里数据库迁移什么时候跑？"),
        ("assistant", "迁移在部署之前由 CI 的 migrate 步骤执行，失败会阻止发布。"),
        ("user", "node.js and c++ builds share the cache directory"),
        ("assistant", "Yes: ~/.cache/builds is keyed by the toolchain version, so node.js and c++ never collide."),
    ]
    evs = [{"key": f"e{i}", "role": role, "text": text, "session": "s1" if i < 3 else "s2",
            "ts": (clock.now - timedelta(days=10 - i)).isoformat()} for i, (role, text) in enumerate(corpus)]
    queries = ["rotate staging database password", "数据库迁移", "node.js c++ cache", "vault version", "deploy CI"]
    out = []
    for spec in ("", pg_url):
        p = tmp_path / ("pg" if spec else "lite")
        (p / ".git").mkdir(parents=True)
        with memdir.open(p, home=tmp_path / "g", clock=clock, config={"store": spec, "remote.project": "same"}) as mm:
            mm.remember("The staging database lives on db-stage-2", category="facts", tags=["database", "staging"])
            mm.remember("CI runs migrations before every deploy", category="decisions")
            mm.import_events(evs)
            got = []
            for q in queries:
                got.append([(h.id, round(h.score, 9), h.reasons["terms"], h.span) for h in mm.recall(q, k=6)])
            got.append(mm.context("how do I rotate the staging database password", reinforce=False))
            out.append(got)
    assert out[0] == out[1]


def test_vectors_on_both_stores_give_the_same_hybrid_and_vector_recall(tmp_path, clock, pg_url):
    """Item 2: vectors in PostgreSQL (exact scoring in the application) — backfill, pending, hybrid and vector-only
    recall, forget, status — answer as memdir.engine.hybrid does on SQLite for the same model."""
    _same_vector_recall(tmp_path, clock, pg_url, pgvector=False)


def test_vectors_in_pgvector_give_the_same_hybrid_and_vector_recall(tmp_path, clock, pgvec_url):
    """Issue 14: on a server with pgvector (pgserver's PostgreSQL 16) the vectors live in a ``vector`` column and the
    server searches them (exact below recall.pg_hnsw_threshold): the same hits and scores as SQLite's in-memory scan."""
    _same_vector_recall(tmp_path, clock, pgvec_url, pgvector=True)


def test_hnsw_search_in_pgvector_gives_the_same_recall_on_a_small_store(tmp_path, clock, pgvec_url):
    """The same through pgvector's HNSW index (recall.pg_hnsw_threshold = 0): on a small store its candidates are
    every vector, with their exact similarity, so the hits equal the exact scan's."""
    _same_vector_recall(tmp_path, clock, pgvec_url, pgvector=True, extra={"recall.pg_hnsw_threshold": 0})


def _same_vector_recall(tmp_path, clock, pg_url, *, pgvector, extra=None):
    texts = ["the release train leaves every Tuesday", "we pin numpy below 2 for the old wheels",
             "payments webhooks retry three times", "the staging database lives on db-stage-2",
             "发布列车每周二出发", "Alice prefers tabs over spaces", "the on-call rota changes on Mondays"]
    out = []
    for spec in ("", pg_url):
        p = tmp_path / ("pg" if spec else "lite")
        (p / ".git").mkdir(parents=True)
        cfg = {"store": spec, "remote.project": "vec", "embed.provider": "fake", "embed.recall_backfill_ms": 0, **(extra or {})}
        with memdir.open(p, home=tmp_path / "g", clock=clock, config=cfg) as mm:
            if spec:
                assert mm.roots["project"].store.pgvector is pgvector
            mm.remember("Deploys happen on Tuesdays with the release train", category="decisions")
            mm.import_events([{"key": f"e{i}", "text": t, "session": "s", "ts": (clock.now - timedelta(hours=i)).isoformat()}
                              for i, t in enumerate(texts)])
            assert mm.status()["project"]["vectors"]["pending"] == 8
            got: list = [mm.backfill()["embedded"], mm.status()["project"]["vectors"]]
            for q in ("release train Tuesday", "数据库", "tabs or spaces", "webhook retries"):
                got.append([(h.id, round(h.score, 9)) for h in mm.recall(q, k=5)])
            mm.config._values["recall.channel"] = "vector"
            got.append([(h.id, round(h.score, 9)) for h in mm.recall("release train Tuesday", k=8)])
            assert mm.forget("e0")
            got.append(mm.status()["project"]["vectors"])
            got.append([h.id for h in mm.recall("release train Tuesday", k=8)])
            out.append(got)
    assert out[0][0] == 8 and out[0][1]["ok"] == 8 and out[0][1]["pending"] == 0
    assert "e0" not in out[0][-1]
    assert out[0] == out[1]


# ---- distillation and `memdir migrate` through the store (they read the SQLite file directly before) -----------
@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_distill_reads_turns_notes_and_vectors_from_either_store(engine, tmp_path, clock, request):
    """`memdir distill` with ``store = postgresql://…`` sees the project's events (it read the local SQLite file, so it
    found none), skips a near-duplicate of a stored note by its stored vector, and a second run adds nothing (the
    distilled turns are marked host-locally)."""
    np = pytest.importorskip("numpy")
    from memdir.engine import hybrid as vectors
    from stub_model import StubModel, memories
    from test_distill import _session

    class Topic:  # texts about deployment share one direction, everything else another
        name, model = "topic", "topic:2"

        def embed(self, texts):
            return np.asarray([[1.0, 0.0] if "deploy" in t.lower() else [0.0, 1.0] for t in texts], dtype=np.float32)

    spec = request.getfixturevalue("pg_url") if engine == "postgresql" else ""
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    with StubModel() as stub:
        cfg = {"store": spec, "remote.project": "proj", "distill.provider": "openai", "distill.url": stub.url,
               "distill.model": "stub-1", "distill.timeout_s": 5.0, "recall.channel": "hybrid"}
        with memdir.open(p, home=tmp_path / "g", clock=clock, config=cfg) as m:
            assert m.roots["project"].remote == bool(spec)
            vectors.set_provider(m, Topic())
            old = m.remember("Our release script pushes tags, then the deploy job builds images.", category="decisions",
                             summary="Release then deploy")
            m.backfill()
            assert _session(m)["stored"] == 8
            stub.replies.append(memories(
                {"category": "decisions", "summary": "Deploy with pnpm", "body": "We deploy with pnpm since npm broke CI."},
                {"category": "facts", "summary": "CI has two cores", "body": "The CI machine has two cores."}))
            out = m.distill()
            assert [s["status"] for s in out["sessions"]] == ["distilled"] and out["sessions"][0]["turns"] == 4
            assert [n["summary"] for n in out["notes"]] == ["CI has two cores"]
            assert out["skipped"][0]["overlaps"] == old.id and out["skipped"][0]["channel"] == "vector"
            assert out["marked"] == 8
            again = m.distill()
            assert again["calls"] == 0 and again["sessions"] == [] and len(stub.requests) == 1


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_migrate_into_either_store(engine, tmp_path, request):
    """`memdir migrate` with ``store = postgresql://…`` writes into the store: an alice-memory store's events, its
    note and the vectors of the same model; a re-run adds nothing; a key another text holds is renamed."""
    from test_migrate import DIMS, MODEL, PROVIDER_CFG, _vec, alice_store

    spec = request.getfixturevalue("pg_url") if engine == "postgresql" else ""
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    with memdir.open(p, home=tmp_path / "g", config={**PROVIDER_CFG, "store": spec, "remote.project": "proj"}) as m:
        src = alice_store(tmp_path / "old")
        r = m.migrate(from_path=src)["sources"][0]["result"]
        assert r["notes_new"] == 1 and r["events_new"] == 3 and r["vectors_copied"] == 2
        from memdir.engine import hybrid as vectors

        st = m.roots["project"].store
        model = vectors.provider_for(m).model
        assert MODEL in model and st.vector_of("alice:3:u", model) == _vec(0, 0, 1, 0)
        assert st.count("event") == 3 and m.get("alice:1:u").text == "how do we deploy the api?"
        again = m.migrate(from_path=src)["sources"][0]["result"]
        assert again.get("events_new", 0) == 0 and again["events_existing"] == 3 and again["notes_existing"] == 1
        other = alice_store(tmp_path / "other", memories=[(1, "turn", "a different first question", None,
                                                           "a different first question", 0)])
        r = m.migrate(from_path=other)["sources"][0]["result"]
        assert r["renamed"] == 1 and m.get("alice:1:u~2").text == "a different first question"
        assert DIMS == 4


def test_a_half_function_bigram_counts_less_on_each_store(both):
    """recall.cjk_function_bigram_weight reaches PostgreSQL's scoring as SQLite's (term weights, like unigrams)."""
    only = both.remember("Bart说我要回家", category="facts")  # shares only the function bigram 我要 with the query
    show = both.remember("Lisa去看表演", category="facts")  # shares only 表演
    hits = {h.id: h.score for h in both.recall("我要表演")}
    assert set(hits) == {only.id, show.id}
    assert hits[only.id] < 0.6 * hits[show.id]  # weight 0.5 (the default; 1.0 gives 0.78): equal idf, near-equal lengths


def test_a_global_note_beside_the_project_ranks_alike_on_both_stores(tmp_path, clock, pg_url):
    """The project's and the global root's candidates are scored with the two indexes' statistics together
    (memdir.recall.bm25.collection_idf) on either project store: the same ids, scores and order."""
    evs = [{"key": f"e{i}", "role": "assistant", "session": f"s{i // 10}",
            "ts": (clock.now - timedelta(days=1)).isoformat(),
            "text": f"updated the documentation page {i} for the release notes"} for i in range(40)]
    out = []
    for spec in ("", pg_url):
        p = tmp_path / ("pg" if spec else "lite")
        (p / ".git").mkdir(parents=True)
        with memdir.open(p, home=tmp_path / ("g-pg" if spec else "g-lite"), clock=clock,
                         config={"store": spec, "remote.project": "global-beside"}) as mm:
            mm.import_events(evs)
            mm.remember("The user prefers British spelling in documentation", scope="global")
            mm.remember("Release notes are written in the past tense", scope="global")
            out.append([[(h.scope, h.text[:40], round(h.score, 9)) for h in mm.recall(q, k=5)]
                        for q in ("spelling in documentation", "release notes tense", "documentation page")])
    assert out[0] == out[1]
    assert out[0][0][0][0] == "global" and out[0][1][0][0] == "global"


def test_a_prune_token_deletes_only_what_its_preview_showed(both, clock):
    """The token was a hash of the days and the hour alone: items that went cold after the preview were deleted by
    its token, never previewed (a probe)."""
    t0 = clock.now
    both.import_events([{"key": f"old{i}", "text": f"old chatter number {i}", "ts": t0 - timedelta(days=300)}
                        for i in range(2)])
    clock.now = t0 + timedelta(days=200)
    pre = both.prune(90)
    assert pre["count"] == 2
    clock.now = t0  # two more that will have gone cold by the time the token is used
    both.import_events([{"key": f"later{i}", "text": f"later chatter number {i}", "ts": t0 - timedelta(days=300)}
                        for i in range(2)])
    clock.now = t0 + timedelta(days=200)
    with pytest.raises(UsageError, match="other memories than match now"):
        both.prune(90, token=pre["token"])
    assert both.get("old0") is not None and both.get("later0") is not None
    again = both.prune(90)
    assert again["count"] == 4 and both.prune(90, token=again["token"])["deleted"]


def test_forget_and_prune_previews_show_no_stored_secret(both, clock):
    """A turn an older memdir stored with a key it did not know is shown redacted by the previews of forget --query and
    prune (their first 100 characters were shown as stored), also when the preview's cut falls inside the key."""
    from unittest import mock

    import memdir.capture.events as cevents

    key = "sk-proj-" + "Zq4tW9" * 7
    t0 = clock.now
    rows = [{"key": "old1", "text": f"the old deploy key {key} of the chatter", "ts": t0 - timedelta(days=300)},
            {"key": "old2", "text": "x" * 80 + f" deploy key {key}", "ts": t0 - timedelta(days=300)}]
    with mock.patch.object(cevents, "redact_text", lambda t: t), mock.patch.object(cevents, "redact_obj", lambda o: o):
        assert both.import_events(rows)["stored"] == 2
    pre = both.forget_matching(query="deploy key")
    assert {s["id"] for s in pre["samples"]} == {"old1", "old2"}
    clock.now = t0 + timedelta(days=200)
    pruned = both.prune(90)
    assert {s["id"] for s in pruned["samples"]} == {"old1", "old2"}
    for sample in pre["samples"] + pruned["samples"]:
        assert key[:12] not in sample["text"], sample
    assert any("[redacted:" in s["text"] for s in pruned["samples"])


def test_an_event_dated_ahead_of_the_clock_can_be_pruned_once_idle_since_first_seen(both, clock):
    """An event whose time is ahead of the clock (a machine's clock ran ahead) could never be pruned: prune compared
    that future time with its cutoff. Its heat starts when memdir first sees it, and so does its idle time; one
    only a little ahead, still ahead, and one seen recently stay."""
    t0 = clock.now
    both.import_events([{"key": "ahead", "text": "a turn a machine dated years ahead", "ts": t0 + timedelta(days=3650)},
                        {"key": "old", "text": "old chatter from long ago", "ts": t0 - timedelta(days=300)}])
    both.sweep()  # first seen now
    clock.now = t0 + timedelta(days=200)
    both.import_events([{"key": "soon", "text": "a turn dated a little ahead", "ts": clock.now + timedelta(hours=2)}])
    pre = both.prune(90)
    assert {s["id"] for s in pre["samples"]} == {"ahead", "old"}, pre
    assert both.prune(90, token=pre["token"])["count"] == 2
    assert both.get("ahead") is None and both.get("soon") is not None


def test_an_event_dated_ahead_of_the_clock_is_archived_a_year_after_first_seen(both, clock):
    t0 = clock.now
    both.import_events([{"key": "ahead", "text": "a turn a machine dated years ahead", "ts": t0 + timedelta(days=3650)}])
    both.sweep()
    clock.now = t0 + timedelta(days=400)  # tiers.archive_days is 365
    assert both.sweep()["project"]["archive"] == 1

"""Distillation (issue 11): a stub model on 127.0.0.1 dictates what becomes a note, a proposal, a skip or a
rejection; a second run adds nothing; the three protections (no rules/, no near-duplicates, secrets redacted
both ways) each have a test; provenance, forget by batch, the host trigger and the providers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import shared_path
from stub_model import EMPTY, Stall, Status, StubModel, memories

import memdir
from memdir.distill import flow as distill
from memdir.distill import overlap as distill_overlap
from memdir.distill import prompt as distill_prompt
from memdir.llm import LLMError
from memdir.llm.host_cli import HostCLIProvider
from memdir.notes.markdown import split
from memdir.server.tools import do_inspect, do_remember

SECRET = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7t"


def _open(project, tmp_path, clock, stub, **cfg):
    conf = {"distill.provider": "openai", "distill.url": stub.url, "distill.model": "stub-1", "distill.timeout_s": 5.0}
    conf.update(cfg)
    return memdir.open(project, home=tmp_path / "g", clock=clock, config=conf)


def _session(m, sid="s1", n=4, text="We decided to deploy with pnpm because the npm lockfile broke CI"):
    evs = []
    for i in range(n):
        evs.append({"key": f"u:{sid}:{i}", "role": "user", "text": f"turn {i} of {sid}: {text} ({i})", "session": sid,
                    "ts": f"2026-10-01T10:{i:02d}:00Z"})
        evs.append({"key": f"a:{sid}:{i}", "role": "assistant", "text": f"Understood, noted point {i} of {sid} about {text}.",
                    "session": sid, "ts": f"2026-10-01T10:{i:02d}:30Z"})
    return m.import_events(evs)


def _note_files(root: Path, category: str) -> list[Path]:
    d = root / category
    return sorted(p for p in d.glob("*.md") if p.name != "index.md") if d.is_dir() else []


GOOD = [
    {"category": "decisions", "summary": "Deploy with pnpm, not npm", "body": "Deploys use pnpm: the npm lockfile broke CI twice.",
     "tags": ["pnpm", "deploy"], "load_when": ["deploy"]},
    {"category": "pitfalls", "summary": "Phoenix server needs mix deps.get first",
     "body": "mix phx.server fails on a fresh clone until `mix deps.get` has run.", "tags": ["elixir"], "load_when": []},
]
RULE = {"category": "rules", "summary": "Never force-push to main", "body": "Never force-push to main; open a PR instead.",
        "tags": ["git"], "load_when": ["push"]}


# ---- the "done when": a real transcript, the stub dictating every outcome ------------------------------------
def test_real_transcript_outcomes_follow_the_stub_and_a_second_run_adds_nothing(project, tmp_path, clock):
    path = shared_path("data", "transcripts", "claude-code", "session-9eda1058.jsonl")
    existing_text = "Use Tailwind utility classes, not custom CSS files, for the web UI styling."
    near_dup = {"category": "preferences", "summary": "Tailwind utility classes instead of custom CSS",
                "body": "Use Tailwind utility classes, not custom CSS files, for the web UI styling!", "tags": ["css"]}
    secret_item = {"category": "facts", "summary": "Staging uses the shared OpenAI project key",
                   "body": f"The staging deploy reads OPENAI_API_KEY={SECRET} from the vault.", "tags": ["staging"]}
    replies = [
        memories(*GOOD),                                   # call 1: two notes
        memories(RULE, near_dup),                          # call 2: a rule -> a proposal; a near-duplicate -> skipped
        memories(secret_item,                              # call 3: a secret echoed back -> a note, redacted;
                 {"category": "gossip", "summary": "x", "body": "y"},          # an unknown category -> rejected;
                 {"category": "facts", "summary": "big", "body": "z" * 5000}),  # an oversized body -> rejected
        '{"version": 1, "memories": [{"category": "facts", "summary": "cut',   # call 4: broken JSON -> an error, pending
    ]
    with StubModel(replies) as stub:
        with _open(project, tmp_path, clock, stub, **{"distill.max_input_chars": 1000}) as m:
            from memdir.portability.transcripts import import_host

            imported = import_host(m, "claude-code", path, projects="here", progress=False)
            assert imported["stored"] >= 8
            m.remember(existing_text, category="preferences", summary="Tailwind utility classes, no custom CSS")
            root = m.roots["project"].path
            rules_before = _note_files(root, "rules")
            sid = "9eda1058-9706-484a-b992-d03f9cfa2546"
            rows = distill.pending_turns(m.roots["project"], session=sid)[sid]
            n_chunks = len(distill_prompt.chunk_turns(rows, 1000, 2000))
            assert n_chunks >= len(replies)

            out = m.distill()
            assert out["calls"] == 4 == len(stub.requests)  # the session stops at the reply that is not JSON
            assert [s["status"] for s in out["sessions"]] == ["error"]
            assert sorted(n["summary"] for n in out["notes"]) == sorted(
                [GOOD[0]["summary"], GOOD[1]["summary"], secret_item["summary"]])
            assert [p["summary"] for p in out["proposals"]] == [RULE["summary"]]
            assert [(s["summary"], s["overlaps"]) for s in out["skipped"]] == [(near_dup["summary"], "preferences/tailwind-utility-classes-no-custom-css")]
            reasons = [r["reason"] for r in out["rejected"]]
            assert len(reasons) == 2 and [e["session"] for e in out["errors"]] == [sid]
            assert "invalid JSON" in out["errors"][0]["reason"] and "stay pending" in out["errors"][0]["reason"]
            assert reasons[0] == "unknown category 'gossip'" and reasons[1].startswith("oversized body (5000 chars")
            first3 = distill_prompt.chunk_turns(rows, 1000, 2000)[:3]
            assert out["marked"] == sum(len(c[0]) for c in first3) < len(rows)  # the 4th chunk's turns: still pending

            # protection 1: nothing under rules/, one pending proposal
            assert _note_files(root, "rules") == rules_before
            assert [p["summary"] for p in m.proposals()] == [RULE["summary"]]
            # protection 3: the echoed secret never reached disk
            blob = "".join(p.read_text() for p in root.rglob("*.md"))
            assert SECRET not in blob and "[redacted:" in blob
            # provenance
            note = m.get(next(n["id"] for n in out["notes"] if n["summary"] == GOOD[0]["summary"]))
            meta, _, _ = split(note.path.read_text())
            assert meta["source"] == "distill" and meta["sessions"] == [sid] and meta["model"] == "openai:stub-1"
            assert isinstance(meta["distill_run"], int)

            before = {p: p.read_text() for p in root.rglob("*.md")}
            left = distill.pending_turns(m.roots["project"], session=sid)[sid]
            assert len(left) == len(rows) - out["marked"]  # asked again once the session has distill.min_turns new turns
            again = m.distill()
            assert again["calls"] == 0 and not again["notes"] and not again["proposals"]
            assert [s["status"] for s in again["sessions"]] == ["skipped"]
            assert len(stub.requests) == 4
            assert {p: p.read_text() for p in root.rglob("*.md")} == before


# ---- protection 1: a model never writes rules/ ---------------------------------------------------------------
def test_rules_from_a_model_become_proposals(project, tmp_path, clock):
    with StubModel() as stub, _open(project, tmp_path, clock, stub) as m:
        m.remember("Run the linter before every commit.", category="rules", summary="Lint before commit")  # a person: direct
        old_rule = "rules/lint-before-commit"
        _session(m)
        stub.replies.append(memories(RULE, {**RULE, "summary": "Lint and test before commit",
                                            "body": "Run lint and tests before each commit.", "supersedes": old_rule}))
        out = m.distill()
        assert [p["summary"] for p in out["proposals"]] == [RULE["summary"], "Lint and test before commit"]
        assert out["proposals"][1]["supersedes"] == old_rule and not out["notes"]
        assert [n.id for n in m.rules()] == [old_rule]                    # rules/ untouched, still live
        pending = m.proposals()
        assert len(pending) == 2 and all(p["status"] == "pending" and p["source"] == "distill" for p in pending)
        assert pending[0]["sessions"] == ["s1"] and pending[0]["model"] == "openai:stub-1"
        # the MCP inspect tool shows them
        assert [p["id"] for p in do_inspect(m)["proposals"]] == [p["id"] for p in pending]
        # a person accepts one (supersedes the old rule) and rejects the other
        note = m.accept_proposal(pending[1]["id"])
        assert note.category == "rules" and note.supersedes == old_rule
        assert [n.id for n in m.rules()] == [note.id]
        assert m.reject_proposal(pending[0]["id"])["status"] == "rejected"
        assert m.proposals() == [] and len(m.proposals(status=None)) == 2
        with pytest.raises(memdir.UsageError):
            m.accept_proposal(pending[0]["id"])
        with pytest.raises(memdir.NotFound):
            m.accept_proposal("p-000000000000")
        # a rejected rule is not proposed again by the next distillation
        _session(m, "s2")
        stub.replies.append(memories(RULE))
        again = m.distill(session="s2")
        assert not again["proposals"] and again["skipped"][0]["overlaps"].startswith("proposal ")


def test_mcp_remember_of_a_rule_is_a_proposal_but_the_cli_writes_rules(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock) as m:
        r = do_remember(m, "Always run migrations in a transaction.", category="rules")
        assert r["note"] is None and r["proposal"]["status"] == "pending" and "memdir proposals accept" in r["message"]
        assert m.rules() == [] and not _note_files(m.roots["project"].path, "rules")
        assert do_remember(m, "Always run migrations in a transaction.", category="rules")["existed"] is True
        assert do_remember(m, "The API listens on 8080.", category="facts")["note"]["category"] == "facts"
        rule = m.remember("Deploy only on weekdays.", category="rules")                   # a person wrote it
        sneaky = do_remember(m, "Deploy any day.", category="facts", supersedes=rule.id)  # a model replacing it
        assert sneaky["note"] is None and sneaky["proposal"]["status"] == "pending"
        assert m.get(rule.id).superseded_by is None and [n.id for n in m.rules()] == [rule.id]
        pid = r["proposal"]["id"]
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    cli = [sys.executable, "-m", "memdir.cli", "--dir", str(project)]
    listed = json.loads(subprocess.run(cli + ["proposals", "--json"], capture_output=True, text=True, env=env, check=True).stdout)
    assert pid in [p["id"] for p in listed] and len(listed) == 2 and {p["source"] for p in listed} == {"mcp"}
    acc = subprocess.run(cli + ["proposals", "accept", pid, "--json"], capture_output=True, text=True, env=env)
    assert acc.returncode == 0 and json.loads(acc.stdout)["category"] == "rules"
    again = subprocess.run(cli + ["proposals", "reject", pid], capture_output=True, text=True, env=env)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "already accepted" in again.stderr
    bad = subprocess.run(cli + ["proposals", "accept", "../../etc"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2
    direct = subprocess.run(cli + ["remember", "Never commit .env files", "-c", "rules", "--json"], capture_output=True,
                            text=True, env=env)
    assert direct.returncode == 0 and json.loads(direct.stdout)["category"] == "rules"


# ---- protection 2: overlap -> skip or explicit supersede, never a near-duplicate ---------------------------
def test_overlap_skips_near_duplicates_and_supersedes_only_when_named(project, tmp_path, clock):
    with StubModel() as stub, _open(project, tmp_path, clock, stub) as m:
        old = m.remember("Deploys use pnpm: the npm lockfile broke CI twice.", category="decisions",
                         summary="Deploy with pnpm, not npm")
        _session(m)
        stub.replies.append(memories(
            {"category": "decisions", "summary": "Deploy with pnpm rather than npm",
             "body": "Deploys use pnpm; the npm lockfile broke CI twice.", "tags": ["pnpm"]},            # near-dup: skip
            {"category": "decisions", "summary": "Deploy with pnpm 9, not npm",
             "body": "Deploys use pnpm 9: the npm lockfile broke CI twice, pnpm 8 too.", "supersedes": old.id},  # named: supersede
            {"category": "facts", "summary": "CI runs on two cores", "body": "The CI machine has two cores and 24 GiB."},
            {"category": "facts", "summary": "CI runs on two cores!", "body": "The CI machine has two cores and 24 GiB!"},  # same run
        ))
        out = m.distill()
        assert [s["item"] for s in out["skipped"]] == [0, 3]
        assert out["skipped"][0]["overlaps"] == old.id and out["skipped"][0]["similarity"] >= 0.5
        assert out["skipped"][1]["overlaps"].startswith("facts/")
        assert out["superseded"] == [{"id": old.id, "by": out["notes"][0]["id"]}]
        assert m.get(old.id).superseded_by == out["notes"][0]["id"]
        assert len(out["notes"]) == 2
        # supersedes naming a note that does not exist: rejected, nothing written
        _session(m, "s2")
        stub.replies.append(memories({"category": "facts", "summary": "x y z", "body": "Totally new fact about Kafka.",
                                      "supersedes": "facts/no-such-note"}))
        out2 = m.distill(session="s2")
        assert out2["rejected"][0]["reason"].startswith("supersedes 'facts/no-such-note'") and not out2["notes"]


def test_lexical_threshold_separates_rewordings_from_new_facts():
    a = distill_overlap.content_tokens("Deploy with pnpm, not npm\nDeploys use pnpm: the npm lockfile broke CI twice.")
    same = distill_overlap.content_tokens("Deploy with pnpm rather than npm\nDeploys use pnpm; the npm lockfile broke CI twice.")
    other = distill_overlap.content_tokens("Release notes\nRelease notes are written by hand in CHANGELOG.md before tagging.")
    related = distill_overlap.content_tokens("Use pnpm workspaces\nThe monorepo uses pnpm workspaces for the three web packages.")
    assert distill_overlap.jaccard(a, same) >= 0.5 > distill_overlap.jaccard(a, related) > distill_overlap.jaccard(a, other)
    zh = distill_overlap.content_tokens("部署脚本用 pnpm 而不是 npm，因为 lockfile 不兼容")
    zh_same = distill_overlap.content_tokens("部署脚本用 pnpm，不用 npm：lockfile 不兼容")
    assert distill_overlap.jaccard(zh, zh_same) >= 0.5


def test_vector_overlap_when_embeddings_are_on(project, tmp_path, clock):
    np = pytest.importorskip("numpy")
    from memdir.engine import hybrid as vectors

    class Topic:  # texts about deployment share one direction, everything else another
        name, model = "topic", "topic:2"

        def embed(self, texts):
            rows = [[1.0, 0.0] if ("deploy" in t.lower() or "部署" in t) else [0.0, 1.0] for t in texts]
            return np.asarray(rows, dtype=np.float32)

    with StubModel() as stub, _open(project, tmp_path, clock, stub, **{"recall.channel": "hybrid"}) as m:
        vectors.set_provider(m, Topic())
        old = m.remember("部署脚本用 pnpm 而不是 npm，因为 lockfile 不兼容", category="decisions", summary="部署用 pnpm")
        m.backfill()
        _session(m)
        stub.replies.append(memories({"category": "decisions", "summary": "Deploy scripts run on pnpm",
                                      "body": "Our deploy scripts run on pnpm since the npm lockfile is incompatible."}))
        out = m.distill()
        assert out["skipped"] and out["skipped"][0]["overlaps"] == old.id and out["skipped"][0]["channel"] == "vector"
        assert not out["notes"]


# ---- protection 3: secrets redacted before the model and on what comes back ---------------------------------
def test_prompt_is_redacted_even_for_unredacted_input():
    row = {"role": "user", "text": f"my key is {SECRET} and password: hunter2-very-secret"}
    line = distill_prompt.render_turn(row, 2000)
    system, user = distill_prompt.build_prompt(f"[user] token={SECRET}", categories=["facts"], existing=[("facts/x", f"key {SECRET}")],
                                        max_body=2000, session="s")
    for text in (line, system, user):
        assert SECRET not in text and "hunter2-very-secret" not in text


def test_secrets_in_the_reply_are_redacted_in_notes_proposals_and_dry_runs(project, tmp_path, clock):
    leak = {"category": "facts", "summary": f"key {SECRET}", "body": f"Connect with password=Sup3rS3cretPw! and {SECRET}",
            "tags": [SECRET]}
    rule_leak = {**RULE, "body": f"Never paste {SECRET} into chat."}
    with StubModel([memories(leak, rule_leak), memories(leak, rule_leak)]) as stub, _open(project, tmp_path, clock, stub) as m:
        _session(m, text=f"the key {SECRET} leaked")
        dry = m.distill(dry_run=True)
        assert SECRET not in json.dumps(dry) and "Sup3rS3cretPw" not in json.dumps(dry)
        assert not _note_files(m.roots["project"].path, "facts")           # dry run wrote nothing
        assert SECRET not in "".join(stub.prompts())                      # nor did the model see it
        out = m.distill()
        assert len(out["notes"]) == 1 and len(out["proposals"]) == 1
        disk = "".join(p.read_text() for p in m.roots["project"].path.rglob("*.md"))
        assert SECRET not in disk and "Sup3rS3cretPw" not in disk
        assert SECRET not in json.dumps(out)


# ---- failures, limits, bookkeeping ---------------------------------------------------------------------------
def test_timeout_leaves_turns_pending_and_the_next_run_distils_them(project, tmp_path, clock):
    with StubModel([Stall(), Status(500)]) as stub, _open(project, tmp_path, clock, stub, **{"distill.timeout_s": 0.3}) as m:
        _session(m)
        out = m.distill()
        assert out["errors"] and "within 0.3 s" in out["errors"][0]["reason"] and out["marked"] == 0
        assert out["sessions"][0]["status"] == "error"
        out = m.distill()
        assert "HTTP 500" in out["errors"][0]["reason"] and out["marked"] == 0
        stub.replies.append(memories(GOOD[0]))
        out = m.distill()
        assert len(out["notes"]) == 1 and out["marked"] == 8
        runs = [tuple(r) for r in m.roots["project"].db.execute("SELECT status FROM distill_runs ORDER BY id")]
        assert runs == [("error",), ("error",), ("ok",)]


def test_min_turns_and_daily_cap(project, tmp_path, clock):
    with StubModel() as stub, _open(project, tmp_path, clock, stub, **{"distill.daily_cap": 1, "distill.max_input_chars": 1000}) as m:
        _session(m, "short", n=3)
        out = m.distill()
        assert out["sessions"] == [{"session": "short", "turns": 3, "status": "skipped",
                                    "reason": "3 new turns, fewer than distill.min_turns (4)"}]
        assert stub.requests == [] and out["provider"] is None
        _session(m, "long", n=12)
        out = m.distill(session="long")
        assert out["calls"] == 1 and out["sessions"][0]["status"] == "partial" and "daily cap" in out["sessions"][0]["reason"]
        assert m.distill(session="long")["calls"] == 0                      # still today: capped
        clock.now += timedelta(days=1)
        out = m.distill(session="long")
        assert out["calls"] == 1 and out["marked"] > 0                     # a new day, one more call
        # the short session grows to 4 turns: now it is distilled, its 3 old turns included
        m.import_events([{"key": "u:short:9", "role": "user", "text": "one more question about the build", "session": "short",
                          "ts": "2026-10-01T11:00:00Z"}])
        clock.now += timedelta(days=1)
        out = m.distill(session="short")
        assert out["sessions"][0]["turns"] == 4 and out["calls"] == 1 and out["marked"] == 7


def test_reply_parsing_and_item_checks():
    assert distill_prompt.parse_reply('```json\n{"version": 1, "memories": []}\n```') == ([], "")
    assert distill_prompt.parse_reply('Sure! {"memories": [{"category": "facts"}]} hope that helps')[0] == [{"category": "facts"}]
    assert distill_prompt.parse_reply('{"version": 2, "memories": []}')[1].startswith("unsupported reply version")
    assert distill_prompt.parse_reply("no json here")[1].startswith("invalid JSON")
    assert distill_prompt.parse_reply('{"notes": []}')[1] == 'invalid reply (no "memories" list)'
    cats = ["rules", "facts"]
    ok, why = distill_prompt.check_item({"category": "facts", "summary": "s", "body": "b", "tags": "a, b"}, categories=cats, max_body=10)
    assert ok["tags"] == ["a", "b"] and why == ""
    assert distill_prompt.check_item("x", categories=cats, max_body=10)[1] == "not an object"
    assert distill_prompt.check_item({"category": "facts", "summary": "s", "body": ""}, categories=cats, max_body=10)[1] == "empty body"
    assert distill_prompt.check_item({"category": "facts", "summary": "s" * 300, "body": "b"}, categories=cats, max_body=10)[1].startswith("oversized summary")
    assert distill_prompt.check_item({"category": "facts", "body": "b", "tags": [{"x": 1}]}, categories=cats, max_body=10)[1].startswith("tags/")


def test_too_many_items_are_rejected_past_max_items(project, tmp_path, clock):
    items = [{"category": "facts", "summary": s, "body": b} for s, b in [
        ("Kafka topics keep seven days", "The events topic in Kafka retains messages for seven days."),
        ("Redis listens on 6380", "The local Redis container is mapped to port 6380, not 6379."),
        ("Nginx terminates TLS", "TLS ends at the nginx ingress; services speak plain HTTP inside.")]]
    with StubModel([memories(*items)]) as stub, _open(project, tmp_path, clock, stub, **{"distill.max_items": 2}) as m:
        _session(m)
        out = m.distill()
        assert len(out["notes"]) == 2 and out["rejected"] == [{"session": "s1", "item": 2, "reason": "more than distill.max_items (2) in one reply"}]


def test_forget_a_distilled_batch(project, tmp_path, clock):
    with StubModel([memories(*GOOD, RULE), memories({"category": "facts", "summary": "Other session fact", "body": "Redis runs on 6380 here."})]) as stub, \
            _open(project, tmp_path, clock, stub) as m:
        _session(m, "s1")
        mine = m.remember("A note a person wrote about Redis.", category="facts")
        m.distill(session="s1")
        _session(m, "s2")
        m.distill(session="s2")
        assert len(distill.batch_ids(m, session="s1")) == 2 and len(distill.batch_ids(m)) == 3
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    cli = [sys.executable, "-m", "memdir.cli", "--dir", str(project)]
    r = subprocess.run(cli + ["forget", "--source", "distill", "--session", "s1", "--json"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert len(got["forgotten"]) == 2 and len(got["proposals_rejected"]) == 1
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.get(mine.id) is not None and len(distill.batch_ids(m)) == 1 and m.proposals() == []
    r = subprocess.run(cli + ["forget", "--source", "distill", "--session", "s1"], capture_output=True, text=True, env=env)
    assert r.returncode == 1 and r.stdout == ""  # not "forgot 0 notes" beside the error line
    assert r.stderr.strip().splitlines() == ["memdir: error: no note from source 'distill' and session 's1'"]
    assert subprocess.run(cli + ["forget", "x/y", "--source", "distill"], capture_output=True, env=env).returncode == 2


def test_no_provider_is_a_one_line_usage_error(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        _session(m)
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "--dir", str(project), "distill"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "distill.provider" in r.stderr


def test_cli_distill_json_and_dry_run(project, tmp_path):
    with StubModel([memories(GOOD[0]), memories(GOOD[0])]) as stub:
        (project / ".memory").mkdir()
        (tmp_path / "g").mkdir(exist_ok=True)  # distill/embed URLs, commands and key names: the user's own config
        (tmp_path / "g" / "config.toml").write_text(
            f'[distill]\nprovider = "openai"\nurl = "{stub.url}"\nmodel = "stub-1"\n', encoding="utf-8")
        with memdir.open(project, home=tmp_path / "g") as m:
            _session(m)
        env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
        cli = [sys.executable, "-m", "memdir.cli", "--dir", str(project)]
        dry = subprocess.run(cli + ["distill", "--dry-run", "--json"], capture_output=True, text=True, env=env)
        assert dry.returncode == 0, dry.stderr
        assert json.loads(dry.stdout)["notes"][0]["id"] is None
        real = subprocess.run(cli + ["distill", "--since", "2026-09-30T00:00:00Z"], capture_output=True, text=True, env=env)
        assert real.returncode == 0 and "wrote decisions/" in real.stdout
        again = subprocess.run(cli + ["distill"], capture_output=True, text=True, env=env)
        assert again.stdout.strip() == "nothing to distill" and len(stub.requests) == 2


# ---- providers ----------------------------------------------------------------------------------------------
def test_anthropic_provider_against_the_stub(project, tmp_path, clock, monkeypatch):
    monkeypatch.setenv("MY_KEY_VAR", "test-key-123")
    with StubModel([memories(GOOD[0])]) as stub, _open(project, tmp_path, clock, stub, **{
            "distill.provider": "anthropic", "distill.url": stub.url, "distill.model": "", "distill.api_key_env": "MY_KEY_VAR"}) as m:
        _session(m)
        out = m.distill()
        assert len(out["notes"]) == 1 and out["model"] == "anthropic:claude-haiku-4-5"
        assert stub.paths == ["/v1/messages"] and stub.requests[0]["system"].startswith("You turn a finished")
    cfg = tmp_path / "g" / "config.toml"
    assert not cfg.exists() or "test-key-123" not in cfg.read_text()


def _fake_cli(tmp_path: Path, name: str, reply: str) -> Path:
    """A stand-in host CLI: records argv, stdin, cwd and the guard variable, prints ``reply``."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    rec = tmp_path / f"{name}.calls.jsonl"
    script = bindir / name
    script.write_text(f"""#!{sys.executable}
import json, os, sys
data = sys.stdin.read()
with open({str(rec)!r}, "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "stdin": data, "cwd": os.getcwd(), "guard": os.environ.get("MEMDIR_DISTILLING")}}) + "\\n")
print({reply!r})
""", encoding="utf-8")
    script.chmod(0o755)
    return rec


@pytest.mark.parametrize("kind", ["claude", "codex", "opencode"])
def test_host_cli_providers(project, tmp_path, clock, monkeypatch, kind):
    rec = _fake_cli(tmp_path, kind, memories(GOOD[0]))
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"distill.provider": kind}) as m:
        _session(m)
        out = m.distill()
        assert len(out["notes"]) == 1, out
    call = json.loads(rec.read_text().splitlines()[0])
    assert call["guard"] == "1" and Path(call["cwd"]).name.startswith("memdir-distill-")
    if kind == "claude":
        assert call["argv"] == ["-p", "--model", "haiku", "--tools", "", "--no-session-persistence"]
        assert "Conversation (session s1)" in call["stdin"]
    elif kind == "codex":
        assert call["argv"] == ["exec", "--skip-git-repo-check", "--ephemeral", "--sandbox", "read-only", "-"]
        assert "Conversation" in call["stdin"]
    else:
        assert call["argv"][0] == "run" and "Conversation (session s1)" in call["argv"][-1]


def test_host_cli_failures_are_llm_errors(tmp_path):
    p = HostCLIProvider("claude", [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"], timeout_s=10)
    with pytest.raises(LLMError, match="exited with 3: boom"):
        p.complete("s", "u")
    p = HostCLIProvider("claude", [sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.3)
    with pytest.raises(LLMError, match="no answer within"):
        p.complete("s", "u")
    with pytest.raises(LLMError, match="needs the `no-such-cli-xyz` program"):
        HostCLIProvider.from_config("claude", {"distill.command": "no-such-cli-xyz", "distill.model": "", "distill.timeout_s": 1})


# ---- the host trigger --------------------------------------------------------------------------------------
def _hook(project, tmp_path, payload: dict, *, host="claude-code", event="stop", extra_env=None):
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g"), **(extra_env or {})}
    return subprocess.run([sys.executable, "-m", "memdir.hosts.hooks", host, event], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, timeout=60)


def _wait_for(pred, what: str, limit_s: float = 60.0):
    end = time.monotonic() + limit_s  # a bound on waiting for the detached child, not a timing assertion
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("host,event", [("claude-code", "Stop"), ("codex", "Stop"), ("claude-code", "SessionEnd"),
                                        ("opencode", "session.idle")])
def test_stop_hook_starts_a_detached_distiller(project, tmp_path, host, event):
    with StubModel([memories(GOOD[0])]) as stub:
        (project / ".memory").mkdir()
        (tmp_path / "g").mkdir(exist_ok=True)  # distill/embed URLs, commands and key names: the user's own config
        (tmp_path / "g" / "config.toml").write_text(
            f'[distill]\nauto = true\nprovider = "openai"\nurl = "{stub.url}"\nmodel = "stub-1"\n', encoding="utf-8")
        with memdir.open(project, home=tmp_path / "g") as m:
            _session(m)
        payload = {"session_id": "s1", "sessionID": "s1", "cwd": str(project), "directory": str(project),
                   "hook_event_name": event, "last_assistant_message": "Done: deploys now use pnpm."}
        r = _hook(project, tmp_path, payload, host=host, event=event)
        assert r.returncode == 0 and r.stdout == ""
        logf = tmp_path / "g" / ".memdir" / "distill.log"
        _wait_for(lambda: logf.exists() and "distill: session s1:" in logf.read_text(), "the distiller's summary line")
        assert "1 notes" in logf.read_text() and len(stub.requests) == 1
        with memdir.open(project, home=tmp_path / "g") as m:
            assert len(distill.batch_ids(m, session="s1")) == 1


def test_hooks_do_nothing_inside_a_distillers_own_session(project, tmp_path):
    (project / ".memory").mkdir()
    payload = {"session_id": "s9", "cwd": str(project), "prompt": "remember that we deploy with pnpm please"}
    r = _hook(project, tmp_path, payload, event="user-prompt", extra_env={"MEMDIR_DISTILLING": "1"})
    assert r.returncode == 0 and r.stdout == ""
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.status()["project"].get("events", 0) == 0


def test_trigger_is_off_by_default_and_without_a_provider(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock) as m:
        assert distill.trigger(m, "s1") is None
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"distill.auto": True}) as m:
        assert distill.trigger(m, "s1") is None


def test_a_distilled_rule_is_proposed_under_the_write_lock_as_memdir_propose_does(project, tmp_path, clock,
                                                                                   monkeypatch):
    """hreview item 3: distill wrote proposals by itself, without the root's write lock, so a concurrent
    ``memory_propose`` of the same text could race it. Each proposal file must be written while the lock is held
    (another thread cannot take it then)."""
    import threading

    from memdir.notes import proposals

    held: list[bool] = []
    real_create = proposals.create

    def spy(root_path, **kw):
        got: list[bool] = []
        lock = m.roots["project"]

        def probe():
            try:
                with lock.locked(timeout=0):
                    got.append(False)
            except memdir.MemdirError:
                got.append(True)

        t = threading.Thread(target=probe)
        t.start()
        t.join()
        held.append(got == [True])
        return real_create(root_path, **kw)

    monkeypatch.setattr(proposals, "create", spy)
    with StubModel() as stub, _open(project, tmp_path, clock, stub) as m:
        _session(m)
        stub.replies.append(memories(RULE))
        out = m.distill()
        assert [p["summary"] for p in out["proposals"]] == [RULE["summary"]] and out["proposals"][0]["created"]
        assert held == [True]
        # the same text proposed again (as MCP memory_propose would) is the same proposal, not a second one
        again = m.propose(RULE["body"], summary=RULE["summary"], source="mcp")
        assert again["created"] is False and again["id"] == out["proposals"][0]["id"]
        assert len(m.proposals()) == 1


def test_a_provider_error_quoting_the_key_is_stored_and_returned_redacted(project, tmp_path, clock):
    from memdir.llm import LLMError

    class Echoes:  # an endpoint whose 401 body quotes the key it was sent (some proxies do)
        name, model = "openai", "stub-1"

        def complete(self, system, user):
            raise LLMError(f"http://127.0.0.1:9/v1 answered HTTP 401: invalid key {SECRET}")

    with StubModel() as stub, _open(project, tmp_path, clock, stub) as m:
        _session(m)
        out = m.distill(provider=Echoes())
        assert out["errors"] and "HTTP 401" in out["errors"][0]["reason"]
        assert SECRET not in json.dumps(out)
        rows = m.roots["project"].db.execute("SELECT detail FROM distill_runs").fetchall()
        assert rows and all(SECRET not in (r[0] or "") for r in rows)


def test_one_new_turn_is_said_in_the_singular(project, tmp_path, clock):
    with StubModel() as stub, _open(project, tmp_path, clock, stub) as m:
        _session(m, "one", n=1)
        out = m.distill()
        assert out["sessions"][0]["reason"] == "1 new turn, fewer than distill.min_turns (4)"


def test_the_distillers_log_is_its_owners_alone_whatever_the_umask(project, tmp_path):
    """``distill.log`` takes the detached distiller's stderr (sessions, a model's error text): under a 000 umask it was
    made 0666, and one an earlier version left 0644 stayed so; both are 0600, as ``debug.log`` is."""
    import os
    import stat

    (project / ".memory").mkdir()
    (tmp_path / "g").mkdir(exist_ok=True)  # distill/embed URLs, commands and key names: the user's own config
    (tmp_path / "g" / "config.toml").write_text(
        '[distill]\nauto = true\nprovider = "openai"\nurl = "http://127.0.0.1:9/v1"\nmodel = "stub-1"\n', encoding="utf-8")
    logf = tmp_path / "g" / ".memdir" / "distill.log"
    old = os.umask(0)
    try:
        with memdir.open(project, home=tmp_path / "g") as m:
            assert distill.trigger(m, "s1") is not None
            assert stat.S_IMODE(logf.stat().st_mode) == 0o600
            os.chmod(logf, 0o644)
            assert distill.trigger(m, "s2") is not None
            assert stat.S_IMODE(logf.stat().st_mode) == 0o600
    finally:
        os.umask(old)

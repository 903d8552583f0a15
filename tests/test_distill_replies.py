"""Siblings of C41: what real models answer ``memdir distill`` besides the JSON asked for. A reply the reader cannot
take (nested past Python's recursion limit, a number longer than Python converts) is refused like prose, with the
turns pending and the next session still asked; an object after prose holding braces, after a reasoning model's
``<think>`` block or a list inside prose is read; an endpoint's odd answer is an ``LLMError`` or no reply."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memdir.distill import flow as distill
from memdir.distill.prompt import parse_reply
from memdir.llm import LLMError
from memdir.llm.http import AnthropicProvider, OpenAIChatProvider

GOOD = {"category": "decisions", "summary": "Deploy with pnpm", "body": "Deploys use pnpm: the npm lockfile broke CI."}
OBJ = json.dumps({"version": 1, "memories": [GOOD]})


class Replies:
    """A provider answering each call with the next of ``replies``."""
    name, model = "stub", "stub-1"

    def __init__(self, replies: list[str]):
        self.replies = list(replies)

    def complete(self, system: str, prompt: str) -> str:
        return self.replies.pop(0)


def _sessions(m, *sids):
    for n, sid in enumerate(sids):
        m.import_events([{"key": f"{r}:{sid}:{i}", "role": r, "session": sid, "ts": f"2026-10-0{n + 1}T1{i}:00:00Z",
                          "text": f"{sid} turn {i} by {r}: the {sid} service deploys with pnpm ({i})"}
                         for i in range(4) for r in ("user", "assistant")])


UNREADABLE = [
    "[" * 100_000 + "]" * 100_000,                                                     # nested past the limit
    '{"version": 1' + "0" * 5000 + ', "memories": []}',                                 # a 5,001-digit number
    '{"version": 1, "memories": [{"category": "facts", "summary": "port", "body": "b", "tags": [' + "7" * 5000 + "]}]}",
    "Sure: " + "{" * 100_000,                                                           # in prose, cut
]


@pytest.mark.parametrize("reply", UNREADABLE, ids=["deep", "long-number", "long-number-in-tags", "deep-in-prose"])
def test_a_reply_the_json_reader_cannot_take_is_refused_and_the_next_session_is_asked(m, reply):
    """A RecursionError or a ValueError without ``.msg`` escaped the reader: the run ended as an internal error
    and the sessions after it were not asked."""
    _sessions(m, "s1", "s2")
    out = distill.run(m, provider=Replies([reply, OBJ]))
    status = {s["session"]: s["status"] for s in out["sessions"]}
    assert status == {"s1": "error", "s2": "distilled"}, out["sessions"]
    assert "not the JSON asked for" in out["errors"][0]["reason"] and out["marked"] == 8
    assert list(distill.pending_turns(m.roots["project"])) == ["s1"]          # asked again next run
    assert [n["summary"] for n in out["notes"]] == ["Deploy with pnpm"]


WRAPPED = [
    "I read {the session} and kept one memory:\n" + OBJ + "\nLet me know if you want more.",
    "<think>The shape is {\"version\": 1, \"memories\": [...]}; one decision is worth it.</think>\n" + OBJ,
    "Here are the memories:\n" + json.dumps([GOOD]) + "\nThat is all.",
    "Here are the memories:\n```json\n" + json.dumps([GOOD], indent=2) + "\n```",
]


@pytest.mark.parametrize("reply", WRAPPED, ids=["brace-in-prose", "think-block", "list-in-prose", "list-fenced-in-prose"])
def test_the_object_or_list_wrapped_in_prose_is_read(m, reply):
    """Prose before the JSON holding a brace of its own, or a list in prose, was refused on every run: those
    turns were asked again, a call each, up to the daily cap, and never distilled."""
    items, why = parse_reply(reply)
    assert why == "" and items == [GOOD]
    _sessions(m, "s1")
    out = distill.run(m, provider=Replies([reply]))
    assert not out["errors"] and out["marked"] == 8 and [n["summary"] for n in out["notes"]] == ["Deploy with pnpm"]


@pytest.mark.parametrize("reply", [
    OBJ + "\n" + OBJ,                                                  # two objects
    "<think>x</think>\n" + OBJ + "\nor, shorter: {\"version\": 1, \"memories\": []}",
    "Here: [" + json.dumps(GOOD) + ", {\"category\": \"facts\", \"bo",   # a list cut in half
    "I read {the session} and: {\"version\": 1, \"memories\": [{\"category\": \"facts\", \"body\": \"cut",
])
def test_a_second_object_or_a_cut_one_is_still_refused(reply):
    assert parse_reply(reply)[0] is None


# ---- an endpoint whose answer is not what its API promises ----------------------------------------------------
class Answers:
    def __init__(self, body: bytes):
        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("kind,body", [
    ("openai", b"[" * 100_000 + b"]" * 100_000),
    ("openai", json.dumps({"choices": [{"message": {"content": [{"type": "text", "text": 5}, "x"]}}]}).encode()),
    ("anthropic", json.dumps({"content": [{"type": "text", "text": ["a"]}]}).encode()),
    ("anthropic", b"[" * 100_000 + b"]" * 100_000),
])
def test_an_endpoint_s_odd_answer_is_an_llm_error_or_no_reply(kind, body):
    """A RecursionError or TypeError escaped the provider (an internal error ending the run) instead of the
    LLMError, or the empty reply, that leaves the turns pending."""
    ep = Answers(body)
    try:
        p = (OpenAIChatProvider if kind == "openai" else AnthropicProvider)(ep.url, "stub", timeout_s=10.0)
        try:
            got = p.complete("system", "prompt")
        except LLMError:
            got = ""
        assert got == ""
    finally:
        ep.close()


# ---- the CLI's one line ---------------------------------------------------------------------------------------
def _cli_store(project, tmp_path, script: str):
    """A project with one pending session whose model is ``script`` (Python run as the host CLI ``claude``)."""
    import memdir

    model = tmp_path / "model.py"
    model.write_text("import sys\nsys.stdin.read()\n" + script, encoding="utf-8")
    (project / ".memory").mkdir(exist_ok=True)
    (tmp_path / "g").mkdir(exist_ok=True)  # distill/embed URLs, commands and key names: the user's own config
    (tmp_path / "g" / "config.toml").write_text(
        f'[distill]\nprovider = "claude"\ncommand = {json.dumps(sys.executable + " " + str(model))}\ntimeout_s = 20\n',
        encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        _sessions(m, "s1")


@pytest.mark.parametrize("script", [
    "print('Sure! Nothing worth keeping here.')",                       # prose
    "sys.stderr.write('only on stderr\\n')",                            # nothing on stdout
    "sys.stderr.write('auth failed\\n'); sys.exit(3)",                  # a failed call
    "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",          # killed
])
def test_a_failed_distillation_is_one_line_on_stderr(project, tmp_path, script):
    """``memdir distill`` printed the logger's warning ("distill: s1: reply rejected …") above its own
    ``memdir: error:`` line: two lines for one failure (C41 promises one)."""
    _cli_store(project, tmp_path, script)
    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "--home", str(tmp_path / "g"), "distill"],
                       capture_output=True, text=True, timeout=120)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("memdir: error: distill: session s1:"), r.stderr
    assert "error: s1:" in r.stdout


# ---- a host CLI that writes without end, or is killed ---------------------------------------------------------
@pytest.mark.parametrize("script", [
    "import sys\nsys.stdout.write('x' * (9 << 20))\n",                               # more than any answer
    "import sys\nwhile True:\n    sys.stdout.write('{\"version\": 1, ' * 4096)\n",    # without end, until killed
], ids=["9-mb", "endless"])
def test_a_host_cli_writing_more_than_any_answer_is_cut_off(tmp_path, script):
    """The host CLI's stdout was read whole into memory until its timeout (an HTTP endpoint's reply is refused
    past 8 MB): a CLI stuck in a loop printing filled the distiller's memory for two minutes."""
    from memdir.llm.host_cli import HostCLIProvider

    model = tmp_path / "model.py"
    model.write_text(script, encoding="utf-8")
    p = HostCLIProvider("claude", [sys.executable, str(model)], timeout_s=60.0)
    t = time.monotonic()
    with pytest.raises(LLMError, match="larger than any answer"):
        p.complete("system", "prompt")
    assert time.monotonic() - t < 30  # cut when the limit is passed, not at the timeout


def test_a_killed_host_cli_is_said_killed(tmp_path):
    """"`claude` exited with -9: " named a negative exit code and an empty reason."""
    from memdir.llm.host_cli import HostCLIProvider

    p = HostCLIProvider("claude", [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
                        timeout_s=30.0)
    with pytest.raises(LLMError, match=r"`claude` was killed by signal 9 \(SIGKILL\)$"):
        p.complete("system", "prompt")


# ---- a proposal no one could accept ---------------------------------------------------------------------------
def test_an_item_superseding_a_line_of_root_md_is_rejected_not_proposed(m, project):
    """Superseding ``ROOT.md/rule-01`` (a hard rule a person wrote in ROOT.md) became a pending proposal that
    ``memdir proposals accept`` then refused ("a line of ROOT.md: edit ROOT.md by hand"): it sat pending for
    good. The item is now rejected with that reason; every proposal a run writes can be accepted."""
    from conftest import add_root_rule

    m.remember("Deploys go through the canary stage first.", category="facts")  # ROOT.md exists
    add_root_rule(project, "Never deploy on Fridays")
    assert m.get("ROOT.md/rule-01") is not None
    _sessions(m, "s1")
    reply = json.dumps({"version": 1, "memories": [
        {"category": "facts", "summary": "Friday deploys are fine", "body": "Deploying on Fridays is fine now.",
         "supersedes": "ROOT.md/rule-01"},
        {"category": "rules", "summary": "Friday deploys allowed", "body": "Fridays allow deploys with a canary.",
         "supersedes": "ROOT.md/rule-01"},
        {"category": "rules", "summary": "Tag releases", "body": "Always tag a release before deploying it."}]})
    out = distill.run(m, provider=Replies([reply]))
    assert [r["item"] for r in out["rejected"]] == [0, 1] and all("ROOT.md" in r["reason"] for r in out["rejected"])
    assert [p["summary"] for p in out["proposals"]] == ["Tag releases"]
    for p in m.proposals():
        assert m.accept_proposal(p["id"]).category == "rules"
    assert m.get("ROOT.md/rule-01") is not None and out["marked"] == 8


def test_a_lone_surrogate_escape_in_a_reply_never_reaches_the_report(m):
    """``"\\ud800"`` is valid JSON but no character: the note file took U+FFFD, the run's report kept the
    surrogate and ``memdir distill`` ended printing it, as an internal error, after writing everything."""
    from memdir.distill.prompt import check_item

    _sessions(m, "s1")
    reply = ('{"version": 1, "memories": [{"category": "facts", "summary": "lone \\ud800 surrogate", "body": '
             '"Kafka keeps \\udcff seven days", "tags": ["t\\udc80"], "load_when": ["x\\ud83d"]}, '
             '{"category": "rules", "summary": "rule \\ud800", "body": "Always \\udcff lint first"}]}')
    out = distill.run(m, provider=Replies([reply]))
    json.dumps(out, ensure_ascii=False).encode("utf-8")  # printable: no lone surrogate left
    assert [n["summary"] for n in out["notes"]] == ["lone \ufffd surrogate"] and len(out["proposals"]) == 1
    cand, _ = check_item(json.loads(reply)["memories"][0], categories=["facts"], max_body=2000)
    assert cand["tags"] == ["t\ufffd"] and cand["load_when"] == ["x\ufffd"] and "\ufffd" in cand["body"]

"""The tool call an agent turn leads to ("Let me fix the pattern:" then the edit) is shown right after that turn when
it is what the question's kind asks for, even when recall ranked it low or its words repeat a bigger edit above."""

from __future__ import annotations

import memdir
from memdir.types import Hit

BIG_EDIT = ("Edit: lib/summary.ex (-4 +4 lines)\n"
            "-    case LLMChain.run(chain) do\n"
            "+    case LLMChain.run(chain, timeout: @timeout) do\n"
            "-      {:ok, chain} -> {:ok, chain.last_message}\n"
            "+      {:ok, updated} -> {:ok, updated.last_message}\n"
            "-      {:error, reason} -> log(reason)\n"
            "+      {:error, reason} -> log(reason, :error)\n")
SMALL_FIX = "Edit: lib/summary.ex (-1 +1 lines)\n-      {:error, reason} ->\n+      {:error, _chain, reason} ->"


def _session(m, *, between: int = 0, turn_between: bool = False) -> None:
    m.capture({"role": "tool", "session": "s1", "key": "t0", "ts": "2026-02-12T10:00:00Z", "text": BIG_EDIT})
    m.capture({"role": "assistant", "session": "s1", "key": "a1", "ts": "2026-02-12T10:01:00Z",
               "text": "Dialyzer says LLMChain.run returns an error triple that carries the chain. Let me fix the "
                       "pattern:"})
    for i in range(between):  # events in between: a compile (still the turn's doing), then maybe another turn
        m.capture({"role": "tool", "session": "s1", "key": f"x{i}", "ts": f"2026-02-12T10:01:{10 + i}Z",
                   "text": "Bash: mix compile → Compiling 3 files (.ex)"})
    if turn_between:
        m.capture({"role": "assistant", "session": "s1", "key": "a2", "ts": "2026-02-12T10:01:40Z",
                   "text": "Compiled. Now the other module."})
    m.capture({"role": "tool", "session": "s1", "key": "t1", "ts": "2026-02-12T10:02:00Z", "text": SMALL_FIX})
    for i in range(6):  # other turns that hold the question's words more often than the fix does
        m.capture({"role": "assistant", "session": "s2", "key": f"o{i}", "ts": f"2026-02-12T11:0{i}:00Z",
                   "text": f"Note {i}: the LLMChain.run error pattern in the summary service logs the reason; "
                           f"the dialyzer pattern warning {i} is about the error pattern of LLMChain.run."})


def test_a_how_did_we_fix_question_shows_the_edit_the_reply_announced(tmp_path):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        _session(m)
        block = m.context("How did we fix the LLMChain.run error pattern?", reinforce=False)
    assert "Let me fix the" in block
    assert "{:error, _chain, reason}" in block
    assert block.index("Let me fix the") < block.index("{:error, _chain, reason}")


def test_the_calls_a_turn_led_to_run_up_to_the_next_turn(tmp_path):
    question = "How did we fix the LLMChain.run error pattern?"
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        _session(m, between=1)  # a compile ran between the turn and its edit: the edit is still what it led to
        led = m.context(question, reinforce=False)
    assert "{:error, _chain, reason}" in led
    assert led.index("Let me fix the") < led.index("{:error, _chain, reason}")
    proj2 = tmp_path / "p2"
    (proj2 / ".git").mkdir(parents=True)
    with memdir.open(proj2, home=tmp_path / "g2") as m:
        _session(m, between=1, turn_between=True)
        apart = m.context(question, reinforce=False)
    assert "{:error, _chain, reason}" not in apart  # another turn came first: the edit is that turn's doing


def test_among_the_calls_a_turn_led_to_the_one_holding_the_question_s_words(tmp_path):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        m.capture({"role": "assistant", "session": "s1", "key": "a1", "ts": "2026-01-17T10:00:00Z",
                   "text": "The router's SSH host key changed after its reset. Let me check the DNS port first."})
        m.capture({"role": "tool", "session": "s1", "key": "t1", "ts": "2026-01-17T10:00:10Z",
                   "text": "Bash: nc -u -z -w 3 10.0.0.1 53 → UDP 53 open"})
        m.capture({"role": "tool", "session": "s1", "key": "t2", "ts": "2026-01-17T10:00:20Z",
                   "text": "Bash: ssh-keygen -R 10.0.0.1 → # Host 10.0.0.1 found: line 12\nknown_hosts updated."})
        others = ["Host key checking for the router: stale entries cleared on reboot, keys regenerated daily.",
                  "The router command line shows the host key; a stale one is cleared when the key rotates."]
        for i, text in enumerate(others):  # turns holding the question's words more often than the command does
            m.capture({"role": "assistant", "session": "s2", "key": f"o{i}", "ts": f"2026-01-17T11:{10 + i}:00Z",
                       "text": text})
        block = m.context("Which command cleared the stale host key for the router?", reinforce=False)
    entries = [ln for ln in block.split("\n") if ln.startswith("[")]
    turn = next(i for i, ln in enumerate(entries) if "Let me check the DNS port" in ln)
    assert "ssh-keygen -R" in entries[turn + 1]  # the call the question asks about, right after the turn


def _hit(key, kind, score, text, session="s1"):
    return Hit(id=key, key=key, kind=kind, scope="project", score=score, text=text, session=session)


def test_follow_ups_keep_recall_s_best_hit_among_the_shown_entries():
    from memdir.engine.context import follow_ups

    class Store:
        def events_after(self, ref, session, limit):
            n = {"a1": "t1", "a2": "t2", "a3": "t3"}.get(ref)
            return [{"ref": n, "role": "tool", "text": f"Edit: f{n}.py (-1 +1 lines)\n-x\n+y", "ts": None,
                     "handle": n}] if n else []

    class Root:
        store = Store()

        def exists(self):
            return True

    class S:
        roots = {"project": Root()}

    best = _hit("b", "tool", 9.0, "Bash: make → ok")
    hits = [_hit("a1", "assistant", 10.0, "fixing"), _hit("a2", "assistant", 10.0, "fixing"),
            _hit("a3", "assistant", 10.0, "fixing"), best]
    out, placed = follow_ups(S(), hits, "fix", 4, best=best)
    assert best in out[:4] and placed == {"t1", "t2"}  # a3 is past the four once t1 and t2 are in
    assert [h.id for h in out[:2]] == ["a1", "t1"]
    same, none = follow_ups(S(), hits, None, 4)  # a question of no kind: nothing moves
    assert same == hits and none == set()
    assert follow_ups(S(), hits, "file", 4)[1] == set()  # no call answers "which file"

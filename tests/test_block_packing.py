"""How the block shares its room (memdir.inject.block.build): a long entry asks for its matching part, not all of
its text, and the room the entries leave goes to tool entries ranked past ``max_entries``, one line each."""

from __future__ import annotations

from memdir.inject import block as inject

WEIGHTS = {"lockfil": 6.0, "lockfile": 6.0, "retri": 3.0, "retry": 3.0, "upload": 2.0}


def _long(handle: str, kind: str = "assistant") -> inject.Entry:
    text = "\n".join(f"{handle}x{i} {handle}y{i} {handle}z{i} upload retry, words of {handle}w{i}." for i in range(60))
    return inject.Entry(id=handle, handle=handle, kind=kind, date="05-11", text=text)


def _tool(handle: str, line: str) -> inject.Entry:
    out = "\n".join([f"step {handle}{i} ok" for i in range(30)] + [line])
    return inject.Entry(id=handle, handle=handle, kind="tool", date="05-11", text=out, lead="Bash: npm test →")


def test_a_long_entry_asks_for_at_most_its_window_cap():
    e = _long("aaa111")
    assert inject.natural(e, WEIGHTS) > 2000
    assert inject.need(e, WEIGHTS) == len(e.header()) + 1 + inject.WINDOW_CAP
    short = inject.Entry(id="s", handle="sss111", kind="assistant", date="05-11", text="Retry the upload.")
    assert inject.need(short, WEIGHTS) == inject.natural(short, WEIGHTS)


def test_room_left_by_the_entries_shows_a_lower_ranked_tool_entry_as_one_line():
    entries = [_long("aaa111"), _long("bbb222"), _tool("ccc333", "lockfile is stale: remove it and retry")]
    block = inject.build(rules=[], outline=[], entries=entries, max_chars=1200, max_entries=2, weights=WEIGHTS)
    assert len(block) <= 1200
    assert "[ccc333] Bash: npm test →\n> lockfile is stale" in block
    assert "ok" not in block.split("[ccc333]")[1]  # one line: the best-matching one


def test_only_tool_entries_past_max_entries_are_added_and_only_whole():
    entries = [_long("aaa111"), _long("bbb222"), _long("ddd444"), _tool("ccc333", "lockfile is stale")]
    block = inject.build(rules=[], outline=[], entries=entries, max_chars=1200, max_entries=2, weights=WEIGHTS)
    assert "ddd444" not in block and "[ccc333]" in block
    tight = inject.build(rules=[], outline=[], entries=entries, max_chars=250, max_entries=2, weights=WEIGHTS)
    assert "ccc333" not in tight and len(tight) <= 250  # no room left over: nothing squeezed in


def test_at_most_spare_brief_one_liners_are_added():
    tools = [_tool(f"t{i}abcd", f"lockfile {i} is stale") for i in range(inject.SPARE_BRIEF + 2)]
    block = inject.build(rules=[], outline=[], entries=[_long("aaa111")] + tools, max_chars=1800, max_entries=1,
                         weights=WEIGHTS)
    assert sum(f"[t{i}abcd]" in block for i in range(len(tools))) == inject.SPARE_BRIEF


def test_room_no_one_liner_takes_goes_back_to_the_capped_entries():
    # a conversation (no tool entries): the best turn is not cut at WINDOW_CAP while the budget has room left
    e = _long("aaa111")
    block = inject.build(rules=[], outline=[], entries=[e], max_chars=1200, max_entries=4, weights=WEIGHTS)
    assert len(block) > 900 and len(block) <= 1200


def test_a_tool_output_holding_a_third_of_the_best_weight_is_shown_in_full():
    from memdir.inject import entries

    assert entries.evidence(0.3, 1.0) and entries.evidence(1.0, 1.0)
    assert not entries.evidence(0.2, 1.0)  # a step on the way: one line

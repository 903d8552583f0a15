"""The viewer's lists at scale, without a browser (issue 25 item 5): every list paged by cursor with its count and no
silent cut, a session's end reachable, the prompt beside the block it received, a captured turn forgotten or edited
from the viewer, search by the handles the model sees, and the team page when no team store is set."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

import memdir
from memdir.capture.gates import text_hash
from memdir.recall.handles import digest
from memdir.ui import missing_deps, pager

sys.path.insert(0, str(Path(__file__).parent))
pytestmark = pytest.mark.skipif(bool(missing_deps()), reason=f"the ui extra is not installed: {missing_deps()}")

LOOPBACK = "http://127.0.0.1:8766"
ORIGIN = {"origin": LOOPBACK}


def client(m):
    from starlette.testclient import TestClient

    from memdir.ui import build

    return TestClient(build(get=lambda: m), base_url=LOOPBACK, follow_redirects=False)


def count(html: str, pid: str) -> tuple[int, int, int]:
    """(start, stop, total) the pager ``pid`` shows."""
    block = html.split(f'id="pager-{pid}"', 1)[1]
    got = re.search(r'data-start="(\d+)" data-stop="(\d+)" data-total="(\d+)"', block)
    return int(got[1]), int(got[2]), int(got[3])


def link(html: str, pid: str, cls: str) -> str | None:
    block = html.split(f'id="pager-{pid}"', 1)[1].split("</nav>", 1)[0]
    got = re.search(rf'class="{cls}"(?: rel="\w+")? href="([^"]+)"', block)
    return got[1].replace("&amp;", "&") if got else None


def walk(c, url: str, pid: str, pattern: str) -> tuple[list[str], list[tuple[int, int, int]]]:
    """Every row (``pattern``'s group 1) of every page from ``url`` on, following the next links."""
    rows, counts = [], []
    while url:
        html = c.get(url).text
        rows += re.findall(pattern, html)
        counts.append(count(html, pid))
        url = link(html, pid, "next")
    return rows, counts


def _turns(sid: str, n: int, t0: int = 1_760_000_000) -> list[dict]:
    out = []
    for i in range(n):
        role = ("user", "assistant")[i % 2]
        text = f"{sid} turn {i}: the deploy of tenant {i} went through step {i}"
        out.append({"key": f"{role[0]}:{sid}:{text_hash(text)}", "role": role, "text": text, "session": sid,
                    "ts": t0 + i * 60})
    return out


# ---- the pager ----------------------------------------------------------------------------------------------
def test_cursor_pages_count_and_survive_a_forgotten_row():
    rows = list(range(0, 230, 2))  # 115 rows
    p1 = pager.paginate(rows, lambda r: (r,), {}, size=50)
    assert (p1.start, p1.stop, p1.total, p1.prev) == (1, 50, 115, None) and p1.items[-1] == 98
    p2 = pager.paginate(rows, lambda r: (r,), {"after": p1.next}, size=50)
    assert (p2.start, p2.stop) == (51, 100) and p2.items[0] == 100
    last = pager.paginate(rows, lambda r: (r,), {"end": "1"}, size=50)
    assert (last.start, last.stop, last.next) == (66, 115, None) and last.items[-1] == 228
    back = pager.paginate(rows, lambda r: (r,), {"before": p2.prev}, size=50)
    assert back.items == p1.items
    # the row a cursor names is gone (forgotten): the next page still starts just after it
    gone = [r for r in rows if r != 98]
    assert pager.paginate(gone, lambda r: (r,), {"after": p1.next}, size=50).items[0] == 100
    at = pager.paginate(rows, lambda r: (r,), {"at": pager.encode((150,))}, size=50)
    assert 150 in at.items
    for junk in ("", "!!", pager.encode(("a", "b"))):  # malformed or another list's cursor: the first page
        assert pager.paginate(rows, lambda r: (r,), {"after": junk}, size=50).start in (1, 51, 66)


# ---- timeline, session, turns ----------------------------------------------------------------------------------
def test_the_timeline_pages_through_every_session(m):
    evs = []
    for j in range(620):  # more than the 500 the timeline used to stop at
        evs += _turns(f"s{j:04d}", 2, t0=1_760_000_000 + j * 3600)
    assert m.import_events(evs)["stored"] == 1240
    c = client(m)
    seen, counts = walk(c, "/timeline", "sessions", r'<li data-session="([^"]+)"')
    assert counts[0] == (1, 50, 620) and counts[-1][1:] == (620, 620)
    assert sorted(seen) == [f"s{j:04d}" for j in range(620)] and len(seen) == 620
    assert seen[0] == "s0619"  # newest first
    html = c.get("/timeline?end=1").text
    assert count(html, "sessions") == (571, 620, 620) and 'data-session="s0000"' in html


def test_a_long_session_shows_its_end_and_a_link_opens_the_page_of_its_turn(m):
    turns = _turns("long", 1_300)  # beyond the 1,000 turns a session page used to show
    m.import_events(turns)
    c = client(m)
    first = c.get("/timeline/session", params={"s": "long", "scope": "project"}).text
    assert count(first, "turns") == (1, 50, 1300)
    end = link(first, "turns", "last")
    assert 'id="jump-end"' in first
    html = c.get(end).text
    assert count(html, "turns") == (1251, 1300, 1300)
    assert f'data-key="{turns[-1]["key"]}"' in html and "turn 1299:" in html
    keys, _ = walk(c, "/timeline/session?s=long&scope=project&n=200", "turns", r'data-key="([^"]+)"')
    assert keys == [t["key"] for t in turns]  # every turn once, in time order
    far = turns[1111]["key"]
    r = c.get("/event", params={"key": far})
    assert r.status_code == 302
    html = c.get(r.headers["location"].split("#")[0]).text
    assert f'data-key="{far}"' in html and count(html, "turns") == (1101, 1150, 1300)


def test_blocks_skips_and_notes_page_with_counts(m):
    for i in range(120):
        m.remember(f"note {i} about the staging deploy of service {i}", category=("facts", "rules")[i % 2])
    for i in range(130):  # the blocks list used to stop at 100
        assert m.record_injection(f"<memory>\n[abcdef fact 11-01] block {i}\n</memory>", prompt=f"q {i}", host="t")
    for i in range(70):
        m.capture({"role": "user", "text": "ok", "session": f"x{i}"})
    c = client(m)
    blocks, counts = walk(c, "/injections", "injections", r'href="/injections/project/(\d+)"')
    assert counts[0] == (1, 50, 130) and len(set(blocks)) == 130
    notes, counts = walk(c, "/notes", "notes", r'<li class="[^"]*" data-id="([^"]+)"')
    assert counts[0] == (1, 50, 120) and len(set(notes)) == 120
    assert "(60)" in c.get("/notes").text  # a category's heading counts all its notes, not the page's
    skips, counts = walk(c, "/timeline/skips", "skips", r'<li class="skip">')
    assert counts[0][2] == 70 and len(skips) == 70
    assert "1–20 of 70" in c.get("/timeline").text.replace("&ndash;", "–")


def test_search_results_are_paged_by_rank(sample):
    m, _, _ = sample
    c = client(m)
    want = [h.id for h in m.recall("部署", k=60)]
    shown, counts = walk(c, "/search?q=部署&k=3", "hits", r'class="hit" data-id="([^"]+)"')
    assert shown == want and counts[0] == (1, 3, len(want))
    assert len(counts) == -(-len(want) // 3)


# ---- what the model saw ------------------------------------------------------------------------------------------
def test_the_block_is_shown_beside_its_prompt_as_stored(tmp_path):
    from ui_support import inject_once

    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=home) as m:
        m.remember("回滚用 ./scripts/deploy.sh --rollback，记录在 deploys.log", category="facts", tags=["部署", "回滚"])
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    one_line = f"怎么回滚部署？ token {secret} is in the env"
    two_lines = "how do I roll back the deploy?\n\n  the   rollback flag, again"
    inject_once(project, home, one_line, session="s-a")
    inject_once(project, home, two_lines, session="s-b")
    with memdir.open(project, home=home) as m:
        c = client(m)
        rows = {r["session"]: r for r in m.injections()}
        for sid, words in (("s-a", "怎么回滚部署"), ("s-b", "the   rollback flag")):
            html = c.get(f"/injections/{rows[sid]['scope']}/{rows[sid]['id']}").text
            prompt = html.split('id="prompt">', 1)[1].split("</pre>", 1)[0]
            assert words in prompt, (sid, html[-2000:])
            assert 'id="block"' in html
        assert secret not in html and secret not in c.get("/injections").text
        html = c.get(f"/injections/{rows['s-a']['scope']}/{rows['s-a']['id']}").text
        assert secret not in html and "[redacted:" in html
        assert "怎么回滚部署" in c.get("/injections").text  # the list shows each block's prompt too
        # the prompt forgotten: the page says it is not stored (never the old text)
        key = next(e["key"] for e in m.session_events("s-a") if e["role"] == "user")
        assert f'href="/event?key={quote(key, safe="")}"' in html
        assert m.forget(key)
        html = c.get(f"/injections/{rows['s-a']['scope']}/{rows['s-a']['id']}").text
        assert 'id="no-prompt"' in html and "怎么回滚部署？ token" not in html


# ---- forget and edit a captured turn ------------------------------------------------------------------------------
def test_forget_a_captured_turn_from_its_session_page(m):
    turns = _turns("s1", 4)
    m.import_events(turns)
    c = client(m)
    key = turns[1]["key"]
    assert c.post("/event/forget", data={"key": key, "scope": "project", "confirm": "yes"}).status_code == 403
    assert c.post("/event/forget", data={"key": key, "scope": "project"}, headers=ORIGIN).status_code == 303
    assert m.get(key) is not None  # no confirmation, nothing forgotten
    back = "/timeline/session?s=s1&scope=project"
    r = c.post("/event/forget", data={"key": key, "scope": "project", "confirm": "yes", "back": back}, headers=ORIGIN)
    assert r.status_code == 303 and r.headers["location"].startswith(back) and "done=event_forgotten" in r.headers["location"]
    assert m.get(key) is None
    assert m.import_events([turns[1]])["stored"] == 0  # a tombstone: a re-import does not bring it back
    page = c.get(r.headers["location"]).text
    assert "Forgotten:" in page and f'data-key="{key}"' not in page
    r = c.post("/event/forget", data={"key": key, "confirm": "yes", "back": "https://evil.example/"}, headers=ORIGIN)
    assert r.status_code == 404
    r = c.post("/event/forget", data={"key": turns[2]["key"], "confirm": "yes", "back": "https://evil.example/"},
               headers=ORIGIN)
    assert r.status_code == 303 and r.headers["location"].startswith("/timeline?")  # never a redirect elsewhere


def test_edit_a_captured_turn_keeps_its_place_and_redacts(m):
    turns = _turns("s1", 3)
    m.import_events(turns)
    c = client(m)
    old = turns[1]
    form = c.get("/event/edit", params={"key": old["key"], "scope": "project"})
    assert form.status_code == 200 and old["text"] in form.text
    secret = "postgres://app:S3cretPassw0rd@db1/app"
    new = f"the deploy of tenant 1 failed; the database is {secret}"
    assert c.post("/event/edit", data={"key": old["key"], "scope": "project", "text": new}).status_code == 403
    r = c.post("/event/edit", data={"key": old["key"], "scope": "project", "text": new}, headers=ORIGIN)
    assert r.status_code == 303 and "done=event_saved" in r.headers["location"]
    assert m.get(old["key"]) is None
    rows = m.session_events("s1")
    assert [e["role"] for e in rows] == ["user", "assistant", "user"]
    edited = rows[1]
    assert edited["ts"] == m.session_events("s1")[1]["ts"] and "failed" in edited["text"]
    assert "S3cretPassw0rd" not in edited["text"] and "[redacted:" in edited["text"]
    assert edited["key"].startswith("a:s1:")
    assert [h.id for h in m.recall("tenant 1 failed", k=1)] == [edited["key"]]
    page = c.get(r.headers["location"]).text
    assert "Saved the corrected turn" in page and f'data-key="{edited["key"]}"' in page
    r = c.post("/event/edit", data={"key": edited["key"], "scope": "project", "text": "  "}, headers=ORIGIN)
    assert r.status_code == 400 and "empty" in r.text and m.get(edited["key"]) is not None
    r = c.post("/event/edit", data={"key": edited["key"], "scope": "project", "text": turns[0]["text"]}, headers=ORIGIN)
    assert r.status_code == 409 and "already has this text" in r.text and m.get(edited["key"]) is not None
    assert c.get("/event/edit", params={"key": "u:nope:0"}).status_code == 404


# ---- search by handle ------------------------------------------------------------------------------------------
def test_search_by_the_handle_the_model_sees(m):
    turns = _turns("s1", 3)
    m.import_events(turns)
    note = m.remember("staging uses k3s", category="decisions")
    c = client(m)
    for q in (digest(turns[2]["key"])[:6], f"[{digest(turns[2]['key'])[:6]} user 11-01]"):
        html = c.get("/search", params={"q": q}).text
        named = html.split('id="by-handle"', 1)[1].split("</ul>", 1)[0]
        assert f'data-id="{turns[2]["key"]}"' in named and "turn 2:" in named
    html = c.get("/search", params={"q": digest(note.id)[:6]}).text
    assert f'data-id="{note.id}"' in html.split('id="by-handle"', 1)[1] and quote(note.id) in html
    assert 'id="by-handle"' not in c.get("/search", params={"q": "zzzzzz"}).text


def test_the_team_page_without_a_team_store(m):
    m.remember("something", category="facts")
    html = client(m).get("/team").text
    assert 'id="team-off"' in html and "remote.url" in html


@pytest.fixture
def sample(tmp_path):
    from ui_support import sample_store

    m, project, home = sample_store(tmp_path / "s")
    yield m, project, home
    m.close()



def test_the_edit_form_never_links_back_outside_the_viewer(m):
    turns = _turns("s1", 2)
    m.import_events(turns)
    html = client(m).get("/event/edit", params={"key": turns[0]["key"], "back": "javascript:alert(1)"}).text
    assert "javascript:" not in html
    back = "/timeline/session?s=s1&scope=project"
    html = client(m).get("/event/edit", params={"key": turns[0]["key"], "back": back}).text
    assert back.replace("&", "&amp;") in html


def test_sessions_keep_their_first_events_source_and_cwd(m):
    m.import_events([{"key": "u:s1:1", "role": "user", "text": "first turn of s1 about deploys", "session": "s1",
                      "ts": 1_760_000_000, "meta": {"source": "codex", "cwd": "/w/a"}},
                     {"key": "a:s1:2", "role": "assistant", "text": "second turn of s1 about deploys", "session": "s1",
                      "ts": 1_760_000_060, "meta": {"source": "other", "cwd": "/w/b"}},
                     {"key": "u:none:3", "role": "user", "text": "a turn without a session at all", "session": None,
                      "ts": 1_760_000_120, "meta": {"source": "import", "cwd": "/w/c"}}])
    got = {s["session"]: (s["source"], s["cwd"], s["turns"]) for s in m.sessions()}
    assert got == {"s1": ("codex", "/w/a", 2), None: ("import", "/w/c", 1)}

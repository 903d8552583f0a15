"""The viewer as an attacker or an unlucky user meets it: secrets stored before redaction knew them, a save whose
note or turn vanished meanwhile, out-of-range ids, paths that name another host."""

from __future__ import annotations

import re
from unittest import mock

import pytest

from memdir.ui import missing_deps

pytestmark = pytest.mark.skipif(bool(missing_deps()), reason=f"the ui extra is not installed: {missing_deps()}")

LOOPBACK = "http://127.0.0.1:8766"
ORIGIN = {"origin": LOOPBACK}
TOKEN = "t0ken-for-tests-0123456789"
# keys of two providers, stored as they were typed: a store written before redaction knew their shape
ANTHROPIC = "sk-ant-api03-" + "Qx7" * 30
AWS = "AKIAIOSFODNN7EXAMPLE"


def client(m, *, host="127.0.0.1", token=None, base_url=LOOPBACK, prefix=""):
    from starlette.testclient import TestClient

    from memdir.ui import build

    return TestClient(build(get=lambda: m, host=host, token=token, prefix=prefix), base_url=base_url,
                      raise_server_exceptions=True, follow_redirects=False)


def store_unredacted(m, rows):
    """Store events with their text as given, as a memdir older than today's redaction patterns did."""
    import memdir.capture.events as cevents

    with mock.patch.object(cevents, "redact_text", lambda t: t), mock.patch.object(cevents, "redact_obj", lambda o: o):
        got = m.import_events(rows)
    assert got["stored"] == len(rows)


def test_a_secret_stored_before_redaction_is_never_shown_by_a_page(m):
    m.remember("deploy goes through the release script", category="facts")
    filler = "deploy step " * 60  # the key straddles the 500-character cut of a search hit
    store_unredacted(m, [
        {"key": "u:s1:a", "role": "user", "text": f"deploy with key {ANTHROPIC} please", "session": "s1",
         "ts": "2026-11-01T10:00:00Z"},
        {"key": "t:s1:b", "role": "tool", "text": f"Bash: env → deploy AWS_ID {AWS}", "session": "s1",
         "ts": "2026-11-01T10:00:05Z"},
        {"key": "u:s2:c", "role": "user", "text": filler[:490] + f" {ANTHROPIC} deploy", "session": "s2",
         "ts": "2026-11-01T11:00:00Z"},
    ])
    block = m.context("deploy with key")
    assert m.record_injection(block, prompt=f"deploy with key {ANTHROPIC} please", host="test", session="s1")
    row = m.injections()[0]
    c = client(m)
    pages = ["/search?q=deploy", "/search?q=deploy+key", "/timeline", "/timeline/session?s=s1",
             "/timeline/session?s=s2", "/injections", f"/injections/{row['scope']}/{row['id']}",
             "/event/edit?key=u:s1:a", "/event/edit?key=u:s2:c", "/why?q=deploy"]
    for url in pages:
        r = c.get(url)
        assert r.status_code == 200, url
        for secret in (ANTHROPIC, AWS, ANTHROPIC[:24]):
            assert secret not in r.text, (url, secret)
    assert '<mark class="redacted">[redacted:' in c.get("/timeline/session?s=s1").text
    # saving the edit form as shown replaces the stored turn with its redacted text
    r = c.post("/event/edit", data={"key": "u:s1:a", "text": re.search(
        r'<textarea name="text"[^>]*>(.*?)</textarea>', c.get("/event/edit?key=u:s1:a").text, re.S).group(1)
        .replace("&lt;", "<").replace("&gt;", ">").replace("&#34;", '"').replace("&#39;", "'").replace("&amp;", "&")},
        headers=ORIGIN)
    assert r.status_code == 303
    assert ANTHROPIC not in "".join(e["text"] for e in m.session_events("s1"))


def test_a_secret_typed_into_a_note_file_is_not_shown_by_its_edit_form(m):
    note = m.remember("the deploy token lives in the vault", category="facts")
    path = m.roots["project"].path / (note.id + ".md")
    path.write_text(path.read_text(encoding="utf-8") + f"\nold key {ANTHROPIC}\n", encoding="utf-8")
    c = client(m)
    for url in (f"/notes/project/{note.id}", f"/notes/project/{note.id}/edit"):
        r = c.get(url)
        assert r.status_code == 200 and ANTHROPIC[:24] not in r.text, url


def _field(html: str, name: str) -> str:
    import html as h

    got = re.search(rf'<(?:textarea|input)[^>]*name="{name}"[^>]*?(?:value="([^"]*)"[^>]*>|>(.*?)</textarea>)', html, re.S)
    return h.unescape(got.group(1) if got.group(1) is not None else got.group(2))


def test_a_save_whose_note_vanished_keeps_the_text_typed(m):
    """The conflict page of a note deleted meanwhile said "saving it again replaces the version above"; saving again
    gave a bare 404 page and the text typed in the form was gone."""
    note = m.remember("the release checklist", category="facts")
    path = m.roots["project"].path / (note.id + ".md")
    c = client(m)
    page = c.get(f"/notes/project/{note.id}/edit").text
    form = {"frontmatter": _field(page, "frontmatter"), "body": "MY LONG EDIT", "version": _field(page, "version")}
    path.unlink()  # another tool, a git checkout, a forget elsewhere
    r = c.post(f"/notes/project/{note.id}/edit", data=form, headers=ORIGIN)
    assert r.status_code == 409 and "MY LONG EDIT" in r.text
    assert 'id="edit-gone"' in r.text and "replaces the version above" not in r.text
    form["version"] = _field(r.text, "version")
    r = c.post(f"/notes/project/{note.id}/edit", data=form, headers=ORIGIN)  # saved again from that page
    assert r.status_code == 404 and "MY LONG EDIT" in r.text and 'id="edit-gone"' in r.text
    assert not path.exists()
    # a form without a version (an old tab) meets the same
    r = c.post(f"/notes/project/{note.id}/edit", data={**form, "version": ""}, headers=ORIGIN)
    assert r.status_code == 404 and "MY LONG EDIT" in r.text


def test_a_save_whose_turn_was_forgotten_keeps_the_text_typed(m):
    m.import_events([{"key": "u:s1:a", "role": "user", "text": "deploy the thing", "session": "s1",
                      "ts": "2026-11-01T10:00:00Z"}])
    c = client(m)
    assert c.get("/event/edit?key=u:s1:a").status_code == 200
    assert m.forget("u:s1:a")  # from another tab, or `memdir forget`
    r = c.post("/event/edit", data={"key": "u:s1:a", "scope": "project", "text": "MY CORRECTED TURN"}, headers=ORIGIN)
    assert r.status_code == 404 and "MY CORRECTED TURN" in r.text and 'id="event-edit-form"' in r.text


@pytest.mark.parametrize("n", ["99999999999999999999999", "9223372036854775808", "-99999999999999999999", "0", "-1", "1e3", "x"])
def test_an_injection_id_out_of_range_is_a_404_not_a_500(m, n):
    """/injections/project/99999999999999999999999 answered 500 "OverflowError: Python int too large to convert to
    SQLite INTEGER"."""
    m.remember("deploy note", category="facts")
    m.record_injection(m.context("deploy"), prompt="deploy", host="test", session="s1")
    r = client(m).get(f"/injections/project/{n}")
    assert r.status_code == 404 and "no such block" in r.text


@pytest.mark.parametrize("evil", ["//evil.example/search", "/\\evil.example/search", "///evil.example/search", "/\\/evil.example/"])
def test_a_path_naming_another_host_never_becomes_a_link_or_redirect_to_it(m, evil):
    """http://127.0.0.1:8766//evil.example/x showed the viewer's page with its 中文 link to //evil.example/x?lang=zh,
    and with ?token= the log-in redirect went to //evil.example/x (a browser reads a leading backslash as a slash)."""
    m.remember("deploy note", category="facts")
    for c, url in ((client(m), LOOPBACK + evil),
                   (client(m, host="0.0.0.0", token=TOKEN, base_url="http://192.0.2.10:8766"),
                    f"http://192.0.2.10:8766{evil}?token={TOKEN}")):
        r = c.get(url)
        assert r.status_code in (303, 404), (url, r.status_code)
        hrefs = re.findall(r'(?:href|action)="([^"]*)"', r.text) + [r.headers.get("location", "/")]
        for h in hrefs:
            assert not re.match(r"^[/\\]{2}", h.replace("&#92;", "\\")), (evil, h)


def test_a_root_md_line_offers_no_edit_pin_or_forget_that_cannot_work(m):
    """A goal or hard rule of ROOT.md is listed with the notes; its page offered Edit, Pin and Forget, each answered
    400 ("edit ROOT.md by hand"): it says so instead, and every link the page shows answers."""
    m.remember("deploys go through helm charts", category="decisions")  # the root and its ROOT.md written
    page = m.roots["project"].path / "ROOT.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("<!-- notes in rules/ are injected into every prompt -->\n",
                                 "<!-- notes in rules/ are injected into every prompt -->\n\n- Never force-push to main\n", 1),
                    encoding="utf-8")
    c = client(m)
    listed = c.get("/notes").text
    ids = sorted(set(re.findall(r"/notes/project/(ROOT\.md/[\w.-]+)", listed)))
    assert ids, listed[:500]
    for nid in ids:
        r = c.get(f"/notes/project/{nid}")
        assert r.status_code == 200 and 'id="root-line"' in r.text
        assert 'id="edit"' not in r.text and 'id="forget"' not in r.text and 'id="pin"' not in r.text
        for href in re.findall(r'href="(/[^"]+)"', r.text):
            if href.startswith("/static") or "?" in href:
                continue
            assert c.get(href).status_code == 200, href


GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_no_page_shows_a_key_from_a_note_field_a_refusal_or_the_address(m):
    """Pages redacted a note's text, summary and tags, but not the rest of what they show: a key written into a note
    file's ``kind`` or ``supersedes`` (badges, links), a refused edit's reason quoting the frontmatter line typed, and
    text the address carried back (the search box, "why", a 404 naming the id asked for) were shown as typed."""
    m.remember("deploys go through helm charts", category="facts")
    facts = m.roots["project"].path / "facts"
    (facts / "kinded.md").write_text(f"---\nsummary: kinded deploy\nkind: {GITHUB}\n---\nkinded deploy body\n",
                                     encoding="utf-8")
    (facts / "linked.md").write_text(f"---\nsummary: linked deploy\nsupersedes: facts/{GITHUB}\n---\nlinked deploy body\n",
                                     encoding="utf-8")
    (facts / "other.md").write_text(f"---\nsummary: other\nsuperseded_by: facts/{GITHUB}\n---\nother deploy body\n",
                                    encoding="utf-8")
    c = client(m)
    pages = ["/search?q=kinded+deploy", "/search?q=linked+deploy", "/notes", "/notes/project/facts/kinded",
             "/notes/project/facts/linked", "/notes/project/facts/other", "/health",
             f"/search?q=deploy+{GITHUB}&session={AWS}", f"/why?q=deploy+{GITHUB}&id={AWS}",
             f"/notes/project/facts/{GITHUB}", f"/event?key={GITHUB}", f"/timeline/session?s={AWS}",
             f"/notes/project/facts/{GITHUB}/edit"]
    for url in pages:
        r = c.get(url)
        assert r.status_code in (200, 400, 404), url
        assert GITHUB not in r.text and AWS not in r.text, (url, r.text[r.text.find(GITHUB[:8]) - 200:][:400])
    note = m.inspect().notes[0].id
    page = c.get(f"/notes/project/{note}/edit").text
    for fm in (f"summary: s\npinned: {GITHUB}\n", f"summary: s\ntoken: {GITHUB}: : [\n", f"summary: s\nkind: {AWS}\n"):
        r = c.post(f"/notes/project/{note}/edit", data={"frontmatter": fm, "body": "body\n",
                                                        "version": _field(page, "version")}, headers=ORIGIN)
        assert r.status_code == 400 and 'id="refused"' in r.text, fm
        assert GITHUB not in r.text and AWS not in r.text, r.text
    # what is no secret stays as it is: the form's version (a SHA-256) still saves, a block's prompt hash is shown
    r = c.post(f"/notes/project/{note}/edit", data={"frontmatter": _field(page, "frontmatter"), "body": "helm body\n",
                                                    "version": _field(page, "version")}, headers=ORIGIN)
    assert r.status_code == 303, r.text
    m.record_injection(m.context("deploy"), prompt="deploy", host="test", session="s1")
    row = m.injections()[0]
    assert row["prompt_sha256"] in c.get(f"/injections/{row['scope']}/{row['id']}").text


def test_a_refused_supersede_keeps_the_text_typed(m):
    """A supersede refused (the note superseded meanwhile from another tab, an empty text) answered with the note's
    page, its form holding the old note's text again or gone (a superseded note offers none): what was typed was lost."""
    note = m.remember("deploys go through helm charts", category="facts")
    c = client(m)
    assert c.post(f"/notes/project/{note.id}/supersede", data={"text": "deploys go through argo now"},
                  headers=ORIGIN).status_code == 303  # the first tab
    r = c.post(f"/notes/project/{note.id}/supersede", data={"text": "MY OTHER TAB'S TEXT"}, headers=ORIGIN)
    assert r.status_code == 400 and 'id="refused"' in r.text and "superseded" in r.text
    assert _field(r.text, "text") == "MY OTHER TAB'S TEXT"
    other = m.remember("the cache is warmed at start", category="facts")
    r = c.post(f"/notes/project/{other.id}/supersede", data={"text": "  "}, headers=ORIGIN)
    assert r.status_code == 400 and _field(r.text, "text") == "  "

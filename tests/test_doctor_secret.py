"""The README says `memdir doctor` names a secret typed into a note by hand: it said only "2 problems between the
Markdown and the index" and left the naming to `memdir inspect`."""

import memdir

KEY = "sk-proj-" + "Ab3" * 20


def test_doctor_names_a_note_holding_a_secret(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember("the deploy key lives in the vault", category="facts")
        path = m.roots["project"].path / (note.id + ".md")
        path.write_text(path.read_text(encoding="utf-8") + f"\nold key {KEY}\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        checks = m.doctor(repair=False)
    named = [c for c in checks if "secret" in c["check"]]
    assert named and named[0]["ok"] == "warn", checks
    text = " ".join(str(v) for v in named[0].values())
    assert note.id in text and "openai_key" in text and "memdir edit" in text and KEY not in text
    markdown = next(c for c in checks if c["check"] == "markdown")
    assert markdown["ok"] == "ok"  # the secret is its own line, not one of "N problems"

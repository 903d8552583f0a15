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


GHP = "ghp_" + "A1b2C3d4" * 4 + "E5f6"


def test_a_note_file_named_after_a_key_is_named_with_the_key_redacted(project, tmp_path, capsys):
    """A note file whose name holds a key (``facts/ghp_….md``, a token pasted as a file name): recall printed the id
    with the key and doctor said nothing. The id is the note's address and stays as it is; inspect and doctor name the
    file as a problem in one line that says to rename it with ``git mv``, the key redacted in that line."""
    from conftest import run_cli

    facts = project / ".memory" / "facts"
    facts.mkdir(parents=True)
    (facts / f"{GHP}.md").write_text("the ci token is rotated monthly\n", encoding="utf-8")
    (facts / "plain.md").write_text("nothing secret here\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.get(f"facts/{GHP}") is not None  # still the note's address
        named = [p for p in m.inspect().problems if p["kind"] == "secret"]
        checks = m.doctor(repair=False)
    assert len(named) == 1 and all(GHP not in v for v in named[0].values()), named
    assert "git mv" in named[0]["detail"] and "github_token" in named[0]["detail"], named
    found = [c for c in checks if "secret" in c["check"]]
    assert found and found[0]["ok"] == "warn" and all(GHP not in str(v) for v in found[0].values()), checks
    assert "git mv" in " ".join(str(v) for v in found[0].values())
    for cmd in ("inspect", "doctor"):
        code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), cmd)
        lines = [ln for ln in (out + err).splitlines() if "git mv" in ln]
        assert len(lines) == 1 and GHP not in lines[0] and "[redacted:github_token]" in lines[0], (cmd, out, err)

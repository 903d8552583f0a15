"""The command line's edges as a shell hands them over: a locale that is not
UTF-8 (``LC_ALL=C`` with ``PYTHONUTF8=0``: file names in ASCII; ``PYTHONIOENCODING=ascii`` or ``latin-1``) and
notes in Chinese, with emoji and accents, and a reader that closes the pipe early (``| head -1``). Each command
answers readably (UTF-8), exit 0, never a traceback or an ``internal error: UnicodeEncodeError``; a closed reader
ends the command quietly, exit 0 (1 would say nothing was found)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import memdir

NOTES = ["部署脚本用 pnpm 而不是 npm，因为 lockfile 不兼容", "la réunion de déploiement a lieu au café ☕",
         "ship on Fridays never 🚀 部署 freeze"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    base = tmp_path_factory.mktemp("edges")
    proj = base / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=base / "g") as m:
        ids = [m.remember(t).id for t in NOTES]
    return proj, base / "g", ids


def _run(store, *args, env=None, **kw):
    proj, home, _ = store
    full = {**os.environ, "MEMDIR_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})}
    for k in [k for k, v in full.items() if v is None]:
        del full[k]
    return subprocess.run([sys.executable, "-m", "memdir", *args], cwd=proj, env=full, capture_output=True,
                          timeout=120, **kw)


LOCALES = {
    "C locale, UTF-8 mode off": {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": None},
    "ascii stdio": {"PYTHONIOENCODING": "ascii"},
    "latin-1 stdio": {"PYTHONIOENCODING": "latin-1"},
}

COMMANDS = [("recall", "部署"), ("recall", "café"), ("recall", "Fridays"), ("recent",), ("context", "部署"),
            ("export", "-"), ("inspect",), ("status",), ("config",)]


@pytest.mark.parametrize("where", list(LOCALES))
@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_every_printing_command_answers_in_a_locale_that_is_not_utf8(store, where, cmd):
    r = _run(store, *cmd, env=LOCALES[where])
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 0, err
    assert "Traceback" not in err and "Error" not in err, err
    out = r.stdout.decode("utf-8")  # readable: the notes' own letters, not '?' or a crash
    if cmd[0] in ("recall", "context"):
        assert cmd[1] in out, out


@pytest.mark.parametrize("where", list(LOCALES))
def test_json_and_a_note_stored_in_a_locale_that_is_not_utf8(store, where):
    text = f"冻结期间不部署 {where} ünïcödé 😀"
    r = _run(store, "remember", text, env=LOCALES[where])
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")
    r = _run(store, "--json", "recall", "冻结期间", env=LOCALES[where])
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")
    assert text in [h["text"] for h in json.loads(r.stdout.decode("utf-8"))]
    _, _, ids = store
    r = _run(store, "--json", "get", ids[0], env=LOCALES[where])
    assert r.returncode == 0 and json.loads(r.stdout.decode("utf-8"))["text"] == NOTES[0]


def test_a_prompt_hook_and_a_piped_note_in_the_c_locale(store):
    """With file names in ASCII, the store's note files named in Chinese could not be listed: the hook injected
    nothing and `remember -` failed."""
    proj, _, _ = store
    c = LOCALES["C locale, UTF-8 mode off"]
    r = _run(store, "remember", "-", env=c, input="回滚要先停写入 rollback stops writes first\n".encode())
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")
    prompt = {"prompt": "怎么回滚? how do we rollback", "session_id": "s1", "cwd": str(proj),
              "hook_event_name": "UserPromptSubmit"}
    r = _run(store, "hook", "claude-code", "user-prompt", env=c, input=json.dumps(prompt).encode())
    assert r.returncode == 0 and "回滚要先停写入" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


PIPED = [("recall", "部署"), ("recent",), ("context", "部署"), ("export", "-"), ("inspect",), ("status",),
         ("doctor",), ("config",), ("--help",), ("recall", "--help"), ("--json", "recall", "部署"),
         ("--json", "status"), ("--version",)]


@pytest.mark.parametrize("read", [0, 10])
@pytest.mark.parametrize("cmd", PIPED, ids=" ".join)
def test_a_reader_that_closes_early_ends_the_command_quietly(store, cmd, read):
    proj, home, _ = store
    env = {**os.environ, "MEMDIR_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.Popen([sys.executable, "-m", "memdir", *cmd], cwd=proj, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if read:
        p.stdout.read(read)  # `| head -c 10`
    p.stdout.close()  # the reader is gone before the command has written (all of) its output
    err = p.stderr.read().decode("utf-8", "replace")
    assert p.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Error" not in err and "internal error" not in err, err


#: what Python makes of argument bytes that are not UTF-8 (`$'caf\xe9'` typed in a Latin-1 terminal)
NOT_UTF8 = "caf\udce9"


@pytest.mark.parametrize("flag", ["--title", "--highlight", "--tag", "--load-when"])
def test_a_stored_option_with_bytes_that_are_not_utf8_is_refused_as_the_text_is(tmp_path, monkeypatch, capsys, flag):
    """`remember TEXT` refuses bytes that are not UTF-8, but a summary, highlight, tag or trigger holding them was
    stored with U+FFFD in their place, the user's letter lost without a word."""
    from conftest import run_cli

    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    monkeypatch.chdir(proj)
    code, out, err = run_cli(capsys, "--home", str(tmp_path / "g"), "remember", "the deploy window is friday",
                             flag, NOT_UTF8)
    assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "UTF-8" in err, err
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert not m.inspect().notes


def test_the_utf8_restart_never_imports_a_module_from_the_working_directory(tmp_path):
    """In the C locale memdir starts itself again in UTF-8 mode; `python -m memdir` there put the working directory
    (any project a hook fires in) first on the module path, so a project's own `click.py` (or `yaml.py`, an `mcp/`
    folder) was imported by memdir: every command and hook failed there, or ran the project's code."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "click.py").write_text('raise SystemExit("a module of the project was imported")\n')
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g"), "PYTHONPATH": os.pathsep.join(sys.path),
           "LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0"}
    env.pop("PYTHONIOENCODING", None)
    # -P: started as the console script is, without the working directory on its path
    r = subprocess.run([sys.executable, "-P", "-m", "memdir", "status"], cwd=proj, env=env, capture_output=True,
                       timeout=120)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 0 and "imported" not in err, err
    assert "project root" in r.stdout.decode("utf-8")

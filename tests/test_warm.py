"""The warm hook path (memdir.hosts.warm): a running server answers `memdir hook` over a Unix socket; without one, or
when it declines, the hook runs in-process with the same output."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import memdir
from memdir.hosts import warm
from memdir.hosts.hooks import run_hook

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")

FIX = Path(__file__).parent / "fixtures" / "hooks"


@pytest.fixture
def short_home(monkeypatch):
    # a Unix socket path must stay under ~100 bytes: pytest's tmp_path can be longer
    d = Path(tempfile.mkdtemp(prefix="mdw-", dir="/tmp"))
    monkeypatch.setenv("MEMDIR_HOME", str(d))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def seeded(project, short_home):
    with memdir.open(project) as m:
        m.remember("Always run pnpm, never npm, in this repository.", category="rules")
        m.remember("The staging database listens on port 5433 at staging-db.internal.", category="facts")
    return project


def payload(project: Path, session: str = "5f1d2c3a-0b1e-4c55-9a27-3e6f0d1b2c4d") -> str:
    """The recorded prompt; another ``session`` for a call that must not count as a second copy of the first one
    (memdir's hooks registered twice: an identical call moments later gets no second block)."""
    text = (FIX / "claude_user_prompt.json").read_text(encoding="utf-8").replace("__CWD__", str(project))
    return text.replace("5f1d2c3a-0b1e-4c55-9a27-3e6f0d1b2c4d", session)


def stored_prompts(project: Path) -> list[str]:
    with memdir.open(project) as m:
        return [h.key for h in m.recall("staging database port 5433 nightly backup", k=50, kinds=["event"])]


def test_no_server_means_in_process(seeded):
    assert not warm.socket_path().exists()
    assert warm.ask("claude-code", "user-prompt", payload(seeded)) is None


def test_server_answers_like_the_in_process_hook_and_captures(seeded, short_home):
    expected = run_hook("claude-code", "session-start", payload(seeded))  # in process, captures nothing
    with warm.WarmServer() as srv:
        assert srv.start()
        assert oct(os.stat(srv.path).st_mode & 0o777) == "0o600"
        out = warm.ask("claude-code", "user-prompt", payload(seeded), timeout_s=30)
        # the prompt's block carries the matching entries; the rule (pnpm) comes once per session with SessionStart
        assert out is not None and "5433" in out and "pnpm" not in out
        assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
        assert srv.served == 1
        # a second call reuses the open store; a note written meanwhile by another process is seen
        with memdir.open(seeded) as m:
            m.remember("Nightly backup runs at 02:00 via cron.", category="facts")
        asked = payload(seeded).replace("Which port does the staging database listen on? I need to point the "
                                        "migration script at it.", "When does the nightly backup run?")
        out2 = warm.ask("claude-code", "user-prompt", asked, timeout_s=30)
        assert "Nightly backup" in out2 or "02:00" in out2
    assert not srv.path.exists()  # removed on close
    assert stored_prompts(seeded)  # the prompt was captured by the server
    assert expected  # the in-process hook gives a block too


def test_subprocess_hook_uses_the_server(seeded, short_home):
    with warm.WarmServer() as srv:
        assert srv.start()
        r = subprocess.run([sys.executable, "-m", "memdir", "hook", "claude-code", "user-prompt"],
                           input=payload(seeded).encode(), capture_output=True, cwd=str(seeded), timeout=120)
        assert r.returncode == 0, r.stderr
        assert "5433" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert srv.served == 1
        # MEMDIR_HOOK_WARM=0: in-process, same kind of answer, the server is not asked
        env = {**os.environ, "MEMDIR_HOOK_WARM": "0"}
        r = subprocess.run([sys.executable, "-m", "memdir", "hook", "claude-code", "user-prompt"], env=env,
                           input=payload(seeded, "another-session").encode(), capture_output=True, cwd=str(seeded), timeout=120)
        assert "5433" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert srv.served == 1


def test_server_declines_another_environment(seeded, monkeypatch):
    with warm.WarmServer() as srv:
        assert srv.start()
        monkeypatch.setenv("MEMDIR_INJECT_MAX_CHARS", "300")  # the caller's settings differ from the server's
        assert warm.ask("claude-code", "user-prompt", payload(seeded), timeout_s=30) is None
        assert srv.served == 0


def test_stale_socket_is_replaced_and_a_live_one_kept(short_home):
    path = warm.socket_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()  # bound, never listening: a server that died
    with warm.WarmServer() as first:
        assert first.start()
        second = warm.WarmServer()
        assert not second.start()  # the first one answers: the second does not steal the socket
        second.close()
        assert path.exists()
    assert not path.exists()


def test_server_fails_open_on_a_broken_payload(short_home):
    with warm.WarmServer() as srv:
        assert srv.start()
        assert warm.ask("claude-code", "user-prompt", "{not json", timeout_s=30) == ""


def _imported(stderr: bytes) -> set[str]:
    """Modules a ``python -X importtime`` process imported (from its stderr)."""
    return {line.split("|")[-1].strip() for line in stderr.decode().splitlines() if line.startswith("import time:")}


def test_console_entry_routes_hook_without_click(seeded):
    # the hook process leaves with os._exit: what it imported is read from -X importtime
    code = "import sys; sys.argv = ['memdir', 'hook', 'claude-code', 'user-prompt']; import memdir.__main__ as e; e.main()"
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], input=payload(seeded).encode(),
                       capture_output=True, cwd=str(seeded), timeout=120, env={**os.environ, "MEMDIR_HOOK_WARM": "0"})
    mods = _imported(r.stderr)
    assert "memdir.core" in mods and "click" not in mods and "memdir.engine.hybrid" not in mods
    assert "5433" in r.stdout.decode()


def test_console_entry_with_a_server_imports_nothing_but_the_thin_client(seeded, short_home):
    code = "import sys; sys.argv = ['memdir', 'hook', 'claude-code', 'user-prompt']; import memdir.__main__ as e; e.main()"
    with warm.WarmServer() as srv:
        assert srv.start()
        r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], input=payload(seeded).encode(),
                           capture_output=True, cwd=str(seeded), timeout=120)
        assert srv.served == 1
    assert r.returncode == 0
    assert "5433" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    mods = _imported(r.stderr)
    assert {m for m in mods if m.startswith("memdir")} == {"memdir", "memdir.__main__", "memdir.errors", "memdir.hosts",
                                                              "memdir.hosts.hookclient", "memdir.stdio"}
    assert not {"json", "re", "socket", "logging", "typing", "pathlib"} & mods


def test_protocol_1_clients_are_still_answered(seeded, short_home):
    with warm.WarmServer() as srv:
        assert srv.start()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(str(srv.path))
        req = {"v": 1, "host": "claude-code", "event": "user-prompt", "payload": payload(seeded),
               "project_dir": None, "cwd": str(seeded), "env": {}}
        s.sendall(json.dumps(req).encode() + b"\n")
        s.shutdown(socket.SHUT_WR)
        buf = b""
        while chunk := s.recv(65536):
            buf += chunk
        s.close()
        ans = json.loads(buf)
        assert ans["ok"] and "5433" in ans["out"]


def test_a_hand_edit_in_place_is_seen_by_the_next_call_and_notes_are_checked_once_per_call(seeded, short_home,
                                                                                           monkeypatch):
    from memdir.engine.root import Root

    with warm.WarmServer() as srv:
        assert srv.start()
        assert "5433" in warm.ask("claude-code", "user-prompt", payload(seeded), timeout_s=30)
        note = next(p for p in (seeded / ".memory" / "facts").glob("*.md") if "5433" in p.read_text(encoding="utf-8"))
        text = note.read_text(encoding="utf-8").replace("5433", "6543")
        with open(note, "r+", encoding="utf-8") as f:  # in place, as many editors save (no rename: same directory)
            f.write(text)
            f.truncate()
        st = note.stat()
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))  # a clock tick the snapshot trusts
        looks = []
        real = Root._unchanged
        monkeypatch.setattr(Root, "_unchanged", lambda self: looks.append(self.scope) or real(self))
        out = warm.ask("claude-code", "user-prompt", payload(seeded, "another-session"), timeout_s=30)
        assert "6543" in out and "5433" not in out
        assert sorted(looks) == sorted(set(looks))  # each root's notes looked at once per call, not twice

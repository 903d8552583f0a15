"""Siblings of C23: ``memdir import claude-code|codex`` routes each session by the ``cwd`` it recorded. Before, a
relative ``cwd`` (or a Windows path read on Linux) was looked up from the directory the import ran in, so a session
could land in whatever project that was; a session recorded in a subdirectory deleted since (``make clean``) was
skipped as ``cwd_missing`` although its project still exists and its hooks had stored its turns there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memdir
from memdir.portability.transcripts import import_host

def _claude_session(path: Path, session: str, cwd: str, prompt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    base = {"sessionId": session, "cwd": cwd, "version": "2.1.40", "userType": "external", "isSidechain": False}
    lines = [{**base, "type": "user", "uuid": f"{session}-u", "timestamp": "2026-04-01T10:00:00Z",
              "message": {"role": "user", "content": prompt}},
             {**base, "type": "assistant", "uuid": f"{session}-a", "timestamp": "2026-04-01T10:00:05Z",
              "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": f"Answer: {prompt}"}]}}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def _codex_session(path: Path, session: str, cwd: str, prompt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"timestamp": "2026-04-01T10:00:00Z", "type": "session_meta", "payload": {"id": session, "cwd": cwd}},
             {"timestamp": "2026-04-01T10:00:01Z", "type": "event_msg", "payload": {"type": "user_message", "message": prompt}},
             {"timestamp": "2026-04-01T10:00:02Z", "type": "event_msg",
              "payload": {"type": "agent_message", "message": f"Answer: {prompt}"}}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def _write(source: str, folder: Path, cwds: list[str]) -> None:
    for i, cwd in enumerate(cwds):
        prompt = f"prompt {i} about the release pipeline"
        if source == "claude-code":
            _claude_session(folder / f"-p{i}" / f"s{i}.jsonl", f"s{i}", cwd, prompt)
        else:
            _codex_session(folder / f"rollout-2026-04-01T10-00-00-{i}.jsonl", f"s{i}", cwd, prompt)


@pytest.mark.parametrize("source", ["claude-code", "codex"])
@pytest.mark.parametrize("projects", ["current", "all"])
def test_a_relative_recorded_cwd_is_not_read_from_where_the_import_runs(tmp_path, monkeypatch, source, projects):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(proj)  # "src/deep" and "C:\\Users\\bob\\proj" would be read from here
    (proj / "C:\\Users\\bob\\proj").mkdir()
    folder = tmp_path / "transcripts"
    _write(source, folder, ["src/deep", "C:\\Users\\bob\\proj", str(proj / "src")])
    with memdir.open(proj, home=tmp_path / "g") as m:
        out = import_host(m, source, folder, projects=projects, progress=False)
        assert out["sessions"]["imported"] == 1 and out["sessions"]["cwd_missing"] == 2, out["sessions"]
        assert sorted(e.text for e in m.recent(limit=10)) == ["Answer: prompt 2 about the release pipeline",
                                                             "prompt 2 about the release pipeline"]
    assert not (proj / "src" / "deep" / ".memory").exists() and not (proj / "C:\\Users\\bob\\proj" / ".memory").exists()


@pytest.mark.parametrize("source", ["claude-code", "codex"])
def test_a_session_recorded_in_a_deleted_subdirectory_goes_to_its_project(tmp_path, source):
    proj, other = tmp_path / "proj", tmp_path / "other"
    for p in (proj, other):
        (p / ".git").mkdir(parents=True)
    folder = tmp_path / "transcripts"
    _write(source, folder, [str(proj / "build" / "tmp"), str(tmp_path / "deleted-project" / "src")])
    with memdir.open(other, home=tmp_path / "g") as m:
        out = import_host(m, source, folder, projects="all", progress=False)
    assert out["sessions"]["imported"] == 1 and out["sessions"]["cwd_missing"] == 1, out["sessions"]
    assert out["missing_dirs"] == [str(tmp_path / "deleted-project" / "src")]
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert len(m.recent(limit=10)) == 2
    with memdir.open(other, home=tmp_path / "g") as m:
        assert m.recent(limit=10) == []  # nothing of either session in the project the import ran in
    assert not (proj / "build").exists() and not (tmp_path / "deleted-project").exists()


def test_a_record_naming_a_deleted_subdirectory_of_a_project_goes_to_that_project(tmp_path):
    from memdir.portability.routing import resolve

    proj, here = tmp_path / "proj", tmp_path / "here"
    for p in (proj, here):
        (p / ".git").mkdir(parents=True)
    assert resolve(str(proj / "build" / "tmp"), here) == (proj, None)
    assert resolve(str(tmp_path / "deleted-project" / "src"), here) == (None, "cwd_missing")

"""A project that once had a team server (remote.url) and then dropped it: doctor kept saying "remote delivery
[fail] … what is captured next cannot be delivered: no token" from the last send, though nothing is sent any more."""

from __future__ import annotations

import memdir


def test_doctor_forgets_a_delivery_failure_once_remote_url_is_removed(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMDIR_REMOTE_TOKEN", raising=False)
    monkeypatch.setenv("MEMDIR_REMOTE_URL", "http://127.0.0.1:9/v1")
    project = tmp_path / "webapp"
    (project / ".git").mkdir(parents=True)
    event = {"key": "k1", "role": "user", "text": "the invoices job runs nightly", "session": "s", "ts": 1_790_000_000}
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([event])
        assert any(c["check"] == "remote delivery" for c in m.doctor())  # the team server is still set: said
    monkeypatch.delenv("MEMDIR_REMOTE_URL")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert not [c for c in m.doctor() if c["check"] == "remote delivery"]

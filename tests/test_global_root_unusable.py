"""A global root this user cannot enter (made once under sudo) is left out of a read of both roots, with one
warning: the project's memories are still recalled and injected."""

import logging
import os

import memdir
from memdir import stores


def test_an_unreadable_global_root_leaves_the_project_working(tmp_path, project, monkeypatch, caplog):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("the numbats live in the project", category="facts")
        m.remember("a personal numbat note", category="facts", scope="global")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(home)) else real(p, mode))
    stores._SAID_UNUSABLE.clear()
    stores._USABLE.clear()  # the process looked once, before the test took the root away
    with caplog.at_level(logging.WARNING, logger="memdir"), memdir.open(project, home=home) as m:
        hits = m.recall("numbats")
        assert [h.scope for h in hits] == ["project"]
        assert "numbats live" in m.context("numbats")
        st = m.status()
        assert st["global"].get("unreadable") and st["project"]["notes"] == 1
    assert sum("cannot be read by this user" in r.getMessage() for r in caplog.records) == 1


def test_an_unreadable_global_root_is_left_out_before_the_project_has_a_root(tmp_path, project, monkeypatch):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("a personal numbat note", category="facts", scope="global")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(home)) else real(p, mode))
    stores._SAID_UNUSABLE.clear()
    stores._USABLE.clear()  # the process looked once, before the test took the root away
    with memdir.open(project, home=home) as m:  # no .memory in the project yet
        assert m.recall("numbats") == [] and m.context("numbats") == ""
        assert m.status()["global"].get("unreadable")


def test_distillation_leaves_an_unreadable_global_root_out(tmp_path, project, monkeypatch):
    from stub_model import StubModel, memories

    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("a personal numbat note", category="facts", scope="global")
    good = {"category": "decisions", "summary": "Deploy with pnpm", "body": "We deploy with pnpm: npm's lockfile broke CI."}
    with StubModel([memories(good)]) as stub:
        (project / ".memory").mkdir(exist_ok=True)
        (project / ".memory" / "config.toml").write_text(
            '[distill]\nprovider = "openai"\nmodel = "stub-1"\ntimeout_s = 5.0\n', encoding="utf-8")
        with memdir.open(project, home=home) as m:
            m.import_events([{"key": f"u:s1:{i}", "role": "user", "session": "s1", "ts": f"2026-10-01T10:{i:02d}:00Z",
                              "text": f"turn {i}: we deploy with pnpm since npm broke CI ({i})"} for i in range(6)])
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(home)) else real(p, mode))
        stores._SAID_UNUSABLE.clear()
        stores._USABLE.clear()  # the process looked once, before the test took the root away
        from memdir.engine.root import Root

        opened = Root.store

        def refused(self):  # what the OS says to another user (this test runs as root, whom no mode stops)
            if self.scope == "global":
                raise PermissionError(13, "Permission denied", str(self.db_path))
            return opened.fget(self)

        monkeypatch.setattr(Root, "store", property(refused))
        with memdir.open(project, home=home, config={"distill.url": stub.url}) as m:  # the URL: the user's own setting
            out = m.distill()
        assert not out["errors"] and [n["summary"] for n in out["notes"]] == ["Deploy with pnpm"]

"""Heat tiers (hysteresis, caps, sweep writes only changes), prune (preview, hour token, expiry), tombstones,
and the backfill/sweep/prune/doctor commands."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner

import memdir
from memdir.engine import tiers
from memdir.config import Config

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
TH = {"hot_enter": 0.6, "hot_exit": 0.4, "warm_enter": 0.3, "warm_exit": 0.15}


class Clock:
    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


def _open(tmp_path, clock, **cfg):
    (tmp_path / "p").mkdir(exist_ok=True)
    return memdir.open(tmp_path / "p", home=tmp_path / "h", config=cfg, clock=clock)


def test_heat_decays_by_half_life_and_pinned_never():
    assert tiers.heat(1.0, 0, 45 * 86400, 45) == pytest.approx(0.5)
    assert tiers.heat(1.0, 0, 90 * 86400, 45) == pytest.approx(0.25)
    assert tiers.heat(1.0, 0, 90 * 86400, 45, pinned=True) == 1.0
    assert tiers.heat(2.0, 0, 10 ** 9, 0) == 2.0


@pytest.mark.parametrize("h,prev,want", [
    (0.7, None, "hot"), (0.5, None, "warm"), (0.5, "hot", "hot"), (0.5, "warm", "warm"), (0.39, "hot", "warm"),
    (0.2, "warm", "warm"), (0.2, "cold", "cold"), (0.2, None, "cold"), (0.1, "warm", "cold"), (0.6, "cold", "hot"),
])
def test_hysteresis(h, prev, want):
    assert tiers.classify(h, prev, TH) == want


def test_boundary_memory_does_not_flip_on_sweeps(tmp_path):
    clock = Clock(T0)
    with _open(tmp_path, clock, **{"tiers.half_life_days": 45.0}) as m:
        m.import_events([{"key": "e", "text": "a boundary memory", "ts": T0}])
        seen = []
        for day in range(0, 200, 5):  # heat falls through every threshold once; each tier changes once
            clock.t = T0 + timedelta(days=day)
            m.sweep()
            seen.append(m.roots["project"].db.execute("SELECT tier FROM tiers").fetchone()[0])
        changes = [b for a, b in zip(seen, seen[1:]) if a != b]
        assert changes == ["warm", "cold"]


def test_sweep_writes_only_changed_rows_and_reinforcement(tmp_path):
    clock = Clock(T0)
    with _open(tmp_path, clock) as m:
        m.import_events([{"key": f"e{i}", "text": f"memory {i} about deploys", "ts": T0} for i in range(5)])
        first = m.sweep()["project"]
        assert first["written"] == 5 and first["hot"] == 5
        assert m.sweep()["project"]["written"] == 0
        clock.t = T0 + timedelta(days=50)  # heat 0.46: hot stays hot (exit 0.4)
        assert m.sweep()["project"]["written"] == 0
        clock.t = T0 + timedelta(days=70)  # heat 0.34 → warm
        s = m.sweep()["project"]
        assert s["warm"] == 5 and s["changed"] == 5
        block = m.context("memory 3 deploys", max_entries=1)  # only the injected one is reinforced
        assert "memory 3 about deploys" in block
        s = m.sweep()["project"]
        assert s["written"] == 1 and s["hot"] == 1
        row = m.roots["project"].db.execute("SELECT tier, heat0 FROM tiers WHERE ref = 'e3'").fetchone()
        assert row["tier"] == "hot" and row["heat0"] == pytest.approx(1 + 0.5 ** (70 / 45))


def test_caps_demote_by_heat(tmp_path):
    clock = Clock(T0 + timedelta(days=10))
    with _open(tmp_path, clock, **{"tiers.hot_max": 2, "tiers.warm_max": 1}) as m:
        m.import_events([{"key": f"e{i}", "text": f"memory {i}", "ts": T0 + timedelta(days=i)} for i in range(5)])
        c = m.sweep()["project"]
        assert (c["hot"], c["warm"], c["cold"]) == (2, 1, 2)
        tiers_by_ref = dict(m.roots["project"].db.execute("SELECT ref, tier FROM tiers"))
        assert tiers_by_ref["e4"] == tiers_by_ref["e3"] == "hot" and tiers_by_ref["e2"] == "warm"


def test_archive_after_idle_days(tmp_path):
    clock = Clock(T0 + timedelta(days=400))
    with _open(tmp_path, clock) as m:
        later, clock.t = clock.t, T0  # captured at the time (imported history starts hot at import: issue 13)
        m.import_events([{"key": "old", "text": "an old thing", "ts": T0}])
        clock.t = later
        m.remember("pinned rule", category="rules", pinned=True)
        c = m.sweep()["project"]
        assert c["archive"] == 1 and c["hot"] == 1


def _cold_store(tmp_path, clock):
    m = _open(tmp_path, clock)
    later, clock.t = clock.t, T0  # captured at the time, not imported later (issue 13 item 13)
    m.import_events([{"key": f"old{i}", "text": f"old chatter number {i}", "ts": T0} for i in range(3)])
    clock.t = later
    m.import_events([{"key": "new", "text": "fresh memory", "ts": clock.t}])
    m.remember("an old curated note", category="facts")
    return m


def test_prune_preview_then_delete_with_token(tmp_path):
    clock = Clock(T0 + timedelta(days=200, minutes=10))
    with _cold_store(tmp_path, clock) as m:
        pre = m.prune(90)
        assert pre["deleted"] is False and pre["count"] == 3 and pre["bytes"] > 0
        assert {s["id"] for s in pre["samples"]} == {"old0", "old1", "old2"}
        clock.t += timedelta(minutes=20)  # same hour: same token
        done = m.prune(90, token=pre["token"])
        assert done["deleted"] and done["count"] == 3
        assert m.get("old0") is None and m.get("new") is not None
        assert len(m.inspect().notes) == 1  # curated notes are never pruned
        assert m.status()["project"]["tombstones"] == 3


def test_prune_token_expires_with_the_hour(tmp_path):
    clock = Clock(T0 + timedelta(days=200, minutes=50))
    with _cold_store(tmp_path, clock) as m:
        tok = m.prune(90)["token"]
        clock.t += timedelta(minutes=15)
        with pytest.raises(memdir.UsageError, match="expired"):
            m.prune(90, token=tok)
        with pytest.raises(memdir.UsageError, match="expired"):
            m.prune(30, token=m.prune(90)["token"])  # a token is for its own --days
        assert m.get("old0") is not None
        with pytest.raises(memdir.UsageError):
            m.prune(-1)


def test_tombstones_block_resurrection_by_import_and_backfill(tmp_path):
    clock = Clock(T0 + timedelta(days=200))
    with _cold_store(tmp_path, clock) as m:
        m.prune(90, token=m.prune(90)["token"])
        again = m.import_events([{"key": "old0", "text": "old chatter number 0", "ts": T0},
                                 {"key": "other-key", "text": "old chatter number 1", "ts": T0}])
        assert again["stored"] == 0 and again["skipped"] == 2
    with _open(tmp_path, clock, **{"embed.provider": "fake"}) as m:
        assert m.backfill()["embedded"] == 2  # the note and "new" only
        refs = {r[0] for r in m.roots["project"].db.execute("SELECT ref FROM vectors")}
        assert not refs & {"old0", "old1", "old2"}


def test_tier_config_keys_registered():
    c = Config(overrides={"tiers.hot_max": 10})
    assert c.get("tiers.hot_max") == 10 and c.get("tiers.warm_max") == 12000


# ---- CLI ----------------------------------------------------------------------------------------------------
def _cli(tmp_path, *args, env=None):
    from memdir.cli.main import cli

    (tmp_path / "p").mkdir(exist_ok=True)
    return CliRunner().invoke(cli, ["--dir", str(tmp_path / "p"), "--home", str(tmp_path / "h"), *args], env=env or {})


def test_cli_sweep_prune_doctor_backfill(tmp_path):
    with _open(tmp_path, Clock(T0)) as m:
        m.import_events([{"key": "e1", "text": "the cli test memory", "ts": T0}])
    r = _cli(tmp_path, "sweep", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["project"]["written"] == 1
    r = _cli(tmp_path, "prune", "--days", "90")
    assert r.exit_code == 0 and "1 cold memory idle" in r.output
    r = _cli(tmp_path, "prune", "--days", "90", "--token", "bogus")
    assert isinstance(r.exception, memdir.UsageError) and "expired" in str(r.exception)  # main() maps it to exit 2
    r = _cli(tmp_path, "doctor", "--json")
    assert r.exit_code == 0, r.output
    assert {c["check"] for c in json.loads(r.output)} >= {"provider", "project index", "markdown"}
    r = _cli(tmp_path, "backfill")
    assert r.exit_code != 0 and "embed.provider" in (r.output + str(r.exception))
    r = _cli(tmp_path, "backfill", "--json", env={"MEMDIR_EMBED_PROVIDER": "fake"})
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["embedded"] == 1
    r = _cli(tmp_path, "doctor", env={"MEMDIR_EMBED_PROVIDER": "fake"})
    assert r.exit_code == 0 and "fake-hash-64" in r.output


def test_imported_history_starts_hot_at_import(tmp_path):
    """Issue 13 item 13: prune right after importing old history offers none of it; once idle it is prunable."""
    clock = Clock(T0 + timedelta(days=400))
    with _open(tmp_path, clock) as m:
        c = m.import_events([{"key": f"h{i}", "session": "s", "text": f"old imported turn about topic {i}",
                              "ts": T0 + timedelta(minutes=i)} for i in range(510)])
        assert c["stored"] == 510
        assert m.prune(30)["count"] == 0
        assert m.sweep()["project"]["hot"] == 510
        clock.t += timedelta(days=200)
        assert m.prune(30)["count"] == 510

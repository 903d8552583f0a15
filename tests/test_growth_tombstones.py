"""Months of forgets and prunes leave many tombstones; a hook's capture must not read them all (it grew slower with
each pruned event until it overran the hook's budget)."""

from memdir.store.sqlite.store import SqliteStore


def _no_whole_table(monkeypatch):
    def whole_table(self):
        raise AssertionError("a capture read every tombstone")

    monkeypatch.setattr(SqliteStore, "tombstoned", whole_table)


def test_a_capture_never_reads_every_tombstone_and_still_skips_a_forgotten_turn(m, monkeypatch):
    m.import_events([{"key": f"u:old:{i}", "role": "user", "text": f"an old turn about the build number {i}",
                      "session": "old"} for i in range(30)])
    assert m.forget_matching(prefix="u:old:", force=True)["count"] == 30
    _no_whole_table(monkeypatch)
    r = m.capture({"role": "user", "text": "how do we deploy the cache service today?", "session": "s1"})
    assert r.stored and r.reason == "stored"
    again = m.capture({"role": "user", "text": "an old turn about the build number 7", "session": "s2"})
    assert not again.stored and again.reason == "tombstoned"


def test_an_import_skips_tombstoned_keys_and_texts_without_reading_every_tombstone(m, monkeypatch):
    m.import_events([{"key": "k1", "role": "user", "text": "a forgettable event about caches"}])
    assert m.forget("k1")
    _no_whole_table(monkeypatch)
    got = m.import_events([{"key": "k1", "role": "user", "text": "another text under the forgotten key"},
                           {"key": "k2", "role": "user", "text": "a forgettable event about caches"},
                           {"key": "k3", "role": "user", "text": "a new event about the deploy"}])
    assert (got["stored"], got["skipped"]) == (1, 2)
    assert [h.id for h in m.recall("caches deploy")] == ["k3"]

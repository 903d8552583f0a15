"""Hostile text and times: naive local times (C25), bare and labelled secrets (C26, C44), accent folding (C31)."""

import base64
import json
import random
import string
import time
from datetime import date, datetime, timedelta, timezone

import pytest

import memdir
from memdir import timeutil
from memdir.capture.redact import find_secrets, redact
from tests.conftest import run_cli

UTC = timezone.utc


@pytest.fixture
def shanghai(monkeypatch):
    """The machine's zone is Asia/Shanghai (UTC+8, no DST) for the test."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


# ---- C25: a naive time is the machine's local time ------------------------------------------------------------
@pytest.mark.parametrize("value", ["2026-11-30 09:15", "2026-11-30T09:15", "2026-11-30T09:15:00.000",
                                   "2026/11/30 09:15", "9:15 am on 30 November, 2026", datetime(2026, 11, 30, 9, 15)])
def test_c25_naive_times_are_local(shanghai, value):
    assert timeutil.parse_ts(value) == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)


@pytest.mark.parametrize("value,want", [("2026-11-30T09:15Z", datetime(2026, 11, 30, 9, 15, tzinfo=UTC)),
                                        ("2026-11-30T09:15+08:00", datetime(2026, 11, 30, 1, 15, tzinfo=UTC)),
                                        ("2026-11-30T09:15-05:00", datetime(2026, 11, 30, 14, 15, tzinfo=UTC)),
                                        (1796001300, datetime(2026, 11, 30, 1, 15, tzinfo=UTC)),
                                        ("2026-11-30", datetime(2026, 11, 29, 16, 0, tzinfo=UTC)),
                                        (date(2026, 11, 30), datetime(2026, 11, 29, 16, 0, tzinfo=UTC))])
def test_c25_zoned_and_epoch_times_ignore_the_local_zone_dates_are_local_midnight(shanghai, value, want):
    assert timeutil.parse_ts(value) == want


def test_c25_iso_of_a_naive_time_agrees_with_parse_ts(shanghai):
    naive = datetime(2026, 11, 30, 9, 15)
    assert timeutil.iso(naive) == "2026-11-30T01:15:00.000Z" == timeutil.iso(timeutil.parse_ts(naive))
    assert timeutil.parse_ts(timeutil.iso(naive)) == timeutil.parse_ts(naive)  # read back: it does not move
    assert timeutil.local_text(timeutil.parse_ts(naive)) == "2026-11-30 09:15"


def test_c25_captured_and_imported_naive_times_are_stored_as_utc_and_shown_local(shanghai, project, tmp_path, capsys,
                                                                                monkeypatch):
    with memdir.open(project, home=tmp_path / "g") as m:
        r = m.capture({"role": "user", "text": "deploy the billing service to staging", "session": "s1",
                       "ts": "2026-11-30 09:15"})
        assert r.stored, r
        assert m.get(r.key).ts == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)
        c = m.import_events([{"key": "imp:1", "role": "user", "text": "rotate the staging certificates",
                              "session": "s2", "ts": datetime(2026, 11, 30, 9, 16)},
                             {"key": "imp:2", "role": "user", "text": "rename the queue to billing-jobs",
                              "session": "s2", "ts": "2026-11-30T09:17+08:00"}])
        assert c["stored"] == 2
        assert m.get("imp:1").ts == datetime(2026, 11, 30, 1, 16, tzinfo=UTC)
        assert m.get("imp:2").ts == datetime(2026, 11, 30, 1, 17, tzinfo=UTC)
        m.export(tmp_path / "out.jsonl")
        block = m.context("billing staging certificates queue", max_chars=4000)
    rows = [json.loads(ln) for ln in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    stamps = {r.get("key"): r.get("ts") for r in rows if r.get("type") == "event"}
    assert stamps["imp:1"].startswith("2026-11-30T01:16:00") and stamps["imp:1"].endswith("Z")  # export: UTC, Z
    assert "11-30" in block and "11-29" not in block
    code, out, _ = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "recent")
    assert code == 0 and "2026-11-30 09:15" in out and "2026-11-30 09:16" in out and "01:15" not in out
    code, out, _ = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "--json", "recent")
    assert "2026-11-30T01:15:00" in out  # machine-readable: UTC


def test_c25_importers_read_naive_file_times_as_local(shanghai, tmp_path):
    from memdir.portability.importers import aider, textlog

    assert textlog.time_from_name("2026-11-30_09-15-notes.md") == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)
    assert textlog.time_from_name("2026-11-30_09-15Z-notes.md") == datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    hist = tmp_path / ".aider.chat.history.md"
    hist.write_text("# aider chat started at 2026-11-30 09:15:00\n\n#### make the deploy script idempotent\n\n"
                    "Sure, I will change deploy.sh so a second run does nothing.\n", encoding="utf-8")
    evs = list(aider.iter_aider(hist))
    assert evs and timeutil.parse_ts(evs[0]["ts"]) == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)


# ---- C26: bare provider keys, a short prefix and a long random tail, no label ---------------------------------
_rng = random.Random(26)
_B62 = string.ascii_letters + string.digits


def _tail(n: int = 40) -> str:
    """A random base62 tail (built at run time: no live-looking key is committed)."""
    return "Zx9" + "".join(_rng.choice(_B62) for _ in range(n - 3))


def _b64(nbytes: int) -> str:
    return base64.b64encode(bytes(_rng.getrandbits(8) for _ in range(nbytes))).decode()


def _hex(n: int) -> str:
    return "".join(_rng.choice("0123456789abcdef") for _ in range(n))


_PREFIXES = ["m0-", "tvly-", "fc-", "pcsk_", "nvapi-", "co-", "zq7-", "acme_live_", "mk-v2-", "ak_"]
_CONTEXTS = ["remember {s} for the memory service", "{s}", "the key is `{s}`.", "MEM0_KEY={s}", 'cfg = {{"k": "{s}"}}',
             "key: {s}; then restart", "用这个 {s} 调用", "(see {s})"]


@pytest.mark.parametrize("prefix", _PREFIXES)
@pytest.mark.parametrize("n", [24, 32, 48])
def test_c26_bare_prefixed_key_is_redacted_whole(prefix, n):
    key = prefix + _tail(n)
    for ctx in _CONTEXTS:
        text = ctx.format(s=key)
        out = redact(text)
        assert key[len(prefix):][:12] not in out and key[-12:] not in out, (text, out)
        assert "[redacted:" in out and out.count("[redacted:") == 1, out


def test_c26_the_case_key_never_reaches_disk_or_output(project, tmp_path):
    key = "m0-" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm"  # the case's own (made-up) example
    tail = key[3:]
    with memdir.open(project, home=tmp_path / "g") as m:
        n = m.remember(f"the mem0 key for the staging memory service is {key} (rotate it monthly)",
                       category="facts", summary=f"mem0 staging key {key}", tags=["mem0"])
        m.capture({"role": "user", "session": "s", "text": f"set MEM0 to {key} in the staging env please"})
        outputs = [json.dumps(n.to_dict(), default=str), m.context("mem0 staging key", max_chars=20_000),
                   *(json.dumps(h.to_dict(), default=str) for h in m.recall("mem0 staging key", k=20))]
        m.roots["project"].db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    disk = b"\n".join(p.read_bytes() for d in (project / ".memory", tmp_path / "g") for p in sorted(d.rglob("*"))
                      if p.is_file())
    assert (project / ".memory" / "facts" / "index.md").exists() and (project / ".memory" / "ROOT.md").exists()
    for frag in (tail, tail[:12], tail[12:24], tail[-12:]):
        assert frag.encode() not in disk and not any(frag in o for o in outputs), frag
    assert "[redacted:api_key]" in outputs[0]


@pytest.mark.parametrize("text", [
    "toolu_01" + "A09q90qw90lq917835lq9Xy7Pz",  # tool-call, message and request ids are ids, not keys
    "msg_01" + "XFDUDYJgAACzvnptvVoYEL3d",
    "req_011C" + "SHtbQvXpHZ3zkj3cVk9Rb2",
    "chatcmpl-" + "9Xk2mLpQ7rT4vW8yZ1aB3cD5eF",
    "file-" + "AbC9dEf8GhI7jKl6MnO5pQr4",
    "test_ConversationPayloadWriterFactoryImplementation2024Edition",
    "def test_redaction_of_UserAccountSettings2FormHandler3():",
    "see /tmp/pytest-of-root/pytest-156/test_c25_importers_read_naive_0/x",
    "node_modules/.pnpm/react-dom_" + "18.2.0_react@18.2.0/node_modules",
    "static/js/main-" + "3f2a9c1d8b7e4f60a1b2c3d4e5f6a7b8" + ".js",
    "integrity sha512-3KMdmJr6r8kR1YOk7kQZ6u1M1y6nG8v9T0Y2c4vYQm0e6k0u1x2y3z4A5B6C7D8E9F0G1H2I3J4K5L6M7N8O9P==",
    "ws_023bc037ca71df15016a0195bb758c819ba5b12d072d9bb0ae",
    "rs_" + "68a1b2c3d4e5f60718293a4b5c6d7e8f",
    "pip install scikit-learn-intelex==2024.7.0",
    "https://example.com/watch/v-" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2",
    "user@host-" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2.local",
    "a UUID 123e4567-e89b-12d3-a456-426614174000 in the log",
])
def test_c26_ids_names_paths_and_hashes_are_not_prefixed_keys(text):
    assert find_secrets(text) == [], (text, find_secrets(text))


# ---- C44: long hex or base64 after key=, KEY=, token:, or on a line naming blob/base64 ---------------------------
@pytest.mark.parametrize("label", ["key=", "KEY=", "token:", "token: ", "Token=", "api.key=", "SECRET_KEY_BASE=",
                                   '"apiKey":"', "export MEM0_KEY=", "encryption_key := ", "KEY => '"])
@pytest.mark.parametrize("value", [_hex(32), _hex(40), _hex(64), _hex(64).upper(), _b64(16), _b64(32), _b64(64)],
                         ids=["hex32", "hex40", "hex64", "HEX64", "b64-16", "b64-32", "b64-64"])
def test_c44_long_hex_or_base64_after_a_key_label_is_redacted(label, value):
    out = redact(f"{label}{value}")
    core = value.rstrip("=")
    assert core[:12] not in out and core[-12:] not in out and "[redacted:" in out, out


@pytest.mark.parametrize("line", ["blob: {v}", "blob {v}", "the encryption blob is {v} (keep it)", "base64 key {v}",
                                  "base64-encoded master secret: {v}", "store this base64 value: {v}"])
@pytest.mark.parametrize("value", [_hex(64), _b64(32), _b64(48)], ids=["hex64", "b64-32", "b64-48"])
def test_c44_secret_on_a_line_naming_blob_or_base64_is_redacted(line, value):
    out = redact(line.format(v=value))
    assert value.rstrip("=")[:16] not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "sorted(rows, key=len)", "key=lambda r: r.created_at", "cache_key=" + "5d41402abc4b2a76b9719d911017c592",
    "key_id=" + "5d41402abc4b2a76b9719d911017c592ae8a52f0", "interface: wg0 public key: " + "iDOkPq2eH57bILCMFmfvYtOmZLcetwfAOzm+VEUZlx0=",
    "100644 blob 4b825dc642cb6eb9a060e54bf8d69288fbee4904\tREADME.md",
    "echo U29tZSBiYXNlNjQgZW5jb2RlZCB0ZXh0IHRoYXQgaXMgbm90IGEgc2VjcmV0Lg== | base64 -d",
    "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
    "key=ConversationPayloadWriterFactory2024", "token: refreshTokenExpiresAtTimestampMs",
    "commit=" + "3f9a1c2e8b7d4f6a0e5c9b1d2a3f4e5d6c7b8a90",
])
def test_c44_ordinary_key_values_hashes_and_data_are_kept(text):
    assert find_secrets(text) == [], (text, find_secrets(text))


# ---- C31: accent folding ----------------------------------------------------------------------------------------
_ACCENTED = [("La réunion de déploiement a lieu au café", ["cafe", "reunion", "deploiement", "Cafe", "CAFÉ"]),
             ("Zeitüberschreitung der Datenbankverbindung", ["zeituberschreitung", "Zeituberschreitung"]),
             ("São Paulo office: the naïve retry loop in señor Núñez's crème brûlée service", ["sao paulo", "naive",
                                                                                              "senor", "nunez",
                                                                                              "creme brulee"]),
             ("Tiếng Việt: lỗi kết nối cơ sở dữ liệu", ["tieng viet", "loi ket noi"])]


def _fold_off(monkeypatch):
    """The tokenizer as it was before v5 (no folding), for a store written by an older memdir."""
    from memdir.recall import tokenize as T

    monkeypatch.setattr(T, "fold", lambda w: w)
    monkeypatch.setattr(T, "TOKENIZER_VERSION", "4+snowball-en+cjk-unigrams")
    monkeypatch.setattr(T, "_tokenizer_id", (None, ""))
    T._word_cache.clear()


def _fold_on(monkeypatch):
    from memdir.recall import tokenize as T

    monkeypatch.undo()
    T._tokenizer_id = (None, "")
    T._word_cache.clear()


@pytest.mark.parametrize("text,queries", _ACCENTED)
def test_c31_unaccented_queries_find_accented_memories(m, text, queries):
    m.remember("an unrelated note about the staging database port 5433")
    n = m.remember(text)
    for q in queries:
        hits = m.recall(q)
        assert hits and hits[0].id == n.id, (q, [h.id for h in hits])


def test_c31_exact_spelling_ranks_first_where_both_exist(m):
    accented = m.remember("Meet at the café near the station after the réunion")
    plain = m.remember("Meet at the cafe near the station after the reunion")
    assert [h.id for h in m.recall("café")][:2] == [accented.id, plain.id]
    assert [h.id for h in m.recall("réunion café")][:2] == [accented.id, plain.id]
    assert {h.id for h in m.recall("cafe")[:2]} == {accented.id, plain.id}  # both found


def test_c31_chinese_and_other_scripts_are_not_folded():
    from memdir.recall.tokenize import fold, tokenize

    assert tokenize("部署脚本用 pnpm，数据库锁") == ["部署", "署脚", "脚本", "本用", "部", "署", "脚", "本", "用", "pnpm",
                                             "数据", "据库", "库锁", "数", "据", "库", "锁"]
    for word in ("привет", "йод", "ελληνικά", "नमस्ते", "ærø", "部署"):
        assert fold(word) == word
    assert fold("café") == "cafe" and fold("ễ") == "e" and fold("zeitüberschreitung") == "zeituberschreitung"


def test_c31_a_store_indexed_by_the_old_tokenizer_is_reindexed_on_open(project, tmp_path, monkeypatch):
    from memdir.store.sqlite import index

    _fold_off(monkeypatch)
    with memdir.open(project, home=tmp_path / "g") as m:
        n = m.remember("La réunion de déploiement a lieu au café")
        m.import_events([{"key": "e1", "role": "user", "session": "s", "text": "Zeitüberschreitung der Datenbankverbindung"},
                         {"key": "e2", "role": "assistant", "session": "s", "text": "raise the pool timeout"}])
        assert not m.recall("cafe") and not m.recall("zeituberschreitung")
    _fold_on(monkeypatch)
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.recall("cafe")[0].id == n.id and m.recall("reunion")[0].id == n.id
        assert m.recall("zeituberschreitung")[0].id == "e1"
        db = m.roots["project"].db
        assert index.check_fts(db) == []
        m.forget("e1")  # the contentless index is cleaned with the tokens it now holds
        assert index.check_fts(db) == [] and not m.recall("zeituberschreitung")


def test_c31_postgres_rows_written_by_the_old_tokenizer_are_refolded_by_m011(project, tmp_path, monkeypatch, pg):
    import psycopg

    def rows(url):
        with psycopg.connect(url) as c:
            fts = sorted(c.execute("SELECT d.ref, f.seq, f.tags, f.title, f.body, f.context, f.dl, f.tf::text "
                                   "FROM fts f JOIN docs d ON d.id = f.doc_id").fetchall())
            df = sorted(c.execute("SELECT term, sum(df) FROM term_df GROUP BY term HAVING sum(df) <> 0").fetchall())
            st = c.execute("SELECT sum(n), sum(total) FROM fts_stats").fetchone()
        return fts, df, st

    def write(url, home):
        with memdir.open(project, home=home, config={"store": url, "remote.project": "p"}) as m:
            m.remember("La réunion de déploiement a lieu au café", tags=["réunion"], summary="Réunion au café")
            m.import_events([{"key": f"e{i}", "role": "user", "session": "s", "ts": 1_700_000_000 + i, "text": t}
                             for i, t in enumerate(["Zeitüberschreitung der Datenbankverbindung", "raise the pool timeout",
                                                    "naïve retry loop in señor Núñez's service"])])

    old, fresh = pg.new_database(), pg.new_database()
    _fold_off(monkeypatch)
    write(old, tmp_path / "g1")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:
        assert not m.recall("cafe")
    with psycopg.connect(old, autocommit=True) as c:  # as before this memdir: schema v9
        c.execute("DELETE FROM memdir_schema WHERE version >= 10")
    _fold_on(monkeypatch)
    (project / ".memory").rename(tmp_path / "old-memory")
    write(fresh, tmp_path / "g2")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:  # m011 runs
        assert m.recall("cafe") and m.recall("zeituberschreitung")[0].id == "e0" and m.recall("naive")[0].id == "e2"
    assert rows(old) == rows(fresh)


@pytest.mark.parametrize("memory_index", ["off", "on"])  # FTS5 scoring, and postings held in memory
@pytest.mark.parametrize("stored,query", [("cafe\u0301 cre\u0300me", "cafe creme"),  # decomposed (NFD) input
                                          ("the café-bar deploy script", "cafe-bar"),
                                          ("the café-bar deploy script", "cafe"),
                                          ("ÉCOLE NORMALE SUPÉRIEURE", "ecole superieure"),
                                          ("La réunion de déploiement", "réunion"),
                                          ("la reunion de deploiement", "réunion")])  # and the reverse
def test_c31_siblings_on_both_sqlite_paths(project, tmp_path, memory_index, stored, query):
    with memdir.open(project, home=tmp_path / "g", config={"recall.memory_index": memory_index}) as m:
        m.remember("an unrelated note about the staging database port 5433")
        n = m.remember(stored)
        hits = m.recall(query)
        assert hits and hits[0].id == n.id, (stored, query, [h.id for h in hits])


def test_c25_the_days_a_question_names_are_local_days(shanghai):
    from memdir.recall.dates import windows

    now = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)  # 10:00 on Dec 1 in Shanghai
    noon = datetime(2026, 11, 30, 4, 0, tzinfo=UTC).timestamp()  # the middle of Nov 30 in Shanghai
    for when in (now, datetime(2026, 12, 1, 10, 0)):  # a naive now is local time too
        wins = windows("what did we decide on 2026-11-30?", when)
        assert len(wins) == 1 and (wins[0][0] + wins[0][1]) / 2 == noon, wins


def test_c25_log_lines_for_people_are_local(shanghai, project, tmp_path, capsys):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("the staging database listens on 5433")  # the skip log lives in a root that exists
        assert not m.capture({"role": "user", "session": "s", "text": "ok"}).stored
    code, out, _ = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "--json", "log", "skips")
    stamp = json.loads(out)[0]["ts"]
    assert stamp.endswith("Z")  # machine-readable: UTC
    code, out, _ = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "log", "skips")
    shown = timeutil.parse_ts(stamp) + timedelta(hours=8)
    assert code == 0 and out.startswith(shown.strftime("%Y-%m-%d %H:%M:%S")), (stamp, out)

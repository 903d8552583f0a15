"""How a doc's text is laid out on disk in the SQLite index (migration ``m009``): a plain head, a tail compressed
with zlib against a dictionary learnt from the store's own texts, and the ``memdir_unz`` SQL function that reads it
back. Rows are written through :func:`doc_columns`; :mod:`memdir.store.sqlite.index` and the data migrations of
:mod:`memdir.store.sqlite.migrations` use it."""

from __future__ import annotations

import sqlite3
import threading
import zlib
from typing import Any, Iterable

from memdir.store.sqlite import txn


# ---- the on-disk layout of a doc's text (migration m009) ------------------------------------------------------
# ``docs.text`` is a virtual generated column: ``text_head`` (the first TEXT_HEAD characters, plain: ranking reads
# them as the candidate's ``head``) || ``text_tail`` (the rest: plain TEXT, or a zlib BLOB when that is smaller),
# decompressed by the ``memdir_unz`` function every connection of :func:`_connect` registers. ``text_len`` is the
# text's length in characters. Rows are written by this module alone (:func:`doc_columns`).

#: characters of a text stored uncompressed at the start of its row
TEXT_HEAD = 60
#: the rest of a text is compressed when it has at least this many bytes and zlib saves a tenth of them
COMPRESS_MIN = 64


_writing = threading.local()

#: bytes of a store's compression dictionary: a zlib preset dictionary (RFC 1950 ``FDICT``) made of the first
#: texts the store holds, kept in ``meta`` (``zdict``, its Adler-32 in ``zdict_id``) and never changed. Short texts
#: share most of their words and phrasing with others (bench/results/speed-h12size2.md has the sizes)
ZDICT_BYTES = 8 * 1024
#: raw tail bytes written without a dictionary before one is made from them (they are then recompressed with it)
ZDICT_SAMPLE = 256 * 1024
#: a store's dictionary since m015: a Zstandard dictionary of this many bytes trained (``zstandard``'s COVER
#: trainer) on those first tails, kept in ``meta.zdict`` with ``meta.zdict_id`` = ``zstd:<its Adler-32>``; a tail
#: is a Zstandard frame at :data:`ZSTD_LEVEL` naming the dictionary's own id. On 10k real turns: tails 4.14 -> 3.72 MB (dictionary
#: included) against zlib with an 8 KB preset dictionary, 0.06 against 0.43 CPU s (bench/results/ingest.md). A store
#: that got a zlib dictionary before m015 keeps it (both are read).
ZSTD_DICT_BYTES = 64 * 1024
ZSTD_LEVEL = 3
#: the first bytes of every Zstandard frame (RFC 8878); never a valid zlib header (its check bits fail)
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class _Zstate:
    """A connection's view of its store's dictionary: ``did`` (Adler-32) and ``proto``, a compressor primed with it
    (copied per text: priming costs more than compressing a short text), or the tails written while there is none
    (``sample``: ``[(doc id, stored tail, raw bytes)]``)."""

    __slots__ = ("did", "zd", "proto", "sample", "size")

    def __init__(self) -> None:
        self.did: int | str | None = None
        self.zd: bytes | None = None
        self.proto: Any = None
        self.sample: list[tuple[int, Any, bytes]] = []
        self.size = 0

    def compressor(self) -> Any:
        """The compressor for this dictionary, made at the first text that needs it (a capture of a short text
        does not import ``zstandard``), or None without a dictionary."""
        if self.proto is None and self.zd is not None and self.did is not None:
            self.proto = _compressor(self.zd, self.did)
        return self.proto


class Connection(sqlite3.Connection):
    """The store's connections (``factory=`` of every ``sqlite3.connect`` in this package): each carries its own
    dictionary state, so it dies with the connection. A cache keyed by ``id(db)`` handed a new connection the
    state of a closed one whose id it reused (another store's gathered tails in this store's dictionary)."""

    zstate: "_Zstate | None" = None
    zread: "tuple[int, bytes] | None" = None
    zsread: "tuple[str, Any] | None" = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from memdir.store.sqlite import forks

        forks.track(self)  # closed in a forked child: never carried across fork()


#: zlib window bits with the dictionary (an 8 KB window holds the dictionary; a larger one, priming a 32 KB
#: dictionary, compressed 10k real turns' tails to 1.72 MB against 1.88 MB, but cost 71 µs a text against 41 µs,
#: plain zlib 27 µs: copying the primed compressor dominates)
ZWBITS = 13


def _compressor(zd: bytes, did: int | str) -> Any:
    """What :func:`_squeeze` compresses with: a zlib compressor primed with ``zd`` (copied per text), or for a
    Zstandard dictionary (``did`` = ``zstd:<id>``) a ``ZstdCompressor`` using it."""
    if isinstance(did, str):
        import zstandard

        return zstandard.ZstdCompressor(level=ZSTD_LEVEL, dict_data=zstandard.ZstdCompressionDict(zd),
                                        write_checksum=False)
    return zlib.compressobj(6, zlib.DEFLATED, ZWBITS, 7, zlib.Z_DEFAULT_STRATEGY, zd)


def _dict_id(value: Any) -> int | str | None:
    """``meta.zdict_id`` as the state keeps it: the Adler-32 of a zlib dictionary (an int), ``"zstd:<Adler-32>"``,
    or None."""
    if value is None or value == "":
        return None
    text = str(value)
    return text if text.startswith("zstd:") else int(text)


def _zstate(db: sqlite3.Connection) -> _Zstate:
    """The dictionary state of ``db``'s store as ``meta`` has it now (one small read per written doc: a dictionary
    made in a transaction that was rolled back is forgotten, one another process made is taken up)."""
    st = getattr(db, "zstate", None)
    if st is None:
        st = _Zstate()
        if isinstance(db, Connection):  # a foreign connection gets a fresh state each time: nothing gathered
            db.zstate = st
    row = db.execute("SELECT value FROM meta WHERE key = 'zdict_id'").fetchone()
    did = _dict_id(row[0]) if row is not None else None
    if did != st.did or (did is None and st.zd is not None):
        st.did, st.sample, st.size = did, [], 0
        st.zd = st.proto = None
        if did is not None:
            st.zd = _load_zdict(db, did)
    return st


def _load_zdict(db: sqlite3.Connection, did: int | str) -> bytes:
    """The dictionary ``meta.zdict``, checked against ``did`` (its Adler-32, for both kinds); raises
    ``sqlite3.DatabaseError`` when it is missing or damaged."""
    row = db.execute("SELECT value FROM meta WHERE key = 'zdict'").fetchone()
    zd = row[0] if row is not None else None
    want = int(did[5:]) if isinstance(did, str) else did
    if not isinstance(zd, bytes) or zlib.adler32(zd) != want:
        raise sqlite3.DatabaseError(f"the index's compression dictionary {did} is missing or damaged")
    return zd


def unz(db: sqlite3.Connection, blob: bytes) -> str:
    if getattr(_writing, "on", False):  # see write: a value SQLite computes for a row it writes, never read
        return ""
    if blob[:4] == ZSTD_MAGIC:
        return _unzstd(db, blob)
    if len(blob) > 6 and blob[1] & 0x20:  # FDICT: compressed with the store's dictionary, named by its Adler-32
        did = int.from_bytes(blob[2:6], "big")
        st = getattr(db, "zstate", None)
        zd = st.zd if st is not None and st.did == did else None
        seen = getattr(db, "zread", None)
        if zd is None and seen is not None and seen[0] == did:
            zd = seen[1]
        if zd is None:
            zd = _load_zdict(db, did)
            if isinstance(db, Connection):
                db.zread = (did, zd)
        d = zlib.decompressobj(15, zd)  # 15: accepts any window the header names
        return (d.decompress(blob) + d.flush()).decode("utf-8")
    return zlib.decompress(blob).decode("utf-8")


def _unzstd(db: sqlite3.Connection, blob: bytes) -> str:
    """A Zstandard tail, decompressed with the store's dictionary (cached on the connection: ``(frame dictionary
    id, decompressor)``); a frame naming another dictionary than the store's is a ``sqlite3.DatabaseError``."""
    import zstandard

    fid = zstandard.get_frame_parameters(blob).dict_id
    seen = getattr(db, "zsread", None)
    if seen is None or seen[0] != fid:
        row = db.execute("SELECT value FROM meta WHERE key = 'zdict_id'").fetchone()
        did = _dict_id(row[0]) if row is not None else None
        if not isinstance(did, str):
            raise sqlite3.DatabaseError("the index's compression dictionary (zstd) is missing")
        zd = zstandard.ZstdCompressionDict(_load_zdict(db, did))
        if zd.dict_id() != fid:
            raise sqlite3.DatabaseError(f"a text names compression dictionary {fid}, not the index's {zd.dict_id()}")
        seen = (fid, zstandard.ZstdDecompressor(dict_data=zd))
        if isinstance(db, Connection):
            db.zsread = seen
    return seen[1].decompress(blob).decode("utf-8")


def write(db: sqlite3.Connection, sql: str, args: Any, *, many: bool = False) -> sqlite3.Cursor:
    """Run an INSERT/UPDATE of ``docs`` that reads no ``text``: SQLite computes every virtual column of a row it
    writes (for constraints this table does not have), which would decompress each text once more for nothing."""
    _writing.on = True
    try:
        return db.executemany(sql, args) if many else db.execute(sql, args)
    finally:
        _writing.on = False


def text_columns(text: str, proto: Any = None) -> tuple[str, str | bytes | None, int]:
    """``(text_head, text_tail, text_len)`` as stored for ``text``; ``proto``: what :func:`_squeeze` takes (a
    compressor primed with the store's dictionary, a connection's state holding it, or None)."""
    head, rest = text[:TEXT_HEAD], text[TEXT_HEAD:]
    if not rest:
        return head, None, len(text)
    raw = rest.encode("utf-8")
    z = _squeeze(raw, proto)
    return head, (z if z is not None else rest), len(text)


def _squeeze(raw: bytes, proto: Any) -> bytes | None:
    """``raw`` compressed (``proto``: a compressor, a connection's :class:`_Zstate`, or None: zlib without a
    dictionary), or None when that does not save a tenth of it (or it is too short to try)."""
    if len(raw) < COMPRESS_MIN:
        return None
    if isinstance(proto, _Zstate):
        proto = proto.compressor()
    if proto is not None and not hasattr(proto, "copy"):  # a ZstdCompressor
        z = proto.compress(raw)
    elif proto is not None:
        c = proto.copy()
        z = c.compress(raw) + c.flush()
    else:
        z = zlib.compress(raw, 6)
    return z if len(z) * 10 < len(raw) * 9 else None


# ---- the content hash and the time (migration m014) --------------------------------------------------------
# ``docs.content_sha256`` and ``docs.ts`` are virtual generated columns too: the hash is stored in ``sha`` as its 32
# bytes (a value that is not 64 lowercase hex digits, e.g. from an older team client, as the text itself), the ISO
# time in ``ts_raw`` only when SQLite's own rendering of ``ts_epoch`` would differ from it (another zone, precision
# or spelling); readers keep reading ``content_sha256`` and ``ts``, lookups by hash go through :func:`sha_key`.

#: ``docs.content_sha256`` from ``docs.sha``
SHA_EXPR = "CASE WHEN typeof(sha) = 'blob' THEN lower(hex(sha)) ELSE sha END"
#: ``docs.ts`` from ``docs.ts_raw`` / ``docs.ts_epoch`` (ISO 8601 UTC with milliseconds, as memdir writes it)
TS_DERIVED = "strftime('%Y-%m-%dT%H:%M:%fZ', ts_epoch, 'unixepoch')"
TS_EXPR = f"coalesce(ts_raw, {TS_DERIVED})"
#: the value bound for ``ts_raw``: NULL when the time is exactly derivable (SQLite itself compares)
TS_RAW_SQL = "NULLIF(?, strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'))"


def sha_key(sha: Any) -> Any:
    """What ``docs.sha`` holds for the hex hash ``sha``: its 32 bytes, or ``sha`` unchanged when it is not 64
    lowercase hex digits."""
    if isinstance(sha, str) and len(sha) == 64:
        try:
            b = bytes.fromhex(sha)
        except ValueError:
            return sha
        if b.hex() == sha:
            return b
    return sha


def doc_columns(db: sqlite3.Connection, row: dict[str, Any]) -> tuple[dict[str, Any], _Zstate]:
    """A docs row as written: ``text`` becomes its stored columns (with the store's dictionary when it has one),
    ``content_sha256`` its bytes (``sha``), ``ts`` goes to ``ts_raw`` (see :func:`insert_sql`)."""
    st = _zstate(db)
    out = {k: v for k, v in row.items() if k not in ("text", "content_sha256", "ts")}
    out["text_head"], out["text_tail"], out["text_len"] = text_columns(row["text"], st)
    out["sha"] = sha_key(row["content_sha256"])
    out["ts_raw"] = row["ts"]
    return out, st


def insert_sql(verb: str, cols: dict[str, Any]) -> tuple[str, list[Any]]:
    """``(sql, params)`` inserting the columns ``cols`` of :func:`doc_columns` into ``docs`` (``verb``: ``INSERT``
    or ``INSERT OR IGNORE``): ``ts_raw`` is bound as :data:`TS_RAW_SQL` (NULL when ``ts_epoch`` renders it)."""
    marks, params = [], []
    for k, v in cols.items():
        if k == "ts_raw":
            marks.append(TS_RAW_SQL)
            params += [v, cols["ts_epoch"]]
        else:
            marks.append("?")
            params.append(v)
    return f"{verb} INTO docs({', '.join(cols)}) VALUES ({', '.join(marks)})", params


def compress_all(db: sqlite3.Connection) -> int:
    """Give a store without a compression dictionary one, made from its first texts, and recompress every tail
    with it (m011 for an existing store; :func:`open_index` for a store filled one capture at a time, whose
    writers never gathered :data:`ZDICT_SAMPLE` bytes in one process). Returns rows recompressed (0: no dictionary
    made: there is one, or too little text yet). Caller holds a write transaction."""
    if db.execute("SELECT 1 FROM meta WHERE key = 'zdict_id'").fetchone() is not None:
        return 0
    sample, size = [], 0
    for (tail,) in db.execute("SELECT text_tail FROM docs WHERE text_tail IS NOT NULL ORDER BY id"):
        raw = zlib.decompress(tail) if isinstance(tail, bytes) else tail.encode("utf-8")
        sample.append(raw)
        size += len(raw)
        if size >= ZDICT_SAMPLE:
            break
    if size < ZDICT_SAMPLE or not make_zdict(db, sample):
        return 0
    st = _zstate(db)
    n, last = 0, 0
    while True:
        rows = db.execute("SELECT id, text_tail FROM docs WHERE id > ? AND text_tail IS NOT NULL ORDER BY id LIMIT 2000",
                          (last,)).fetchall()
        if not rows:
            return n
        upd = []
        for doc_id, tail in rows:
            raw = zlib.decompress(tail) if isinstance(tail, bytes) else tail.encode("utf-8")
            z = _squeeze(raw, st)
            if z is not None and len(z) < len(tail if isinstance(tail, bytes) else raw):
                upd.append((z, doc_id))
        write(db, "UPDATE docs SET text_tail = ? WHERE id = ?", upd, many=True)
        n += len(upd)
        last = rows[-1][0]


def maybe_compress_all(db: sqlite3.Connection) -> int:
    """At open: a store without a dictionary that now holds enough text gets one (:func:`compress_all`). Returns the
    rows rewritten (the caller then settles the file)."""
    if db.execute("SELECT 1 FROM meta WHERE key = 'zdict_id'").fetchone() is not None:
        return 0
    got = db.execute("SELECT sum(n) FROM (SELECT text_len - ? AS n FROM docs WHERE text_tail IS NOT NULL LIMIT 4000)",
                     (TEXT_HEAD,)).fetchone()[0]
    if not got or got < ZDICT_SAMPLE:
        return 0
    try:
        db.execute("BEGIN IMMEDIATE")
        n = compress_all(db)
        db.execute("COMMIT")
    except BaseException:
        txn.rollback(db)
        raise
    return n


def learn(db: sqlite3.Connection, st: _Zstate, doc_id: int, cols: dict[str, Any]) -> None:
    """Without a dictionary yet: keep doc ``doc_id``'s tail; once :data:`ZDICT_SAMPLE` bytes are kept, make the
    store's dictionary from them and recompress those rows with it. Caller holds the transaction that wrote it."""
    tail = cols["text_tail"]
    if st.zd is not None or tail is None:
        return
    raw = zlib.decompress(tail) if isinstance(tail, bytes) else tail.encode("utf-8")
    st.sample.append((doc_id, tail, raw))
    st.size += len(raw)
    if st.size >= ZDICT_SAMPLE:
        make_zdict(db, [r for _, _, r in st.sample], rows=st.sample)


def make_zdict(db: sqlite3.Connection, texts: list[bytes], rows: Iterable[tuple[int, Any, bytes]] = ()) -> bool:
    """Make the store's compression dictionary from ``texts`` (raw tails, oldest first: the last
    :data:`ZDICT_BYTES` of them) unless it has one, and recompress ``rows`` (``(doc id, stored tail, raw)``; a row
    whose tail changed meanwhile is left). Returns True when it was made. Caller holds a write transaction."""
    if db.execute("SELECT 1 FROM meta WHERE key = 'zdict_id'").fetchone() is not None:
        return False
    zd, did = _train(texts)
    if zd is None:
        zd = b"".join(texts)[-ZDICT_BYTES:]
        if len(zd) < 1024:
            return False
        did = zlib.adler32(zd)
    db.execute("INSERT INTO meta(key, value) VALUES ('zdict', ?)", (zd,))
    db.execute("INSERT INTO meta(key, value) VALUES ('zdict_id', ?)", (str(did),))
    st = _zstate(db)
    upd = []
    for doc_id, stored, raw in rows:
        z = _squeeze(raw, st)
        if z is not None and len(z) < len(stored if isinstance(stored, bytes) else raw):
            upd.append((z, doc_id, stored))
    if upd:
        write(db, "UPDATE docs SET text_tail = ? WHERE id = ? AND text_tail = ?", upd, many=True)
    return True


def _train(texts: list[bytes]) -> tuple[bytes | None, str | None]:
    """A Zstandard dictionary trained on ``texts`` and its ``zstd:<id>``, or ``(None, None)`` when the trainer cannot
    make one of them (too few or too alike: the store then gets a zlib dictionary as before m015)."""
    try:
        import zstandard

        d = zstandard.train_dictionary(ZSTD_DICT_BYTES, texts, level=ZSTD_LEVEL)
    except ImportError:  # a broken install without it: zlib, which every Python has
        return None, None
    except zstandard.ZstdError:
        return None, None
    zd = d.as_bytes()
    return zd, f"zstd:{zlib.adler32(zd)}"


#: storage columns of docs left out of the rows handed to callers (they read ``text``)
STORAGE_COLUMNS = ("text_head", "text_tail", "ctx_prev", "ctx_next", "sha", "ts_raw")


def public_row(r: sqlite3.Row | dict[str, Any]) -> dict[str, Any]:
    """A docs row as a dict without its storage columns (:data:`STORAGE_COLUMNS`)."""
    d = dict(r)
    for k in STORAGE_COLUMNS:
        d.pop(k, None)
    return d

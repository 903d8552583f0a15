"""SQL fragments and term helpers every part of the PostgreSQL store shares: the docs columns, the person and
project guards of row-level security, the per-person rehearsal join, and the packed per-field term counts."""

from __future__ import annotations

import json
from collections import Counter
from typing import Iterable

DOC_COLUMNS = ("kind", "ref", "content_sha256", "role", "category", "note_kind", "session", "ts", "ts_epoch", "summary",
               "highlight", "text", "tags", "load_when", "pinned", "supersedes", "superseded_by", "path", "mtime_ns", "size",
               "meta", "handle")


FIELDS = ("tags", "title", "body", "context")


#: the person a client connection writes as (``''``: no token, e.g. the schema owner), evaluated once per statement
ME = "(SELECT coalesce(memdir_person(), ''))"


#: rows of ``PROJECT_TABLES``-like tables a connection may see (m007): ``{shareable}`` says which rows the project's
#: sharing opens to its other members
PROJECT_OK = "project = current_setting('app.project', true) AND (SELECT memdir_project_ok())"


OWN = f"(owner = '' OR owner = {ME})"


#: the recall counter a connection ranks a ``docs d`` row with (m009): its person's own plus an ownerless one, as
#: ``r.count`` / ``r.last`` (NULL when none)
REHEARSAL = ("LEFT JOIN LATERAL (SELECT sum(x.count)::integer AS count, max(x.last) AS last FROM rehearsal x "
              f"WHERE x.project = d.project AND x.ref = d.ref AND x.owner IN ('', {ME})) r ON true")


def lexeme(t: str) -> str:
    """``t`` as a one-lexeme tsquery literal (quoted; ``'`` doubled, ``\\`` escaped): never parsed, never an error."""
    return "'" + t.replace("\\", "\\\\").replace("'", "''") + "'"


def tsv_tokens(*streams: str) -> list[str]:
    return list(dict.fromkeys(t for s in streams for t in s.split()))


#: a frequent term's newest postings are looked for in the newest ``CAP_WINDOW · PER_TERM_CAP · N / n_t`` rows
CAP_WINDOW = 2.0


#: bits of each field's count in a packed ``fts.tf`` value; the most frequent first, so most values are small numbers
TF_BITS = 12


TF_SHIFT = {"body": 0, "context": 12, "title": 24, "tags": 36}


TF_MAX = (1 << TF_BITS) - 1


def tf_json(fields: Iterable[str]) -> str:
    """``{term: packed counts}`` of a full-text row (fields: tags, title, body, context) as JSON (``fts.tf``): the
    term's count in each field, :data:`TF_BITS` bits at :data:`TF_SHIFT` (at most :data:`TF_MAX`; BM25's tf part has
    long saturated there). One number per term keeps the column small: it is read for every posting recall scores."""
    packed: Counter = Counter()
    for f, sh in zip(fields, (TF_SHIFT[x] for x in FIELDS)):
        if f:
            for t, n in Counter(f.split()).items():
                packed[t] += min(n, TF_MAX) << sh
    return json.dumps(packed, ensure_ascii=False, separators=(",", ":"))

#: the (NOLOGIN) role a team's client logins are made members of (:func:`memdir.store.postgres.admin.grant_client`)
CLIENT_ROLE = "memdir_client"

LOCK_KEY = 0x6D656D646972  # 'memdir': the advisory lock held while migrating

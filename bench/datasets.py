"""Loaders for the quality benchmarks in ``../shared/data`` (see its README for sources and licences).

Each loader returns a list of :class:`Case`: one store's worth of items (indexed in a fresh store)
and the queries asked against it, with their gold ids. The runner in ``bench/quality.py`` does not
know which benchmark it is running beyond the metric spec.

Bad input (missing file, unexpected shape) raises :class:`DataError` with a one-line message. Gold ids
that cannot be resolved are never dropped silently: each loader records them in ``Case.notes``.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

__all__ = [
    "DataError",
    "Item",
    "Query",
    "Case",
    "load_locomo",
    "load_longmemeval",
    "load_madial",
    "LOCOMO_FILE",
    "LONGMEMEVAL_FILE",
    "MADIAL_DIR",
]

LOCOMO_FILE = "locomo/locomo_dev.json"
LONGMEMEVAL_FILE = "longmemeval/longmemeval_s_dev.json.gz"
MADIAL_DIR = "cjk/madial"

LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
"""LoCoMo ``category`` codes 1-4 (5 = adversarial, not used: it has no evidence to retrieve).
Names follow the dataset's usual reading in the literature; the numeric code is kept in the output."""


class DataError(Exception):
    """A benchmark file is missing or not in the expected shape (message is one line)."""


@dataclass(frozen=True)
class Item:
    """One indexed unit: an event (a conversation turn) or a note (a MADial memory).

    key: unique id within its case; group: the session it belongs to (for session-level metrics);
    ts: ISO 8601 UTC string or None; role: "user"/"assistant" for events; tags: extra labels.
    """

    key: str
    text: str
    group: str
    ts: str | None = None
    role: str = "user"
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Query:
    """One question: ``relevant`` are gold item keys (may be empty when only sessions are known),
    ``relevant_groups`` the gold sessions; ``label`` is the category/type it is reported under."""

    qid: str
    text: str
    label: str
    relevant: frozenset[str] = frozenset()
    relevant_groups: frozenset[str] = frozenset()
    ts: str | None = None  # when the question is asked (ISO 8601 UTC; LongMemEval's question_date), else None


@dataclass
class Case:
    """A fresh store's worth of items plus the queries asked against it."""

    name: str
    items: list[Item]
    queries: list[Query]
    notes: list[str] = field(default_factory=list)

    def group_of(self) -> dict[str, str]:
        """Map item key -> group (session)."""
        return {it.key: it.group for it in self.items}


def _read_json(path: Path):
    if not path.is_file():
        raise DataError(f"benchmark file not found: {path} (pass --data pointing at shared/data)")
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as f:
                return json.load(f)
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataError(f"cannot read {path}: {e}") from None


# ----------------------------------------------------------------------------------------- LoCoMo

_LOCOMO_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)


def parse_locomo_date(s: str) -> str | None:
    """``"1:56 pm on 8 May, 2023"`` -> ``"2023-05-08T13:56:00+00:00"``; None when unparseable."""
    m = _LOCOMO_DATE.search(s or "")
    if not m:
        return None
    hh, mm, ampm, day, month, year = m.groups()
    try:
        mon = datetime.strptime(month[:3], "%b").month
    except ValueError:
        return None
    h = int(hh) % 12 + (12 if ampm.lower() == "pm" else 0)
    return datetime(int(year), mon, int(day), h, int(mm), tzinfo=timezone.utc).isoformat()


_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def _locomo_evidence(raw) -> tuple[list[str], list[str]]:
    """Normalise LoCoMo evidence strings. Returns (dia_ids, unparseable).

    The file has a few malformed ids ("D8:6; D9:17" holds two, "D:11:26" has a stray colon);
    those are repaired, anything else that does not look like ``D<session>:<turn>`` is returned
    as unparseable.
    """
    ids, bad = [], []
    for e in raw or []:
        found = _EVIDENCE.findall(str(e))
        if not found:
            bad.append(str(e))
        ids.extend(f"D{s}:{t}" for s, t in found)
    return ids, bad


def locomo_turn_text(turn: dict) -> str:
    """``speaker: text`` plus `` [image: <caption>]`` when the turn shared a photo."""
    text = f"{turn.get('speaker', '?')}: {turn.get('text', '')}"
    cap = turn.get("blip_caption")
    if cap:
        text += f" [image: {cap}]"
    return text


def load_locomo(data_dir: Path | str, *, categories=(1, 2, 3, 4)) -> list[Case]:
    """Load ``locomo/locomo_dev.json``: one Case per conversation.

    Items: every turn, key = its ``dia_id`` (e.g. ``D3:7``), group = ``S<n>`` (its session), ts = the
    session's date. Queries: questions whose category is in ``categories`` and that have evidence;
    ``relevant`` = evidence dia_ids present in the conversation, ``relevant_groups`` their sessions.
    Evidence ids not found in the conversation are dropped from the gold set and listed in
    ``Case.notes``; a question left without evidence is skipped and listed too.
    Raises: DataError on a missing file or unexpected shape.
    """
    data = _read_json(Path(data_dir) / LOCOMO_FILE)
    if not isinstance(data, list):
        raise DataError(f"{LOCOMO_FILE}: expected a list of conversations")
    cases = []
    for conv in data:
        try:
            name = conv["sample_id"]
            c = conv["conversation"]
            qa = conv["qa"]
        except (KeyError, TypeError):
            raise DataError(f"{LOCOMO_FILE}: a conversation lacks sample_id/conversation/qa") from None
        items: list[Item] = []
        sessions = sorted(
            (int(k.split("_")[1]) for k in c if re.fullmatch(r"session_\d+", k)),
        )
        for n in sessions:
            ts = parse_locomo_date(c.get(f"session_{n}_date_time", ""))
            for turn in c[f"session_{n}"]:
                items.append(Item(key=turn["dia_id"], text=locomo_turn_text(turn), group=f"S{n}", ts=ts,
                                  role="user"))
        keys = {it.key for it in items}
        notes: list[str] = []
        queries: list[Query] = []
        for i, q in enumerate(qa):
            cat = q.get("category")
            if cat not in categories or not q.get("evidence"):
                continue
            ids, bad = _locomo_evidence(q["evidence"])
            missing = [e for e in ids if e not in keys]
            if bad or missing:
                notes.append(f"{name} q{i}: evidence not in conversation, dropped from gold: {bad + missing}")
            rel = frozenset(e for e in ids if e in keys)
            if not rel:
                notes.append(f"{name} q{i}: no usable evidence left, question skipped")
                continue
            groups = frozenset(f"S{e[1:].split(':')[0]}" for e in rel)
            label = f"{cat}-{LOCOMO_CATEGORIES.get(cat, '?')}"
            queries.append(Query(qid=f"{name}/q{i}", text=str(q["question"]), label=label, relevant=rel,
                                 relevant_groups=groups))
        cases.append(Case(name=name, items=items, queries=queries, notes=notes))
    return cases


# ------------------------------------------------------------------------------------ LongMemEval

def parse_lme_date(s: str) -> str | None:
    """``"2023/05/20 (Sat) 02:21"`` -> ``"2023-05-20T02:21:00+00:00"``; None when unparseable."""
    m = re.match(r"(\d{4})/(\d{2})/(\d{2})\D*(\d{2}):(\d{2})", s or "")
    if not m:
        return None
    y, mo, d, h, mi = map(int, m.groups())
    return datetime(y, mo, d, h, mi, tzinfo=timezone.utc).isoformat()


def load_longmemeval(data_dir: Path | str, *, roles=("user", "assistant")) -> list[Case]:
    """Load ``longmemeval/longmemeval_s_dev.json.gz``: one Case per question (its own haystack).

    Items: each haystack session's turns whose role is in ``roles``; key = ``<session id>#<turn index>``
    (turn index counts all turns, so keys are stable across role filters), group = session id, ts =
    the haystack date. A session id repeated within one haystack gets ``~2``, ``~3`` appended to its
    keys (group unchanged) and a note. Query: the question, label = ``question_type``,
    ``relevant_groups`` = ``answer_session_ids``, ``ts`` = ``question_date``, ``relevant`` = indexed turns marked ``has_answer``
    (may be empty: turn-level recall is then not computed for that question).
    Raises: DataError on a missing file or unexpected shape.
    """
    data = _read_json(Path(data_dir) / LONGMEMEVAL_FILE)
    if not isinstance(data, list):
        raise DataError(f"{LONGMEMEVAL_FILE}: expected a list of questions")
    cases = []
    for q in data:
        try:
            qid = q["question_id"]
            sids, dates, sessions = q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]
            answer_sids = q["answer_session_ids"]
        except (KeyError, TypeError):
            raise DataError(f"{LONGMEMEVAL_FILE}: a question lacks haystack fields") from None
        items: list[Item] = []
        notes: list[str] = []
        seen: dict[str, int] = {}
        relevant = set()
        for sid, date, turns in zip(sids, dates, sessions):
            seen[sid] = seen.get(sid, 0) + 1
            prefix = sid if seen[sid] == 1 else f"{sid}~{seen[sid]}"
            if seen[sid] > 1:
                notes.append(f"{qid}: session {sid} appears {seen[sid]} times in the haystack; keyed {prefix}")
            ts = parse_lme_date(date)
            for j, t in enumerate(turns):
                if t.get("role") not in roles:
                    continue
                key = f"{prefix}#{j}"
                items.append(Item(key=key, text=str(t.get("content", "")), group=sid, ts=ts, role=t["role"]))
                if t.get("has_answer"):
                    relevant.add(key)
        missing = [s for s in answer_sids if s not in seen]
        if missing:
            notes.append(f"{qid}: answer sessions not in haystack: {missing}")
        groups = frozenset(s for s in answer_sids if s in seen)
        if not groups:
            notes.append(f"{qid}: no answer session in the haystack, question skipped")
            queries = []
        else:
            queries = [Query(qid=qid, text=str(q["question"]), label=str(q.get("question_type", "?")),
                             relevant=frozenset(relevant), relevant_groups=groups,
                             ts=parse_lme_date(str(q.get("question_date", ""))))]
        cases.append(Case(name=qid, items=items, queries=queries, notes=notes))
    return cases


# ---------------------------------------------------------------------------------------- MADial

def _read_jsonl(path: Path) -> list:
    if not path.is_file():
        raise DataError(f"benchmark file not found: {path} (pass --data pointing at shared/data)")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError as e:
                raise DataError(f"{path}:{n}: not JSON ({e})") from None
    return out


_SPEAKER = re.compile(r'^\s*<([^<>:]{1,40})>\s*:\s*"?(.*?)"?\s*$', re.S)


def madial_turn(line: str) -> str:
    """``<Bart>:"text"\\n`` -> ``Bart: text`` (lines of another shape are kept, stripped)."""
    m = _SPEAKER.match(line)
    if m:
        return f"{m.group(1)}: {m.group(2).strip()}"
    return line.strip().strip("<>").strip()


def load_madial(data_dir: Path | str, lang: str) -> list[Case]:
    """Load MADial-Bench (``cjk/madial/``) for ``lang`` in {"zh", "en"}: a single Case.

    Items: every memory, key = its id, text = the ``event``, tags = (scene, emotion), ts = its ``time``,
    group = the key (no sessions). Queries: each dialogue; text = the turns before its first
    ``test-turn`` (``<BOD>`` dropped, ``<Speaker>:"..."`` -> ``Speaker: ...``, joined by newlines),
    ``relevant`` = ``relevant-id``. The whole memory pool is searched for every dialogue.
    Raises: DataError on unknown lang, missing file, or a dialogue whose relevant id is not a memory.
    """
    if lang not in ("zh", "en"):
        raise DataError(f"MADial language must be zh or en, got {lang!r}")
    base = Path(data_dir) / MADIAL_DIR
    items = []
    for obj in _read_jsonl(base / f"MADial-Bench-{lang}-memory.jsonl"):
        if not isinstance(obj, dict) or len(obj) != 1:
            raise DataError(f"MADial {lang} memory: expected one {{id: memory}} object per line")
        (mid, mem), = obj.items()
        date = str(mem.get("time", ""))
        ts = f"{date}T00:00:00+00:00" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) else None
        tags = tuple(str(mem[k]) for k in ("scene", "emotion") if mem.get(k))
        items.append(Item(key=str(mid), text=str(mem["event"]), group=str(mid), ts=ts, role="user", tags=tags))
    keys = {it.key for it in items}
    queries = []
    for n, d in enumerate(_read_jsonl(base / f"MADial-Bench-{lang}-dialogue-dev.jsonl")):
        try:
            lines, turns, rel = d["dialogue"], d["test-turn"], d["relevant-id"]
        except (KeyError, TypeError):
            raise DataError(f"MADial {lang} dialogue {n}: lacks dialogue/test-turn/relevant-id") from None
        cut = min(turns)
        context = [madial_turn(x) for x in lines[:cut] if x.strip() not in ("<BOD>", "<EOD>")]
        rel = frozenset(str(r) for r in rel)
        if not rel <= keys:
            raise DataError(f"MADial {lang} dialogue {n}: relevant ids {sorted(rel - keys)} are not memories")
        qid = str(d.get("id", f"line{n + 1}"))
        queries.append(Query(qid=f"{lang}/{qid}", text="\n".join(c for c in context if c), label=lang,
                             relevant=rel, relevant_groups=rel))
    return [Case(name=f"madial-{lang}", items=items, queries=queries)]

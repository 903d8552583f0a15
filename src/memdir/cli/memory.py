"""The everyday commands over one project's memory: remember, recall, get, forget, edit, pin, recent, context,
inspect, status, reindex and the logs. Each is one public :class:`memdir.Memdir` call and its output."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import click

from memdir.cli.output import (
    clip,
    emit,
    json_opt,
    open_store,
    plural,
    preview_text,
    read_stdin_bytes,
    read_text_arg,
    stored_arg,
    utf16_with_bom,
)
from memdir.errors import EditConflict, MemdirError, NotFound, UsageError
from memdir.timeutil import local, local_text, parse_ts


@click.command()
@click.argument("text", nargs=-1)
@click.option("-c", "--category", default="facts", show_default=True, help="rules, preferences, decisions, pitfalls, facts, …")
@click.option("-s", "--summary", "--title", "summary", help="One-line summary (default: the first line); --title is the same.")
@click.option("--highlight", help="One striking line shown beside the summary.")
@click.option("-t", "--tag", "tags", multiple=True, help="Tag (repeatable).")
@click.option("-w", "--load-when", "load_when", multiple=True, help="Routing trigger for ROOT.md (repeatable).")
@click.option("--pinned/--unpinned", default=None, help="Never decays (default: the remember.pinned setting, off).")
@click.option("--supersedes", help="Id of the note this one replaces.")
@click.option("--scope", type=click.Choice(["project", "global"]), default="project", show_default=True)
@json_opt
@click.pass_context
def remember(ctx, text, category, summary, highlight, tags, load_when, pinned, supersedes, scope, as_json):
    """Store a curated note (TEXT, or stdin). A note file on stdin may start with YAML frontmatter: its summary
    (or title), tags, load_when, pinned, highlight, supersedes and kind/category fill what no flag gives."""
    for value, what in ((summary, "--title"), (highlight, "--highlight"), (tags, "--tag"), (load_when, "--load-when")):
        stored_arg(value, what)
    m = open_store(ctx)
    raw = read_text_arg(text, "text", strict=True)
    from memdir.notes.markdown import field_problems, fields, split

    meta, body, fm = split(raw) if raw.lstrip("\ufeff").startswith("---") else ({}, raw, None)
    if fm is not None:  # before: the frontmatter was stored as body text and the summary was '---'
        raw = body

        def one(key):
            v = meta.get(key)
            return str(v) if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip() else None

        # read as a note file's frontmatter is read (`tags: 42` is ["42"], `pinned: yes` is true), and what had to be
        # ignored or replaced said as `memdir inspect` says it of a file
        typed = fields(meta, body, category=category, fallback_time=m.clock())
        kept = ("summary", "highlight", "kind", "supersedes", "pinned", "tags", "load_when")  # what remember reads
        for problem in field_problems({k: v for k, v in meta.items() if k in kept}):
            click.echo(f"memdir: warning: frontmatter: {problem}", err=True)
        summary = summary or one("summary") or one("title")
        highlight = highlight or one("highlight")
        tags, load_when = tags or typed["tags"], load_when or typed["load_when"]
        pinned = pinned if pinned is not None else (typed["pinned"] if meta.get("pinned") is not None else None)
        supersedes = supersedes or one("supersedes")
        if ctx.get_parameter_source("category") == click.core.ParameterSource.DEFAULT:
            nid, kind = one("id") or "", one("kind") or ""
            cands = [c for c in (one("category"), nid.split("/")[0] if "/" in nid else None, kind + "s" if kind else None) if c]
            for cand in cands:
                if cand in m.config.get("categories"):
                    category = cand
                    break
            else:
                if cands:  # a typo must not file the note under facts/ without a word
                    said = one("category") and f"category {one('category')!r}" or kind and f"kind {kind!r}" or f"id {nid!r}"
                    raise UsageError(f"the frontmatter's {said} names no category: use one of "
                                     f"{', '.join(m.config.get('categories'))} (as category, or kind without the s), or -c")
        used = {"summary", "title", "highlight", "tags", "load_when", "pinned", "supersedes", "id", "kind", "category"}
        extra = sorted(str(k) for k in meta if k not in used)
        if extra:
            click.echo(f"memdir: warning: frontmatter field(s) {', '.join(extra)} not kept by remember "
                       "(`memdir edit ID -` keeps every field)", err=True)
    if pinned is None:
        pinned = bool(m.config.get("remember.pinned"))
    note = m.remember(raw, category=category, summary=summary, tags=tags, load_when=load_when,
                      pinned=pinned, supersedes=supersedes, scope=scope, highlight=highlight)
    human = f"already remembered as {note.id} ({note.scope})" if note.existed else f"remembered {note.id} ({note.scope}) → {note.path}"
    if note.existed and supersedes and note.supersedes:  # the text was there: that note took the link
        human = f"{note.id} ({note.scope}) holds this text already and now supersedes {note.supersedes}"
    # the summary, highlight and tags typed too (a summary taken from the text's first line repeats the text's markers)
    hidden = redacted_kinds(raw, note.text) + redacted_kinds(summary or "", note.summary if summary else "") \
        + redacted_kinds(highlight or "", note.highlight if highlight else "") \
        + redacted_kinds(" ".join(tags or ()), " ".join(note.tags or ()))
    if hidden and not note.existed:  # said, so the user knows the file holds a marker, not what they typed
        human += f"\n{plural(len(hidden), 'secret')} replaced by a marker ({', '.join(sorted(set(hidden)))}): " \
                 "memdir never stores one in plain text"
    emit(ctx, as_json, note.to_dict(), human)


_MARK = re.compile(r"\[redacted:([a-z0-9_]+)\]")


def redacted_kinds(given: str, stored: str | None) -> list[str]:
    """The kinds of the ``[redacted:…]`` markers a ``stored`` field has beyond those its ``given`` text already held."""
    had = _MARK.findall(given or "")
    got = _MARK.findall(stored or "")
    for k in had:
        if k in got:
            got.remove(k)
    return got


#: terminal cells of a hit's text ``memdir recall`` prints (whitespace collapsed; a wide character takes two)
SNIPPET_CHARS = 300


def id_given(id: str, command: str) -> str:
    """``id`` when it names something; a blank one is a usage error (exit 2) naming where ids are shown."""
    if not id.strip():
        raise UsageError(f"{command} needs an id: a note id, an event key or the handle the block shows "
                         "(see `memdir recall` or `memdir recent`)")
    return id


def unsecret(item: Any) -> Any:
    """``item`` (a hit, note or event) with its text and summary as a person is shown them: every secret the capture
    rules find today replaced by its marker (a text stored by an older memdir, or a note typed by hand)."""
    from dataclasses import is_dataclass, replace

    from memdir.capture.redact import redact

    if not is_dataclass(item):
        return item
    fields = {f: redact(getattr(item, f)) for f in ("text", "summary") if isinstance(getattr(item, f, None), str)}
    return replace(item, **fields) if any(fields[f] != getattr(item, f) for f in fields) else item


def hit_line(i: int, h: Any) -> str:
    """How ``memdir recall`` shows its ``i``-th hit: ``i. [handle scope kind] id  score=…  date``, then its
    :func:`snippet` on the next line."""
    head = f"{i}. [{h.handle + ' ' if h.handle else ''}{h.scope} {h.kind}] {h.id}  score={h.score:.4g}"
    fused = (h.reasons or {}).get("rrf")
    if isinstance(fused, dict):  # fused with the team's list: the score is a rank sum, not a local BM25 score
        head += "  (fused rank: " + ", ".join(f"{src} #{n}" for src, n in fused.items()) + ")"
    if h.ts:
        head += f"  {local_text(h.ts, minutes=False)}"
    return head + "\n   " + snippet(h)


def snippet(h: Any, size: int = SNIPPET_CHARS) -> str:
    """A hit's text in at most ``size`` terminal cells on one line, cut at a word: its opening, or, when the passage
    recall matched (a long event's ``span``) starts past what that shows, its first line, `` … `` and that passage."""
    from memdir.cli.cells import cells, cut
    from memdir.server.tools import span_of

    text = h.text or ""
    flat = " ".join(text.split())
    span = span_of(h, len(text))
    if span is None or cells(flat) <= size or len(" ".join(text[:span[0]].split())) < size // 2:
        return cut(flat, size)
    first = cut(" ".join(text.split("\n", 1)[0].split()), size // 4)
    return first + " … " + cut(" ".join(text[span[0]:].split()), size - cells(first) - 3)


@click.command()
@click.argument("query", nargs=-1)
@click.option("-k", "--k", "-n", "--limit", "k", type=click.IntRange(1, 1000), default=None, help="Number of hits (default 8).")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@click.option("--kind", "kinds", multiple=True, help="Filter: note, event, rule, decision, user, tool, … (repeatable).")
@click.option("--explain", is_flag=True, help="Show each hit's reasons (terms, fields, factors).")
@json_opt
@click.pass_context
def recall(ctx, query, k, scope, kinds, explain, as_json):
    """Search memories for QUERY (or stdin). Exit 1 when nothing matches (0 on an empty store)."""
    q = read_text_arg(query, "query")
    if not q.strip():
        raise UsageError("empty query: give some words to search for")
    m = open_store(ctx)
    info = None
    if explain:
        info = m.explain(q, k=k, scope=scope, kinds=kinds or None)
    # a look at why hits rank is not a use of them: it leaves their rehearsal (and so the next ranking) as it was
    hits = [unsecret(h) for h in m.recall(q, k=k, scope=scope, kinds=kinds or None, rehearse=not explain)]
    lines = []
    if info is not None:
        lat = ", ".join(f"{k_} {v:.1f}" for k_, v in info.get("latency_ms", {}).items())
        lines.append(f"channel {info.get('channel')} (provider {info.get('provider')}); latency ms: {lat}")
        ranks = {h["id"]: h.get("ranks", {}) for h in info.get("hits", [])}
    for i, h in enumerate(hits, 1):
        lines.append(hit_line(i, h))
        if explain:
            lines.append("   why: " + json.dumps(h.reasons, ensure_ascii=False))
            if info is not None and ranks.get(h.id):
                lines.append("   channel ranks: " + json.dumps(ranks[h.id]))
    data: Any = [h.to_dict() for h in hits]
    if info is not None:
        data = {"explain": {k_: v for k_, v in info.items() if k_ != "hits"}, "channel_hits": info.get("hits", []), "hits": data}
    emit(ctx, as_json, data, "\n".join(lines))
    if not hits:
        # an empty store is no failed search: an empty list, exit 0 (case C4); a store that holds memories none of
        # which matches exits 1, so a script can tell
        empty = not m.recent(scope=scope, limit=1)
        if not (as_json or ctx.find_root().obj.get("json")):
            click.echo("no memories yet" if empty else "no memory matches", err=True)
        ctx.exit(0 if empty else 1)


@click.command()
@click.argument("id")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None,
              help="Root to read from (default: project, then global).")
@json_opt
@click.pass_context
def get(ctx, id, scope, as_json):
    """Show one memory by note id, event key or the short handle the <memory> block shows. Exit 1 when absent."""
    m = open_store(ctx)
    item = m.get(id_given(id, "get"), scope=scope, remote=True)
    if item is None:
        raise NotFound(f"no memory with id {id!r}: see `memdir recall` or `memdir inspect` for ids")
    item = unsecret(item)
    data = item.to_dict()
    name = getattr(item, "id", None) or getattr(item, "key", "")
    what = getattr(item, "kind", None) or getattr(item, "role", "")
    marks = [m for m in ("pinned" if getattr(item, "pinned", False) else "",
                         f"superseded by {item.superseded_by}" if getattr(item, "superseded_by", None) else "",
                         "tags: " + ", ".join(item.tags) if getattr(item, "tags", None) else "",
                         "highlight: " + item.highlight if getattr(item, "highlight", None) else "") if m]
    emit(ctx, as_json, data, f"{name} ({item.scope} {what}{'; ' + '; '.join(marks) if marks else ''})\n{item.text}")


@click.command()
@click.argument("id", required=False)
@click.option("--scope", type=click.Choice(["project", "global"]), default=None,
              help="Root to forget from (default: the first holding the id, project before global).")
@click.option("--id", "id_opt", default=None, metavar="ID",
              help="The note id, event key or short handle to forget (the same as the ID argument).")
@click.option("--source", help="Forget every note from this source instead of one id (e.g. distill).")
@click.option("--session", help="With --source: only the notes distilled from this session.")
@click.option("--query", "-q", default=None, help="Forget every memory whose text contains this (preview, then --token).")
@click.option("--prefix", default=None, help="Forget every event whose key starts with this, e.g. import:mysource.")
@click.option("--token", default=None, help="Confirm token from the --query/--prefix preview: deletes.")
@click.option("--force", is_flag=True, help="With --query/--prefix: delete at once without a preview (scripts).")
@json_opt
@click.pass_context
def forget(ctx, id, id_opt, scope, source, session, query, prefix, token, force, as_json):
    """Delete a note (category/slug) or an event (key), by ID or `--id ID`; a tombstone blocks re-import.
    `--source distill [--session ID]` removes a distilled batch (and rejects its pending proposals).
    `--query TEXT` / `--prefix KEY` preview the matches, then delete them with the printed token."""
    if id_opt is not None:
        if id is not None and id != id_opt:
            raise UsageError("give the id once: as the ID argument or as --id, not both")
        if not id_opt.strip():
            raise UsageError("--id needs a note id, event key or handle (see `memdir recall` or `memdir inspect`)")
        id = id_opt
    m = open_store(ctx)
    if source is not None or session is not None:
        if id is not None or source is None or query is not None or prefix is not None:
            raise UsageError("use either an ID, --source NAME [--session ID], or --query/--prefix")
        out = m.forget_source(source, session=session)
        if not out["forgotten"] and not out["proposals_rejected"]:  # one line, on stderr: not "forgot 0 notes" too
            raise NotFound(f"no note from source {source!r}" + (f" and session {session!r}" if session else ""))
        emit(ctx, as_json, out, f"forgot {plural(len(out['forgotten']), 'note')}"
              + (f", rejected {plural(len(out['proposals_rejected']), 'proposal')}" if out["proposals_rejected"] else "")
              + "".join(f"\n  {i}" for i in out["forgotten"]))
        return
    if query is not None or prefix is not None:
        if id:
            raise UsageError("give either an id or --query/--prefix, not both")
        if token and force:  # a wrong token must not be overridden by the flag that skips it
            raise UsageError("give --token (what the preview printed) or --force, not both; nothing was deleted")
        res = m.forget_matching(query=query, prefix=prefix, scope=scope, token=token, force=force)
        what = f"--query {query!r}" if query is not None else f"--prefix {prefix!r}"
        if not res["count"]:  # like a missing id: say so, exit 1 (scripts can tell), with --force too
            emit(ctx, as_json, {**res, "deleted": False}, "")
            page = query is not None and any(h.id.startswith("ROOT.md/") for h in m.recall(query, k=5, rehearse=False))
            raise NotFound(f"no memory matches {what}; nothing to forget" + (
                " (a goal or hard rule of ROOT.md matches: edit ROOT.md by hand)" if page else
                " (forgotten already, by this token's run?)" if token else " (see `memdir recall`)"))
        if res["deleted"]:
            n = res["count"]
            human = (f"forgot {n} {'memory' if n == 1 else 'memories'} ({plural(res['notes'], 'note')}, "
                     f"{plural(res['events'], 'event')}); tombstones keep them out")
        else:
            human = preview_text(
                f"{res['count']} {'memory matches' if res['count'] == 1 else 'memories match'} {what} "
                f"({plural(res['notes'], 'note')}, {plural(res['events'], 'event')}"
                f"{'; ' + str(res['pinned']) + ' pinned, deleted too' if res.get('pinned') else ''}); nothing deleted yet",
                res["samples"], res["count"], f"to delete {'it' if res['count'] == 1 else 'them'}: memdir forget {what} --token {res['token']}")
        emit(ctx, as_json, res, human)
        return
    if token or force:
        raise UsageError("--token and --force go with --query or --prefix")
    if not id:
        raise UsageError("give the id to forget (see `memdir recall` or `memdir inspect`), or --query TEXT / --prefix KEY / --source NAME")
    try:
        target = m.get(id, scope=scope)  # a short handle: say which memory it was
    except MemdirError:
        target = None
    name = getattr(target, "id", None) or getattr(target, "key", None) or id
    ok = m.forget(id, scope=scope)
    emit(ctx, as_json, {"id": id, "forgotten": ok, **({"ref": name} if ok else {})},
          (f"forgot {name}" + (f" ({id})" if name != id else "")) if ok else "")
    if not ok:
        try:  # a teammate's memory the team server showed: say whose it is rather than "no memory"
            # a note id (category/slug) is never a team hit: no round trip to the server for a mistyped one
            team = target is None and scope in (None, "project") and "/" not in id and m.get(id, remote=True)
        except MemdirError:
            team = None
        if team and getattr(team, "scope", None) == "team":
            raise NotFound(f"{id} is a teammate's memory, shared with you through the team server: only the person "
                           "who captured it can forget it")
        gone = _forgotten(m, id)
        if gone:
            ref, when = gone
            said = ", ".join(x for x in (ref if ref != id else "", f"on {when}" if when else "") if x)
            raise NotFound(f"{id} was forgotten already" + (f" ({said})" if said else ""))
        raise NotFound(f"no memory with id {id!r}: see `memdir recall` or `memdir inspect` for ids")


def _forgotten(m: Any, id: str) -> tuple[str, str] | None:
    """``(ref, date)`` of the tombstone ``id`` names (its note id or event key, or the handle the block showed),
    else ``None``: forgetting twice says so instead of "no memory"."""
    from memdir.recall import handles

    short = id.strip().casefold()
    for root in m.stores.live():
        try:
            rows = root.store.tombstone_rows()
        except Exception:  # noqa: BLE001 - a hint on an error path: the "no memory" line stands without it
            continue
        for r in rows:
            if r["ref"] == id or (handles.PATTERN.match(short) and handles.digest(r["ref"], len(short)) == short):
                return r["ref"], _when(r.get("deleted_at"))[:10]  # the local day, as every line for people
    return None


def note_bytes(data: bytes, where: str) -> str:
    """The text of an edit read from a file or stdin (UTF-8, or UTF-16 led by its byte-order mark, as ``remember``
    reads it); ``UsageError`` (one line, nothing written) when it is not text."""
    if utf16_with_bom(data):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise UsageError(f"edit refused: {where} is not valid UTF-16 text") from None
    if b"\x00" in data:
        raise UsageError(f"edit refused: {where} is binary (it contains NUL bytes), not a note's text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"edit refused: {where} is not UTF-8 text (byte {exc.start})") from None


@click.command()
@click.argument("id")
@click.argument("file", required=False)
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@click.option("--expect", default=None, metavar="VERSION",
              help="Refuse the edit when the note is no longer at this version (what it was when you read it).")
@json_opt
@click.pass_context
def edit(ctx, id, file, scope, expect, as_json):
    """Replace note ID with FILE (`-` = stdin): frontmatter + body, validated; a bad edit is refused with every
    reason and nothing is written. A text without frontmatter replaces the body and keeps the note's frontmatter.
    Without FILE on a terminal, opens $EDITOR on the note; a change made to the file meanwhile (another tool, `git
    pull`) refuses the edit and keeps your text in a temporary file."""
    from memdir.notes.markdown import version

    id_given(id, "edit")
    m = open_store(ctx)
    from_editor = file is None and sys.stdin.isatty()
    if from_editor:
        before = m.note_source(id, scope=scope)
        expect = expect or version(before)  # the version the editor starts from (case C35)
        text = click.edit(before, extension=".md")
        if text is None or text == before:
            emit(ctx, as_json, {"id": id, "changed": False}, "no change")
            return
    else:
        if file not in (None, "-"):
            if not Path(file).is_file():  # a directory, a FIFO, /dev/zero: never read to an end that may not come
                raise UsageError(f"edit refused: {file} is not a regular file" if Path(file).exists()
                                 else f"edit refused: no such file: {file}")
            from memdir.notes.markdown import MAX_NOTE_BYTES

            if Path(file).stat().st_size > MAX_NOTE_BYTES:
                raise UsageError(f"edit refused: {file} is over {MAX_NOTE_BYTES:,} bytes, the most a note file holds")
            text = note_bytes(Path(file).read_bytes(), file)
        elif file == "-" or not sys.stdin.isatty():
            text = note_bytes(read_stdin_bytes("note"), "stdin")
        else:
            text = ""
        if file is None and not text.strip():  # no FILE, no terminal (a script, an agent's shell): nothing came in
            m.note_source(id, scope=scope)  # an unknown id is the first thing to say (NotFound)
            raise UsageError(f"edit needs the new text: `memdir edit {id} FILE`, `memdir edit {id} -` with the text on "
                             "stdin, or run it on a terminal to open $EDITOR")
    was = None if from_editor else m.get(id, scope=scope)  # what a partial frontmatter from a script may clear
    try:
        note = m.edit(id, text, scope=scope, expect=expect)
    except MemdirError as exc:
        if not from_editor and not isinstance(exc, EditConflict):
            raise
        # the text typed in $EDITOR is the user's work: keep it where the refusal says, never drop it; redacted as a
        # save would store it (a token typed into it would otherwise lie in plain text in the temporary directory)
        import os
        import tempfile

        from memdir.capture.redact import redact

        fd, kept = tempfile.mkstemp(prefix="memdir-edit-", suffix=".md")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(redact(text))
        if isinstance(exc, EditConflict):  # both versions: the one on disk stays, the user's is in the temp file
            raise MemdirError(f"{exc} — the note on disk is version {exc.found or '(deleted)'} (`memdir get {id}`); "
                              f"yours is kept in {kept} (compare, then `memdir edit {id} {kept}`)") from None
        raise type(exc)(f"{str(exc).splitlines()[0]} — your text is kept in {kept} (fix it, then `memdir edit {id} {kept}`)") from None
    emit(ctx, as_json, {"changed": True, "note": note.to_dict()}, f"saved {note.id} ({note.scope}) → {note.path}")
    cleared = [k for k in CLEARED_BY_OMISSION if getattr(was, k, None) and not getattr(note, k, None)]
    if cleared:  # a frontmatter without them replaces the note's whole frontmatter: say what that took away
        click.echo(f"memdir: the new frontmatter leaves out {', '.join(cleared)}, so the note no longer has "
                   f"{'it' if len(cleared) == 1 else 'them'}" + (f" (memdir pin {note.id} pins it again)"
                                                                  if "pinned" in cleared else ""), err=True)


#: fields of a note an edit whose frontmatter does not name them clears (a body alone keeps them all)
CLEARED_BY_OMISSION = ("pinned", "tags", "highlight", "load_when")


@click.command()
@click.argument("id")
@click.option("--unpin", is_flag=True, help="Clear the flag instead.")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@json_opt
@click.pass_context
def pin(ctx, id, unpin, scope, as_json):
    """Pin note ID (it never decays), or --unpin it."""
    m = open_store(ctx)
    was = m.get(id_given(id, "pin"), scope=scope)
    note = m.pin(id, not unpin, scope=scope)
    same = getattr(was, "pinned", None) == note.pinned and getattr(was, "updated", None) == note.updated
    emit(ctx, as_json, note.to_dict(), f"{'already ' if same else ''}{'pinned' if note.pinned else 'unpinned'} "
                                       f"{note.id} ({note.scope})")


def _when(ts: str | None) -> str:
    """A stored ISO UTC time as a person reads it here (local ``YYYY-MM-DD HH:MM:SS``); unreadable: as stored."""
    try:
        d = local(parse_ts(ts))
        return f"{d.year:04d}-{d:%m-%d %H:%M:%S}"  # strftime's %Y leaves a year below 1000 unpadded
    except MemdirError:
        return str(ts or "")


@click.command(name="log")
@click.argument("which", type=click.Choice(["skips", "injections"]))
@click.option("-n", "--limit", type=click.IntRange(1, 10_000), default=20, show_default=True)
@click.option("--session", default=None, help="skips: only this session.")
@json_opt
@click.pass_context
def log_cmd(ctx, which, limit, session, as_json):
    """Show the newest skipped captures (with the gate's reason) or injected <memory> blocks (with their hits)."""
    m = open_store(ctx)
    if which == "skips":
        rows = m.capture_skips(limit=limit, session=session)
        def src(r):  # an import's skips name it; a hook's need no word
            return f"  {r['source']}" if (r.get("source") or "").startswith("import:") else ""

        human = "\n".join(f"{_when(r['ts'])}  {r['reason']:<13} {r['role'] or '':<9} {r['session'] or '-'}{src(r)}  "
                           f"{r['preview']}" for r in rows)
    else:
        rows = m.injections(limit=limit)
        human = "\n".join(f"{_when(r['ts'])}  {r['host'] or '-'} {r['event'] or '-'} {r['session'] or '-'}  {len(r['block'])} chars  "
                          f"hits: {', '.join(r['hit_ids']) or '-'}" for r in rows)
    emit(ctx, as_json, rows, human or f"no {which} logged")


@click.command()
@json_opt
@click.pass_context
def inspect(ctx, as_json):
    """List notes and check consistency (index.md, supersedes, unreadable files)."""
    rep = open_store(ctx).inspect()
    lines = []
    for scope, c in rep.counts.items():
        lines.append(f"{scope}: {plural(c['notes'], 'note')} ({c['superseded']} superseded), {plural(c['events'], 'event')}, "
                     f"{plural(c['tombstones'], 'tombstone')} — {c['path']}")
    for n in rep.notes:
        flag = f"  [superseded by {n.superseded_by}]" if n.superseded_by else ("  [pinned]" if n.pinned else "")
        lines.append(f"  {n.scope:7} {n.id}: {clip(n.summary, 80)}{flag}")
    lines.append("problems: none" if rep.ok else f"problems ({len(rep.problems)}):")
    lines += [f"  {p['kind']}: {p['path']}: {p['detail']}" for p in rep.problems]
    emit(ctx, as_json, rep.to_dict(), "\n".join(lines))


@click.command()
@click.option("--kind", "kinds", multiple=True, help="note, event, rule, decision, user, tool, … (repeatable).")
@click.option("-c", "--category", default=None, help="Only notes of this category.")
@click.option("--scope", type=click.Choice(["project", "global"]), default=None)
@click.option("-n", "--limit", type=click.IntRange(1, 500), default=20, show_default=True)
@json_opt
@click.pass_context
def recent(ctx, kinds, category, scope, limit, as_json):
    """List the newest memories (by kind or category), newest first."""
    hits = [unsecret(h) for h in open_store(ctx).recent(kinds=kinds or None, category=category, scope=scope, limit=limit)]
    lines = [f"{local_text(h.ts):16} [{h.handle + ' ' if h.handle else ''}{h.scope} {h.kind}] {h.id}: "
             f"{clip(' '.join((h.summary or h.text or '').split()), 80)}" for h in hits]
    filters = ", ".join([*(f"kind {k}" for k in kinds), *([f"category {category}"] if category else []),
                         *([f"scope {scope}"] if scope else [])])
    emit(ctx, as_json, [h.to_dict() for h in hits], "\n".join(lines) or (
        f"no memories of {filters}" if filters else "no memories yet"))


@click.command()
@json_opt
@click.pass_context
def status(ctx, as_json):
    """Counts, paths and index size per root."""
    st = open_store(ctx).status()
    lines = [f"project root: {st['project_root']}"]
    for scope in ("project", "global"):
        s = st[scope]
        if not s.get("exists"):
            from memdir.roots import in_the_way

            taken = in_the_way(s["path"])
            lines.append(f"{scope}: {s['path']} " + (("(a file, not a directory, stands there: nothing can be kept; see "
                                                      "memdir doctor)" if "is a file" in taken else f"({taken})")
                                                     if taken else "(not created yet)"))
        elif s.get("unreadable"):
            lines.append(f"{scope}: {s['path']}: {s['unreadable']}; left out of recall and the block")
        else:
            lines.append(f"{scope}: {s['path']}: {plural(s['notes'], 'note')}, {plural(s['events'], 'event')}, "
                         f"{plural(s.get('tombstones', 0), 'tombstone')}, index {s.get('index_bytes', 0) / 1e6:.1f} MB "
                         f"(index schema v{s.get('schema_version')})")
            if s.get("read_only"):
                lines.append(f"  read-only ({s['read_only']}): recall and context work, writes are refused")
            if s.get("unreadable_notes"):
                lines.append(f"  {plural(s['unreadable_notes'], 'note')} not readable as written (`memdir inspect` lists them)")
            if s.get("set_aside"):
                lines.append(f"  unreadable index set aside in .memdir/: {', '.join(s['set_aside'])} (its events are not "
                             "in the current index)")
            for key, val in s.items():
                if isinstance(val, dict):
                    lines.append(f"  {key}: " + ", ".join(f"{k}={v}" for k, v in val.items() if v is not None))
    def fmt(k, v):
        if isinstance(v, dict) and "set" in v and "env" in v:  # a secret: whether it is set and where, never its value
            return f"{k} {v['env']} " + (f"set ({v['source']})" if v["set"] else "not set")
        return f"{k}={v}"

    for key, val in st.items():
        if key not in ("project_root", "project", "global"):
            if isinstance(val, dict) and val.get("provider") != "openai" and not (val.get("api_key") or {}).get("set"):
                val = {k: v for k, v in val.items() if k != "api_key"}  # a packaged or no model: needs no key
            lines.append(f"{key}: " + (", ".join(fmt(k, v) for k, v in val.items() if v is not None) if isinstance(val, dict) else str(val)))
    emit(ctx, as_json, st, "\n".join(lines))


@click.command()
@click.argument("prompt", nargs=-1)
@click.option("--max-chars", type=click.IntRange(0, 1_000_000), default=None,
              help="Block budget in characters (default 1200; 0 prints nothing).")
@click.option("--max-entries", type=click.IntRange(0, 100), default=None, help="Memories inlined (default 4; 0 prints nothing).")
@json_opt
@click.pass_context
def context(ctx, prompt, max_chars, max_entries, as_json):
    """Print the <memory> block for PROMPT (or stdin)."""
    p = read_text_arg(prompt, "prompt") if (prompt or not sys.stdin.isatty()) else ""
    block = open_store(ctx).context(p, max_chars=max_chars, max_entries=max_entries)
    emit(ctx, as_json, {"context": block, "chars": len(block)}, block)


@click.command()
@json_opt
@click.pass_context
def reindex(ctx, as_json):
    """Rebuild the derived index from the Markdown and recompile index.md / ROOT.md."""
    out = open_store(ctx).reindex()
    emit(ctx, as_json, out, ", ".join(f"{k}: {plural(v, 'note')} indexed" for k, v in out.items()) or "nothing to index")

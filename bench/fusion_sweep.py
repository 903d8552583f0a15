"""Fusion sweep: how should the lexical and vector channels be combined? (issue 10, item 4)

For every benchmark question this runs memdir's two channels once, through the same code recall uses (the lexical
channel with its scores, the vector channel with its similarities, both over a wide candidate pool), keeps the
lists, then scores many fusion rules on them offline (seconds each): RRF at several lexical weights and ``k``, and
a convex combination of normalised scores. It prints one line per rule with the benchmark's headline metrics, so a
rule is chosen across every row, never on one benchmark. Embeddings are cached on disk like bench/quality.py's.

    .venv/bin/python bench/fusion_sweep.py --provider e5 --bench locomo,madial-zh,madial-en [--limit N]
        [--rows lists.pkl]   # keep the collected lists: a second run only re-scores (results: bench/results/fusion-sweep-e5.md)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, str(ROOT))

from bench import metrics as M  # noqa: E402
from bench.quality import DEFAULT_CACHE, DEFAULT_DATA, CachedProvider, fill_store, limit_cases, make_specs  # noqa: E402
from memdir.engine import lexical  # noqa: E402

POOL = 200


def collect(spec, cases, provider: str, cache: Path | None, settings: dict, log) -> list[dict]:
    """Per question: {"lex": [(key, score)], "vec": [(key, sim)], "nb": {key: neighbours}, "q": Query, "group_of": fn,
    "cjk": mostly CJK, "nterms": distinct query terms, "bridged": lexical top-10 hits matched through a glossary term}."""
    import memdir
    from memdir.recall import glossary
    from memdir.engine import hybrid as vectors
    from memdir.recall.tokenize import query_tokens

    out = []
    cached = None
    for case in cases:
        tmpdir = tempfile.TemporaryDirectory(prefix="memdir-fusion-")
        tmp = Path(tmpdir.name)
        (tmp / "project").mkdir()
        stamps = [it.ts for it in case.items if it.ts]
        clock_at = datetime.fromisoformat(max(stamps) if stamps else "2024-01-01T00:00:00+00:00").astimezone(timezone.utc)
        now = [clock_at]
        cfg = {"recall.half_life_days": 0, "recall.rehearsal_weight": 0, "recall.channel": "hybrid",
               "embed.provider": provider, "recall.vector_candidates": POOL, **settings}
        m = memdir.open(config=cfg, project_dir=tmp / "project", home=tmp / "home", clock=lambda: now[0])
        if cached is None:
            cached = CachedProvider(vectors.provider_for(m, strict=True), cache)
        vectors.set_provider(m, cached)
        alias = fill_store(m, case, spec)
        m.backfill()
        gm = case.group_of()
        for q in case.queries:
            now[0] = datetime.fromisoformat(q.ts).astimezone(timezone.utc) if q.ts else clock_at
            tokens = query_tokens(q.text, repeats=True)
            # as recall_fused asks for it beside a vector channel (no Han unigrams)
            lex = lexical.lexical(m.stores, tokens, k=POOL, scope=None, kinds=None, query=q.text, unigrams=False) if tokens else []
            bridged = set(glossary.bridge(q.text, tokens, float(m.config.get("recall.bridge_weight"))))
            qv = vectors._np().asarray(cached.embed_query([q.text])[0], dtype="float32")
            vec, _cold, _ = vectors._vector_channel(m.stores, cached, qv, k=POOL, scope=None, kinds=None, info={})
            last = vectors.last_line(q.text)  # recall.query_last_line: the mean of the whole and the last line's vectors
            vec_ll = vec if last is None else vectors._vector_channel(
                m.stores, cached, (qv + vectors._np().asarray(cached.embed_query([last])[0], dtype="float32")) / 2,
                k=POOL, scope=None, kinds=None, info={})[0]
            refs = list(dict.fromkeys([h.id for h in lex] + [v[0] for v in vec]))
            nb = {} if spec.as_notes else next(iter(m.stores.live(None))).store.event_neighbours(refs)
            out.append({"lex": [(h.id, h.score) for h in lex], "vec": [(v[0], v[4]["similarity"]) for v in vec], "nb": nb,
                        "vec_ll": [(v[0], v[4]["similarity"]) for v in vec_ll],
                        "alias": alias, "q": q, "group_of": gm.get, "cjk": vectors.cjk_share(q.text) >= 0.5,
                        "nterms": len(set(tokens)),
                        "bridged": sum(1 for h in lex[:10] if bridged & set(h.reasons.get("terms", ())))})
        cached.save()
        m.close()
        tmpdir.cleanup()
        log(f"  {spec.name}: {case.name} done ({len(out)} questions)")
    return out


def collect_session_qa(data: Path, provider: str, settings: dict, log) -> list[dict]:
    """The same lists for bench/session_qa.py's questions, each asked of its project's store (built by
    ``session_qa.build_store``, vectors from its cache); a question's "relevant" ids are the hits whose text holds
    one of its answer strings (any id in either list), so ``answer@k`` = an answer in the top k hits' texts."""
    from bench import session_qa as sqa
    from memdir.recall import glossary
    from memdir.engine import hybrid as vectors
    from memdir.recall.tokenize import query_tokens

    questions = sqa.load_questions(sqa.DEFAULT_QUESTIONS)
    out = []
    with tempfile.TemporaryDirectory(prefix="memdir-fusion-sqa-") as t:
        cfg = {"recall.channel": "hybrid", "embed.provider": provider, "recall.vector_candidates": POOL, **settings}
        for project in sqa.PROJECTS:
            m, _, _ = sqa.build_store(data, Path(t), project, cfg)
            cached = m._bench_cache
            for q in questions:
                if sqa.SESSION_PROJECT[q["session"]] != project:
                    continue
                tokens = query_tokens(q["q"], repeats=True)
                lex = lexical.lexical(m.stores, tokens, k=POOL, scope=None, kinds=None, query=q["q"], unigrams=False) if tokens else []
                bridged = set(glossary.bridge(q["q"], tokens, float(m.config.get("recall.bridge_weight"))))
                qv = vectors._np().asarray(cached.embed_query([q["q"]])[0], dtype="float32")
                vec, _cold, _ = vectors._vector_channel(m.stores, cached, qv, k=POOL, scope=None, kinds=None, info={})
                ids = {h.id for h in lex} | {v[0] for v in vec}
                answers = [sqa.norm(a) for a in q["a"]]
                rel = set()
                for root in m.stores.live():
                    for ref, text in root.db.execute(f"SELECT ref, text FROM docs WHERE ref IN ({','.join('?' * len(ids))})",
                                                     sorted(ids)).fetchall() if ids else []:
                        if any(a in sqa.norm(text or "") for a in answers):
                            rel.add(ref)
                refs = list(dict.fromkeys([h.id for h in lex] + [v[0] for v in vec]))
                nb = next(iter(m.stores.live(None))).store.event_neighbours(refs)
                out.append({"lex": [(h.id, h.score) for h in lex], "vec": [(v[0], v[3]) for v in vec], "nb": nb, "alias": {},
                            "q": SqaQuery(q["id"], q["lang"], frozenset(rel), q["q"]), "cjk": vectors.cjk_share(q["q"]) >= 0.5,
                            "nterms": len(set(tokens)),
                            "bridged": sum(1 for h in lex[:10] if bridged & set(h.reasons.get("terms", ())))})
            cached.save()
            m.close()
            log(f"  session-qa: {project} done ({len(out)} questions)")
    return out


class SqaQuery:
    def __init__(self, qid, label, relevant, text=""):
        self.qid, self.label, self.relevant, self.text = qid, label, relevant, text


class SqaSpec:
    """Scores a session-QA question: an answer string in the top 1 / 3 / 5 / 8 hits' texts."""
    name, depth, as_notes = "session-qa", 20, False

    @staticmethod
    def score(ranked, q, group_of):
        return {f"answer@{k}": float(any(i in q.relevant for i in ranked[:k])) for k in (1, 3, 5, 8)}


def rrf(lex, vec, wl, wv=1.0, k=60):
    s: dict[str, float] = {}
    for r, (i, _) in enumerate(lex, 1):
        s[i] = s.get(i, 0) + wl / (k + r)
    for r, (i, _) in enumerate(vec, 1):
        s[i] = s.get(i, 0) + wv / (k + r)
    return sorted(s, key=lambda i: -s[i])


def convex(lex, vec, alpha, vnorm="minmax", lnorm="max", missing=0.0):
    """alpha = weight of the vector channel; scores normalised per list."""
    s: dict[str, float] = {}
    if lex:
        top = lex[0][1] or 1.0
        lo = lex[-1][1] if lnorm == "minmax" else 0.0
        for i, sc in lex:
            s[i] = (1 - alpha) * ((sc - lo) / ((top - lo) or 1.0))
    if vec:
        hi, lo = vec[0][1], vec[-1][1]
        for i, sim in vec:
            v = (sim - lo) / ((hi - lo) or 1.0) if vnorm == "minmax" else sim
            s[i] = s.get(i, (1 - alpha) * missing) + alpha * v
    return sorted(s, key=lambda i: -s[i])


def rrf_scores(lex, vec, wl, wv=1.0, k=60) -> dict:
    s: dict[str, float] = {}
    for r, (i, _) in enumerate(lex, 1):
        s[i] = s.get(i, 0) + wl / (k + r)
    for r, (i, _) in enumerate(vec, 1):
        s[i] = s.get(i, 0) + wv / (k + r)
    return s


def convex_scores(lex, vec, alpha) -> dict:
    s: dict[str, float] = {}
    if lex:
        top = lex[0][1] or 1.0
        for i, sc in lex:
            s[i] = (1 - alpha) * sc / top
    if vec:
        hi, lo = vec[0][1], vec[-1][1]
        for i, sim in vec:
            s[i] = s.get(i, 0.0) + alpha * (sim - lo) / ((hi - lo) or 1.0)
    return s


def default(r, lex_pool: int = 100, vec_pool: int = 100, bridged: float | None = None, vec_key: str = "vec") -> dict:
    """memdir's fusion for a multilingual model (memdir.engine.hybrid.recall_fused) as ``{id: score}``: convex 0.6 for a
    mostly-CJK query, 0.65 for a long one, else 0.3 x convex(0.35) / best + 0.7 x RRF(4:1) / best. ``bridged``: the
    share of a mostly-CJK query whose lexical top 10 the glossary reached (recall.vector_share_bridged; None = the
    rule off); ``vec_key="vec_ll"``: the vector list of the query embedded whole and by its last line
    (recall.query_last_line; rows without it use "vec")."""
    from memdir.recall.tokenize import query_tokens

    lex, vec = r["lex"][:lex_pool], r.get(vec_key, r["vec"])[:vec_pool]
    if r["cjk"]:
        return convex_scores(lex, vec, min(0.6, bridged) if bridged is not None and r.get("bridged") else 0.6)
    if len(set(query_tokens(r["q"].text, repeats=True))) >= 20:
        return convex_scores(lex, vec, 0.65)
    c = convex_scores(lex, vec, 0.35)
    f = rrf_scores(lex, vec, 4.0, 1.0, 60)
    cm, fm = (max(c.values(), default=0) or 1.0), (max(f.values(), default=0) or 1.0)
    return {i: 0.3 * c.get(i, 0) / cm + 0.7 * f.get(i, 0) / fm for i in [*f, *(x for x in c if x not in f)]}


def context(s: dict, nb: dict, share: float) -> list:
    """memdir.engine.hybrid.with_context over ``{id: score}``: ids best first."""
    out = {i: v + share * max((s.get(x, 0.0) for x in nb.get(i, ()) if x is not None), default=0.0) for i, v in s.items()}
    return sorted(out, key=lambda i: -out[i])


def evaluate(spec, rows, rule) -> dict[str, float]:
    res = []
    for r in rows:
        ranked = rule(r)
        keys: list[str] = []
        for i in ranked[:spec.depth]:
            keys.extend(r["alias"].get(i, [i]))
        res.append((r["q"].label, spec.score(M.dedupe(keys), r["q"], r["group_of"])))
    return M.aggregate(res)["all"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--bench", default="locomo,madial-zh,madial-en")
    p.add_argument("--provider", default="e5")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--vec-pool", type=int, default=100)
    p.add_argument("--lex-pool", type=int, default=100)
    p.add_argument("--rows", type=Path, default=None, help="pickle of collected lists: read when present, else written")
    p.add_argument("--alphas", default="0.3,0.4,0.5,0.6,0.7,0.8,0.9")
    p.add_argument("--no-rrf", action="store_true")
    p.add_argument("--blend-alphas", default="", help="vector shares of the convex part of a blend (memdir.recall.rrf.blend)")
    p.add_argument("--rank-shares", default="0.667,0.7,0.75", help="RRF shares of a blend (recall.rank_share)")
    p.add_argument("--context-shares", default="", help="session context shares (recall.context_share) on top of the "
                   "default fusion (blend 0.35 / 0.7 short Latin, convex 0.65 long, 0.6 CJK) and of RRF 4:1")
    p.add_argument("--bridged-shares", default="", help="recall.vector_share_bridged values, each on top of the "
                   "default fusion and every --context-shares value, with and without recall.query_last_line")
    a = p.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    import json
    settings = {}
    for kv in a.set:
        kk, _, v = kv.partition("=")
        try:
            settings[kk] = json.loads(v)
        except ValueError:
            settings[kk] = v
    import pickle
    specs = make_specs()
    data = {}
    stored = {}
    if a.rows and a.rows.is_file():
        stored = pickle.loads(a.rows.read_bytes())
    for name in a.bench.split(","):
        if name == "session-qa":
            if name not in stored:
                stored[name] = collect_session_qa(a.data, a.provider, settings, log)
                if a.rows:
                    a.rows.write_bytes(pickle.dumps(stored))
            data[name] = (SqaSpec, [{**r, "group_of": (lambda i: i)} for r in stored[name]])
            continue
        spec = specs[name]
        if name not in stored:
            rows = collect(spec, limit_cases(spec.load(a.data), a.limit), a.provider, a.cache, settings, log)
            stored[name] = [{**r, "group_of": None} for r in rows]
            if a.rows:
                a.rows.write_bytes(pickle.dumps(stored))
        gms = {}
        for c in spec.load(a.data):
            gms.update(c.group_of())
        data[name] = (spec, [{**r, "group_of": gms.get} for r in stored[name]])
    heads = {"locomo": "turn_recall@10", "madial-zh": "recall@5", "madial-en": "recall@5", "session-qa": "answer@8",
             "longmemeval": "turn_recall@10", "longmemeval-user": "turn_recall@5"}
    extra = {"longmemeval": "session_recall_any@5", "longmemeval-user": "session_recall_any@5", "locomo": "turn_recall@5",
             "session-qa": "answer@5"}
    more = {"locomo": ("turn_recall@1", "turn_recall@20", "session_recall@1", "session_recall@5", "session_recall@10"),
            "madial-zh": ("recall@1", "recall@3", "recall@10", "mrr@10"), "madial-en": ("recall@1", "recall@3", "recall@10", "mrr@10"),
            "session-qa": ("answer@1", "answer@3")}
    rules = {"lexical": lambda r: [i for i, _ in r["lex"]], "vector": lambda r: [i for i, _ in r["vec"]]}
    for wl in (() if a.no_rrf else (0.5, 1, 2, 4)):
        for k in (10, 60):
            rules[f"rrf wl={wl} k={k}"] = (lambda wl, k: lambda r: rrf(r["lex"][:a.lex_pool], r["vec"][:a.vec_pool], wl, 1.0, k))(wl, k)
    for al in [float(x) for x in a.alphas.split(",")]:
        for ln in ("max",):
            rules[f"convex a={al} l={ln}"] = (lambda al, ln: lambda r: convex(r["lex"][:a.lex_pool], r["vec"][:a.vec_pool], al, lnorm=ln))(al, ln)
    def blend(r, al, rs, wl):  # memdir.recall.rrf.blend: (1 - rs) x convex / best + rs x RRF / best (recall.rank_share)
        c = convex_scores(r["lex"][:a.lex_pool], r["vec"][:a.vec_pool], al)
        f = rrf_scores(r["lex"][:a.lex_pool], r["vec"][:a.vec_pool], wl, 1.0, 60)
        cm, fm = (max(c.values(), default=0) or 1.0), (max(f.values(), default=0) or 1.0)
        s = {i: (1 - rs) * c.get(i, 0) / cm + rs * f.get(i, 0) / fm for i in [*f, *(x for x in c if x not in f)]}
        return sorted(s, key=lambda i: -s[i])
    for al in [float(x) for x in a.blend_alphas.split(",") if x]:
        for rs in [float(x) for x in a.rank_shares.split(",") if x]:
            rules[f"blend a={al} rank={rs}"] = (lambda al, rs: lambda r: blend(r, al, rs, 1.0 if r["cjk"] else 4.0))(al, rs)
    for cs in [float(x) for x in a.context_shares.split(",") if x]:
        rules[f"default + context {cs}"] = (lambda cs: lambda r: context(default(r, a.lex_pool, a.vec_pool), r.get("nb", {}), cs))(cs)
        rules[f"rrf wl=4 k=60 + context {cs}"] = (lambda cs: lambda r: context(
            rrf_scores(r["lex"][:a.lex_pool], r["vec"][:a.vec_pool], 4.0, 1.0, 60), r.get("nb", {}), cs))(cs)
        for bs in [float(x) for x in a.bridged_shares.split(",") if x]:
            rules[f"default + context {cs}, bridged CJK share {bs}"] = (lambda cs, bs: lambda r: context(
                default(r, a.lex_pool, a.vec_pool, bridged=bs), r.get("nb", {}), cs))(cs, bs)
            rules[f"default + context {cs}, bridged CJK share {bs}, last line"] = (lambda cs, bs: lambda r: context(
                default(r, a.lex_pool, a.vec_pool, bridged=bs, vec_key="vec_ll"), r.get("nb", {}), cs))(cs, bs)
    import statistics
    def zs(lst):
        if len(lst) < 2:
            return lst
        v = [x for _, x in lst]
        mu, sd = statistics.mean(v), statistics.pstdev(v) or 1.0
        return [(i, (x - mu) / sd) for i, x in lst]
    for al in (0.5, 0.6, 0.7):
        rules[f"convex a={al} vec top20 minmax"] = (lambda al: lambda r: convex(r["lex"][:a.lex_pool], r["vec"][:20], al))(al)
        rules[f"convex a={al} lex200 vec200"] = (lambda al: lambda r: convex(r["lex"][:200], r["vec"][:200], al))(al)
        rules[f"convex a={al} lex50 vec50"] = (lambda al: lambda r: convex(r["lex"][:50], r["vec"][:50], al))(al)
    for al in (0.3, 0.4, 0.5, 0.6):
        def zrule(r, al=al):
            lz, vz = zs(r["lex"][:a.lex_pool]), zs(r["vec"][:a.vec_pool])
            s2 = {}
            for i, x in lz:
                s2[i] = (1 - al) * x
            lmin = min((x for _, x in lz), default=0)
            vmin = min((x for _, x in vz), default=0)
            for i, x in vz:
                s2[i] = s2.get(i, (1 - al) * lmin) + al * x
            for i in list(s2):
                if i not in dict(vz):
                    s2[i] += al * vmin
            return sorted(s2, key=lambda i: -s2[i])
        rules[f"zscore a={al}"] = zrule
    print("| rule | " + " | ".join(f"{n} {heads[n]}" + (f" / {extra[n]}" if n in extra else "") for n in data) + " |")
    print("|---|" + "---|" * len(data))
    for rname, rule in rules.items():
        cells = []
        for n, (spec, rows) in data.items():
            agg = evaluate(spec, rows, rule)
            cells.append(f"{agg[heads[n]]:.3f}" + (f" / {agg[extra[n]]:.3f}" if n in extra else "")
                         + "".join(f" / {agg[x]:.3f}" for x in more.get(n, ())))
        print(f"| {rname} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

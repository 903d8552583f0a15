"""Health checks of a PostgreSQL store (``memdir doctor`` with ``store = postgresql://…``)."""

from __future__ import annotations

from memdir.urlmask import safe_url
from memdir.errors import MemdirError
from memdir.store.postgres.migrations import CLIENT_ROLE, MIGRATIONS, RLS_TABLES
from memdir.store.postgres.pgvector import PGVECTOR_MIN, hnsw_dims, version_tuple
from memdir.store.postgres.store import PgStore


def doctor(url: str, *, project: str, token: str | None = None, hnsw_threshold: int = 10_000) -> list[dict[str, str]]:
    """Checks of a PostgreSQL store, shaped as :func:`memdir.engine.hybrid.doctor`'s (``check``, ``ok`` = ok|warn|fail,
    ``detail``, ``remedy``): the connection and server version, the schema version, row-level security on every
    project table, the pgvector extension, whether this login bypasses row-level security, and whether ``token``
    grants ``project``. Never raises."""
    out: list[dict[str, str]] = []

    def add(check, ok, detail, remedy=""):
        out.append({"check": f"store {check}", "ok": ok, "detail": detail, "remedy": remedy})

    try:
        store = PgStore.connect(url, project=project, token=token)
    except MemdirError as exc:
        add("connection", "fail", str(exc), "check the store URL (`memdir config`), that the server runs and accepts this login")
        return out
    c = store.conn
    try:
        v = c.execute("SHOW server_version").fetchone()["server_version"]
        add("connection", "ok", f"{safe_url(url)}: PostgreSQL {v}, project {project!r}")
        have = c.execute("SELECT max(version) AS v FROM memdir_schema").fetchone()["v"]
        add("schema", "ok" if have == len(MIGRATIONS) else "fail", f"schema v{have} (this memdir: v{len(MIGRATIONS)})")
        rls = {r["relname"]: r["relrowsecurity"] for r in c.execute(
            "SELECT relname, relrowsecurity FROM pg_class WHERE relname = ANY(%s) AND relkind = 'r'", (list(RLS_TABLES),))}
        off = [t for t in RLS_TABLES if not rls.get(t)]
        add("row-level security", "ok" if not off else "fail", "on for " + ", ".join(RLS_TABLES) if not off
            else f"off for {', '.join(off)}", "" if not off else "connect once as the schema owner to migrate")
        me = c.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        owner = c.execute("SELECT pg_get_userbyid(relowner) = current_user AS own FROM pg_class WHERE relname = 'docs'").fetchone()
        if me and (me["rolsuper"] or me["rolbypassrls"] or (owner and owner["own"])):
            add("login", "warn", "this login owns the tables or bypasses row-level security: it sees every project",
                f"give each person a client login (GRANT {CLIENT_ROLE} TO <login>) and a token; keep this one for admin")
            why = store.ownerless_refusal()
            if why:
                add("person", "fail", f"events are refused: {why}", "set MEMDIR_STORE_TOKEN, or use a client login with a token")
            elif not store.me:
                add("person", "ok", f"no token: events are written without an owner (project {project!r} has no members)")
            else:
                add("person", "ok", f"events are written as {store.me!r}")
        else:
            ok = c.execute("SELECT memdir_project_ok() AS ok").fetchone()["ok"]
            add("token", "ok" if ok else "fail", f"token grants project {project!r}" if ok else
                f"no token granting project {project!r} (nothing will be visible)", "" if ok else "ask the store's admin for a token")
        for row in pgvector_checks(store, hnsw_threshold):
            add(*row)
    except Exception as exc:  # a check that cannot run is a finding, not a crash
        add("checks", "fail", f"{type(exc).__name__}: {exc}", "")
    finally:
        store.close()
    return out


def pgvector_checks(store: PgStore, hnsw_threshold: int) -> list[tuple[str, str, str, str]]:
    """doctor's ``(check, ok, detail, remedy)`` rows on vectors: pgvector present or absent, and per model and vector
    length of the project whether its HNSW index exists and is used (above ``hnsw_threshold`` vectors)."""
    c = store.conn
    ext = c.execute("SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if ext is None:
        return [("pgvector", "warn", "absent: the vector extension is not available on this server; vectors are scored "
                 "exactly in the application", "install pgvector >= 0.5 on the server (e.g. the postgresql-<version>-"
                 "pgvector package, or a build that ships it) for HNSW")]
    have = ext["installed_version"] or ext["default_version"]
    if version_tuple(have) < PGVECTOR_MIN:
        return [("pgvector", "warn", f"vector {have} has no HNSW (needs >= 0.5.0): vectors are scored in the application",
                 "ALTER EXTENSION vector UPDATE (as a superuser) after upgrading pgvector")]
    if not store.pgvector:
        return [("pgvector", "warn", f"vector {ext['default_version']} is available but not installed in this database: "
                 "vectors are scored in the application", "connect once with a superuser login (CREATE EXTENSION vector)")]
    out = [("pgvector", "ok", f"present: vector {ext['installed_version']}; vectors are stored and searched by the server", "")]
    dims = hnsw_dims(c)
    rows = c.execute("SELECT model, dim, count(*) AS n FROM vectors WHERE project = %s AND status = 'ok' "
                     "AND embedding IS NOT NULL GROUP BY model, dim ORDER BY model, dim", (store.project,)).fetchall()
    if not rows:
        out.append(("hnsw", "ok", "no vectors in this project yet (an HNSW index per vector length is built with the first)", ""))
    for r in rows:
        what = f"{r['model']} (length {r['dim']}): {r['n']:,} vectors"
        if r["dim"] not in dims:
            out.append(("hnsw", "warn", f"{what}, no HNSW index for this length: exact search in the server",
                        f"connect once as the table owner (it creates vectors_hnsw_{r['dim']})"))
        elif r["n"] > hnsw_threshold:
            out.append(("hnsw", "ok", f"{what}: HNSW in use (index vectors_hnsw_{r['dim']}; above "
                        f"recall.pg_hnsw_threshold = {hnsw_threshold:,})", ""))
        else:
            out.append(("hnsw", "ok", f"{what}: exact search in the server (HNSW index vectors_hnsw_{r['dim']} used above "
                        f"recall.pg_hnsw_threshold = {hnsw_threshold:,})", ""))
    return out

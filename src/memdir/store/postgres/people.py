"""Migration m012 of the PostgreSQL store (issue 25 item 3): tokens with a life, and sharing decided per person.

Tokens. ``memdir_tokens`` gains ``label`` (unique per person: ``laptop``, ``ci`` …; the tokens made before are
labelled ``token-1``, ``token-2`` … per person, oldest first, and keep working), ``expires_at`` (``NULL``: never) and
``last_used_at`` (set by the team server, at most once a minute per token: :data:`TOUCH_EVERY`). A token's id is
the first :data:`ID_CHARS` hex digits of its SHA-256 (shown by ``memdir store tokens``; the token itself is never
stored). An expired token grants nothing and names no one (``memdir_project_ok()``, ``memdir_person()``), so a revoked
(deleted) or expired token is refused alike; ``memdir_token_projects()`` tells its holder which projects it grants
(the 403 answer names them, so a clone with the wrong project name gets the right one).

Sharing. A person's events were opened to the project by one switch the admin held (``memdir_projects``): turning it
on exposed every member's past private events at once. Now each person decides for their own history
(``memdir_sharing(project, person, share)``): a row of events (and their full-text rows, counters, tiers and vectors)
is read by another member only when its owner shares in that project. A member sets their own switch through the
team server (``memdir_set_sharing(bool)``, their token's person and project only); the admin can set one named person's.
Projects shared before keep what their members could read: each person holding a token for a shared project at the
migration shares in it.
"""

from __future__ import annotations

from memdir.store.postgres.sql import CLIENT_ROLE, OWN, PROJECT_OK

#: hex digits of a token's SHA-256 that name it (``memdir store tokens``, ``memdir store revoke --id``)
ID_CHARS = 10

#: the team server records a token's use at most this often
TOUCH_EVERY = "1 minute"

#: a token row that is alive (not expired), as SQL over ``memdir_tokens t``
LIVE = "(t.expires_at IS NULL OR t.expires_at > now())"

HASH = "encode(sha256(convert_to(coalesce(current_setting('app.token', true), ''), 'UTF8')), 'hex')"


def m012_token_lifecycle_and_personal_sharing(cur) -> None:
    """See the module docstring. Safe to run again (tests run migrations twice)."""
    cur.execute(f"""
        ALTER TABLE memdir_tokens ADD COLUMN IF NOT EXISTS label text, ADD COLUMN IF NOT EXISTS expires_at timestamptz,
            ADD COLUMN IF NOT EXISTS last_used_at timestamptz;
        UPDATE memdir_tokens t SET label = 'token-' || x.n FROM (
            SELECT sha256, row_number() OVER (PARTITION BY person ORDER BY created_at, sha256) AS n FROM memdir_tokens) x
            WHERE x.sha256 = t.sha256 AND t.label IS NULL;
        ALTER TABLE memdir_tokens ALTER COLUMN label SET NOT NULL;
        CREATE UNIQUE INDEX IF NOT EXISTS memdir_tokens_label ON memdir_tokens(person, label);

        CREATE OR REPLACE FUNCTION memdir_project_ok() RETURNS boolean
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT coalesce(current_setting('app.project', true), '') <> '' AND EXISTS (
                SELECT 1 FROM public.memdir_tokens t WHERE t.sha256 = {HASH} AND {LIVE}
                  AND current_setting('app.project', true) = ANY (t.projects))
        $$;
        CREATE OR REPLACE FUNCTION memdir_person() RETURNS text
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT t.person FROM public.memdir_tokens t WHERE t.sha256 = {HASH} AND {LIVE}
        $$;
        CREATE OR REPLACE FUNCTION memdir_token_projects() RETURNS text[]
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT t.projects FROM public.memdir_tokens t WHERE t.sha256 = {HASH} AND {LIVE}
        $$;
        CREATE OR REPLACE FUNCTION memdir_token_used() RETURNS boolean
            LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            UPDATE public.memdir_tokens t SET last_used_at = now() WHERE t.sha256 = {HASH}
              AND (t.last_used_at IS NULL OR t.last_used_at < now() - interval '{TOUCH_EVERY}');
            SELECT true
        $$;

        CREATE TABLE IF NOT EXISTS memdir_sharing(project text NOT NULL, person text NOT NULL, share boolean NOT NULL,
                                    changed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (project, person));
        REVOKE ALL ON memdir_sharing FROM PUBLIC;
        INSERT INTO memdir_sharing(project, person, share)
            SELECT DISTINCT p.project, t.person, true FROM memdir_projects p
            JOIN memdir_tokens t ON p.project = ANY (t.projects) WHERE p.share_events ON CONFLICT DO NOTHING;
        CREATE OR REPLACE FUNCTION memdir_sharers() RETURNS text[]
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT coalesce(array_agg(s.person), '{{}}') FROM public.memdir_sharing s
            WHERE s.project = current_setting('app.project', true) AND s.share
        $$;
        CREATE OR REPLACE FUNCTION memdir_set_sharing(on_ boolean) RETURNS text
            LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            DECLARE who text := public.memdir_person();
            BEGIN
                IF who IS NULL OR NOT public.memdir_project_ok() THEN
                    RAISE EXCEPTION 'this token does not grant project %', current_setting('app.project', true)
                        USING ERRCODE = 'insufficient_privilege';
                END IF;
                INSERT INTO public.memdir_sharing(project, person, share) VALUES (current_setting('app.project', true), who, on_)
                    ON CONFLICT (project, person) DO UPDATE SET share = excluded.share, changed_at = now();
                RETURN who;
            END
        $$;
    """)
    for fn in ("memdir_token_projects()", "memdir_token_used()", "memdir_sharers()", "memdir_set_sharing(boolean)"):
        cur.execute(f"REVOKE ALL ON FUNCTION {fn} FROM PUBLIC")
        cur.execute(f"GRANT EXECUTE ON FUNCTION {fn} TO {CLIENT_ROLE}")
    shares = "owner = ANY (CAST((SELECT memdir_sharers()) AS text[]))"  # one evaluation per statement
    of_event = ("EXISTS (SELECT 1 FROM docs d WHERE d.project = {t}.project AND d.owner = {t}.owner AND d.ref = {t}.ref "
                "AND d.kind = 'event')")
    shareable = {"docs": "kind = 'event'", "fts": "NOT note", "fts_stats": "NOT note", "term_df": "NOT note",
                 "tombstones": "false", "tiers": of_event.format(t="tiers"), "vectors": of_event.format(t="vectors")}
    for t, sh in shareable.items():
        cur.execute(f"DROP POLICY IF EXISTS {t}_read ON {t}")
        cur.execute(f"CREATE POLICY {t}_read ON {t} FOR SELECT USING ({PROJECT_OK} AND ({OWN} OR (({sh}) AND {shares})))")


def m013_revoked_tokens(cur) -> None:
    """Revoked tokens leave a trace: ``memdir_revoked`` keeps each revoked token's row (never the token: its SHA-256,
    person, label, projects, times) and when it was revoked, so ``memdir store tokens`` can say a person's token was
    revoked rather than "no tokens". Nothing reads it to grant anything (the live tokens are ``memdir_tokens``)."""
    cur.execute("""
        CREATE TABLE IF NOT EXISTS memdir_revoked(sha256 text PRIMARY KEY, person text NOT NULL, label text NOT NULL,
            projects text[] NOT NULL, created_at timestamptz, last_used_at timestamptz, expires_at timestamptz,
            revoked_at timestamptz NOT NULL DEFAULT now());
        REVOKE ALL ON memdir_revoked FROM PUBLIC;
    """)

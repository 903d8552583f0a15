"""Read-only requests to the team server: the holdings for the viewer's Team page (what this member's token may
read, by person: ``POST /v1/<project>/holdings`` of :mod:`memdir.server.team`), doctor's contact check
(``GET /v1/whoami``) and one team memory by handle or key (``POST /v1/<project>/read``)."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from memdir.engine import delivery, remote, teamhttp
from memdir.engine.delivery import classify
from memdir.errors import UsageError
from memdir.urlmask import safe_url, scrub

TIMEOUT_S = 2.0  # the viewer's page waits this long for the team server; then it says what it found
HEALTH_TIMEOUT_S = 1.0  # after no answer: how long ``<remote.url>/health`` may take to say whether PostgreSQL answers


class TeamUnavailable(UsageError):
    """:func:`holdings` could not read the team store: ``url``, and ``cause`` as
    :func:`memdir.engine.delivery.classify` gives it (``{"kind", "reason", "fix"}``, the CLI's one-line fix)."""

    def __init__(self, url: str, cause: dict[str, str]):
        cause = {k: scrub(v, url) if isinstance(v, str) else v for k, v in cause.items()}
        url = safe_url(url)  # a user:password@ in remote.url is never shown
        super().__init__(f"{url}: {delivery.line(cause)}")
        self.url, self.cause = url, cause


def holdings(config, root_path: Path, *, newest: int = 5, timeout_s: float | None = None) -> dict[str, Any] | None:
    """What the team server holds for this project that this member's token may read, by person (read-only; the
    server's row-level security decides): ``{"url", "project", "me", "notes", "people": [...]}`` as
    ``POST /v1/<project>/holdings`` answers (:mod:`memdir.server.team`), or ``None`` when ``remote.url`` is not set.
    Waits ``timeout_s`` seconds at most (default :data:`TIMEOUT_S`; then :data:`HEALTH_TIMEOUT_S` more for
    ``<remote.url>/health``, which says whether the server's PostgreSQL answers). Raises :class:`TeamUnavailable` (a
    ``UsageError``) with the cause and its one-line fix."""
    got = remote.settings(config, root_path)
    if got is None:
        return None
    url, project, token = got
    timeout_s = TIMEOUT_S if timeout_s is None else timeout_s
    env = config.get("remote.token_env") or "MEMDIR_REMOTE_TOKEN"
    state = delivery.token_state(token, project=project, token_env=env)
    if state:
        raise TeamUnavailable(url, state)
    req = urllib.request.Request(teamhttp.endpoint(url, project, "holdings"), data=json.dumps({"newest": newest}).encode(),
                                 method="POST", headers={"Content-Type": "application/json",
                                                         "Authorization": f"Bearer {token}"})
    try:
        answer = json.loads(teamhttp.read(req, timeout_s) or b"{}")
    except urllib.error.HTTPError as exc:  # it answered: the status says why (token, project, route, server)
        raise TeamUnavailable(url, delivery.classify(exc.code, remote.http_reason(exc), project=project,
                                                     token_env=env)) from None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise TeamUnavailable(url, no_answer(url, exc, timeout_s, project=project)) from None
    if not isinstance(answer, dict) or not isinstance(answer.get("people"), list):
        raise UsageError(f"{url}: the answer has no people list (an older team server?)")
    return {"url": url, "project": project, **answer}


def no_answer(url: str, exc: BaseException, timeout_s: float, *, project: str) -> dict[str, str]:
    """The cause when the team server did not answer in time: its ``/health`` (``HEALTH_TIMEOUT_S``) tells a server
    whose PostgreSQL does not answer (HTTP 503: cause ``server``) from one that cannot be reached at all."""
    what = f"no answer within {timeout_s:g} s" if isinstance(exc, TimeoutError) or "timed out" in str(exc) else \
        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    try:
        # healthy now: the holdings request itself was slow
        teamhttp.read(urllib.request.Request(f"{url.rstrip('/')}/health"), HEALTH_TIMEOUT_S)
    except urllib.error.HTTPError as exc2:
        health = remote.http_reason(exc2)
        return delivery.classify(exc2.code, f"{what}; {url.rstrip('/')}/health says {health}", project=project)
    except (OSError, ValueError, http.client.HTTPException):
        pass
    return delivery.classify(None, what, project=project)


#: ``memdir doctor`` waits at most this for the team server
CHECK_TIMEOUT_S = 3.0


def check_server(url: str, project: str, token: str, *, timeout_s: float = CHECK_TIMEOUT_S,
                 token_env: str = "MEMDIR_REMOTE_TOKEN") -> dict[str, str]:
    """A doctor check (``{"check": "team server", "ok", "detail", "remedy"}``) that contacts the team server at
    ``url`` (``…/v1``) once, ``GET /whoami`` with ``token``, waiting at most ``timeout_s``: reachable, the token
    valid, the person it names and the projects it grants, ``project`` among them. A failure gives the cause's fix
    (:func:`memdir.engine.delivery.classify`); an unreachable or failing server is ``fail`` too (nothing can be sent)."""
    shown = safe_url(url)  # a user:password@ in remote.url is never shown

    def bad(state: dict[str, str]) -> dict[str, str]:
        return {"check": "team server", "ok": "fail", "detail": scrub(f"{shown}: {state['reason']}", url),
                "remedy": state["fix"]}

    state = delivery.token_state(token, project=project, token_env=token_env)
    if state:
        return bad(state)
    req = urllib.request.Request(f"{url.rstrip('/')}/whoami", headers={"Authorization": f"Bearer {token}"})
    try:
        got = json.loads(teamhttp.read(req, timeout_s) or b"{}")
    except urllib.error.HTTPError as exc:
        return bad(classify(exc.code, remote.http_reason(exc), project=project, token_env=token_env))
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return bad(classify(None, f"{type(exc).__name__}: {exc}", project=project, token_env=token_env))
    if not isinstance(got, dict) or not isinstance(got.get("projects"), list):
        return bad({"reason": "the answer is not a memdir team server's (an older server, or another service)",
                    "fix": "set remote.url to the server's API, ending in /v1, and upgrade memdir there"})
    grants = ", ".join(map(str, got["projects"])) or "nothing"
    if project not in got["projects"]:
        return bad(classify(403, f"(grants: {grants})", project=project, token_env=token_env))
    ok = {"check": "team server", "ok": "ok", "detail": f"{shown}: reachable; the token is {got.get('person')}'s and "
          f"grants {grants}", "remedy": ""}
    if teamhttp.without_userinfo(url) != url:  # reachable without it: said, so the user takes it out of the file
        ok.update(ok="warn", remedy=f"remove the user:password@ from remote.url: it is not sent (the login is the "
                                    f"token in {token_env}) and a config.toml is often committed")
    return ok


def read(config, root_path: Path, id: str, *, timeout_s: float = CHECK_TIMEOUT_S) -> dict[str, Any] | None:
    """One memory the team server holds for this project and this member's token may read (row-level security
    decides), by the handle or key a team hit shows: ``{"ref", "kind", "role", "session", ts", "text", "handle",
    "summary"}``, or ``None`` when ``remote.url`` is not set or the server has no such row. A server that fails or
    cannot be reached logs its cause and fix as a warning and gives ``None`` (never raises)."""
    got = remote.settings(config, root_path)
    if got is None or not id:
        return None
    url, project, token = got
    if delivery.token_state(token, project=project):  # none, or a header that would fail quoting it: not asked
        return None
    req = urllib.request.Request(teamhttp.endpoint(url, project, "read"), data=json.dumps({"id": id}).encode(),
                                 method="POST", headers={"Content-Type": "application/json",
                                                         "Authorization": f"Bearer {token}"})
    try:
        hit = (json.loads(teamhttp.read(req, timeout_s) or b"{}") or {}).get("hit")
    except urllib.error.HTTPError as exc:
        state = classify(exc.code, remote.http_reason(exc), project=project)
    except (OSError, ValueError, AttributeError, http.client.HTTPException) as exc:
        state = classify(None, f"{type(exc).__name__}: {exc}", project=project)
    else:
        return hit if isinstance(hit, dict) and isinstance(hit.get("text"), str) else None
    from memdir.lazylog import getLogger

    getLogger("memdir").warning("memdir: the team server was not asked for %r: %s", id, state["reason"] + "; fix: " + state["fix"])
    return None

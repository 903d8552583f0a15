"""The team store's holdings for the viewer's Team page: what this member's token may read, by person (read-only;
``POST /v1/<project>/holdings`` of :mod:`memdir.server.team`)."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from memdir.engine import delivery, remote
from memdir.errors import UsageError

TIMEOUT_S = 2.0  # the viewer's page waits this long for the team server; then it says what it found
HEALTH_TIMEOUT_S = 1.0  # after no answer: how long ``<remote.url>/health`` may take to say whether PostgreSQL answers


class TeamUnavailable(UsageError):
    """:func:`holdings` could not read the team store: ``url``, and ``cause`` as
    :func:`memdir.engine.delivery.classify` gives it (``{"kind", "reason", "fix"}``, the CLI's one-line fix)."""

    def __init__(self, url: str, cause: dict[str, str]):
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
    if not token:
        raise TeamUnavailable(url, delivery.classify(None, "no token", project=project, token_env=env))
    req = urllib.request.Request(f"{url.rstrip('/')}/{project}/holdings", data=json.dumps({"newest": newest}).encode(),
                                 method="POST", headers={"Content-Type": "application/json",
                                                         "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            answer = json.loads(resp.read() or b"{}")
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
        with urllib.request.urlopen(f"{url.rstrip('/')}/health", timeout=HEALTH_TIMEOUT_S):
            pass  # healthy now: the holdings request itself was slow
    except urllib.error.HTTPError as exc2:
        health = remote.http_reason(exc2)
        return delivery.classify(exc2.code, f"{what}; {url.rstrip('/')}/health says {health}", project=project)
    except (OSError, ValueError, http.client.HTTPException):
        pass
    return delivery.classify(None, what, project=project)

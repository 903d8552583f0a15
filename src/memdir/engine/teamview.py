"""The team store's holdings for the viewer's Team page: what this member's token may read, by person (read-only;
``POST /v1/<project>/holdings`` of :mod:`memdir.server.team`)."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from memdir.engine import remote
from memdir.errors import UsageError


def holdings(config, root_path: Path, *, newest: int = 5, timeout_s: float = 5.0) -> dict[str, Any] | None:
    """What the team server holds for this project that this member's token may read, by person (read-only; the
    server's row-level security decides): ``{"url", "project", "me", "notes", "people": [...]}`` as
    ``POST /v1/<project>/holdings`` answers (:mod:`memdir.server.team`), or ``None`` when ``remote.url`` is not set.
    Raises ``UsageError`` with one line (the server's reason, or why it could not be reached)."""
    got = remote.settings(config, root_path)
    if got is None:
        return None
    url, project, token = got
    req = urllib.request.Request(f"{url.rstrip('/')}/{project}/holdings", data=json.dumps({"newest": newest}).encode(),
                                 method="POST", headers={"Content-Type": "application/json",
                                                         "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            answer = json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        raise UsageError(f"{url}: {remote.http_reason(exc)}") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise UsageError(f"{url}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("people"), list):
        raise UsageError(f"{url}: the answer has no people list (an older team server?)")
    return {"url": url, "project": project, **answer}

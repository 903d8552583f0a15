"""The viewer's team page: what the team store (``remote.url``, a ``memdir serve --store`` server) holds for this
project, by person, as far as this member's token may read it (the server's row-level security decides; the page
only reads, through :func:`memdir.engine.teamview.holdings`)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.errors import UsageError

NEWEST = 5  # a person's newest events shown under their counts


def routes(site: Any) -> list[Route]:
    """The team page's route; ``site`` as for :func:`memdir.ui.timeline.routes`."""

    async def team(request: Request) -> Response:
        def run(m):
            from memdir.engine import teamview

            try:
                return teamview.holdings(m.config, m.project_root, newest=NEWEST), None
            except teamview.TeamUnavailable as exc:  # the cause as `memdir status` words it, and its fix
                return None, {"url": exc.url, **exc.cause}
            except UsageError as exc:
                return None, {"reason": str(exc)}

        got, problem = await site.call(run)
        return site.render(request, "team.html", got=got, problem=problem, newest=NEWEST, nav="team")

    return [Route(f"{site.base}/team", team)]

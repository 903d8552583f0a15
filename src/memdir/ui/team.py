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
        from starlette.concurrency import run_in_threadpool

        from memdir.engine import teamview

        def ask(cfg, root):
            try:
                return teamview.holdings(cfg, root, newest=NEWEST), None
            except teamview.TeamUnavailable as exc:  # the cause as `memdir status` words it, and its fix
                return None, {"url": exc.url, **exc.cause}
            except UsageError as exc:
                return None, {"reason": str(exc)}

        # only the settings are read under the viewer's lock: the request (up to a few seconds when the server does
        # not answer) runs outside it, so the other pages and `memdir serve`'s MCP tools never wait on the network
        cfg, root = await site.call(lambda m: (m.config, m.project_root))
        got, problem = await run_in_threadpool(ask, cfg, root)
        return site.render(request, "team.html", got=got, problem=problem, newest=NEWEST, nav="team")

    return [Route(f"{site.base}/team", team)]

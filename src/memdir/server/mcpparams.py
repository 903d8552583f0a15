"""Server middleware of ``memdir mcp``: a request the SDK refuses for its params says what to fix.

The SDK answers every such request with the same ``-32602 Invalid request parameters`` and empty ``data``: a
``tools/list`` sent before ``initialize``, a ``tools/call`` with no params, a string as its ``arguments`` or a number
as its ``name``. The code stays; the message says which."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INVALID_PARAMS = -32602
GENERIC = "Invalid request parameters"


def call_shape_error(params: Any) -> str | None:
    """What is wrong with a ``tools/call``'s ``params`` (``None`` when nothing this module checks is)."""
    if not isinstance(params, Mapping):
        return 'Invalid params: tools/call needs params {"name": <a tool\'s name>, "arguments": {…}} (tools/list names them)'
    if not isinstance(params.get("name"), str):
        return (f'Invalid params: tools/call\'s "name" must be a tool\'s name, a string (got {type(params.get("name")).__name__}); '
                'its "arguments" an object')
    if params.get("arguments") is not None and not isinstance(params["arguments"], Mapping):
        return (f'Invalid params: tools/call\'s "arguments" must be an object of the tool\'s arguments by name (got '
                f'{type(params["arguments"]).__name__}); its "name" the tool\'s name')
    return None


def _initialized(ctx: Any) -> bool | None:
    """Whether the session's ``initialize`` was accepted, when the SDK's session says (``None`` when it does not)."""
    conn = getattr(getattr(ctx, "session", None), "_connection", None)  # noqa: SLF001 — the SDK's; absent: unknown
    done = getattr(conn, "initialize_accepted", None)
    return done if isinstance(done, bool) else None


def clearer(ctx: Any, message: str) -> str | None:
    """The message for a ``-32602`` the SDK gave as ``message`` to the request ``ctx``, or ``None`` to keep it."""
    if message != GENERIC:
        return None
    method = getattr(ctx, "method", "")
    if _initialized(ctx) is False and method not in ("initialize", "ping"):
        return f"{GENERIC}: {method} came before initialize; send initialize (then notifications/initialized) first"
    if method == "tools/call" and (shape := call_shape_error(getattr(ctx, "params", None))) is not None:
        return shape
    return f"{GENERIC}: {method}'s params do not match MCP's schema for it (or initialize was not sent first)"


async def clear_param_errors(ctx: Any, call_next: Any) -> Any:
    """Server middleware: a request the SDK refuses with its bare ``Invalid request parameters`` (or a pydantic
    ``ValidationError`` of its params) gets the same code with a message saying what to fix; a ``prompts/get`` of a
    prompt that does not exist gets ``-32602`` saying memdir serves none (the SDK answered code 0)."""
    from pydantic import ValidationError

    from mcp.shared.exceptions import MCPError

    try:
        return await call_next(ctx)
    except MCPError as exc:
        better = clearer(ctx, exc.message) if exc.code == INVALID_PARAMS and not exc.data else None
        if better is None:
            raise
        raise MCPError(code=INVALID_PARAMS, message=better) from None
    except ValidationError:
        better = clearer(ctx, GENERIC)
        if better is None:  # pragma: no cover - clearer words every bare refusal
            raise
        raise MCPError(code=INVALID_PARAMS, message=better) from None
    except ValueError:
        # prompts/get of a prompt the server does not have: the SDK raises ValueError, answered with code 0 and a
        # traceback in the host's log; memdir serves no prompts
        if getattr(ctx, "method", None) != "prompts/get":
            raise
        params = getattr(ctx, "params", None)
        name = params.get("name") if isinstance(params, Mapping) else None
        raise MCPError(code=INVALID_PARAMS, message=(
            f"Invalid params: no prompt named {str(name)[:100]!r}: memdir serves no prompts (prompts/list is empty); "
            "its memory is in the tools (tools/list)")) from None

"""Early answers of ``memdir mcp``: a ``memory_recall`` that arrives while the MCP SDK is still loading is answered
from memdir's engine directly, without waiting for the SDK.

The light loop (:mod:`memdir.server.mcplight`) answers ``initialize`` and ``tools/list`` from a recorded table, but a
``tools/call`` used to wait for the SDK (0.7-1.5 s to import and build on two cores): the first recall of a session
blocked the agent for about a second. This module is loaded first by the background thread of
:func:`memdir.cli.mcpstart.run_session` (memdir's engine and pydantic, about a quarter of the SDK's load), opens the
store and warms what a first recall pays for (the index opened and checked against the notes, the glossary, the
redaction patterns); then the SDK loads.

:func:`early_tools` returns ``call(name, arguments)``: the JSON-RPC ``result`` of the call, exactly what the SDK server
would answer (the same tool body, :func:`memdir.server.tools.do_recall`, and the same result model,
:func:`memdir.server.mcpmodels.result_models`, serialised as the SDK serialises it: structured content plus that JSON,
indented, as text), or ``None`` for a call it leaves to the SDK: another tool, arguments of another shape than the
plain JSON types the schema names (the SDK's validation words those errors), or a call that fails (the SDK runs it
again and words the error). It runs under the store's lock, marked foreground, as a tool call of the SDK server does.
"""

from __future__ import annotations

from typing import Any, Callable

import memdir.foreground as foreground

#: the arguments ``memory_recall`` takes (its schema in the light table says the same)
RECALL_ARGS = frozenset({"query", "k", "scope", "kinds"})
SCOPES = ("project", "global")
#: what the background warm-up searches for: a few common words in both languages and no secret, so the regular
#: expressions a first real query needs are compiled (nothing is counted as recalled: ``rehearse=False``)
WARM_QUERY = "test deploy config 部署 测试"


def recall_arguments(arguments: Any) -> "tuple[str, int | None, str | None, list[str] | None] | None":
    """``(query, k, scope, kinds)`` when ``arguments`` are ``memory_recall``'s in the plain form its schema names (a
    string query; ``k`` an integer, ``scope`` ``"project"`` or ``"global"``, ``kinds`` a list of strings, each
    absent or null); else ``None`` (unknown or ``_meta`` keys, a number as a string, a boolean as ``k``: the SDK
    coerces or refuses those, and words the refusal)."""
    if not isinstance(arguments, dict) or arguments.keys() - RECALL_ARGS:
        return None
    query, k = arguments.get("query"), arguments.get("k")
    scope, kinds = arguments.get("scope"), arguments.get("kinds")
    if not isinstance(query, str):
        return None
    if k is not None and (isinstance(k, bool) or not isinstance(k, int)):
        return None
    if scope is not None and scope not in SCOPES:
        return None
    if kinds is not None and (not isinstance(kinds, list) or not all(isinstance(x, str) for x in kinds)):
        return None
    return query, k, scope, kinds


def warm(m: Any) -> None:
    """Pay now, in the background, for what the first recall of a session would: the index opened (and brought up to
    date with the Markdown notes), the tokenizer and glossary tables, the recall path's modules and the redaction
    patterns. Read-only and local: nothing is counted as recalled, and the warm-up query goes to no team server and no
    embedding endpoint (with either configured, the lexical search alone: a ``recall`` would ask them at every session
    start; else the whole recall). Never raises (a failure is the first call's to report)."""
    try:
        from memdir.capture import redact
        from memdir.engine import lexical
        from memdir.recall.tokenize import query_tokens
        from memdir.server.tools import do_recall  # noqa: F401 - its modules

        if m.config.get("remote.url") or m.config.get("recall.channel") != "lexical":
            lexical.resync(m.stores)
            lexical.lexical(m.stores, query_tokens(WARM_QUERY, repeats=True), k=3, scope=None, kinds=None,
                            query=WARM_QUERY)
        else:  # nothing it would ask leaves the machine: the whole recall path, as a first call walks it
            m.recall(WARM_QUERY, k=3, rehearse=False)
        redact.compile_all()
    except Exception:  # noqa: BLE001 - warming only; the call itself reports what is wrong
        pass


def early_tools(store: Any) -> "Callable[[str, Any], dict | None]":
    """``call(name, arguments)`` answering ``memory_recall`` over ``store`` (a :class:`memdir.server.mcp.MemoryStore`,
    the one the SDK server will use), after warming it (:func:`warm`). Imports memdir's engine and pydantic, not the
    SDK."""
    import pydantic_core
    from pydantic import BaseModel, Field

    from memdir.server.mcpmodels import result_models
    from memdir.server.tools import clean, do_recall

    models = result_models(BaseModel, Field)
    with store.lock:
        warm(store.memdir)

    def call(name: str, arguments: Any) -> "dict | None":
        if name != "memory_recall":
            return None
        args = recall_arguments(arguments)
        if args is None:
            return None
        query, k, scope, kinds = args
        with store.lock, foreground.active():
            try:
                out = models.RecallResult(**clean(do_recall(store.memdir, query, k, scope, kinds)))
            except Exception:  # noqa: BLE001 - the SDK runs the call again and words the error as it does
                return None
        # what the SDK's MCPServer makes of a tool's model result (func_metadata.convert_result): the model as
        # indented JSON in one text block, and its JSON dump as the structured content
        text = pydantic_core.to_json(out, fallback=str, indent=2).decode()
        return {"content": [{"type": "text", "text": text}], "isError": False,
                "structuredContent": out.model_dump(mode="json", by_alias=True)}

    return call

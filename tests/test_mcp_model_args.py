"""Arguments as models send them to the MCP tools (siblings of C9, C12, C19): an id copied with what surrounds it
where the model read it (quotes, backticks, brackets, a leading ``#``, the block's whole ``[handle kind date]``
header) names the memory it wraps, in ``memory_read``, ``memory_forget`` and ``supersedes`` as in ``Memdir.get``."""

from __future__ import annotations

import pytest

mcp = pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")
from mcp import Client  # noqa: E402

from memdir.server.mcp import build_server  # noqa: E402


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _handle(m, note):
    return {h.id: h.handle for h in m.recall(note.text, k=5)}[note.id]


WRAPPED = ["'{}'", '"{}"', "`{}`", "#{}", "[{}]", " '{}' ", "[{} fact 12-06]", "{} fact 12-06", "“{}”", "<{}>"]


@pytest.mark.parametrize("wrap", WRAPPED)
def test_a_wrapped_handle_or_id_names_the_memory_it_wraps(m, wrap):
    note = m.remember("the staging database is called kestrel", category="facts")
    handle = _handle(m, note)
    assert m.get(wrap.format(handle)).id == note.id
    if " " not in wrap.strip():  # a header wraps a handle only
        assert m.get(wrap.format(note.id)).id == note.id
    assert m.get(wrap.format("zzzzzz")) is None  # nothing is guessed: an unknown handle stays unknown


def test_an_id_holding_such_characters_is_still_its_own(m):
    ev = {"role": "user", "text": "how do we deploy kestrel to staging?", "session": "s1", "key": "'quoted'"}
    m.import_events([ev])
    assert m.get("'quoted'").key == "'quoted'"


@pytest.mark.anyio
@pytest.mark.parametrize("wrap", ["'{}'", "#{}", "[{} fact 12-06]", "`{}`"])
async def test_mcp_tools_take_a_wrapped_handle(m, wrap):
    old = m.remember("I love spicy food", category="preferences")
    other = m.remember("the staging database is called kestrel", category="facts")
    async with Client(build_server(memdir=m)) as c:
        r = await c.call_tool("memory_read", {"id": wrap.format(_handle(m, old))})
        assert not r.is_error and r.structured_content["id"] == old.id
        r = await c.call_tool("memory_remember", {"text": "I no longer eat spicy food", "category": "preferences",
                                                  "supersedes": wrap.format(_handle(m, old))})
        assert not r.is_error and r.structured_content["note"]["supersedes"] == old.id
        r = await c.call_tool("memory_forget", {"id": wrap.format(_handle(m, other))})
        assert not r.is_error and r.structured_content["forgotten"] is True, r.structured_content
    assert m.get(other.id) is None and m.get(old.id).superseded_by


@pytest.mark.anyio
async def test_null_for_an_optional_argument_is_its_default(m):
    """Models (and hosts turning a tool's schema into a strict function schema) send null for every optional
    argument they leave out. memory_recall took ``k: null``, but ``limit``, ``offset``, ``max_chars``, ``days``,
    ``force``, remember's ``category`` and ``scope`` were refused ("Input should be a valid integer")."""
    note = m.remember("the staging database is called kestrel", category="facts")
    async with Client(build_server(memdir=m)) as c:
        tools = {t.name: t.input_schema for t in (await c.list_tools()).tools}
        calls = {
            "memory_list": {"kinds": None, "category": None, "scope": None, "limit": None},
            "memory_read": {"id": note.id, "offset": None, "max_chars": None, "scope": None},
            "memory_remember": {"text": "deploys go out on Tuesdays", "category": None, "summary": None, "tags": None,
                                "load_when": None, "pinned": None, "supersedes": None, "scope": None,
                                "highlight": None},
            "memory_prune": {"days": None, "confirm_token": None, "force": None},
            "memory_recall": {"query": "kestrel", "k": None, "scope": None, "kinds": None},
            "memory_forget": {"id": None, "query": "Tuesdays", "prefix": None, "confirm_token": None},
        }
        got = {name: await c.call_tool(name, args) for name, args in calls.items()}
        for name, r in got.items():
            assert not r.is_error, (name, r.content[0].text)
            # the schema says so: every argument that is not required takes null
            schema = tools[name]
            for arg, prop in schema["properties"].items():
                if arg not in schema.get("required", []):
                    assert {"type": "null"} in prop.get("anyOf", []), (name, arg, prop)
    assert got["memory_list"].structured_content["count"] == 1
    assert got["memory_read"].structured_content["text"] == note.text
    made = got["memory_remember"].structured_content["note"]
    assert made["category"] == "facts" and made["scope"] == "project" and made["pinned"] is False
    assert got["memory_prune"].structured_content["days"] == 90 and not got["memory_prune"].structured_content["acted"]
    assert got["memory_forget"].structured_content["count"] == 1

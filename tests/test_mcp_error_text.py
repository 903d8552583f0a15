"""A tool call with an argument of the wrong type gets one clean line: an input value holding brackets (a list) left
``, input_type=list]`` behind after the message (a probe of the MCP server)."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from memdir.server.mcp import flatten_error  # noqa: E402


@pytest.mark.parametrize("value, kind", [("['a', 'b']", "list"), ("{'x': [1]}", "dict"), ("3", "int")])
def test_pydantic_s_report_becomes_one_clean_line(value, kind):
    text = ("1 validation error for memory_recallArguments\nquery\n"
            f"  Input should be a valid string [type=string_type, input_value={value}, input_type={kind}]\n"
            "    For further information visit https://errors.pydantic.dev/2.11/v/string_type")
    assert flatten_error(text) == "bad arguments: query: Input should be a valid string"

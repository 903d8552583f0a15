"""Our own ``<memory>`` block echoed back (case C16's kind) through a tool: ``memdir context`` run in a shell, a
script or a sub-agent printing the block it was given. The gates cut the block out of prompts and replies only, so a
tool's copy was stored whole and the next block brought its rules and entries back a second time, as tool output.
Now it is cut from tool text too, wherever it opens (at a line's start or right after the call's arrow); a call that
returned nothing else is not stored. A nested block no longer leaves its outer closing tag behind, and another tool's
``<memory-context>`` tag is not taken for ours (it took the person's question after it along)."""

from __future__ import annotations

import pytest

BLOCK = ("<memory>\n## Rules (always apply)\n- Always run the tests before pushing\n## Relevant\n"
         "[2vnb86 decision 12-01] 部署脚本用 pnpm 而不是 npm，因为 lockfile 不兼容\n</memory>")


@pytest.mark.parametrize("output", [BLOCK, BLOCK.upper(), BLOCK.replace("<memory>", '<memory source="memdir">'),
                                    "  " + BLOCK + "\n", BLOCK[:-len("\n</memory>")]])
def test_a_tool_that_printed_only_our_block_is_not_stored(m, output):
    r = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "memdir context deploy"}, "output": output,
                   "session": "s", "call_id": "c1"})
    assert not r.stored and r.reason == "memory_block"


@pytest.mark.parametrize("tool,inp", [("Bash", {"command": "python scripts/run.py"}), ("Task", {"prompt": "check it"})])
def test_the_rest_of_a_tool_output_is_kept_without_our_block(m, tool, inp):
    out = "starting the checks\n" + BLOCK + "\nthe deploy needs node 20 because of the lockfile"
    r = m.capture({"role": "tool", "tool": tool, "input": inp, "output": out, "session": "s", "call_id": "c2"})
    assert r.stored
    text = m.get(r.key).text
    assert "node 20" in text and "starting the checks" in text
    assert "memory>" not in text.lower() and "Always run the tests" not in text and "2vnb86" not in text


def test_an_imported_tool_text_loses_our_block_too(m):
    from memdir.capture.gates import gate

    text = "Bash: memdir context deploy → " + BLOCK
    assert gate({"role": "tool", "text": text, "meta": {"tool": "Bash"}}, m.config).reason == "memory_block"
    kept = gate({"role": "tool", "text": text + "\nexit 0, the deploy took 40 s", "meta": {"tool": "Bash"}}, m.config)
    assert kept.keep and "2vnb86" not in kept.text and "the deploy took 40 s" in kept.text


def test_a_nested_block_leaves_no_closing_tag_behind(m):
    r = m.capture({"role": "user", "session": "s", "text": "<memory>\n<memory>\n[abc123 fact] nested\n</memory>\n"
                   "</memory>\nwhy does the deploy use pnpm?"})
    assert r.stored and r.text == "why does the deploy use pnpm?"


def test_another_tools_memory_tag_is_not_ours(m):
    r = m.capture({"role": "user", "session": "s",
                   "text": "<memory-context>\nsome other plugin's notes\n</memory-context>\nwhy does the deploy use pnpm?"})
    assert r.stored and "why does the deploy use pnpm?" in r.text


def test_a_tools_own_one_line_memory_element_is_kept(m):
    # libvirt's domain XML (virsh dumpxml) holds <memory unit='KiB'>…</memory>: the tool's text, not our block
    xml = ("<domain type='kvm'>\n  <name>build-vm</name>\n  <memory unit='KiB'>8388608</memory>\n"
           "  <vcpu placement='static'>4</vcpu>\n</domain>")
    r = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "virsh dumpxml build-vm"}, "output": xml,
                   "session": "s", "call_id": "c9"})
    assert r.stored
    assert "<memory unit='KiB'>8388608</memory>" in m.get(r.key).text

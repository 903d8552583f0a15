"""docs/GUARANTEES.md names the test behind each promise: every file and test it names (`file.py::test`, or
`::test` for the file named before it in the same cell) exists, so a reader who goes to check a promise finds it.
Two `::` names followed `test_gate_siblings.py` while their tests live in `test_hostile_safety.py`."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def _named_tests() -> list[tuple[str, str | None]]:
    out = []
    for row in (ROOT / "docs" / "GUARANTEES.md").read_text(encoding="utf-8").splitlines():
        if not row.startswith("| ") or row.count("|") < 3:
            continue
        current = None
        for ref in re.findall(r"`([^`]+)`", row.rstrip(" |").rsplit(" | ", 1)[-1]):
            m = re.fullmatch(r"(?:tests/)?(?:reliability/)?(test_\w+\.py)(?:::(\w+\*?))?", ref)
            if m:
                current = m.group(1)
                out.append((current, m.group(2)))
            elif ref.startswith("::") and current:
                out.append((current, ref[2:]))
    return out


def test_every_test_the_guarantees_name_exists():
    files = {p.name: p for p in (ROOT / "tests").rglob("test_*.py")}
    named = _named_tests()
    assert len(named) > 50
    wrong = []
    for file, test in named:
        if file not in files:
            wrong.append(f"{file}: no such test file")
        elif test and not re.search("^def " + test.replace("*", r"\w*") + r"\(", files[file].read_text(encoding="utf-8"), re.M):
            wrong.append(f"{file}::{test}: no such test")
    assert not wrong, "\n".join(wrong)


def test_the_readme_names_every_exit_code_the_cli_uses():
    """`memdir import` stopped by Ctrl-C exits 130 (docs/API.md, the guarantees); the README's list of exit codes
    left it out. The README names the codes the CLI's own docstring lists."""
    import memdir.cli.main as cli_main

    def codes(text: str) -> set[str]:
        sentence = re.search(r"Exit codes:([^;]*)", text)
        assert sentence, "no 'Exit codes:' sentence"
        return set(re.findall(r"\b(\d+) ", sentence.group(1)))

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert codes(readme) == codes(" ".join(cli_main.__doc__.split())) == {"0", "1", "2", "130"}


def test_every_environment_variable_memdir_reads_is_documented():
    """`MEMDIR_PROJECT_DIR` picks the project of every command (the `--dir` option reads it) and was named in no
    document and no help: a user with it set saw their notes go to another project with nothing saying why. Each
    `MEMDIR_*` variable the code reads is named in the README or the docs (settings' own variables are the key
    upper-cased, which `memdir config` lists)."""
    from memdir.config import REGISTRY, SETTINGS  # noqa: F401  (SETTINGS fills REGISTRY)

    read = set()
    for path in (ROOT / "src" / "memdir").rglob("*.py"):
        read |= set(re.findall(r"""(?:environ(?:\.get)?\(?\[?|getenv\(|envvar=)\s*["'](MEMDIR_[A-Z0-9_]*[A-Z0-9])["']""",
                               path.read_text(encoding="utf-8")))
    settings = {"MEMDIR_" + k.upper().replace(".", "_") for k in REGISTRY}
    docs = (ROOT / "README.md").read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    assert "MEMDIR_HOME" in read
    missing = sorted(v for v in read - settings if not re.search(rf"\b{v}\b", docs))
    assert not missing, f"read by memdir, named in no document: {missing}"


def test_the_host_guide_lists_every_mcp_tool_in_both_languages():
    """docs/HOSTS-USAGE.md said the MCP server gives `memory_*` tools "recall, read, remember, forget, inspect,
    prune" (the Chinese half also without read): `memory_list` was missing from both lists."""
    from memdir.server.mcptable import light_table

    tools = {t["name"].removeprefix("memory_") for v in light_table()["tools_list"].values() for t in v["tools"]}
    assert len(tools) == 7
    guide = (ROOT / "docs" / "HOSTS-USAGE.md").read_text(encoding="utf-8")
    for line in re.findall(r"^\* \*\*MCP\*\*.*$", guide, re.M):
        assert tools <= set(re.findall(r"[a-z]+", line.split("memory_*", 1)[1].split("memdir mcp")[0])), line

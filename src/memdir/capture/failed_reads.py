"""A read or search that failed: what of it capture keeps (:func:`failed_because`).

A read, search or listing is dropped by the gates (its output is a file dump), unless ``capture.read_facts`` keeps its
one-line fact. One that *failed* is different: the error ("No such file or directory", "permission denied") is the
evidence a later "why did that search fail" asks for, and it is short. :func:`memdir.capture.gates.gate` keeps such a
call as its fact plus the lines that say why, whatever the setting.
"""

from __future__ import annotations

import re
from typing import Any

from memdir.capture import evidence

#: the most of a failed read's or search's output its one-line fact keeps: why it failed ("No such file or directory")
FAILED_FACT_MAX_CHARS = 240
#: the head of a failed read's output that is summarised for why (the rest of a dump says nothing more)
FAILED_SCAN_CHARS = 4000


def failed_because(name: str, text: Any, ev: dict, meta: dict, cwd: str | None, *, shell: bool) -> str:
    """``" → error (exit N): <why>"`` for a read or search that failed, else ``""``: its fact alone (``searched "x" in
    node_modules``) drops the one thing a later "why did that search fail" asks for.

    Failed means: the event says so (``is_error``, an exit code other than 0 in the event or its meta), an importer's
    summary reads ``→ error``, or — for a shell command (``shell``) only — its output reports an exit code other than 0
    (``Exit code 2``; a file's own text never makes a Read a failure). A search's exit 1 with nothing printed is no
    match, not a failure. The why lines are :func:`memdir.capture.tools.summarise_tool`'s, redacted here before they
    are cut to :data:`FAILED_FACT_MAX_CHARS` (a cut must not leave a secret's prefix the redactor no longer knows)."""
    from memdir.capture.redact import redact  # imported here: the gates' own import stays light (hooks)
    from memdir.capture.tools import output_exit_code, output_text, tool_summary

    code = next((c for c in (ev.get("exit_code"), meta.get("exit_code"), output_exit_code(ev.get("output")))
                 if isinstance(c, int) and not isinstance(c, bool)), None)
    if isinstance(text, str) and text.strip():  # an importer's summary, already bounded
        full = text
    else:
        raw = (output_text(ev.get("output"), dump=False) or "")[:FAILED_SCAN_CHARS]
        if code is None and shell:
            code = evidence.exit_status(raw)
        if not (ev.get("is_error") or meta.get("is_error") or code not in (None, 0)):
            return ""
        full = tool_summary(name, ev.get("input"), raw, is_error=True, cwd=cwd, exit_code=code)
    _, arrow, out = full.partition(" → ")
    if not arrow or not out.startswith("error"):
        return ""
    lines = [ln.strip() for ln in out.split("\n") if ln.strip()][:3]
    if re.sub(r"^error(?: \(exit \d+\))?:\s*", "", lines[0]) in ("", "(no output)") and len(lines) == 1:
        return ""  # nothing printed says why (grep/rg exit 1 with nothing printed: no match, not a failure)
    why = redact(" | ".join(lines))
    if len(why) > FAILED_FACT_MAX_CHARS:
        cut = why.rfind(" ", 0, FAILED_FACT_MAX_CHARS - 1)
        why = why[:cut if cut > FAILED_FACT_MAX_CHARS // 2 else FAILED_FACT_MAX_CHARS - 1].rstrip() + "…"
    return " → " + why

"""The host's own CLI as the distillation model, so a user needs no extra key.

==========  ==================================================================  ==============================
provider    argv (``distill.command`` replaces the program)                     prompt
==========  ==================================================================  ==============================
claude      ``claude -p --model <distill.model or haiku> --tools ""              stdin
            --no-session-persistence``
codex       ``codex exec --skip-git-repo-check --ephemeral --sandbox read-only   stdin
            [-m <distill.model>] -``
opencode    ``opencode run [-m <distill.model>] <prompt>``                       last argument
==========  ==================================================================  ==============================

Claude Code gets no tools and Codex a read-only sandbox (the model only has to answer), and neither keeps the
distiller's session on disk, so a later ``memdir import`` cannot read the prompt back as a conversation
(``opencode run`` has no such switch: its distiller sessions stay in OpenCode's history).

Each runs in a fresh temporary directory (so no project's hooks, plugins or files are in play), with
``MEMDIR_DISTILLING=1`` in its environment (memdir's own hooks do nothing under it, so the distiller's model
session is never captured), stdin closed after the prompt, and a timeout of ``distill.timeout_s``; stdout is
the reply. A missing program, a non-zero exit or a timeout raises :class:`LLMError`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from typing import Any

from memdir.llm.base import GUARD_ENV, LLMError, LLMUnreachable

DEFAULT_MODELS = {"claude": "haiku", "codex": "", "opencode": ""}


class HostCLIProvider:
    def __init__(self, kind: str, command: list[str], model: str = "", *, timeout_s: float = 120.0):
        if kind not in DEFAULT_MODELS:
            raise LLMError(f"unknown host CLI {kind!r}")
        self.name, self.command, self.timeout_s = kind, command, timeout_s
        self.model_name = model or DEFAULT_MODELS[kind]
        self.model = f"{kind}-cli:{self.model_name or 'default'}"

    @classmethod
    def from_config(cls, kind: str, config: Any) -> "HostCLIProvider":
        raw = str(config.get("distill.command") or "").strip()
        command = shlex.split(raw) if raw else [kind]
        exe = shutil.which(command[0])
        if exe is None:
            raise LLMError(f"distill.provider {kind!r} needs the `{command[0]}` program on PATH (or set distill.command)")
        return cls(kind, [exe, *command[1:]], config.get("distill.model"), timeout_s=config.get("distill.timeout_s"))

    def argv(self, prompt: str) -> tuple[list[str], str | None]:
        """``(argv, stdin text)`` for one call."""
        m = self.model_name
        if self.name == "claude":
            return [*self.command, "-p", *(["--model", m] if m else []), "--tools", "", "--no-session-persistence"], prompt
        if self.name == "codex":
            return [*self.command, "exec", "--skip-git-repo-check", "--ephemeral", "--sandbox", "read-only",
                    *(["-m", m] if m else []), "-"], prompt
        return [*self.command, "run", *(["-m", m] if m else []), prompt], None

    def complete(self, system: str, prompt: str) -> str:
        argv, stdin = self.argv(f"{system}\n\n{prompt}")
        env = {**os.environ, GUARD_ENV: "1"}
        with tempfile.TemporaryDirectory(prefix="memdir-distill-") as tmp:
            try:
                # its own process group: a timeout or Ctrl-C ends the CLI with every process it started (a node
                # CLI's workers, a wrapper script's children), not the CLI alone with its children left running
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, encoding="utf-8", errors="replace", cwd=tmp, env=env,
                                        **({"start_new_session": True} if os.name != "nt" else {}))
            except OSError as exc:
                raise LLMUnreachable(f"could not run `{argv[0]}`: {exc.strerror or exc}") from None
            try:
                out, err = proc.communicate(stdin if stdin is not None else "", timeout=self.timeout_s)
            except subprocess.TimeoutExpired:
                _end(proc)
                raise LLMUnreachable(f"`{self.name}` gave no answer within {self.timeout_s:g} s") from None
            except BaseException:  # Ctrl-C, SIGTERM: the CLI and its children end with this process
                _end(proc)
                raise
        if proc.returncode != 0:
            tail = (err or out or "").strip().splitlines()[-1:] or [""]
            raise LLMError(f"`{self.name}` exited with {proc.returncode}: {tail[0][:200]}")
        return out


def _end(proc: "subprocess.Popen[str]") -> None:
    """Kill ``proc``'s process group (the CLI and whatever it started), then reap it without waiting on pipes a
    grandchild may still hold."""
    import signal

    try:
        if os.name != "nt":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover
            proc.kill()
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover — a process SIGKILL does not end
        pass
    for f in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if f is not None:
                f.close()
        except OSError:
            pass

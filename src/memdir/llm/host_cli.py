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
the reply (refused past :data:`memdir.llm.base.MAX_REPLY_BYTES`, as an HTTP answer is). A missing program, a
non-zero exit, a signal or a timeout raises :class:`LLMError`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from typing import Any

from memdir.llm.base import GUARD_ENV, MAX_REPLY_BYTES, LLMError, LLMUnreachable

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
                                        cwd=tmp, env=env, **({"start_new_session": True} if os.name != "nt" else {}))
            except OSError as exc:
                raise LLMUnreachable(f"could not run `{argv[0]}`: {exc.strerror or exc}") from None
            try:
                out_b, err_b = _communicate(proc, (stdin or "").encode("utf-8", errors="replace"), self.timeout_s)
            except subprocess.TimeoutExpired:
                _end(proc)
                raise LLMUnreachable(f"`{self.name}` gave no answer within {self.timeout_s:g} s") from None
            except _TooLong:
                _end(proc)
                raise LLMError(f"`{self.name}` wrote more than {MAX_REPLY_BYTES:,} bytes, larger than any answer asked "
                               "for; not read further") from None
            except BaseException:  # Ctrl-C, SIGTERM: the CLI and its children end with this process
                _end(proc)
                raise
        out, err = out_b.decode("utf-8", errors="replace"), err_b.decode("utf-8", errors="replace")
        if proc.returncode is not None and proc.returncode < 0:  # a signal, not an exit code
            import signal

            try:
                sig = f" ({signal.Signals(-proc.returncode).name})"
            except ValueError:
                sig = ""
            raise LLMError(f"`{self.name}` was killed by signal {-proc.returncode}{sig}")
        if proc.returncode != 0:
            tail = (err or out or "").strip().splitlines()[-1:] or [""]
            raise LLMError(f"`{self.name}` exited with {proc.returncode}: {tail[0][:200]}")
        return out


class _TooLong(Exception):
    """The CLI wrote more than :data:`MAX_REPLY_BYTES` on stdout."""


def _communicate(proc: "subprocess.Popen[bytes]", data: bytes, timeout_s: float) -> tuple[bytes, bytes]:
    """``proc.communicate(data, timeout_s)`` that stops reading stdout past :data:`MAX_REPLY_BYTES` (raises
    :class:`_TooLong`; communicate would hold a CLI printing in a loop in memory until the timeout) and keeps
    only the last 64 KB of stderr. Raises ``subprocess.TimeoutExpired`` like communicate."""
    import threading
    import time

    out, err = bytearray(), bytearray()
    too_long = threading.Event()

    def feed() -> None:
        try:
            proc.stdin.write(data)
        except (OSError, ValueError):  # the CLI did not read it all, or its pipe was closed: see _drain
            pass
        finally:
            try:
                proc.stdin.close()
            except (OSError, ValueError):
                pass

    readers = [threading.Thread(target=_drain, args=(proc.stdout, out, MAX_REPLY_BYTES, too_long), daemon=True),
               threading.Thread(target=_drain, args=(proc.stderr, err, 1 << 16, None), daemon=True)]
    for t in [threading.Thread(target=feed, daemon=True), *readers]:
        t.start()
    deadline = time.monotonic() + timeout_s
    for t in readers:
        while t.is_alive() and not too_long.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout_s)
            t.join(min(left, 0.05))
        if too_long.is_set():
            raise _TooLong
    proc.wait(max(deadline - time.monotonic(), 0.01))
    return bytes(out), bytes(err)


def _drain(stream: Any, buf: bytearray, cap: int, too_long: Any) -> None:
    """Read ``stream`` into ``buf`` until its end: past ``cap`` bytes set ``too_long`` (an Event) and stop, or with
    ``too_long`` None keep only the last ``cap``. A pipe closed under the thread (Ctrl-C or a stop signal ends the CLI
    and closes its pipes: ValueError, OSError) ends it quietly, never with a traceback on stderr (distill.log)."""
    try:
        while chunk := stream.read1(1 << 16):
            buf += chunk
            if len(buf) > cap:
                if too_long is not None:
                    too_long.set()
                    return
                del buf[:-cap]
    except (OSError, ValueError):
        return


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

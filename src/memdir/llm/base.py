"""What every chat-model provider of :mod:`memdir.llm` shares: the errors it raises, the guard variable of the
processes it starts, and the :class:`Provider` shape (the providers import this module, never the package)."""

from __future__ import annotations

from typing import Protocol

from memdir.errors import MemdirError, UsageError

#: environment variable set for every process a distiller starts (host CLIs and their hooks): memdir's hooks
#: do nothing when they see it, so the distiller's own model session is never captured or distilled again
GUARD_ENV = "MEMDIR_DISTILLING"

#: the most a reply may hold: many times the largest answer distillation asks for (``distill.max_items`` notes of
#: ``distill.max_body_chars``); more is not an answer, and is not read into memory
MAX_REPLY_BYTES = 8 * 1024 * 1024


class LLMError(MemdirError, RuntimeError):
    """The model could not be asked or did not answer (missing CLI or package, HTTP error, timeout)."""


class LLMUnreachable(LLMError):
    """The model could not be reached at all: its program would not run, the connection failed, or no answer came
    within the timeout. Every other call of the same run would wait or fail the same way (a distill run stops)."""


class LLMConfigError(LLMError, UsageError):
    """The distill settings cannot work as set (no model, a URL that is not http(s), no API key for a hosted
    service): a usage error (CLI exit 2, like a missing ``distill.provider``), still an :class:`LLMError`."""

    exit_code = 2


class Provider(Protocol):
    name: str
    model: str  # provider + model, written into each note's provenance (``openai:gpt-4o-mini``)

    def complete(self, system: str, prompt: str) -> str:
        """The model's reply text for ``system`` + ``prompt``. Raises :class:`LLMError`."""

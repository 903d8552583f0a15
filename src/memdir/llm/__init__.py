"""Chat-model providers for distillation (:mod:`memdir.distill.flow`): interchangeable back ends behind one call.

A provider answers one prompt: ``complete(system, prompt) -> str`` (the model's reply text). Choose one with
``distill.provider``:

============  ===================================================================================================
``openai``    any OpenAI-compatible ``POST {distill.url}/chat/completions`` (OpenAI, Ollama, vLLM, SiliconFlow…)
``anthropic`` Anthropic Messages ``POST {distill.url}/v1/messages``
``claude``    the Claude Code CLI: ``claude -p --model <distill.model, default haiku> --tools ""`` (stdin)
``codex``     the Codex CLI: ``codex exec --ephemeral --sandbox read-only [-m model] -`` (stdin)
``opencode``  the OpenCode CLI: ``opencode run [-m provider/model] <prompt>``
============  ===================================================================================================

The host CLIs need no key of ours: they use the host's own login. HTTP providers read the key from the
environment variable named by ``distill.api_key_env`` (never from a file memdir writes). Nothing here imports
an HTTP client until an HTTP provider is built (``httpx2``, the ``distill`` extra).

Adding a provider is one entry in :data:`PROVIDERS` (as :mod:`memdir.embed` registers embedding providers).
"""

from __future__ import annotations

from typing import Any, Callable

import memdir.registry as registry
from memdir.errors import UsageError
from memdir.llm.base import GUARD_ENV, LLMConfigError, LLMError, LLMUnreachable, Provider

__all__ = ["GUARD_ENV", "LLMConfigError", "LLMError", "LLMUnreachable", "Provider", "PROVIDERS", "get_provider"]


def _http(kind: str) -> Callable[[Any], Provider]:
    def make(config: Any) -> Provider:
        from memdir.llm.http import AnthropicProvider, OpenAIChatProvider

        return (OpenAIChatProvider if kind == "openai" else AnthropicProvider).from_config(config)

    return make


def _cli(kind: str) -> Callable[[Any], Provider]:
    def make(config: Any) -> Provider:
        from memdir.llm.host_cli import HostCLIProvider

        return HostCLIProvider.from_config(kind, config)

    return make


openai_provider, anthropic_provider = _http("openai"), _http("anthropic")
claude_provider, codex_provider, opencode_provider = _cli("claude"), _cli("codex"), _cli("opencode")


def _declared(target: str) -> Callable[[Any], Provider]:
    def make(config: Any) -> Provider:
        import memdir.registry as registry

        return registry.resolve(target)(config)

    return make


#: name -> factory; the names are declared in :data:`memdir.registry.LLM`
PROVIDERS: dict[str, Callable[[Any], Provider]] = {name: _declared(t) for name, t in registry.LLM.items()}


def get_provider(config: Any) -> Provider:
    """The provider named by ``distill.provider``. Raises ``UsageError`` when none is configured or the name is
    unknown, :class:`LLMError` when it cannot be built (missing package or CLI)."""
    name = str(config.get("distill.provider") or "").strip()
    if not name:
        raise UsageError("distillation needs a model: set distill.provider (openai, anthropic, claude, codex or "
                         "opencode) in config.toml; see README 'Distillation'")
    factory = PROVIDERS.get(name)
    if factory is None:
        raise UsageError(f"unknown distill.provider {name!r}: use one of {', '.join(PROVIDERS)}")
    return factory(config)

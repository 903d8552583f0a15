"""The ``none`` provider: no embeddings, lexical recall only (the default). :func:`memdir.embed.get_provider`
returns ``None`` for it, so callers test ``provider is None``; this module exists so the name is documented."""

NAME = "none"

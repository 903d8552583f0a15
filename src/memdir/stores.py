"""What a feature module (vectors, tiers) is given instead of the facade: the two roots, the effective config,
the clock, a per-store state dict and the two recall steps it may compose with.

The facade (:class:`memdir.core.Memdir`) builds one :class:`Stores` and passes it to features; no feature module
imports ``core``, so the import graph runs one way (core → features → root/index/config).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from memdir.config import Config
    from memdir.engine.root import Root

SCOPES = ("project", "global")


@dataclass
class Stores:
    """``roots``: ``{"project": Root, "global": Root}``; ``config``: the effective :class:`memdir.config.Config`;
    ``clock()``: an aware UTC datetime; ``state``: per-store feature state (the vector provider and matrices);
    ``lexical(tokens, k=, scope=, kinds=)`` → ``list[Hit]`` and ``hit(root, row, score, tokens, factors, kind)`` →
    ``Hit``: the facade's lexical channel and hit builder, for features that fuse channels."""

    roots: dict[str, "Root"]
    config: "Config"
    clock: Callable[[], datetime]
    lexical: Callable[..., list] | None = None
    hit: Callable[..., Any] | None = None
    state: dict[str, Any] = field(default_factory=dict)

    def live(self, scope: str | None = None) -> list["Root"]:
        """The roots that exist on disk: ``scope``'s alone, or project then global."""
        roots = [self.roots[scope]] if scope else [self.roots["project"], self.roots["global"]]
        return [r for r in roots if r.exists()]


def stores_of(obj: Any) -> Stores:
    """``obj`` itself when it is a :class:`Stores`, else its ``stores`` attribute (a facade)."""
    return obj if isinstance(obj, Stores) else obj.stores

"""The arguments of ``remember`` and ``propose`` checked before anything is written: the text, each field's type
(one line naming the field, never a ``TypeError`` from the write) and the category (a proposal filed under a category
no root has could never be accepted).
"""

from __future__ import annotations

from typing import Any

from memdir.errors import UsageError, flag_arg, items_arg, mapping_arg, text_arg
from memdir.notes import markdown as notes
from memdir.roots import DROP_DIR, check_segment, drop_folder
from memdir.stores import Stores

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.engine.root import Root


def note_args(what: str, text: object, *, summary: object = None, tags: object = (), load_when: object = (),
              highlight: object = None, supersedes: object = None, provenance: object = None,
              pinned: object = False) -> tuple[Any, ...]:
    """``(summary, tags, load_when, highlight, supersedes, provenance, pinned)`` as ``what`` (``"remember"``,
    ``"propose"``) takes them: ``None`` tags are none and one string is one tag; a field of another type raises
    ``UsageError`` naming it, as an empty text does."""
    if not isinstance(text, str) or notes.is_blank(text):
        raise UsageError(f"nothing to {what}: the text is empty")
    return (text_arg(summary, "summary"), items_arg(tags, "tags"), items_arg(load_when, "load_when"),
            text_arg(highlight, "highlight"), text_arg(supersedes, "supersedes"),
            mapping_arg(provenance, "provenance"), flag_arg(pinned, "pinned"))


def check_category(s: Stores, root: Root, category: object) -> None:
    """Raise ``PathError`` for a category that is no plain directory name, ``UsageError`` for one neither configured
    nor present in ``root``."""
    check_segment(category, "category")
    if drop_folder(root.scope, str(category)):
        raise UsageError(f"{category}/ of the global root is the folder of JSONL drop files ({DROP_DIR}/), not a "
                         "category: use another category")
    known = list(s.config.get("categories"))
    if category not in known and not (root.path / str(category)).is_dir():
        raise UsageError(f"unknown category {category!r}: use one of {', '.join(known)} (or set `categories` in config.toml)")

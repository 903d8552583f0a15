"""The index behind one interface (:mod:`memdir.store.protocol`): the SQLite engine (:mod:`memdir.store.sqlite`), the
PostgreSQL one (:mod:`memdir.store.postgres`), and what both share (:mod:`memdir.store.rows`). Nothing is imported at
package import: the hook path pays only for the engine it opens."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.store.protocol import Store


def is_remote(spec: str | None) -> bool:
    """True when ``spec`` (the ``store`` setting) names a PostgreSQL database."""
    return bool(spec) and str(spec).startswith(("postgresql://", "postgres://"))


def open_store(spec: str | None, *, project: str, path=None, token: str | None = None) -> Store:
    """The store named by ``spec`` (the ``store`` setting / ``MEMDIR_STORE``): a ``postgresql://…`` URL opens
    :class:`memdir.store.postgres.store.PgStore` for ``project`` (needs the ``postgres`` extra; ``token`` binds the connection to
    ``project`` for row-level security, see :meth:`memdir.store.postgres.store.PgStore.connect`); empty opens the SQLite index
    at ``path``. Raises ``UsageError`` for anything else."""
    if is_remote(spec):
        from memdir.store.postgres.store import PgStore

        return PgStore.connect(str(spec), project=project, token=token)
    if spec:
        from memdir.errors import UsageError

        raise UsageError(f"store {spec!r} is not understood: leave it empty (the local SQLite index) or give a "
                         "postgresql://user@host/db URL")
    if path is None:
        from memdir.errors import UsageError

        raise UsageError("the SQLite store needs the path of its index file")
    from memdir.store.sqlite.store import SqliteStore

    return SqliteStore.open(path)

"""Which secondary index a column leads (the mix model's updates of an indexed column, its
read-secondary ops), from a run's dataset.tables."""
from __future__ import annotations

from .mixpages import Space, Tree


def index_columns(tables: dict) -> dict[tuple[str, str], list[str]]:
    """(table, index) -> the index's columns, from a run's dataset.tables."""
    return {(name, iname): list(ix.get("columns") or []) for name, t in tables.items()
            for iname, ix in (t.get("indexes") or {}).items()}


def leads(tree: Tree, column: str, columns_of: dict) -> bool:
    """Whether column is the index's first: an update of it moves the index entry."""
    cols = columns_of.get((tree.table, tree.index)) or []
    return bool(cols) and cols[0].lower() == column.lower()


def index_of(space: Space, table: str, column: str | None, columns_of: dict) -> str | None:
    """The name of table's secondary index that column leads (None: none)."""
    for t in space.secondaries(table):
        if column and leads(t, column, columns_of):
            return t.index
    return None

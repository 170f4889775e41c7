"""Sweep stores (docs/sweeps.md): `load(db)` reads the points of a sweep's SQLite store (one row
per finished point: the grid keys, `seed`, the figure columns) into a pandas DataFrame."""
import json as _json
import sqlite3 as _sqlite3
from pathlib import Path as _Path

from . import Error


def tables(db):
    """The sweeps stored in `db` (one table each)."""
    path = _Path(db)
    if not path.is_file():
        raise Error(f"{db}: no such sweep store")
    try:
        with _sqlite3.connect(f"file:{path}?mode=ro", uri=True) as c:
            rows = c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                             "ORDER BY name").fetchall()
    except _sqlite3.DatabaseError as e:
        raise Error(f"{db}: not a sweep store ({e})") from None
    return [r[0] for r in rows]


def load(db, name=None, summaries=False):
    """The points of sweep `name` (default: the store's only sweep) as a DataFrame, one row per
    point, in the store's order. `summaries=True` keeps the `summary` column, parsed into dicts
    (the whole `lmx run --json` object of each point)."""
    import pandas as pd
    names = tables(db)
    if name is None:
        if len(names) != 1:
            raise Error(f"{db}: holds {len(names)} sweeps ({', '.join(names) or 'none'}); name one")
        name = names[0]
    elif name not in names:
        raise Error(f"{db}: no sweep named {name!r} ({', '.join(names) or 'none'})")
    with _sqlite3.connect(f"file:{_Path(db)}?mode=ro", uri=True) as c:
        frame = pd.read_sql_query(f'SELECT * FROM "{name}" ORDER BY rowid', c)
    if summaries:
        frame["summary"] = frame["summary"].map(_json.loads)
    else:
        frame = frame.drop(columns=["summary"])
    return frame

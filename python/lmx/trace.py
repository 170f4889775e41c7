"""lmx-trace/1 files (docs/trace-format.md): `read(path)` yields the header then every event as a
dict; `frame(path)` gives the events as a pandas DataFrame."""
import json as _json

from . import Error


def read(path):
    """Iterates over a trace: the header first, then each event line, as dicts."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield _json.loads(line)
            except ValueError as e:
                raise Error(f"{path}:{number}: not a JSON line ({e})") from None


def header(path):
    for first in read(path):
        if first.get("type") != "lmx-trace":
            raise Error(f"{path}: not an lmx-trace/1 file (no header)")
        return first
    raise Error(f"{path}: empty")


def frame(path):
    """The events (every line after the header) as a DataFrame, one column per field."""
    import pandas as pd
    events = read(path)
    next(events, None)
    return pd.DataFrame(list(events))

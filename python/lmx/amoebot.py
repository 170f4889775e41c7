"""Amoebots (docs/amoebot.md): `lmx.amoebot.run(...)` is `lmx amoebot run --json`."""
import json as _json
import os as _os

from . import _lmx


def algorithms():
    return list(_lmx.amoebot_algorithms())


def run(algorithm="hexagon", n=200, hole_prob=0.2, seed=1, execution="sequential", scenario=None, max_rounds=0,
        one_at_a_time=False, trace=None, **kwargs):
    """Runs an amoebot algorithm; `execution` is "sequential" or "locks". For "locks", `scenario`
    (a dict) and keyword overrides (`engine="semi-sync"`, `activation__kind=...`) set the adversary."""
    from . import _overrides
    adversary = dict(scenario or {})
    sets = _overrides(None, kwargs)
    text = _json.dumps(adversary)
    for s in sets:
        text = _lmx.apply_override(text, s)
    return _json.loads(_lmx.amoebot_run(algorithm, n, float(hole_prob), seed, execution, text, max_rounds,
                                        one_at_a_time, _os.fspath(trace) if trace else ""))

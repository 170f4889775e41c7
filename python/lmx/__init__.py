"""lmx from Python (docs/python.md): local mutual exclusion in dynamic, anonymous, bounded-memory
message-passing systems -- the simulator, the exhaustive checker, population protocols and amoebots.

    import lmx
    summary = lmx.run(nodes=200, topology__kind="ring", seed=3)   # `lmx run --json` as a dict
    lmx.check(nodes=2, edges="0-1", delta=1, k=2, locks=1)         # `lmx check --json`
    lmx.pp.run("approximate-majority", scheduler="lock-pair", agents=100)
    lmx.amoebot.run(n=100, execution="locks")

Every function takes the CLI's options as keyword arguments; bad input raises lmx.Error with the
CLI's one-line message.
"""
import json as _json
import os as _os

from . import _lmx
from ._lmx import Error

__all__ = ["Error", "run", "scenario", "Simulation", "check", "pp", "amoebot", "sweep", "trace"]


def _overrides(overrides, kwargs):
    """Dotted scenario keys from a dict and from keyword arguments (`topology__kind` = `topology.kind`)."""
    items = []
    for source in (overrides or {}), kwargs:
        for key, value in source.items():
            key = key.replace("__", ".")
            items.append(f"{key}={_toml_value(value)}")
    return items


def _toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _json.dumps(value)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise Error(f"scenario value {value!r}: expected a number, a string, a boolean or a list")


def scenario(scenario=None, overrides=None, **kwargs):
    """The validated scenario as a dict: `scenario` is None (the built-in default), a dict, or the
    path of a TOML file; then the overrides, as `--set` applies them."""
    base, path = "", ""
    if isinstance(scenario, dict):
        base = _json.dumps(scenario)
    elif isinstance(scenario, (str, _os.PathLike)):
        path = _os.fspath(scenario)
    elif scenario is not None:
        raise Error("scenario: expected None, a dict or the path of a TOML file")
    return _json.loads(_lmx.scenario(base, path, _overrides(overrides, kwargs)))


def run(scenario=None, overrides=None, trace=None, threads=1, **kwargs):
    """Runs a scenario to its end; returns the `lmx run --json` summary as a dict (docs/run-format.md).
    `trace`: a path to write the lmx-trace/1 trace to. `threads`: as `lmx run --threads` (1..64; a
    mobile scenario plans its mobility on a second thread; the same run for every count). The GIL
    is released while it runs; Ctrl-C stops it (KeyboardInterrupt)."""
    s = globals()["scenario"](scenario, overrides, **kwargs)
    return _json.loads(_lmx.run(_json.dumps(s), _os.fspath(trace) if trace else "", int(threads)))


class Simulation:
    """An engine under Python's control: `step()`, `run(until=round)`, `node(u)`, the application
    API (`request_lock`, `request_unlock`, `connect`, `cut`, `move`, `far_end`) and callbacks
    `on_locked(u, ports)` (ports: a bit mask, bit 0 the node itself) and `on_unlocked(u)`, called
    inside `step()`. Use the scenario key `workload.kind = "manual"` to be the only caller of Lock."""

    def __init__(self, scenario=None, overrides=None, on_locked=None, on_unlocked=None, threads=1, **kwargs):
        s = globals()["scenario"](scenario, overrides, **kwargs)
        self.scenario = s
        self._sim = _lmx.Simulation(_json.dumps(s), on_locked, on_unlocked, int(threads))

    def step(self):
        """One round (or time unit of the asynchronous engine); False once the run is over."""
        return self._sim.step()

    def run(self, until=None):
        """Steps until model round `until` (None: the end); returns whether the run goes on."""
        if until is None:
            while self._sim.step():
                pass
            return False
        return self._sim.run_until(float(until))

    def finish(self):
        """Runs to the end and returns the summary dict."""
        return _json.loads(self._sim.finish())

    @property
    def now(self):
        return self._sim.now()

    def node(self, u):
        return self._sim.node(u)

    def request_lock(self, u, ports=None):
        return self._sim.request_lock(u, ports)

    def request_unlock(self, u):
        return self._sim.request_unlock(u)

    def connect(self, u, pu, v, pv):
        why = self._sim.connect(u, pu, v, pv)
        if why:
            raise Error(why)

    def cut(self, u, port):
        why = self._sim.cut(u, port)
        if why:
            raise Error(why)

    def move(self, u, x, y):
        self._sim.move(u, x, y)

    def far_end(self, u, port):
        return self._sim.far_end(u, port)

    def violations(self):
        return self._sim.violations()


def check(variant="repaired", nodes=2, edges="0-1", delta=1, k=2, locks=1, max_changes=0, lock_subsets=False,
          safety_only=False, max_states=60_000_000, max_seconds=0.0):
    """The exhaustive checker (docs/checker.md); returns `lmx check --json`'s main keys as a dict,
    each violation's counterexample trace as a list of events under `events`."""
    if isinstance(edges, (list, tuple)):
        edges = ",".join(f"{u}-{v}" for u, v in edges)
    r = _json.loads(_lmx.check(variant, nodes, edges, delta, k, str(locks), max_changes, lock_subsets, safety_only,
                               max_states, float(max_seconds)))
    for v in r["violations"]:
        v["events"] = [_json.loads(line) for line in v["trace"].splitlines() if line.strip()]
    return r


from . import amoebot, pp, sweep, trace  # noqa: E402  (they use the names above)

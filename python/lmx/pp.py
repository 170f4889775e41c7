"""Population protocols (docs/population.md): `lmx.pp.run(...)` is `lmx pp run --json`, with the
history as a pandas DataFrame, and protocols given as a shipped name, a TOML file, or ppsim-style
rules `{("A", "B"): ("C", "D")}` with initial counts."""
import json as _json

from . import Error, _lmx


def protocols():
    return list(_lmx.pp_protocols())


def _toml_string(s):
    return _json.dumps(str(s))


def protocol_toml(rules, init, name="python", stop="silent", symmetric=False):
    """The TOML text of a protocol from ppsim-style rules: {(a, b): (c, d)} or {(a, b): {(c, d): p, ...}}
    for randomised outcomes, and init: {state: count}."""
    if not isinstance(rules, dict) or not rules:
        raise Error("rules: expected a non-empty dict {(a, b): (c, d)}")
    if not isinstance(init, dict) or not init:
        raise Error("init: expected a non-empty dict {state: count}")
    states = []
    for key, value in rules.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise Error(f"rules: key {key!r} is not a pair of states")
        outcomes = value if isinstance(value, dict) else {value: 1.0}
        for out in outcomes:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise Error(f"rules: outcome {out!r} of {key!r} is not a pair of states")
        for s in list(key) + [x for out in outcomes for x in out]:
            if s not in states:
                states.append(s)
    for s in init:
        if s not in states:
            states.append(s)
    lines = [f"name = {_toml_string(name)}", "states = [" + ", ".join(_toml_string(s) for s in states) + "]",
             f"stop = {_toml_string(stop)}"]
    if symmetric:
        lines.append("symmetric = true")
    rule_lines = []
    for (a, b), value in rules.items():
        outcomes = value if isinstance(value, dict) else {value: None}
        for (c, d), p in outcomes.items():
            text = f"{a}, {b} -> {c}, {d}" + (f" @ {p!r}" if p is not None else "")
            rule_lines.append(_toml_string(text))
    lines.append("rules = [" + ", ".join(rule_lines) + "]")
    lines.append(f"agents = {sum(int(c) for c in init.values())}")
    lines.append("[initial]")
    for s, count in init.items():
        lines.append(f"{_toml_string(s)} = {int(count)}")
    return "\n".join(lines) + "\n"


def run(protocol, scheduler="sequential", agents=0, seed=1, init=None, scenario=None, max_time=10000.0,
        history_every=0.0, stop="silent", **kwargs):
    """Runs a protocol: a shipped name or TOML path, or a ppsim-style rule dict (then `init` is
    needed). Returns (summary dict, history DataFrame or None)."""
    from . import _overrides
    toml = ""
    name = ""
    if isinstance(protocol, dict):
        toml = protocol_toml(protocol, init, stop=stop)
    else:
        name = str(protocol)
    text = ""
    if scenario is not None or kwargs:
        text = _json.dumps(dict(scenario or {}))
        for s in _overrides(None, kwargs):
            text = _lmx.apply_override(text, s)
    r = _json.loads(_lmx.pp_run(name, toml, scheduler, agents, seed, text, float(max_time), float(history_every)))
    history = r.pop("history")
    frame = None
    if history["rows"]:
        import pandas as pd
        frame = pd.DataFrame(history["rows"], columns=history["columns"])
    return r, frame

"""The Python module (docs/python.md): each function, bad input raising lmx.Error with the CLI's
message, and the same seed giving the same trace hash as the CLI."""
import json
import os
import signal
import subprocess
import threading
import time

import pytest

import lmx

LMX = os.environ.get("LMX_BINARY", "")


def cli(*args):
    p = subprocess.run([LMX, *args], capture_output=True, text=True)
    return p.returncode, p.stdout


def test_run_returns_the_cli_summary_with_the_same_trace_hash():
    r = lmx.run(nodes=60, topology__kind="ring", seed=3, rounds=200)
    assert r["nodes"] == 60
    assert r["locks_completed"] > 0
    if LMX:
        code, out = cli("run", "--set", "nodes=60", "--set", "topology.kind=ring", "--set", "rounds=200", "--seed",
                        "3", "--json")
        assert code == 0
        assert json.loads(out)["trace_hash"] == r["trace_hash"]
    again = lmx.run({"nodes": 60, "topology": {"kind": "ring"}, "rounds": 200}, seed=3)
    assert again["trace_hash"] == r["trace_hash"], "a dict scenario and keyword overrides are the same scenario"
    other = lmx.run(nodes=60, topology__kind="ring", seed=4, rounds=200)
    assert other["trace_hash"] != r["trace_hash"]


def test_threads_give_the_same_run():
    # Enough nodes for mobility to be planned on the second thread (docs/simulator.md, "Threads").
    one = lmx.run(nodes=5000, rounds=12, seed=2)
    two = lmx.run(nodes=5000, rounds=12, seed=2, threads=2)
    assert one["scenario"]["topology"]["kind"] == "mobility"
    assert one["locks_completed"] > 0
    assert two["trace_hash"] == one["trace_hash"]
    assert two["locks_completed"] == one["locks_completed"]
    sim = lmx.Simulation(nodes=5000, rounds=12, seed=2, threads=2)
    assert sim.finish()["trace_hash"] == one["trace_hash"]
    with pytest.raises(lmx.Error, match="threads must be a whole number in 1..64"):
        lmx.run(nodes=10, threads=0)


def test_a_toml_scenario_and_a_trace_file(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text('name = "py"\nnodes = 30\nrounds = 100\n[topology]\nkind = "grid"\n')
    trace = tmp_path / "t.jsonl"
    r = lmx.run(str(toml), trace=trace, seed=2)
    assert r["nodes"] == 30
    header = lmx.trace.header(trace)
    assert header["source"] == "run"
    events = lmx.trace.frame(trace)
    assert len(events) > 0 and "ev" in events.columns
    assert set(events["ev"]) >= {"act", "send"}


def test_bad_input_raises_lmx_error_with_the_cli_message():
    with pytest.raises(lmx.Error, match="nodes"):
        lmx.run(nodes=-3)
    with pytest.raises(lmx.Error, match="engine"):
        lmx.run(engine="warp")
    with pytest.raises(lmx.Error):
        lmx.run(42)
    with pytest.raises(lmx.Error, match="unknown variant"):
        lmx.check(variant="nope")
    with pytest.raises(lmx.Error, match="locks"):
        lmx.check(locks=99)
    with pytest.raises(lmx.Error, match="algorithm"):
        lmx.amoebot.run(algorithm="square")
    with pytest.raises(lmx.Error, match="'topology' is decided"):
        lmx.amoebot.run(n=10, execution="locks", topology__kind="ring")
    with pytest.raises(lmx.Error, match="rules"):
        lmx.pp.run({}, init={"A": 1})
    assert issubclass(lmx.Error, ValueError)


def test_ctrl_c_stops_a_run(tmp_path):
    # Once the run has begun (its trace file exists), a SIGINT reaches it: the run looks for
    # signals between rounds and raises KeyboardInterrupt long before its end.
    trace = tmp_path / "long.jsonl"

    def interrupt_when_running():
        while not trace.exists():
            time.sleep(0.005)
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=interrupt_when_running)
    sender.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        lmx.run(nodes=3000, rounds=1000000, trace=trace)
    sender.join()
    assert time.monotonic() - started < 60


# Calls that would each take well over ten seconds here (each was still running after 2 s on this
# machine at a quarter of these sizes or less).
LONG_CALLS = {
    "check": lambda: lmx.check(nodes=4, edges="0-1,1-2,2-3,3-0", delta=2, k=3, locks="unbounded"),
    "amoebot sequential": lambda: lmx.amoebot.run(n=1_000_000),
    "amoebot locks": lambda: lmx.amoebot.run(n=10_000, execution="locks"),
    "population protocol": lambda: lmx.pp.run("exact-majority", agents=10**8),
    "population protocol on locks": lambda: lmx.pp.run("exact-majority", scheduler="lock-pair", agents=10**5),
    "simulation": lambda: lmx.Simulation(nodes=3000, rounds=10**6).run(until=10**6),
}


@pytest.mark.parametrize("name", sorted(LONG_CALLS))
def test_ctrl_c_stops_every_long_call(name):
    # A SIGINT half a second in ends the call with KeyboardInterrupt (the work runs on another
    # thread, or in batches, and the caller looks for signals every 50 ms or 256 steps); the
    # module works afterwards.
    sender = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    sender.start()
    with pytest.raises(KeyboardInterrupt):
        LONG_CALLS[name]()
    sender.join()
    assert lmx.run(nodes=10, rounds=10)["rounds"] == 10


def test_a_simulation_with_an_application_written_in_python():
    completed, released = [], []

    def on_locked(u, ports):
        completed.append((u, ports))
        sim.request_unlock(u)

    def on_unlocked(u):
        released.append(u)
        if len([x for x in released if x == u]) < 3:
            sim.request_lock(u)

    sim = lmx.Simulation(nodes=8, topology__kind="ring", delta=2, workload__kind="manual", rounds=2000,
                         on_locked=on_locked, on_unlocked=on_unlocked, seed=5)
    for u in range(8):
        assert sim.request_lock(u)
    sim.run(until=1500)
    assert sorted(released) == sorted(list(range(8)) * 3)
    assert all(ports & 1 for _, ports in completed), "each lock set holds the node itself (bit 0)"
    assert sim.violations() == []
    node = sim.node(0)
    assert node["locks_completed"] == 3 and node["state"] == "BOT"
    far = sim.far_end(0, 1)
    assert far is not None and far[0] in (1, 7)
    summary = sim.finish()
    assert summary["locks_completed"] == 24


def test_an_exception_in_a_callback_reaches_the_caller():
    def on_locked(u, ports):
        raise RuntimeError(f"boom at {u}")

    sim = lmx.Simulation(nodes=4, topology__kind="ring", workload__kind="manual", on_locked=on_locked)
    sim.request_lock(1)
    with pytest.raises(RuntimeError, match="boom at 1"):
        sim.run()


def test_topology_changes_from_python():
    sim = lmx.Simulation(nodes=4, topology__kind="edges", topology__edges=[[0, 1]], workload__kind="manual",
                         delta=2)
    sim.connect(2, 1, 3, 1)
    assert sim.far_end(2, 1) == (3, 1)
    sim.cut(2, 1)
    assert sim.far_end(2, 1) is None
    with pytest.raises(lmx.Error, match="no edge"):
        sim.cut(2, 1)


def test_check_passes_and_fails_with_counterexample_events():
    ok = lmx.check(nodes=2, edges=[(0, 1)], delta=1, k=2, locks=1)
    assert ok["verdict"] == "pass" and ok["states"] > 0 and ok["violations"] == []
    bad = lmx.check(variant="paper", nodes=2, edges="0-1", delta=1, k=2, locks=2, max_changes=2)
    assert bad["verdict"] == "fail"
    v = bad["violations"][0]
    assert v["events"][0]["source"] == "check"
    assert len(v["events"]) > 1
    if LMX:
        code, out = cli("check", "--variant", "paper", "--nodes", "2", "--edges", "0-1", "--delta", "1", "--k", "2",
                        "--locks", "2", "--max-changes", "2", "--json")
        assert json.loads(out)["states"] == bad["states"]


def test_population_protocols_from_a_name_and_from_ppsim_style_rules():
    summary, history = lmx.pp.run("epidemic", agents=200, seed=2, history_every=0.5)
    assert summary["converged"] and summary["final_counts"] == {"I": 200}
    assert list(history.columns[:3]) == ["parallel_time", "interactions", "round"]
    assert history["I"].iloc[-1] == 200 and history["I"].is_monotonic_increasing
    rules = {("A", "B"): ("A", "A"), ("B", "A"): ("A", "A")}
    s, h = lmx.pp.run(rules, init={"A": 5, "B": 45}, stop="count(B) == 0", scheduler="lock-pair",
                      topology__kind="ring", delta=2, seed=3, history_every=1)
    assert s["converged"] and s["scheduler"] == "lock-pair"
    assert h["B"].iloc[0] == 45 and h["B"].iloc[-1] == 0
    assert "approximate-majority" in lmx.pp.protocols()
    randomised = {("A", "B"): {("A", "A"): 0.5, ("B", "B"): 0.5}}
    s, _ = lmx.pp.run(randomised, init={"A": 10, "B": 10}, stop="consensus", seed=1)
    assert s["converged"]


def test_amoebots_both_executions():
    seq = lmx.amoebot.run(n=40, seed=2)
    assert seq["terminated"] and seq["final_shape_ok"] and seq["execution"] == "sequential"
    locks = lmx.amoebot.run(n=40, seed=2, execution="locks", engine="semi-sync")
    assert locks["terminated"] and locks["final_shape_ok"] and locks["violations"] == []
    assert locks["locks"]["serializability_checks"] == locks["actions"]
    assert set(lmx.amoebot.algorithms()) >= {"hexagon", "line"}
    if LMX:
        code, out = cli("amoebot", "run", "--n", "40", "--seed", "2", "--execution", "locks", "--set",
                        "engine=semi-sync", "--json")
        assert json.loads(out)["locks"]["messages"] == locks["locks"]["messages"]


@pytest.mark.skipif(not LMX, reason="needs the lmx binary (LMX_BINARY) to make a sweep store")
def test_a_sweep_store_as_a_dataframe(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    db = tmp_path / "smoke.sqlite"
    code, _ = cli("sweep", os.path.join(root, "examples", "sweeps", "smoke.toml"), "--db", str(db))
    assert code == 0
    assert lmx.sweep.tables(db) == ["smoke"]
    points = lmx.sweep.load(db)
    assert len(points) == 2 * 2 * 2, "2 x 2 grid points x 2 seeds"
    assert {"delta", "k", "seed", "locks_completed", "latency_p50", "trace_hash"} <= set(points.columns)
    assert "summary" not in points.columns
    full = lmx.sweep.load(db, "smoke", summaries=True)
    assert full["summary"].iloc[0]["trace_hash"] == full["trace_hash"].iloc[0]
    with pytest.raises(lmx.Error, match="no sweep named"):
        lmx.sweep.load(db, "other")
    with pytest.raises(lmx.Error, match="no such sweep store"):
        lmx.sweep.load(tmp_path / "missing.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(lmx.Error, match="not a sweep store"):
        lmx.sweep.load(junk)

"""The Python module's performance goals, printed by memwall-bench (never asserted by a timed test):
- one memwall.analyze call against the same work in C++ (scenario, analysis, the JSON of analyze --json): <= 3x + 5 us;
- a 1,048,576-point sweep to numpy arrays: <= 1.5 s and <= 200 MB peak RSS (measured in a process of its own).
Each also checks that the work it timed was done right: the Python result equals the C++ one, the sweep's arrays hold
every point with a positive time.
Usage: PYTHONPATH=<build>/python python3 tests/bench/python_bench.py"""
import resource
import statistics
import subprocess
import sys
import time

import memwall as mw
from memwall import _memwall

KW = dict(model="llama-3-1-405b", hardware="h100-sxm", tp=8, phase="decode", batch=64, context=4096)


def analyze_call():
    source = {k: KW[k] for k in ("model", "hardware")}
    options = [(k, str(v)) for k, v in KW.items() if k not in source]
    a = mw.analyze(**KW)
    assert a["model"]["id"] == KW["model"] and a["totals"]["time_s"] > 0 and a["operators"]
    rounds = []
    for _ in range(7):
        n = 200
        t0 = time.perf_counter()
        for _ in range(n):
            mw.analyze(**KW)
        py = (time.perf_counter() - t0) / n
        cpp = _memwall._cpp_analyze_seconds(source, options, n)
        rounds.append((py, cpp))
    py = statistics.median(r[0] for r in rounds)
    cpp = statistics.median(r[1] for r in rounds)
    print(f"python analyze (405B)    median {py * 1e6:.1f} us; C++ {cpp * 1e6:.1f} us; "
          f"goal <= 3 x C++ + 5 us = {(3 * cpp + 5e-6) * 1e6:.1f} us: {'met' if py <= 3 * cpp + 5e-6 else 'MISSED'}")


def sweep_child():
    t0 = time.perf_counter()
    s = mw.sweep(model="llama-3-70b", hardware="h100-sxm", tp=8, vary={"batch": "1:1024:1", "context": "1:1024:1"})
    seconds = time.perf_counter() - t0
    n = len(s["time_s"])
    assert n == 1 << 20 and (s["time_s"] > 0).all() and s["batch"][-1] == 1024 and s["context"][-1] == 1024
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"python sweep 1,048,576   {seconds:.2f} s, peak RSS {rss:.0f} MB (goal <= 1.5 s, <= 200 MB): "
          f"{'met' if seconds <= 1.5 and rss <= 200 else 'MISSED'}")


if __name__ == "__main__":
    if sys.argv[1:] == ["sweep"]:
        sweep_child()
    else:
        analyze_call()
        subprocess.run([sys.executable, __file__, "sweep"], check=True)

"""Vidur's standard trace through the simulator's open-loop path, against its targets.

    .venv/bin/python bench/vidur_trace.py [--scenario h200-27b] [--requests 10000] [--repeat 3] [--profile]

The trace: 10,000 requests of 2,048 prompt and 512 output tokens arriving as a Poisson process
at 0.4 requests/s (Vidur's standard synthetic trace), built by ``agbench.load.rate_level`` and
run by ``agbench.sim.open_loop.simulate_load`` (what ``agbench sim --rate`` runs): one
llama.cpp-like server with the scenario's slots, unified KV pool and roofline rates, every
request a ``model_calls`` row. Default scenario: ``h200-27b`` (the paper's 27B Q6 model with
MTP on an H200, 8 slots over a 65,536-token unified pool), the closest shipped scenario to
Vidur's data-centre GPUs.

Printed: wall and CPU seconds of the simulation (best of ``--repeat``), SimPy-free figures of
the result (completed requests, simulated seconds, p50/p99 latency), and peak memory twice: the
Python heap the run allocated (``tracemalloc``, in a separate run because tracing slows it) and
the process's peak RSS. Targets: <= 1 s wall and < 200 MB; Vidur takes 81 s and
1.43 GB on this machine class. ``--profile`` prints the top functions by cumulative time
(cProfile) so a miss says where the time goes. Measured, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import time
import tracemalloc
from typing import Any

from agbench.load import LoadLevel, TokenDistribution, rate_level
from agbench.records import ModelCall
from agbench.sim.open_loop import simulate_load
from agbench.sim.scenario import load_scenario

TARGET_WALL_S = 1.0
TARGET_MB = 200.0


def vidur_level(requests: int, seed: int = 0) -> LoadLevel:
    return rate_level(
        0.4, requests, TokenDistribution.parse(2048), TokenDistribution.parse(512), poisson=True, seed=seed
    )


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default="h200-27b")
    ap.add_argument("--requests", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="Print where the time goes (cProfile).")
    args = ap.parse_args(argv)
    sc = load_scenario(args.scenario)
    t_build = time.perf_counter()
    level = vidur_level(args.requests)
    build_s = time.perf_counter() - t_build
    p = sc.profile
    print(
        f"Vidur trace: {args.requests:,} requests, 2,048 prompt / 512 output tokens, Poisson 0.4 QPS; "
        f"scenario {sc.name} ({p.device.name}, {p.model.name}, {p.server.n_parallel} slots, "
        f"{p.server.n_ctx:,}-token {'unified' if p.server.kv_unified else 'per-slot'} pool)"
    )
    print(f"  trace built in {build_s:.3f} s (not counted)")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall = cpu = float("inf")
    records: list[Any] = []
    for _ in range(max(1, args.repeat)):
        records = []
        w0, c0 = time.perf_counter(), time.process_time()
        records = simulate_load(p, [level], run_id="vidur")
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    calls = [r for r in records if isinstance(r, ModelCall)]
    ok = [c for c in calls if not c.error_class]
    e2e = [c.total_s for c in ok]
    ttft = [c.ttft_s for c in ok if c.ttft_s is not None]
    span = max((c.t_start + c.total_s for c in calls), default=0.0)
    print(
        f"  result: {len(ok):,} of {len(calls):,} requests completed, {span:,.0f} simulated s, "
        f"TTFT p50 {percentile(ttft, 50):.2f} s p99 {percentile(ttft, 99):.2f} s, "
        f"end-to-end p50 {percentile(e2e, 50):.1f} s p99 {percentile(e2e, 99):.1f} s, {len(records):,} records"
    )
    verdict = "met" if wall <= TARGET_WALL_S else "MISSED"
    print(
        f"  wall {wall:.3f} s, CPU {cpu:.3f} s (best of {args.repeat}; target <= {TARGET_WALL_S:g} s: {verdict})"
    )
    tracemalloc.start()
    simulate_load(p, [level], run_id="vidur")
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    heap_mb = heap_peak / 1e6
    verdict = "met" if heap_mb < TARGET_MB and rss_peak < TARGET_MB else "MISSED"
    print(
        f"  memory: Python heap peak {heap_mb:.1f} MB (tracemalloc), process peak RSS {rss_peak:.0f} MB "
        f"(before the runs {rss_before:.0f} MB: interpreter, numpy, pandas, pyarrow); target < {TARGET_MB:g} MB: {verdict}"
    )
    print(f"  load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; Vidur: 81 s, 1.43 GB")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        simulate_load(p, [level], run_id="vidur")
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

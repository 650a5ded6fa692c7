"""How fast the simulator is: the paper's whole matrix on one core, and the per-token baseline.

    .venv/bin/python bench/sim_speed.py [--slice-tasks 8] [--slice-c 1,4] [--repeat 3]

1. The paper's matrix: 2 devices x 4 architectures x C = 1, 2, 4, 8 x 60 tasks (1,920 task
   executions) in this one process: wall and CPU seconds, SimPy events, events/s, simulated
   device time / real time, and peak memory (RSS of the process, and what the matrix added).
2. A slice of it (LO and HLL on the RTX 5090, the first ``--slice-tasks`` tasks of the seeded
   order, as ``--limit`` picks them) simulated
   with the analytic server and with the naive per-token server
   (``sim/entities/per_token_server.py``: a timeout per decode step and an event per generated
   token per sequence, same slots, KV pool, prefix cache and rates). For each concurrency it
   prints both event counts and both CPU times with their ratios, and how far apart the two
   models' suite times are (they agree to about a decode step per request, not bit for bit).

CPU time (``time.process_time``) is the fair measure on a shared machine: both models are
single-threaded and run in this process. Every timing is the best of ``--repeat`` runs; the
load average is printed with the figures. Measured, never asserted (figures depend on the
machine and its load). Targets: matrix < 10 s, >= 100x faster than per-token.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections.abc import Callable

from agbench.sim import SimResult, load_scenario, simulate

DEVICES = ("paper-rtx5090", "paper-max395")
ARCHS = ("LO", "CO", "HCL", "HLL")
LEVELS = (1, 2, 4, 8)
SLICE_DEVICE = "paper-rtx5090"
SLICE_ARCHS = ("LO", "HLL")

#: The analytic server must cost at least this much less CPU than the per-token one.
TARGET_CPU_RATIO = 100.0


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def best_of(repeat: int, run: Callable[[], list[SimResult]]) -> tuple[float, float, list[SimResult]]:
    """(best CPU seconds, best wall seconds, the last run's results)."""
    cpu = wall = float("inf")
    results: list[SimResult] = []
    for _ in range(max(1, repeat)):
        results = []  # let the previous run's records go before the next run: memory is measured too
        w0, c0 = time.perf_counter(), time.process_time()
        results = run()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu, wall, results


def full_matrix(repeat: int) -> None:
    scenarios = [load_scenario(name) for name in DEVICES]
    workloads = [sc.workload() for sc in scenarios]
    simulate(scenarios[0].profile, "LO", 1, 0, workloads[0].limited(1))  # warm caches
    rss_before = peak_rss_mb()

    def run() -> list[SimResult]:
        return [
            simulate(sc.profile, arch, c, 0, wl)
            for sc, wl in zip(scenarios, workloads, strict=True)
            for arch in ARCHS
            for c in LEVELS
        ]

    cpu, wall, results = best_of(repeat, run)
    events = sum(r.events for r in results)
    tasks = sum(len(r.task_runs()) for r in results)
    simulated_s = sum(r.suite_wall_s for r in results)
    print(
        f"paper matrix: {len(DEVICES)} devices x {len(ARCHS)} archs x C={','.join(map(str, LEVELS))}: "
        f"{tasks:,} task executions, {len(results)} configurations (best of {repeat})"
    )
    print(f"  wall {wall:.2f} s, CPU {cpu:.2f} s")
    print(f"  {events:,} SimPy events: {events / wall:,.0f} events/s wall, {events / cpu:,.0f} events/s CPU")
    print(
        f"  simulated {simulated_s / 3600:,.1f} device-hours (sum of suite wall times): "
        f"{simulated_s / wall:,.0f}x real time ({simulated_s / cpu:,.0f}x per CPU-second)"
    )
    print(f"  peak RSS {peak_rss_mb():,.0f} MB (before the matrix {rss_before:,.0f} MB)")


def per_token_slice(n_tasks: int, levels: list[int], repeat: int) -> None:
    sc = load_scenario(SLICE_DEVICE)
    wl = sc.workload(limit=n_tasks)
    print(
        f"per-token comparison: {SLICE_DEVICE}, {'+'.join(SLICE_ARCHS)}, first {n_tasks} tasks "
        f"(CPU s: best of {repeat})"
    )
    print(
        f"  {'C':>2} {'events analytic':>15} {'per-token':>10} {'ratio':>6}   "
        f"{'CPU analytic':>12} {'per-token':>10} {'ratio':>6}   suite times apart"
    )
    for c in levels:

        def analytic(c: int = c) -> list[SimResult]:
            return [simulate(sc.profile, arch, c, 0, wl) for arch in SLICE_ARCHS]

        def per_token(c: int = c) -> list[SimResult]:
            return [simulate(sc.profile, arch, c, 0, wl, per_step_events=True) for arch in SLICE_ARCHS]

        cpu_fast, _, fast = best_of(repeat, analytic)
        cpu_slow, _, slow = best_of(repeat, per_token)
        e_fast = sum(r.events for r in fast)
        e_slow = sum(r.events for r in slow)
        apart = ", ".join(
            f"{a.architecture} {abs(a.suite_wall_s - b.suite_wall_s) / max(1e-9, b.suite_wall_s):.1%}"
            for a, b in zip(fast, slow, strict=True)
        )
        met = "met" if cpu_slow / cpu_fast >= TARGET_CPU_RATIO else "MISSED"
        print(
            f"  {c:>2} {e_fast:>15,} {e_slow:>10,} {e_slow / e_fast:>5.0f}x   "
            f"{cpu_fast:>11.4f}s {cpu_slow:>9.3f}s {cpu_slow / cpu_fast:>5.0f}x   {apart}"
            f"   (CPU target >= {TARGET_CPU_RATIO:g}x: {met})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--slice-tasks", type=int, default=8, help="tasks in the per-token comparison slice")
    parser.add_argument("--slice-c", default="1,4", help="concurrency levels of the per-token comparison")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing; the best is kept")
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    full_matrix(args.repeat)
    per_token_slice(args.slice_tasks, [int(c) for c in args.slice_c.split(",")], args.repeat)
    import vidur_trace  # bench/ is this script's folder: Vidur's standard trace, open loop

    vidur_trace.main(["--repeat", str(args.repeat)])
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

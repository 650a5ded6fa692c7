"""How fast the simulator is: the paper's whole matrix on one core, and the per-token baseline.

    .venv/bin/python bench/sim_speed.py [--slice-tasks 8]

Runs 2 devices x 4 architectures x C = 1, 2, 4, 8 x 60 tasks (1,920 task executions) in this
process, and prints wall seconds, events/s, simulated device time / real time and peak memory.
Then it simulates a slice of the matrix twice, with the analytic server and with a naive
per-token stepper (an event per generated token, a prompt chunk per batch step), and prints
the speed ratio. Measured, never asserted (figures depend on the machine's load).
Targets (issue 6): whole matrix < 10 s, >= 100x faster than per-token.
"""

from __future__ import annotations

import argparse
import resource
import time

from agbench.sim import load_scenario, simulate

DEVICES = ("paper-rtx5090", "paper-max395")
ARCHS = ("LO", "CO", "HCL", "HLL")
LEVELS = (1, 2, 4, 8)


def full_matrix() -> dict[str, float]:
    scenarios = [load_scenario(name) for name in DEVICES]
    workloads = [sc.workload() for sc in scenarios]
    started = time.perf_counter()
    cpu_started = time.process_time()
    events = tasks = 0
    simulated = 0.0
    for sc, wl in zip(scenarios, workloads, strict=True):
        for arch in ARCHS:
            for c in LEVELS:
                r = simulate(sc.profile, arch, c, 0, wl)
                events += r.events
                tasks += len(r.task_runs())
                simulated += r.suite_wall_s
    wall = time.perf_counter() - started
    return {
        "tasks": tasks,
        "wall_s": wall,
        "cpu_s": time.process_time() - cpu_started,
        "events": events,
        "simulated_h": simulated / 3600,
    }


def per_token_slice(n_tasks: int) -> tuple[float, float, int, int]:
    sc = load_scenario("paper-rtx5090")
    wl = sc.workload(limit=n_tasks)
    # CPU time of this process: the box may be shared, and both runs are single-threaded
    t0 = time.process_time()
    fast = [simulate(sc.profile, arch, 1, 0, wl) for arch in ("LO", "HLL")]
    t_fast = time.process_time() - t0
    t0 = time.process_time()
    slow = [simulate(sc.profile, arch, 1, 0, wl, per_step_events=True) for arch in ("LO", "HLL")]
    t_slow = time.process_time() - t0
    for a, b in zip(fast, slow, strict=True):
        drift = abs(a.suite_wall_s - b.suite_wall_s) / max(1e-9, b.suite_wall_s)
        print(
            f"  {a.architecture} C=1: suite {a.suite_wall_s:,.0f} s analytic vs {b.suite_wall_s:,.0f} s per-token ({drift:.2%} apart)"
        )
    return t_fast, t_slow, sum(r.events for r in fast), sum(r.events for r in slow)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slice-tasks", type=int, default=8, help="tasks in the per-token comparison slice")
    args = parser.parse_args()
    m = full_matrix()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"paper matrix: {len(DEVICES)} devices x {len(ARCHS)} archs x C={','.join(map(str, LEVELS))}: {m['tasks']:,} task executions"
    )
    print(
        f"  wall {m['wall_s']:.2f} s (cpu {m['cpu_s']:.2f} s), {m['events']:,} events, {m['events'] / m['wall_s']:,.0f} events/s"
    )
    print(
        f"  simulated {m['simulated_h']:,.1f} device-hours (sum of suite wall times): "
        f"{m['simulated_h'] * 3600 / m['wall_s']:,.0f}x real time "
        f"({m['simulated_h'] * 3600 / m['cpu_s']:,.0f}x per CPU-second)"
    )
    print(f"  peak RSS {peak_mb:,.0f} MB")
    t_fast, t_slow, e_fast, e_slow = per_token_slice(args.slice_tasks)
    print(
        f"per-token slice ({args.slice_tasks} tasks, LO+HLL, C=1, RTX 5090): analytic {t_fast:.3f} cpu-s / {e_fast:,} events, "
        f"per-token {t_slow:.2f} cpu-s / {e_slow:,} events -> {t_slow / t_fast:,.0f}x faster"
    )


if __name__ == "__main__":
    main()

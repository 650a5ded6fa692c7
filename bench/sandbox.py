"""Sandbox cost per fresh attempt: create + exec + verify + destroy, per backend.

Prints median and p95 seconds over N runs (default 50) for each phase and in total, the CPU
seconds each phase burned (this process and the children it reaped: ``getrusage``), and the
docker / bwrap ratio. The CPU share says how much of a task's sandbox setup and verification
is work on the shared cores rather than waiting (the simulator takes a task's sandbox setup and
verification as waiting: docs/design.md). Target: bwrap under 50 ms per fresh sandbox. Measured, never
asserted. Run: ``.venv/bin/python bench/sandbox.py [--runs 50] [--backends bwrap,docker]``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import resource
import shutil
import statistics
import tempfile
import textwrap
import time
from pathlib import Path

from agbench.live.sandbox import create_sandbox
from agbench.live.verification import verify
from agbench.task import Task, load_task


def bench_task(root: Path) -> Task:
    (root / "environment").mkdir(parents=True)
    (root / "verifier").mkdir()
    (root / "task.toml").write_text('id = "bench"\ncategory = "terminal"\ndifficulty = "easy"\n')
    (root / "instruction.md").write_text("Write 42 to out.txt.\n")
    (root / "environment" / "in.txt").write_text("21\n")
    (root / "verifier" / "verify.py").write_text(
        textwrap.dedent(
            """\
            import json, pathlib
            ok = pathlib.Path("/work/out.txt").read_text().strip() == "42"
            print(json.dumps({"reward": float(ok), "reason": "ok" if ok else "wrong"}))
            """
        )
    )
    return load_task(root)


PHASES = ("create", "exec", "verify", "destroy")


def quantiles(xs: list[float]) -> tuple[float, float]:
    ordered = sorted(xs)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def cpu_s() -> float:
    """CPU seconds this process and its reaped children have used."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


async def one_run(backend: str, task: Task, attempt: Path) -> dict[str, float]:
    marks = [(time.perf_counter(), cpu_s())]
    sb = create_sandbox(backend, task, attempt)
    await sb.start()
    marks.append((time.perf_counter(), cpu_s()))
    res = await sb.exec(["sh", "-c", "echo $(( $(cat in.txt) * 2 )) > out.txt"], timeout_s=30)
    marks.append((time.perf_counter(), cpu_s()))
    verdict = await verify(sb, task, "42")
    marks.append((time.perf_counter(), cpu_s()))
    await sb.destroy()
    marks.append((time.perf_counter(), cpu_s()))
    if res.exit_code != 0 or not verdict.success:
        raise RuntimeError(f"{backend}: run failed: {res} {verdict}")
    out: dict[str, float] = {}
    for name, (a, b) in zip(PHASES, itertools.pairwise(marks), strict=True):
        out[name], out[f"{name} cpu"] = b[0] - a[0], b[1] - a[1]
    out["total"], out["total cpu"] = marks[-1][0] - marks[0][0], marks[-1][1] - marks[0][1]
    return out


async def bench_backend(backend: str, runs: int, tmp: Path) -> dict[str, list[float]]:
    task = bench_task(tmp / f"task-{backend}")
    await one_run(backend, task, tmp / f"warm-{backend}")  # image build / daemon start excluded
    samples: dict[str, list[float]] = {}
    for i in range(runs):
        attempt = tmp / f"{backend}-{i}"
        for phase, value in (await one_run(backend, task, attempt)).items():
            samples.setdefault(phase, []).append(value)
        shutil.rmtree(attempt, ignore_errors=True)
    return samples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--backends", default="bwrap,docker")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    totals: dict[str, float] = {}
    fresh: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="agbench-bench-") as tmp:
            for backend in backends:
                samples = asyncio.run(bench_backend(backend, args.runs, Path(tmp)))
                print(f"{backend}: {args.runs} fresh sandboxes (create + exec + verify + destroy)")
                for phase in (*PHASES, "total"):
                    med, p95 = quantiles(samples[phase])
                    cpu = statistics.median(samples[f"{phase} cpu"])
                    print(
                        f"  {phase:8s} median {med * 1000:8.1f} ms   p95 {p95 * 1000:8.1f} ms   "
                        f"CPU {cpu * 1000:7.1f} ms ({cpu / med if med > 0 else 0.0:.2f} of the wall)"
                    )
                sandbox_only = [c + d for c, d in zip(samples["create"], samples["destroy"], strict=True)]
                med, p95 = quantiles(sandbox_only)
                print(
                    f"  {'sandbox':8s} median {med * 1000:8.1f} ms   p95 {p95 * 1000:8.1f} ms   (create + destroy)"
                )
                totals[backend] = statistics.median(samples["total"])
                fresh[backend] = med
    finally:
        if "docker" in backends:
            from agbench.live.sandbox.dockerd import stop_shared_daemon

            stop_shared_daemon()
    if "bwrap" in fresh:
        verdict = "meets" if fresh["bwrap"] < 0.050 else "misses"
        print(
            f"bwrap fresh sandbox (create + destroy) median {fresh['bwrap'] * 1000:.1f} ms: {verdict} the 50 ms target"
        )
    if "bwrap" in totals and "docker" in totals:
        print(
            f"docker / bwrap ratio: {totals['docker'] / totals['bwrap']:.1f}x (median total), "
            f"{fresh['docker'] / fresh['bwrap']:.1f}x (create + destroy)"
        )


if __name__ == "__main__":
    main()

"""Sandbox cost per fresh attempt: create + exec + verify + destroy, per backend.

Prints median and p95 seconds over N runs (default 50) for each phase and in total, and the
docker / bwrap ratio. Target: bwrap under 50 ms per fresh sandbox. Measured, never
asserted. Run: ``.venv/bin/python bench/sandbox.py [--runs 50] [--backends bwrap,docker]``.
"""

from __future__ import annotations

import argparse
import asyncio
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


def quantiles(xs: list[float]) -> tuple[float, float]:
    ordered = sorted(xs)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


async def one_run(backend: str, task: Task, attempt: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    sb = create_sandbox(backend, task, attempt)
    await sb.start()
    t1 = time.perf_counter()
    res = await sb.exec(["sh", "-c", "echo $(( $(cat in.txt) * 2 )) > out.txt"], timeout_s=30)
    t2 = time.perf_counter()
    verdict = await verify(sb, task, "42")
    t3 = time.perf_counter()
    await sb.destroy()
    t4 = time.perf_counter()
    if res.exit_code != 0 or not verdict.success:
        raise RuntimeError(f"{backend}: run failed: {res} {verdict}")
    return {"create": t1 - t0, "exec": t2 - t1, "verify": t3 - t2, "destroy": t4 - t3, "total": t4 - t0}


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
                for phase, xs in samples.items():
                    med, p95 = quantiles(xs)
                    print(f"  {phase:8s} median {med * 1000:8.1f} ms   p95 {p95 * 1000:8.1f} ms")
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

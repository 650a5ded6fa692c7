"""A short real sweep on a machine with an NVIDIA GPU: the NVML path end to end, in minutes.

    .venv/bin/python bench/gpu_sweep.py [--local-url http://127.0.0.1:8080/v1] [--limit 3]

It checks NVML answers (exit 2 with the reason where it does not), prints the hardware
inventory, measures the GPU's idle power, runs a small live sweep (model agent, LO, C = 1 and
4, the first ``--limit`` tasks) against the managed llama-server or ``--local-url`` (point it at
a CUDA llama-server to load the GPU; the managed server may run on the CPU), and prints each
configuration's energy per task and per successful task, GPU power and temperature. The
measured idle and peak power are the figures a scenario's ``[device] idle_w`` / ``active_w``
want (see sim/energy.py); they are also written to ``gpu_sweep.json`` in the run directory.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from agbench.config import Architecture
from agbench.live.monitors.nvml import NvmlGpus


def idle_power(seconds: float, interval_s: float = 0.5) -> dict[str, Any]:
    """Mean and peak GPU power (W) and utilisation while nothing of ours runs."""
    gpus, why = NvmlGpus.open()
    if gpus is None:
        raise SystemExit(f"gpu_sweep: {why}")
    powers: list[float] = []
    utils: list[float] = []
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            reading = gpus.read()
            if reading.power_w is not None:
                powers.append(reading.power_w)
            if reading.util_percent is not None:
                utils.append(reading.util_percent)
            time.sleep(interval_s)
    finally:
        gpus.close()
    return {
        "idle_power_w_mean": sum(powers) / len(powers) if powers else None,
        "idle_power_w_peak": max(powers) if powers else None,
        "idle_util_percent_mean": sum(utils) / len(utils) if utils else None,
        "samples": len(powers),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--local-url", default=None, help="A running OpenAI-compatible server (else managed)."
    )
    parser.add_argument("--local-model", default="smollm2-135m")
    parser.add_argument("--limit", type=int, default=3)
    parser.add_argument("--concurrency", default="1,4")
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    gpus, why = NvmlGpus.open()
    if gpus is None:
        print(f"gpu_sweep needs an NVIDIA GPU that NVML answers for: {why}", file=sys.stderr)
        return 2
    gpus.close()

    from agbench.live.monitors.inventory import probe
    from agbench.live.runner import SweepOptions, run_sweep
    from agbench.metrics import summarize_run

    inventory = probe()
    print(f"hardware: {inventory.summary_line()}")
    for source, text in sorted(inventory.energy_sources.items()):
        print(f"energy source {source}: {text}")
    idle = idle_power(args.idle_seconds)
    print(f"idle GPU power: {idle['idle_power_w_mean']} W mean over {idle['samples']} samples")

    out = args.out or Path("runs") / time.strftime("gpu-sweep-%Y%m%d-%H%M%S", time.gmtime())
    options = SweepOptions(
        archs=[Architecture.LO],
        concurrency=[int(c) for c in args.concurrency.split(",")],
        limit=args.limit,
        agent="model",
        local_url=args.local_url,
        local_model=args.local_model,
        out=out,
        quiet=True,
    )
    t0 = time.monotonic()
    run_dir = run_sweep(options)
    wall = time.monotonic() - t0
    summary = summarize_run(run_dir)
    keys = (
        "concurrency",
        "tasks",
        "success",
        "suite_wall_s",
        "energy_wh",
        "energy_wh_per_task",
        "energy_wh_per_success",
        "gpu_power_w_mean",
        "gpu_power_w_peak",
        "gpu_temp_c_peak",
        "energy_source",
        "energy_note",
    )
    rows = [{k: getattr(c, k) for k in keys} for c in summary.configurations]
    print(f"sweep: {run_dir} in {wall:.0f} s")
    for row in rows:
        print(
            "  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items())
        )
    peaks = [r["gpu_power_w_peak"] for r in rows if r["gpu_power_w_peak"] is not None]
    result = {
        "hardware": inventory.to_dict(),
        **idle,
        "serving_power_w_peak": max(peaks) if peaks else None,
        "configurations": rows,
        "run_dir": str(run_dir),
    }
    (run_dir / "gpu_sweep.json").write_text(json.dumps(result, indent=1))
    print(
        f"for a scenario: idle_w = {idle['idle_power_w_mean']}, active_w <= {result['serving_power_w_peak']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

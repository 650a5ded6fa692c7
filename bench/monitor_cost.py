"""CPU cost of the server and resource samplers at a given rate (target: < 1 % of one
core at 2 Hz), measured on a real idle llama-server, and of the thread-placement sampler
beside them (10 Hz, watching that server's threads as a sweep watches each managed server's).

    .venv/bin/python bench/monitor_cost.py [--seconds 20] [--hz 2]

The samplers count their own thread CPU time; the server's cost of answering /metrics and
/slots is its process CPU time while sampled minus the same window unsampled.
"""

from __future__ import annotations

import argparse
import time

import psutil

from agbench.config import ServerSettings
from agbench.live.monitors import PlacementSampler, ResourceSampler, ServerSampler
from agbench.live.serving import ManagedServer


def server_cpu(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--hz", type=float, default=2.0)
    args = parser.parse_args()
    interval = 1.0 / args.hz
    with ManagedServer(ServerSettings(n_ctx=1024, n_parallel=2, threads=1)) as server:
        assert server.pid is not None
        time.sleep(1.0)
        c0 = server_cpu(server.pid)
        time.sleep(args.seconds)
        baseline = (server_cpu(server.pid) - c0) / args.seconds
        count = {"server": 0, "resource": 0}
        ps = PlacementSampler([server.pid])
        ss = ServerSampler(
            server.url,
            lambda s: count.__setitem__("server", count["server"] + 1),
            interval,
            placement=(ps, server.pid),
        )
        rs = ResourceSampler(lambda s: count.__setitem__("resource", count["resource"] + 1), interval)
        c1 = server_cpu(server.pid)
        for sampler in (ps, ss, rs):
            sampler.start()
        time.sleep(args.seconds)
        for sampler in (ss, rs, ps):
            sampler.stop()
        sampled = (server_cpu(server.pid) - c1) / args.seconds
    print(
        f"{args.seconds:g} s at {args.hz:g} Hz: {count['server']} server samples, {count['resource']} resource samples"
    )
    print(f"server sampler thread:   {ss.cpu_fraction * 100:.3f} % of one core")
    print(f"resource sampler thread: {rs.cpu_fraction * 100:.3f} % of one core")
    print(f"placement sampler:       {ps.cpu_fraction * 100:.3f} % of one core ({ps.samples} samples)")
    print(
        f"llama-server answering:  {(sampled - baseline) * 100:+.3f} % of one core (idle {baseline * 100:.3f} %)"
    )
    total = ss.cpu_fraction + rs.cpu_fraction + ps.cpu_fraction + max(0.0, sampled - baseline)
    print(f"total sampling cost:     {total * 100:.3f} % of one core")


if __name__ == "__main__":
    main()

"""The harness's own CPU cost per model call and per tool call, at C = 1 and C = 8, in one run.

The model's time is excluded by construction: model turns are answered instantly by a scripted
OpenAI-compatible server running in a *separate process* (its CPU is not counted), and the
oracle runs do no model calls at all. What is counted is this process's CPU (user + system,
``RUSAGE_SELF``: the agent loop, the streaming client, the recording proxy, journals, monitors,
sandbox management, verification bookkeeping, compaction), not the sandboxed commands, which
run in child processes.

Per-call costs come from differences between runs, so fixed per-task costs cancel out:

- scripted model, each turn calls an unknown tool (the agent answers an error, no sandbox):
  K1 and K2 turns per task -> CPU per model call = slope per turn;
- scripted model, each turn calls ``list_dir`` (a real sandbox exec): K2 turns -> CPU per tool
  call = (this run - the unknown-tool run with K2 turns) / K2 per task;
- the oracle agent (one ``python3 solve.py`` tool call, sandbox, verifier) -> CPU per attempt.

Usage: ``python bench/harness_overhead.py [--tasks 8] [--k1 2] [--k2 8]``. Prints a table; no
timing is asserted anywhere. The issue's target (harness < 5% of one core at C = 8 apart from
the model server) is checked against the "core share" column of a realistic pace: per-call CPU
times calls per second of a real run (model calls of seconds each), printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agbench.live.sse import encode_stream

# ---- the scripted model server (runs in its own process) ----------------------------------------


def _sse(handler: BaseHTTPRequestHandler, events: list[dict[str, Any]]) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(encode_stream(events))
    handler.wfile.flush()


def serve_scripted(port: int, turns: int, tool: str) -> None:
    """Answer every chat request at once: ``turns`` tool calls per conversation, then an answer."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            body = b'{"status":"ok"}' if self.path == "/health" else b"{}"
            self.send_response(200 if self.path == "/health" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            done = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
            usage = {
                "prompt_tokens": 100 + 10 * done,
                "completion_tokens": 8,
                "total_tokens": 108 + 10 * done,
            }
            base = {"id": f"s{done}", "object": "chat.completion.chunk", "model": "scripted"}
            events: list[dict[str, Any]]
            if done < turns:
                call = {"index": 0, "id": f"call{done}", "type": "function",
                        "function": {"name": tool, "arguments": json.dumps({"path": "."})}}  # fmt: skip
                events = [
                    {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]},
                    {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
                ]
            else:
                events = [
                    {
                        **base,
                        "choices": [
                            {"index": 0, "delta": {"role": "assistant", "content": "FINAL ANSWER: 0"}}
                        ],
                    },
                    {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                ]
            events.append({**base, "choices": [], "usage": usage})
            _sse(self, events)

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


# ---- measuring ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(label: str, options: Any, workdir: Path) -> dict[str, Any]:
    from agbench.live.runner import run_sweep
    from agbench.store import RunStore

    cpu0, wall0 = _cpu(), time.monotonic()
    run_dir = run_sweep(options)
    cpu, wall = _cpu() - cpu0, time.monotonic() - wall0
    runs = RunStore.open(run_dir).table("task_runs")
    row = {
        "label": label,
        "C": options.concurrency[0],
        "attempts": len(runs),
        "model_calls": int(runs.model_calls.sum()),
        "tool_calls": int(runs.tool_calls.sum()),
        "statuses": ",".join(sorted(set(runs.status))),
        "cpu_s": cpu,
        "wall_s": wall,
    }
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--k1", type=int, default=2)
    parser.add_argument("--k2", type=int, default=12)
    parser.add_argument(
        "--serve-scripted", nargs=3, metavar=("PORT", "TURNS", "TOOL"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.serve_scripted:
        port, turns, tool = args.serve_scripted
        serve_scripted(int(port), int(turns), tool)
        return

    from agbench.config import Architecture
    from agbench.live.runner import SweepOptions

    workdir = Path(tempfile.mkdtemp(prefix="agbench-bench-overhead-"))
    rows: list[dict[str, Any]] = []

    def options(c: int, n: int, **kw: Any) -> SweepOptions:
        return SweepOptions(
            archs=[Architecture.LO], concurrency=[c], limit=args.tasks, out=workdir / f"run{n}",
            runs_root=workdir / "runs", quiet=True, write_reports=False, device="bench", **kw,
        )  # fmt: skip

    n = 0
    try:
        for c in (1, 8):
            n += 1
            rows.append(measure("oracle", options(c, n, agent="oracle"), workdir))
            for turns, tool in ((args.k1, "noop"), (args.k2, "noop"), (args.k2, "list_dir")):
                port = _free_port()
                server = subprocess.Popen(
                    [sys.executable, __file__, "--serve-scripted", str(port), str(turns), tool],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                try:
                    _wait_for(port)
                    n += 1
                    opts = options(
                        c, n, agent="model", local_url=f"http://127.0.0.1:{port}", local_model="scripted"
                    )
                    rows.append(measure(f"scripted {turns}x{tool}", opts, workdir))
                finally:
                    server.terminate()
                    server.wait(10)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print(
        f"{'run':22s} {'C':>2s} {'tasks':>5s} {'model':>6s} {'tools':>6s} {'cpu s':>7s} {'wall s':>7s} {'cpu/wall':>8s}  statuses"
    )
    for r in rows:
        print(
            f"{r['label']:22s} {r['C']:2d} {r['attempts']:5d} {r['model_calls']:6d} {r['tool_calls']:6d} "
            f"{r['cpu_s']:7.2f} {r['wall_s']:7.2f} {r['cpu_s'] / r['wall_s']:8.2f}  {r['statuses']}"
        )
    print()
    for c in (1, 8):
        by = {r["label"]: r for r in rows if r["C"] == c}
        oracle = by["oracle"]
        a1, a2 = by[f"scripted {args.k1}xnoop"], by[f"scripted {args.k2}xnoop"]
        b2 = by[f"scripted {args.k2}xlist_dir"]
        per_model = (a2["cpu_s"] - a1["cpu_s"]) / max(1, a2["model_calls"] - a1["model_calls"])
        per_tool = (b2["cpu_s"] - a2["cpu_s"]) / max(1, b2["tool_calls"])
        per_attempt = oracle["cpu_s"] / max(1, oracle["attempts"])
        # A realistic pace on a device: the paper's agents make a model call every few seconds;
        # take one model call and one tool call per 5 s per running task.
        share = c * (per_model + per_tool) / 5.0
        print(
            f"C={c}: harness CPU per model call {per_model * 1000:6.1f} ms, per tool call {per_tool * 1000:6.1f} ms, "
            f"per oracle attempt (sandbox + tool + verifier) {per_attempt * 1000:6.1f} ms; "
            f"at one model + one tool call per 5 s per task: {share * 100:.2f}% of one core"
        )
    print(f"(cpu counts this process only; machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")


def _wait_for(port: int, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"scripted server on port {port} did not start")


if __name__ == "__main__":
    main()

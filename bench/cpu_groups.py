"""CPU scheduling groups: a llama-server's decode speed beside one busy process, in the server's
session or in a session of its own (as every sandboxed tool runs).

    .venv/bin/python bench/cpu_groups.py [--seconds 15]

Prints decode milliseconds per token (median of back-to-back 32-token requests to a managed
SmolLM2 server started with ``agbench serve``) for a two-thread server, a one-thread server and
two one-thread servers decoding at once, each alone, beside a busy loop in their session,
beside one started with ``start_new_session`` and beside one in bubblewrap ``--new-session``.
The figures behind docs/design.md, "CPU groups": Linux's autogroup gives every session an equal
share of the cores, so another session's busy process takes a whole core from the servers'
group, and a server whose threads need every core then stalls at every barrier. Takes about
five minutes; run it on an otherwise quiet machine (nice does not protect it from other
sessions). The bubblewrap column needs ``bwrap`` on PATH (else it reads "-").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

AGBENCH = str(Path(sys.executable).with_name("agbench"))
BUSY = "while True: pass"
PLACES = ("alone", "same session", "own session", "bwrap --new-session")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server(threads: int) -> Iterator[int]:
    """A managed llama-server in this process's session; yields its port."""
    port = free_port()
    cmd = [AGBENCH, "serve", "--port", str(port), "--threads", str(threads), "--ctx", "2048"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(240):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            time.sleep(0.5)
        else:
            raise SystemExit("the server did not come up")
        decode_ms(port)  # warm
        yield port
    finally:
        proc.terminate()
        proc.wait()


def decode_ms(port: int) -> float:
    body = {"prompt": "Write a long story about a robot who ", "n_predict": 32, "cache_prompt": False}
    body |= {"temperature": 0, "ignore_eos": True}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/completion", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=900) as response:
        return float(json.loads(response.read())["timings"]["predicted_per_token_ms"])


def busy_loop(place: str) -> subprocess.Popen[bytes] | None:
    if place == "same session":
        return subprocess.Popen([sys.executable, "-c", BUSY])
    if place == "own session":
        return subprocess.Popen([sys.executable, "-c", BUSY], start_new_session=True)
    if place == "bwrap --new-session" and shutil.which("bwrap"):
        sandbox = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--new-session"]
        return subprocess.Popen([*sandbox, "--die-with-parent", sys.executable, "-c", BUSY])
    return None


def measure(ports: list[int], place: str, seconds: float) -> str:
    loop = busy_loop(place)
    if place != "alone" and loop is None:
        return "-"
    out: dict[int, list[float]] = {p: [] for p in ports}

    def drive(port: int) -> None:
        end = time.time() + seconds
        while time.time() < end:
            out[port].append(decode_ms(port))

    try:
        time.sleep(0.3)
        workers = [threading.Thread(target=drive, args=(p,)) for p in ports]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        if loop is not None:
            loop.kill()
            loop.wait()
    return " / ".join(f"{statistics.median(v):,.1f}" for v in out.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per cell")
    args = parser.parse_args()
    print(f"decode ms per token, median of {args.seconds:g} s of 32-token requests")
    print(f"{'servers':<28}" + "".join(f"{p:>22}" for p in PLACES))
    for label, threads in (
        ("one server, 2 threads", [2]),
        ("one server, 1 thread", [1]),
        ("two servers, 1 thread each", [1, 1]),
    ):
        with contextlib.ExitStack() as stack:
            ports = [stack.enter_context(server(t)) for t in threads]
            cells = [measure(ports, place, args.seconds) for place in PLACES]
        print(f"{label:<28}" + "".join(f"{c:>22}" for c in cells), flush=True)


if __name__ == "__main__":
    main()

"""Chaos: a bounded fault-injection run on loopback, one fault at a time, and what it cost.

    .venv/bin/python bench/chaos.py [--kills 3] [--tasks 2] [--seed 0]

Each fault runs a small replay sweep (``agbench sweep --agent replay``, LO, C = 1, a few tasks,
SmolLM2 behind a fault-injecting loopback upstream) as a real subprocess, injects the fault,
resumes where the fault stopped the run, and checks the run directory:

- **lost**: (configuration, task) pairs left without a finished attempt;
- **doubled**: pairs with more than one finished attempt;
- **hung**: runs that did not end within their bound, or attempts left unclosed;
- **misclassified**: finished attempts whose status is not what the fault should give (the
  attempt hit by a broken stream is ``infrastructure_error``, one past the request timeout is
  ``timeout``, every other attempt has its fault-free status from a baseline run).

Faults: harness ``kill -9`` x N with resume; the managed server killed mid-attempt (the
watchdog restarts it); a 429 storm; a malformed and a truncated SSE stream; a stalled upstream;
a full disk on the run directory (a small tmpfs, filled mid-run, then freed and resumed); a
corrupt journal line (written into a killed run's journals before resuming). Every figure must
be 0; the exit status is 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from agbench.config import ServerSettings
from agbench.live.providers.fault_upstream import FaultUpstream
from agbench.live.serving import ManagedServer
from agbench.status import Status
from agbench.store import RunStore

REPO = Path(__file__).resolve().parents[1]
# A sweep of a few replayed tasks that takes longer than this is hung. Generous: on a machine
# shared with other work one SmolLM2 turn can take tens of seconds.
RUN_BOUND_S = 600.0
MODEL = "smollm2-135m"

Expect = Callable[[list[dict[str, object]]], int]  # finished rows in start order -> misclassified


@dataclass
class Outcome:
    fault: str
    attempts: int = 0
    lost: int = 0
    doubled: int = 0
    hung: int = 0
    misclassified: int = 0
    wall_s: float = 0.0
    note: str = ""

    @property
    def clean(self) -> bool:
        return self.lost == self.doubled == self.hung == self.misclassified == 0


class Chaos:
    """The shared pieces: tasks, trajectories, the model server and the fault upstream."""

    def __init__(self, work: Path, tasks: int, seed: int) -> None:
        self.work = work
        self.tasks = tasks
        self.rng = random.Random(seed)
        self.trajectories = work / "trajectories.jsonl"
        subprocess.run(
            [sys.executable, "-m", "agbench.cli", "trajectories", "synth", "--limit", str(tasks),
             "-o", str(self.trajectories)],
            cwd=REPO, check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        self.server = ManagedServer(ServerSettings(n_ctx=4096, n_parallel=1, threads=1), alias=MODEL)
        self.server.start()
        # A stalled request outlasts the stall fault's --model-request-timeout (90 s: well above
        # a normal SmolLM2 turn on a loaded machine, so only the stalled request times out).
        self.upstream = FaultUpstream(self.server.url, retry_after_s=0.05, stall_s=300)
        self.baseline: dict[str, str] = {}

    def close(self) -> None:
        self.upstream.close()
        self.server.stop()

    # ---- running sweeps --------------------------------------------------------------------------
    def command(self, run_dir: Path, *extra: str, managed: bool = False, resume: bool = False) -> list[str]:
        cmd = [sys.executable, "-m", "agbench.cli", "sweep", "--quiet"]
        if resume:
            return [*cmd, "--resume", str(run_dir), *extra]
        cmd += ["--agent", "replay", "--trajectories", str(self.trajectories), "--archs", "LO",
                "--concurrency", "1", "--limit", str(self.tasks), "--out", str(run_dir), *extra]  # fmt: skip
        if not managed:
            cmd += ["--local-url", self.upstream.url, "--local-model", MODEL]
        return cmd

    def start(self, cmd: list[str]) -> subprocess.Popen[bytes]:
        """A sweep in the background; what it says goes to ``sweeps.log`` in the work folder."""
        with (self.work / "sweeps.log").open("ab") as log_file:
            log_file.write(("\n$ " + " ".join(cmd[2:]) + "\n").encode())
            log_file.flush()
            return subprocess.Popen(cmd, cwd=self.work, stdout=log_file, stderr=subprocess.STDOUT)

    @staticmethod
    def finish(proc: subprocess.Popen[bytes], outcome: Outcome, bound_s: float = RUN_BOUND_S) -> int:
        """Wait for a sweep; past its bound it is hung (killed and counted)."""
        try:
            proc.wait(bound_s)
        except subprocess.TimeoutExpired:
            outcome.hung += 1
            kill_tree(proc.pid)
            proc.wait(10)
        return proc.returncode

    def run(self, run_dir: Path, outcome: Outcome, *extra: str, managed: bool = False) -> int:
        return self.finish(self.start(self.command(run_dir, *extra, managed=managed)), outcome)

    def resume(self, run_dir: Path, outcome: Outcome, *extra: str) -> int:
        return self.finish(self.start(self.command(run_dir, *extra, resume=True)), outcome)

    # ---- checking a run --------------------------------------------------------------------------
    def tally(self, run_dir: Path, outcome: Outcome, expect: Expect | None = None) -> None:
        store = RunStore.open(run_dir)
        attempts = store.attempts()
        outcome.attempts = len(attempts)
        outcome.hung += sum(1 for s in attempts.values() if s is None)
        finished: dict[tuple[str, str], int] = {}
        for key, status in attempts.items():
            if status is not None and status is not Status.INTERRUPTED:
                finished[key.pair] = finished.get(key.pair, 0) + 1
        tasks = store.meta().get("task_order", [])[: self.tasks]
        configs = {key.config.key for key in attempts} or {"?"}
        outcome.lost = sum(1 for c in configs for t in tasks if finished.get((c, t), 0) == 0)
        outcome.doubled = sum(n - 1 for n in finished.values() if n > 1)
        runs = store.table("task_runs")
        finished_rows = runs[runs.status != Status.INTERRUPTED.value].sort_values("t_start")
        rows = [{str(k): v for k, v in r.items()} for r in finished_rows.to_dict("records")]
        outcome.misclassified += (expect or self.as_baseline)(rows)

    def as_baseline(self, rows: list[dict[str, object]], skip: int = -1) -> int:
        """Rows whose status differs from the fault-free run (row ``skip`` is checked apart)."""
        return sum(
            1 for i, r in enumerate(rows) if i != skip and self.baseline.get(str(r["task"])) != r["status"]
        )

    def first_is(self, status: Status) -> Expect:
        """The first attempt (the one the fault hit) has ``status``; the rest as in the baseline."""

        def expect(rows: list[dict[str, object]]) -> int:
            first_wrong = int(bool(rows) and rows[0]["status"] != status.value)
            return first_wrong + self.as_baseline(rows, skip=0)

        return expect

    def wait_for(self, run_dir: Path, finished: int, in_flight: bool, bound_s: float = 400) -> bool:
        """Until ``finished`` attempts are done (and, if asked, one more is running)."""
        deadline = time.monotonic() + bound_s
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                seen = RunStore(run_dir).attempts() if (run_dir / "run.json").is_file() else {}
                done = sum(1 for s in seen.values() if s is not None)
                running = any(s is None for s in seen.values())
                if done >= finished and (running or not in_flight):
                    return True
            time.sleep(0.01)
        return False

    # ---- the faults ------------------------------------------------------------------------------
    def fault_baseline(self) -> Outcome:
        outcome = Outcome("baseline (no fault)")
        run_dir = self.work / "baseline"
        self.run(run_dir, outcome)
        rows = RunStore.open(run_dir).table("task_runs")
        self.baseline = {str(r.task): str(r.status) for r in rows.itertuples()}
        self.tally(run_dir, outcome)
        outcome.note = ", ".join(f"{s} {n}" for s, n in rows.status.value_counts().items())
        return outcome

    def fault_kills(self, kills: int) -> Outcome:
        outcome = Outcome(f"harness kill -9 x {kills}, resume")
        run_dir = self.work / "kills"
        proc = self.start(self.command(run_dir))
        deadline = time.monotonic() + 60
        while not (run_dir / "run.json").is_file() and time.monotonic() < deadline:
            time.sleep(0.01)  # a kill before the run directory exists leaves nothing to resume
        for i in range(kills):
            time.sleep(self.rng.uniform(0.2, 8.0))
            kill_tree(proc.pid)
            proc.wait(10)
            if i < kills - 1:
                proc = self.start(self.command(run_dir, resume=True))
        self.resume(run_dir, outcome)
        self.tally(run_dir, outcome)
        left = orphans(self.work)
        outcome.note = f"{left} orphaned process(es)"
        outcome.hung += left
        return outcome

    def fault_server_kill(self) -> Outcome:
        outcome = Outcome("managed server kill -9")
        run_dir = self.work / "server-kill"
        proc = self.start(self.command(run_dir, managed=True))
        killed = 0
        if self.wait_for(run_dir, finished=1, in_flight=True):
            for child in psutil.Process(proc.pid).children(recursive=True):
                if "agbench.live.serving.server_process" in " ".join(child.cmdline()):
                    child.kill()
                    killed += 1
        outcome.hung += int(killed == 0)  # the run never got to an attempt in flight
        self.finish(proc, outcome)
        restarts = int(RunStore.open(run_dir).meta().get("server_restarts") or 0)

        def expect(rows: list[dict[str, object]]) -> int:
            infra = [i for i, r in enumerate(rows) if r["status"] == Status.INFRASTRUCTURE_ERROR.value]
            others = sum(
                1
                for i, r in enumerate(rows)
                if i not in infra and self.baseline.get(str(r["task"])) != r["status"]
            )
            return max(0, len(infra) - 1) + others  # at C = 1 at most the one attempt in flight

        self.tally(run_dir, outcome, expect)
        outcome.misclassified += int(restarts != 1)
        outcome.note = f"{restarts} watchdog restart(s)"
        return outcome

    def fault_injected(self, fault: str, count: int, expect: Expect, *extra: str) -> Outcome:
        outcome = Outcome(f"{fault} x {count}")
        run_dir = self.work / f"inject-{fault}"
        self.upstream.clear()
        self.upstream.inject(fault, count)
        self.run(run_dir, outcome, *extra)
        self.upstream.clear()
        self.tally(run_dir, outcome, expect)
        outcome.note = f"{self.upstream.faults_sent.get(fault, 0)} sent"
        return outcome

    def fault_full_disk(self) -> Outcome:
        outcome = Outcome("full disk on the run dir")
        mount = self.work / "small-fs"
        mount.mkdir()
        if subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount)], check=False
        ).returncode:
            outcome.note = "skipped: cannot mount a tmpfs here"
            return outcome
        try:
            run_dir = mount / "run"
            proc = self.start(self.command(run_dir, "--no-preflight"))
            filler = mount / "filler"
            if self.wait_for(run_dir, finished=1, in_flight=False):
                with contextlib.suppress(OSError), filler.open("wb") as f:
                    while True:
                        f.write(b"\0" * (1 << 20))
            rc = self.finish(proc, outcome)
            filler.unlink(missing_ok=True)
            self.resume(run_dir, outcome)
            self.tally(run_dir, outcome)
            outcome.note = f"first run exit {rc}, then resumed"
        finally:
            subprocess.run(["umount", "-l", str(mount)], check=False)
        return outcome

    def fault_corrupt_journal(self) -> Outcome:
        outcome = Outcome("corrupt journal lines, resume")
        run_dir = self.work / "corrupt"
        proc = self.start(self.command(run_dir))
        self.wait_for(run_dir, finished=1, in_flight=True)
        kill_tree(proc.pid)
        proc.wait(10)
        for i, journal in enumerate(sorted((run_dir / "journal").rglob("*.jsonl"))):
            with journal.open("ab") as f:  # a torn line, a non-object, binary noise
                f.write(
                    [b'{"table": "task_runs", "row": {"sta', b"[1, 2, 3]\n", b"\x00\xff garbage\n"][i % 3]
                )
        self.resume(run_dir, outcome)
        self.tally(run_dir, outcome)
        return outcome


def kill_tree(pid: int) -> None:
    """SIGKILL a process and everything it started (a killed harness leaves nothing running)."""
    with contextlib.suppress(psutil.NoSuchProcess):
        parent = psutil.Process(pid)
        for child in parent.children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess):
                child.send_signal(signal.SIGKILL)
        parent.send_signal(signal.SIGKILL)


def orphans(work: Path) -> int:
    """Server or sandbox processes of this benchmark's runs still running after they ended."""
    marks = [str(work)]
    for meta in work.rglob("run.json"):
        with contextlib.suppress(Exception):
            marks.append(f"agbench-{RunStore.open(meta.parent).run_id}-")
    mine = {p.pid for p in psutil.Process().children(recursive=True)}  # our own model server
    found = 0
    for proc in psutil.process_iter(["cmdline"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if proc.pid not in mine and any(mark in cmd for mark in marks):
            found += 1
    return found


def main() -> int:
    logging.getLogger("agbench").setLevel(logging.ERROR)  # dropped-line warnings are expected here
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="agbench-chaos-"))
    chaos = Chaos(work, args.tasks, args.seed)
    outcomes: list[Outcome] = []
    print(
        f"{'fault':34} {'attempts':>8} {'lost':>5} {'doubled':>7} {'hung':>5} {'miscl.':>6} {'wall s':>7}  note"
    )
    try:
        steps: list[Callable[[], Outcome]] = [
            chaos.fault_baseline,
            lambda: chaos.fault_kills(args.kills),
            chaos.fault_server_kill,
            lambda: chaos.fault_injected("429", 8, chaos.as_baseline, "--retries", "10"),
            lambda: chaos.fault_injected(
                "malformed", 1, chaos.first_is(Status.INFRASTRUCTURE_ERROR), "--retries", "0"
            ),
            lambda: chaos.fault_injected(
                "truncated", 1, chaos.first_is(Status.INFRASTRUCTURE_ERROR), "--retries", "0"
            ),
            lambda: chaos.fault_injected(
                "stall", 1, chaos.first_is(Status.TIMEOUT), "--model-request-timeout", "90"
            ),
            chaos.fault_full_disk,
            chaos.fault_corrupt_journal,
        ]
        for step in steps:
            t0 = time.monotonic()
            outcome = step()
            outcome.wall_s = time.monotonic() - t0
            outcomes.append(outcome)
            print(f"{outcome.fault:34} {outcome.attempts:>8} {outcome.lost:>5} {outcome.doubled:>7} "
                  f"{outcome.hung:>5} {outcome.misclassified:>6} {outcome.wall_s:>7.1f}  {outcome.note}", flush=True)  # fmt: skip
    finally:
        chaos.close()
    totals = [sum(getattr(o, k) for o in outcomes) for k in ("lost", "doubled", "hung", "misclassified")]
    print("attempts lost / doubled / hung / misclassified: " + "/".join(str(t) for t in totals))
    if all(o.clean for o in outcomes):
        shutil.rmtree(work, ignore_errors=True)
        return 0
    print(f"run directories kept in {work}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

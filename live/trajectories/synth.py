"""Synthesised trajectories for our task suite: the oracle's plan, sized by a token profile.

Each task ships its oracle twice: ``solution/solve.py`` and ``solution/tools.json``, the same
solution as the tool calls an agent would make (``[{"tool": ..., "arguments": {...}}, ...]``;
a string argument ``"@solve.py"`` stands for the contents of ``solution/solve.py``, any
``"@NAME"`` for ``solution/NAME``). A synthesised agent makes exactly those tool calls, one
per turn by default (after the profile's exploring ``list_dir`` turns), then answers with the
oracle's own answer. Token sizes come from the profile (see ``profile.py``), varied by the
profile's ``jitter`` with a seeded hash of (seed, task, step), so LO, CO and the hybrids of one
task see the same sizes step for step and a seed reproduces a file byte for byte.

Per architecture (agent labels as in ``agbench.live.architectures``):

- LO / CO: one lead agent on the local / cloud endpoint does the plan, then answers.
- HCL: the cloud lead delegates the plan to a local sub-agent in ``delegations`` parts (a
  lead turn per delegation whose output is the sub-agent's instruction); the sub-agent's
  report comes back into the lead's history; the lead then answers. Each part's first turn
  adds the instruction: a persistent sub-agent (the default) replays it on top of the
  history of the earlier parts, a fresh one after its system prompt (agbench.trajectory).
- HLL: the local lead does the plan and consults the cloud ``consultations`` times (a lead
  turn writing the question, then one cloud turn), before the plan's last steps.

The oracle's answer is obtained by running ``solution/solve.py`` in a fresh sandbox of the
chosen backend, exactly as the harness's oracle agent does (a host copy with the host's
python would not see the sandbox's programs and paths). A task whose oracle fails keeps its
trajectory, with ``recorded_status = "oracle_failed"`` and the oracle's output as its answer:
replaying it cannot succeed, just as the oracle does not.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agbench.attempt import Endpoint
from agbench.config import Architecture
from agbench.errors import AgbenchError
from agbench.live.sandbox import Sandbox, SandboxError, create_sandbox
from agbench.live.trajectories.profile import HybridProfile, Profile, TokenProfile, load_profile
from agbench.live.verification import run_oracle
from agbench.task import Task
from agbench.trajectory import ToolStep, Trajectory, TrajectorySet, Turn

PLAN_FILE = "tools.json"
EXPLORE_STEP = ("list_dir", {"path": "."})
#: The sub-agent's report when the oracle printed nothing (end-state-only tasks).
EMPTY_REPORT = "done"


def load_plan(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The oracle's tool calls, ``@FILE`` arguments resolved; a lone python call of solve.py
    when the task has no ``tools.json``."""
    path = task.solution_dir / PLAN_FILE
    if not path.is_file():
        solve = task.solution_dir / "solve.py"
        if not solve.is_file():
            raise AgbenchError(f"task {task.id}: no solution/{PLAN_FILE} and no solution/solve.py")
        return [("python", {"code": solve.read_text(encoding="utf-8")})]
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise AgbenchError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(raw, list) or not raw:
        raise AgbenchError(f"{path}: expected a non-empty list of tool calls")
    steps: list[tuple[str, dict[str, Any]]] = []
    for number, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("tool"), str):
            raise AgbenchError(f"{path}: call {number} needs a string 'tool'")
        arguments = entry.get("arguments", {})
        if not isinstance(arguments, dict):
            raise AgbenchError(f"{path}: call {number}: 'arguments' must be an object")
        steps.append((entry["tool"], {k: _resolve(task, v) for k, v in arguments.items()}))
    return steps


def _resolve(task: Task, value: Any) -> Any:
    """``"@NAME"`` -> the contents of ``solution/NAME`` when that file exists; any other
    value (``"@example.com"`` as a search pattern, say) is an argument as written."""
    if isinstance(value, str) and value.startswith("@") and "/" not in value and len(value) > 1:
        source = task.solution_dir / value[1:]
        if source.is_file():
            return source.read_text(encoding="utf-8")
    return value


def jittered(base: int, jitter: float, *key: object) -> int:
    """``base`` varied by up to ±``jitter`` with a hash of ``key`` (stable across runs and
    Python versions, unlike ``hash``); never below 1 for a positive base."""
    if base <= 0 or jitter <= 0:
        return base
    digest = hashlib.sha256(":".join(map(str, key)).encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64  # uniform in [0, 1)
    return max(1, round(base * (1 + jitter * (2 * u - 1))))


class _Sizer:
    """Sizes of one task's steps; keyed by step so every architecture gets the same ones."""

    def __init__(self, profile: Profile, task: Task, seed: int) -> None:
        self.jitter = profile.jitter
        self.tokens: TokenProfile = profile.for_category(task.category)
        self.hybrid: HybridProfile = profile.hybrid
        self.key = (seed, task.id)

    def size(self, base: int, *what: object) -> int:
        return jittered(base, self.jitter, *self.key, *what)


def _group(
    steps: Sequence[tuple[str, dict[str, Any]]], size: int
) -> list[list[tuple[int, str, dict[str, Any]]]]:
    indexed = [(i, name, args) for i, (name, args) in enumerate(steps)]
    return [indexed[i : i + size] for i in range(0, len(indexed), size)]


def _work_turns(
    groups: list[list[tuple[int, str, dict[str, Any]]]], sizer: _Sizer, endpoint: str, first_added: int
) -> tuple[list[Turn], int]:
    """One tool-calling turn per group; returns the turns and the tokens still to be added to
    the history (the last group's results) before the next turn."""
    tp = sizer.tokens
    turns: list[Turn] = []
    added = first_added
    for group in groups:
        tools = [
            ToolStep(name, args, output_tokens=sizer.size(tp.tool_result_tokens, "result", i))
            for i, name, args in group
        ]
        turns.append(
            Turn(
                endpoint=endpoint,
                prompt_tokens_added=added,
                output_tokens=sizer.size(tp.output_tokens, "output", group[0][0]),
                think_s=tp.think_s,
                tools=tools,
            )
        )
        added = sum(t.output_tokens for t in tools)
    return turns, added


def _split(items: list[Any], parts: int) -> list[list[Any]]:
    """``items`` in ``parts`` contiguous, nearly equal, non-empty chunks (fewer if too few)."""
    parts = max(1, min(parts, len(items)))
    base, extra = divmod(len(items), parts)
    out, start = [], 0
    for p in range(parts):
        end = start + base + (1 if p < extra else 0)
        out.append(items[start:end])
        start = end
    return out


def _single_agent(
    task: Task, arch: Architecture, endpoint: str, steps: list[Any], sizer: _Sizer, answer: str
) -> Trajectory:
    tp = sizer.tokens
    turns, pending = _work_turns(_group(steps, tp.tools_per_turn), sizer, endpoint, tp.instruction_tokens)
    turns.append(Turn(endpoint, pending, sizer.size(tp.answer_tokens, "answer"), think_s=tp.think_s))
    return Trajectory(task.id, arch.value, "lead", tp.system_prompt_tokens, turns, answer, task.category)


def _hll(task: Task, steps: list[Any], sizer: _Sizer, answer: str) -> Trajectory:
    tp, hy = sizer.tokens, sizer.hybrid
    groups = _group(steps, tp.tools_per_turn)
    # Consult before the last part of the plan: the lead has looked around, asks, then acts.
    n = min(hy.consultations, len(groups))
    chunks = _split(groups, n + 1) if n else [groups]
    turns: list[Turn] = []
    pending = tp.instruction_tokens
    for c, chunk in enumerate(chunks):
        if c > 0:
            consult = Turn(
                Endpoint.CLOUD,
                sizer.size(hy.consult_prompt_tokens, "consult-prompt", c),
                sizer.size(hy.consult_answer_tokens, "consult-answer", c),
            )
            turns.append(
                Turn(
                    Endpoint.LOCAL,
                    pending,
                    sizer.size(hy.consult_question_tokens, "consult-question", c),
                    think_s=tp.think_s,
                    consult=consult,
                )
            )
            pending = consult.output_tokens
        work, pending = _work_turns(chunk, sizer, Endpoint.LOCAL, pending)
        turns += work
    turns.append(Turn(Endpoint.LOCAL, pending, sizer.size(tp.answer_tokens, "answer"), think_s=tp.think_s))
    return Trajectory(task.id, "HLL", "lead", tp.system_prompt_tokens, turns, answer, task.category)


def _hcl(task: Task, steps: list[Any], sizer: _Sizer, answer: str) -> Trajectory:
    tp, hy = sizer.tokens, sizer.hybrid
    groups = _group(steps, tp.tools_per_turn)
    turns: list[Turn] = []
    pending = tp.instruction_tokens
    report_text = answer.strip() or EMPTY_REPORT
    for d, chunk in enumerate(_split(groups, hy.delegations)):
        instruction = sizer.size(hy.delegate_instruction_tokens, "delegate-instruction", d)
        work, sub_pending = _work_turns(chunk, sizer, Endpoint.LOCAL, instruction)
        report = sizer.size(hy.delegate_report_tokens, "delegate-report", d)
        work.append(Turn(Endpoint.LOCAL, sub_pending, report, think_s=tp.think_s))
        sub = Trajectory(task.id, "HCL", "sub", tp.system_prompt_tokens, work, report_text, task.category)
        turns.append(Turn(Endpoint.CLOUD, pending, instruction, think_s=tp.think_s, delegate=sub))
        pending = report
    turns.append(Turn(Endpoint.CLOUD, pending, sizer.size(tp.answer_tokens, "answer"), think_s=tp.think_s))
    return Trajectory(task.id, "HCL", "lead", tp.system_prompt_tokens, turns, answer, task.category)


def synthesize_task(
    task: Task, profile: Profile, answer: str, *, seed: int = 0, oracle_ok: bool = True
) -> list[Trajectory]:
    """The four trajectories (LO, CO, HCL, HLL) of one task, given its oracle's answer."""
    sizer = _Sizer(profile, task, seed)
    steps = [EXPLORE_STEP] * sizer.tokens.exploration_turns + load_plan(task)
    out = [
        _single_agent(task, Architecture.LO, Endpoint.LOCAL, steps, sizer, answer),
        _single_agent(task, Architecture.CO, Endpoint.CLOUD, steps, sizer, answer),
        _hcl(task, steps, sizer, answer),
        _hll(task, steps, sizer, answer),
    ]
    if not oracle_ok:
        for traj in out:
            traj.recorded_status = "oracle_failed"
    return out


async def oracle_answer(task: Task, backend: str) -> tuple[str, bool]:
    """Run the task's oracle in a fresh sandbox: (its answer, whether it ran cleanly)."""

    with tempfile.TemporaryDirectory(prefix=f"agbench-synth-{task.id}-") as tmp:
        sandbox: Sandbox = create_sandbox(backend, task, Path(tmp) / "attempt")
        try:
            await sandbox.start()
            answer = await run_oracle(sandbox, task)
            return str(answer).strip(), True
        except SandboxError:
            raise
        except Exception as exc:  # the oracle itself failed: keep the task, marked
            return f"{type(exc).__name__}: {exc}", False
        finally:
            await sandbox.destroy()


async def _oracle_answers(tasks: list[Task], backend: str, parallel: int = 2) -> dict[str, tuple[str, bool]]:
    gate = asyncio.Semaphore(parallel)

    async def one(task: Task) -> tuple[str, tuple[str, bool]]:
        async with gate:
            return task.id, await oracle_answer(task, backend)

    return dict(await asyncio.gather(*(one(t) for t in tasks)))


def synthesize(
    tasks: list[Task],
    profile: Path | str | None = None,
    *,
    backend: str = "bwrap",
    seed: int = 0,
    answers: dict[str, str] | None = None,
) -> TrajectorySet:
    """A trajectory set for ``tasks``: one trajectory per (task, architecture), LO CO HCL HLL.

    ``answers`` (task id -> answer) skips running the oracles (tests, or a caller that has
    just run them); otherwise each oracle runs once in a ``backend`` sandbox.
    """
    if not tasks:
        raise AgbenchError("no tasks to synthesise trajectories for")
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise AgbenchError(f"duplicate task id(s): {', '.join(sorted({i for i in ids if ids.count(i) > 1}))}")
    prof = load_profile(profile)
    for task in tasks:
        load_plan(task)  # fail on a bad plan before running any oracle
    if answers is None:
        results = asyncio.run(_oracle_answers(tasks, backend))
    else:
        results = {t.id: (answers.get(t.id, ""), t.id in answers) for t in tasks}
    trajectories: list[Trajectory] = []
    for task in tasks:
        answer, ok = results[task.id]
        trajectories += synthesize_task(task, prof, answer, seed=seed, oracle_ok=ok)
    header = {**prof.to_dict(), "seed": seed, "backend": backend}
    return TrajectorySet(source="synth", trajectories=trajectories, profile=header)


__all__ = ["jittered", "load_plan", "oracle_answer", "synthesize", "synthesize_task"]

"""Every verifier of the suite, graded in real bubblewrap grading sandboxes:

- a planted per-user site file, ``.pth`` file or exit-hook module in /work changes no verdict
  (the oracle's end state with them planted still succeeds);
- no verifier raises (``failed_grader``) when its inputs are missing or hold non-UTF-8 bytes;
- no verifier reaches ``failed_grader`` under the exhaustion cases (a 1 GiB sparse file in /work
  and beside the agent's code, code that allocates or writes hundreds of MB at import, archive
  bombs), and a correct attempt with a sparse file left in /work still succeeds: every task on
  bubblewrap, one task of each category on Docker.

Docker takes one task per category because what differs there is the backend (its limits, its
tmpfs, its container start), not the verifier: each verifier meets the same cases on bubblewrap,
and ``agbench tasks check --backend docker`` runs them all for the whole suite (minutes).
One oracle run per task, then a few gradings.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from agbench.live.taskcases import Case, generic_cases, state_class_cases, tree_digests
from agbench.live.taskcheck import grade_case, run_oracle_case
from agbench.status import Status
from agbench.task import Task, load_suite

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]
NOT_UTF8 = b"\xff\xfe\x00\xc3\x28 not utf-8\n"
SUITE = load_suite()
ONE_PER_CATEGORY = [next(t for t in SUITE if t.category == c) for c in sorted({t.category for t in SUITE})]


async def _grade_all(task: Task, root: Path) -> list[str]:
    state = root / "oracle-state"
    oracle, answer = await run_oracle_case(task, "bwrap", root / "oracle", state)
    assert answer is not None, oracle.detail
    assert oracle.ok, oracle.detail
    inputs = tree_digests(task.environment_dir)
    written = tree_digests(state)
    # Site files, .pth files and a stand-alone exit-hook module, added next to the oracle's
    # output; the agent's own files stay as the oracle left them (hooks inside them change
    # what the agent's code prints, which a verifier rightly fails: ``tasks check`` covers it).
    planted = {}
    for case in generic_cases(task, inputs, written):
        if "planted" in case.name:
            planted.update(case.write)
        if "exit hook" in case.name:
            planted["hook.py"] = case.write["hook.py"]
    everything = sorted(set(inputs) | set(written))
    cases = {
        "planted": Case("adversarial", "planted site files and exit hooks", True, planted),
        "missing": Case("adversarial", "every input missing", False, {}, tuple(inputs)),
        "not utf-8": Case("adversarial", "non-UTF-8 everywhere", True, dict.fromkeys(everything, NOT_UTF8)),
    }
    problems = []
    for name, case in cases.items():
        verdict = await grade_case(task, "bwrap", root / name.replace(" ", "-"), case, state, answer)
        if name == "planted" and (verdict.status, verdict.reward) != (Status.SUCCESS, 1.0):
            problems.append(f"{task.id}: planted hooks changed the oracle's verdict: {verdict}")
        if verdict.status == Status.FAILED_GRADER:
            problems.append(f"{task.id}: {case.name} crashed the verifier: {verdict.reason}")
    return problems


@pytest.mark.parametrize("task", SUITE, ids=[t.id for t in SUITE])
def test_planted_hooks_change_nothing_and_bad_inputs_crash_nothing(task: Task, tmp_path: Path) -> None:
    problems = asyncio.run(_grade_all(task, tmp_path))
    assert not problems, "\n".join(problems)


async def _exhaust_all(task: Task, backend: str, root: Path) -> list[str]:
    state = root / "oracle-state"
    oracle, answer = await run_oracle_case(task, backend, root / "oracle", state)
    assert answer is not None, oracle.detail
    assert oracle.ok, oracle.detail
    cases, _ = state_class_cases(task, state, tree_digests(task.environment_dir), tree_digests(state))
    chosen = [c for c in cases if c.cls in ("sparse 1 GiB file", "import-time allocation", "archive bomb")]
    problems = []
    for i, case in enumerate(chosen):
        verdict = await grade_case(task, backend, root / f"case{i}", case, state, answer)
        if verdict.status == Status.FAILED_GRADER:
            problems.append(f"{task.id}: {case.name} failed the grader: {verdict.reason}")
        elif case.must_succeed and verdict.status != Status.SUCCESS:
            problems.append(f"{task.id}: {case.name} lost a correct attempt: {verdict.reason}")
        elif (
            not case.must_succeed
            and case.kind == "adversarial"
            and verdict.status != Status.VERIFICATION_FAILED
        ):
            problems.append(f"{task.id}: {case.name} was not failed: {verdict.reason}")
    return problems


@pytest.mark.parametrize("task", SUITE, ids=[t.id for t in SUITE])
def test_exhaustion_never_fails_the_grader_bwrap(task: Task, tmp_path: Path) -> None:
    problems = asyncio.run(_exhaust_all(task, "bwrap", tmp_path))
    assert not problems, "\n".join(problems)


@pytest.mark.docker
@pytest.mark.usefixtures("docker_daemon")
@pytest.mark.parametrize("task", ONE_PER_CATEGORY, ids=[t.id for t in ONE_PER_CATEGORY])
def test_exhaustion_never_fails_the_grader_docker(task: Task, tmp_path: Path) -> None:
    problems = asyncio.run(_exhaust_all(task, "docker", tmp_path))
    assert not problems, "\n".join(problems)

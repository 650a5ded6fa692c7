"""``tasks check`` and the verifier contract on real bubblewrap sandboxes: a good task passes,
and each way a task can be broken (oracle fails, null agent passes, verifier crashes or prints
garbage) is a miss with a reason."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
import sandbox_cases as cases

from agbench.errors import AgbenchError
from agbench.live.sandbox import create_sandbox
from agbench.live.taskcheck import check_tasks, exit_code, summary_line
from agbench.live.verification import parse_verifier_output, verify
from agbench.status import Status

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]


def test_good_task_passes_and_broken_tasks_miss(tmp_path: Path) -> None:
    good = cases.write_tiny_task(tmp_path / "good")
    lenient = cases.write_tiny_task(tmp_path / "lenient")
    (lenient.verifier_dir / "verify.py").write_text('print(\'{"reward": 1.0, "reason": "anything goes"}\')\n')
    broken_oracle = cases.write_tiny_task(tmp_path / "broken-oracle")
    (broken_oracle.solution_dir / "solve.py").write_text("import sys\nsys.exit('cannot solve')\n")
    crashing = cases.write_tiny_task(tmp_path / "crashing")
    (crashing.verifier_dir / "verify.py").write_text("raise RuntimeError('verifier bug')\n")

    checks = check_tasks([good, lenient, broken_oracle, crashing], "bwrap", progress=False)
    by_id = {c.task_id: c for c in checks}
    assert by_id[good.id].ok, by_id[good.id]
    assert by_id[lenient.id].oracle_ok
    assert not by_id[lenient.id].null_ok
    assert "null 'null agent': graded success" in by_id[lenient.id].detail
    assert not by_id[broken_oracle.id].oracle_ok
    assert by_id[broken_oracle.id].null_ok
    assert "cannot solve" in by_id[broken_oracle.id].detail
    assert not by_id[crashing.id].oracle_ok
    assert not by_id[crashing.id].null_ok
    assert "failed_grader" in by_id[crashing.id].detail
    assert "verifier bug" in by_id[crashing.id].detail
    assert exit_code(checks) == 1
    assert summary_line(checks).startswith("3 of 4 tasks miss")
    assert exit_code([by_id[good.id]]) == 0


def test_unknown_backend_and_empty_selection(tmp_path: Path) -> None:
    task = cases.write_tiny_task(tmp_path / "t")
    with pytest.raises(AgbenchError, match="unknown sandbox backend"):
        check_tasks([task], "lxc", progress=False)
    with pytest.raises(AgbenchError, match="no tasks"):
        check_tasks([], "bwrap", progress=False)


@pytest.mark.parametrize(
    ("stdout", "expected"),
    [
        ('noise\n{"reward": 1, "reason": "fine"}\n\n', (1.0, "fine")),
        ('{"reward": 0.25}', (0.25, "")),
    ],
)
def test_verifier_output_parsed(stdout: str, expected: tuple[float, str]) -> None:
    assert parse_verifier_output(stdout) == expected


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "all good",
        '{"reason": "no reward"}',
        '{"reward": true}',
        '{"reward": 2}',
        '{"reward": NaN}',
        "[1, 2]",
    ],
)
def test_verifier_garbage_rejected(stdout: str) -> None:
    with pytest.raises(ValueError, match="verifier"):
        parse_verifier_output(stdout)


def test_verify_garbage_timeout_and_partial_reward(tmp_path: Path) -> None:
    task = cases.write_tiny_task(tmp_path / "t")

    async def grade(script: str, answer: str = "", timeout_s: float = 60) -> tuple[float, str, Status]:
        (task.verifier_dir / "verify.py").write_text(script)
        sb = create_sandbox("bwrap", task, tmp_path / "attempt")
        await sb.start()
        try:
            v = await verify(sb, task, answer, timeout_s=timeout_s)
        finally:
            await sb.destroy()
        return v.reward, v.reason, v.status

    assert asyncio.run(grade("print('hello')"))[2] == Status.FAILED_GRADER
    assert asyncio.run(grade("import time; time.sleep(30)", timeout_s=1))[2] == Status.FAILED_GRADER
    half = asyncio.run(grade('print(\'{"reward": 0.5, "reason": "half"}\')'))
    assert half == (0.5, "half", Status.VERIFICATION_FAILED)
    echo = (
        "import json, pathlib\n"
        "a = (pathlib.Path(__file__).parent / 'answer.txt').read_text()\n"
        "print(json.dumps({'reward': float(a == 'héllo\\n42'), 'reason': a}))\n"
    )
    assert asyncio.run(grade(echo, answer="héllo\n42"))[2] == Status.SUCCESS


def test_declared_and_generic_cases_are_graded_and_counted(tmp_path: Path) -> None:
    good = cases.write_tiny_task(tmp_path / "good")
    (good.path / "checks.toml").write_text(
        '[[adversarial]]\nname = "hedged"\nanswer = "42 or 43"\n\n'
        '[[adversarial]]\nname = "output emptied"\nwrite = { "out.txt" = "" }\n\n'
        '[[paraphrase]]\nname = "words"\nanswer = "forty-two"\n'
    )
    wrong = cases.write_tiny_task(tmp_path / "wrong")
    (wrong.path / "checks.toml").write_text(
        '[[adversarial]]\nname = "the right answer is no adversary"\nanswer = "42"\n\n'
        '[[paraphrase]]\nname = "a wrong answer is no paraphrase"\nanswer = "41"\n'
    )
    malformed = cases.write_tiny_task(tmp_path / "malformed")
    (malformed.path / "checks.toml").write_text("[[adversary]]\nname = 1\n")

    checks = check_tasks([good, wrong, malformed], "bwrap", progress=False)
    by_id = {c.task_id: c for c in checks}
    g = by_id[good.id]
    assert g.ok, g.detail
    names = {r.name for r in g.of("adversarial")}
    assert {
        "hedged",
        "output emptied",
        "the answer is a forged reward line",
        "every input file deleted",
    } <= names
    assert any("non-UTF-8" in n for n in names)
    assert any("usercustomize" in n for n in names)
    w = by_id[wrong.id]
    assert {r.name for r in w.misses} == {
        "the right answer is no adversary",
        "a wrong answer is no paraphrase",
    }
    assert "unknown tables" in by_id[malformed.id].error
    assert not by_id[malformed.id].ok
    line = summary_line(checks)
    assert f"adversarial {len(g.of('adversarial')) + len(w.of('adversarial')) - 1}/" in line
    assert "paraphrase 3/4" in line  # + the generic sparse-file case of each of the two
    assert "oracle 2/3" in line
    assert exit_code(checks) == 1

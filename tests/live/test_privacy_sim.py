"""The simulator's guard model: a what-if point's objectives with the guard applied, and the
``guard`` axis of a what-if spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from agbench.errors import AgbenchError
from agbench.records import TaskRun
from agbench.sim.privacy_guard import GUARDS, guarded
from agbench.sim.whatif.spec import load_spec


def _run(task: str, status: str, cloud_calls: int) -> TaskRun:
    return TaskRun(
        run_id="w", device="d", architecture="HCL", concurrency=1, agent_kind="sim", task=task,
        category="c", attempt=0, t_start=0.0, t_end=100.0, status=status, cloud_calls=cloud_calls,
        sensitive_total=3, sensitive_exposed=2,
    )  # fmt: skip


OBJECTIVES = {"success": 0.5, "goodput": 36.0, "mean_completion": 100.0, "cloud_cost": 0.1, "exposure": 2 / 3}


def test_off_changes_nothing_and_a_guard_cuts_exposure_by_its_recall() -> None:
    runs = [_run("a", "success", 10), _run("b", "verification_failed", 30)]
    assert guarded(OBJECTIVES, "off", runs, 1) == OBJECTIVES
    assert guarded(OBJECTIVES, None, runs, 1) == OBJECTIVES
    out = guarded(OBJECTIVES, "presidio", runs, 1)
    model = GUARDS["presidio"]
    assert out["exposure"] == pytest.approx(OBJECTIVES["exposure"] * (1 - model.recall))
    assert out["mean_completion"] == pytest.approx(100.0 + 40 * model.latency_s / 2)
    assert out["goodput"] < OBJECTIVES["goodput"]  # every cloud call is slower
    assert guarded(OBJECTIVES, "declared", runs, 1)["exposure"] == 0.0


def test_the_guard_axis_takes_known_guards_only(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(
        '[space]\ndevice = ["paper-max395"]\narch = ["HCL"]\nconcurrency = [1]\nguard = ["off", "presidio"]\n'
    )
    points = load_spec(spec).points()
    assert [p.guard for p in points] == ["off", "presidio"]
    assert points[1].label.endswith("guard=presidio")
    spec.write_text(
        '[space]\ndevice = ["paper-max395"]\narch = ["HCL"]\nconcurrency = [1]\nguard = ["regex"]\n'
    )
    with pytest.raises(AgbenchError, match=r"\[space\].guard"):
        load_spec(spec)

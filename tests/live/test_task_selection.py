"""Which tasks a replay sweep runs: those its trajectory file holds, in the suite's order.

``agbench sim --trajectories FILE --limit N`` simulates the first N of the file's tasks; a live
replay sweep of the same file and limit must run the same N, in the same order, whether or not
the file holds the suite's first N.
"""

from __future__ import annotations

from pathlib import Path

from agbench.live.runner import SweepOptions, select_run_tasks
from agbench.sim import replay_workload
from agbench.task import load_suite, select_tasks
from agbench.trajectory import Trajectory, TrajectorySet


def test_a_replay_sweep_picks_among_its_files_tasks_as_the_simulator_does(tmp_path: Path) -> None:
    suite = select_tasks(load_suite(), seed=0)
    held = [t.id for t in suite[10:16]]  # not the suite's first tasks
    path = tmp_path / "trajectories.jsonl"
    TrajectorySet("synth", [Trajectory(task, "LO", "lead", 100, []) for task in held]).save(path)

    def chosen(**kw: object) -> list[str]:
        options = SweepOptions(agent="replay", trajectories=path, out=tmp_path / "run", **kw)
        return [t.id for t in select_run_tasks(options)]

    assert chosen() == held  # the file's tasks, in the suite's order
    assert chosen(limit=3) == held[:3]
    simulated = replay_workload(path).limited(3).run_order(0)
    assert [t.task for t in simulated] == held[:3]
    # ids named on the command line are kept as named: a missing trajectory is then reported
    assert chosen(task_ids=[suite[0].id]) == [suite[0].id]
    # other agents run the suite whatever file lies around
    other = SweepOptions(agent="oracle", trajectories=path, out=tmp_path / "run", limit=3)
    assert [t.id for t in select_run_tasks(other)] == [t.id for t in suite[:3]]

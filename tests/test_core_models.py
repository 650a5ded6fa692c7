"""Configuration parsing, the task manifest loader and the trajectory file format."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agbench.config import (
    Architecture,
    Configuration,
    PriceTable,
    ServerSettings,
    parse_architectures,
    parse_concurrency,
)
from agbench.errors import AgbenchError
from agbench.task import ManifestError, load_suite, load_task, select_tasks
from agbench.trajectory import ToolStep, Trajectory, TrajectorySet, Turn


def test_parse_matrix_options() -> None:
    assert parse_architectures("lo, HCL") == [Architecture.LO, Architecture.HCL]
    assert parse_concurrency("1,2,8") == [1, 2, 8]
    with pytest.raises(ValueError, match="unknown architecture 'XX'"):
        parse_architectures("LO,XX")
    with pytest.raises(ValueError, match="positive integer"):
        parse_concurrency("1,0")


@given(
    st.sampled_from(list(Architecture)),
    st.integers(1, 64),
    st.text(min_size=1).filter(lambda s: "|" not in s),
)
def test_configuration_key_round_trips(arch: Architecture, conc: int, device: str) -> None:
    config = Configuration(device, arch, conc)
    assert Configuration.from_key(config.key) == config


def test_slot_context_and_prices() -> None:
    assert ServerSettings(n_ctx=4096, n_parallel=4).slot_ctx == 1024
    assert ServerSettings(n_ctx=4096, n_parallel=4, kv_unified=True).slot_ctx == 4096
    prices = PriceTable(cached_input_per_m=1.0, uncached_input_per_m=10.0, output_per_m=100.0)
    assert prices.cost(
        prompt_tokens=1_000_000, cached_tokens=400_000, completion_tokens=10_000
    ) == pytest.approx(0.4 + 6.0 + 1.0)


def _write_task(root: Path, task_id: str, category: str = "local_files", extra: str = "") -> Path:
    path = root / category / task_id
    (path / "environment").mkdir(parents=True)
    (path / "instruction.md").write_text("Do the thing.")
    (path / "task.toml").write_text(
        f'id = "{task_id}"\ncategory = "{category}"\ndifficulty = "easy"\nresources = ["cpu"]\n'
        f'{extra}\n[[sensitive]]\nitem = "jane@example.com"\nkind = "personal_identifier"\n'
    )
    return path


def test_load_task_and_suite(tmp_path: Path) -> None:
    _write_task(tmp_path, "b-task", extra="[limits]\nmemory_mb = 64")
    _write_task(tmp_path, "a-task", category="terminal")
    (tmp_path / "_corpus" / "x").mkdir(parents=True)  # data folders are not tasks
    suite = load_suite(tmp_path)
    assert [t.id for t in suite] == ["a-task", "b-task"]
    assert suite[1].limits.memory_mb == 64
    assert suite[1].sensitive_items[0].item == "jane@example.com"
    assert [t.id for t in load_suite(tmp_path, category="terminal")] == ["a-task"]
    assert [t.id for t in select_tasks(suite, ids=["b-task"], seed=None)] == ["b-task"]
    assert [t.id for t in select_tasks(suite, categories=["terminal"], seed=None)] == ["a-task"]
    with pytest.raises(AgbenchError, match="unknown task id"):
        select_tasks(suite, ids=["zzz"], seed=0)


def test_select_tasks_is_one_seeded_order() -> None:
    """Ids, categories and --limit pick from the one seeded order; the order of ids is moot."""
    from dataclasses import dataclass

    from agbench.task import seeded_order

    @dataclass(frozen=True)
    class Item:
        id: str
        category: str

    items = [Item(f"t{i:02d}", "terminal" if i % 2 else "office") for i in range(20)]
    full = select_tasks(list(reversed(items)), seed=7)
    assert full == seeded_order(items, 7)
    assert select_tasks(items, seed=7, limit=5) == full[:5]
    chosen = ["t03", "t01", "t10"]
    assert select_tasks(items, seed=7, ids=chosen) == select_tasks(items, seed=7, ids=sorted(chosen))
    assert select_tasks(items, seed=7, ids=chosen) == seeded_order([i for i in items if i.id in chosen], 7)
    office = select_tasks(items, seed=7, categories=["office"])
    assert {i.category for i in office} == {"office"}
    assert len(office) == 10
    # any subset comes in the whole suite's order: a trajectory file of the first 12 tasks,
    # limited to 4, gives the four a limited sweep of the suite runs, in its order
    assert office == [i for i in full if i.category == "office"]
    assert select_tasks(full[:12], seed=7, limit=4) == full[:4]
    assert seeded_order(items, 8) != full  # another seed, another order
    with pytest.raises(AgbenchError, match="--limit"):
        select_tasks(items, seed=7, limit=0)


def test_bad_manifests_name_the_problem(tmp_path: Path) -> None:
    path = _write_task(tmp_path, "t", extra="")
    (path / "task.toml").write_text('id = "t"\ncategory = "cooking"\ndifficulty = "easy"\n')
    with pytest.raises(ManifestError, match="unknown category 'cooking'"):
        load_task(path)
    (path / "task.toml").write_text("id = ")
    with pytest.raises(ManifestError, match=r"task\.toml"):
        load_task(path)


def test_trajectory_set_round_trip_and_errors(tmp_path: Path) -> None:
    sub = Trajectory(
        "t", "HCL", "sub", 50, [Turn("local", 20, 10, tools=[ToolStep("list_dir", {"path": "."})])]
    )
    lead = Trajectory("t", "HCL", "lead", 100, [Turn("cloud", 30, 15, delegate=sub)], answer="42")
    path = tmp_path / "set.jsonl"
    TrajectorySet("synth", [lead], profile={"name": "x"}).save(path)
    loaded = TrajectorySet.load(path)
    assert loaded.get("t", "HCL") == lead
    assert loaded.get("t", "LO") is None
    assert lead.total_turns == 2
    path.write_text("garbage\n")
    with pytest.raises(AgbenchError, match="not an agbench trajectory file"):
        TrajectorySet.load(path)
    with pytest.raises(AgbenchError, match="not found"):
        TrajectorySet.load(tmp_path / "missing.jsonl")

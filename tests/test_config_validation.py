"""Validated configuration (agbench.schema): scenarios, profiles, workload params, price tables,
trajectories and run.json go through one schema layer; a bad value is one line naming the
file, the key and what is allowed, and the command line exits 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import pytest

from agbench.run_meta import RunMeta
from agbench.schema import COUNT, Bound, ConfigError, check
from agbench.sim.profiles import Profile
from agbench.sim.scenario import SCENARIO_DIR, load_scenario, shipped_scenarios
from agbench.trajectory import TrajectorySet

REPO = Path(__file__).resolve().parents[1]


def scenario_copy(tmp_path: Path) -> Path:
    """A copy of the shipped SmolLM2 scenario (its includes still resolvable)."""
    text = (SCENARIO_DIR / "this-machine-smollm2.toml").read_text()
    path = tmp_path / "bad.toml"
    path.write_text(text.replace('"shared/', f'"{SCENARIO_DIR}/shared/'))
    return path


def set_key(path: Path, table: str, key: str, value: str) -> None:
    """Set ``key = value`` in ``[table]`` of a TOML file (replaced, inserted, or a new table)."""
    text = path.read_text()
    header = f"[{table}]\n"
    if header not in text:
        path.write_text(f"{text}\n{header}{key} = {value}\n")
        return
    start = text.index(header) + len(header)
    end = text.find("\n[", start)
    end = len(text) if end < 0 else end + 1
    body = re.sub(rf"(?m)^{key}\s*=.*\n", "", text[start:end])
    path.write_text(text[:start] + f"{key} = {value}\n" + body + text[end:])


def test_every_shipped_scenario_is_valid() -> None:
    for name in shipped_scenarios():
        load_scenario(name, missing_generated_ok=True)


@pytest.mark.parametrize(
    ("table", "key", "value", "message"),
    [
        ("server", "n_parallel", "-4", r"\.server: n_parallel = -4: .* \(allowed: an integer >= 0, slots"),
        ("server", "threads", '"2"', r"\.server: threads = '2': Input should be a valid integer"),
        ("device", "bandwidth_efficiency", "1.5", r"\.device: bandwidth_efficiency = 1.5: .*<= 1"),
        (
            "server",
            "slot_policy",
            '"lru"',
            r"\.server: slot_policy = 'lru' \(allowed: one of 'llama-cpp', 'sticky'\)",
        ),
        ("cloud.prices", "output_per_m", "-0.4", r"\.cloud\.prices: output_per_m = -0\.4: .*USD per million"),
    ],
)
def test_profile_values_are_type_and_range_checked(
    tmp_path: Path, table: str, key: str, value: str, message: str
) -> None:
    path = scenario_copy(tmp_path)
    set_key(path, table, key, value)
    with pytest.raises(ConfigError, match=rf"^{path}{message}"):
        load_scenario(path)


def test_scenario_table_ranges(tmp_path: Path) -> None:
    path = scenario_copy(tmp_path)
    set_key(path, "scenario", "limit", "-1")
    with pytest.raises(ConfigError, match=r"\[scenario\]: limit = -1: .*tasks; 0 = all"):
        load_scenario(path)


def test_profile_file_with_negative_slots(tmp_path: Path) -> None:
    path = tmp_path / "profile.toml"
    path.write_text("[server]\nn_parallel = -4\n")
    with pytest.raises(ConfigError, match=rf"^{path}\.server: n_parallel = -4"):
        Profile.load(path)


def test_trajectory_values_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    turn = {"endpoint": "lokal", "prompt_tokens_added": 10, "output_tokens": 5}
    traj = {"task": "a", "architecture": "LO", "turns": [turn]}
    path.write_text(json.dumps({"trajectory_set": 1, "source": "synth"}) + "\n" + json.dumps(traj) + "\n")
    with pytest.raises(
        ConfigError, match=r":2\.turns\[0\]: endpoint = 'lokal' \(allowed: one of 'local', 'cloud'\)"
    ):
        TrajectorySet.load(path)


def test_run_json_is_checked() -> None:
    with pytest.raises(ConfigError, match=r"^run.json: time_limit_s = -5.0: .*> 0"):
        RunMeta.from_dict({"run_id": "r", "time_limit_s": -5.0})
    with pytest.raises(ConfigError, match=r"cloud\.prices: output_per_m = -1"):
        RunMeta.from_dict({"run_id": "r", "cloud": {"prices": {"output_per_m": -1}}})
    assert RunMeta.from_dict({"run_id": "r", "schema": 2, "time_limit_s": 60}).schema == 2


def test_cli_bad_profile_value_is_one_line_exit_2(tmp_path: Path) -> None:
    path = scenario_copy(tmp_path)
    set_key(path, "server", "n_parallel", "-4")
    done = subprocess.run(
        [sys.executable, "-m", "agbench.cli", "sim", "--scenario", str(path), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"agbench: error: {path}.server: n_parallel = -4")
    assert "allowed" in line


def test_sweep_options_are_checked_by_their_field_bounds() -> None:
    from agbench.live.runner.options import SweepOptions, validate_options
    from agbench.schema import bounds

    declared = bounds(SweepOptions)
    assert declared["local_ctx"].ge == 64
    assert declared["backend"].choices == ("docker", "bwrap")
    cases = [
        (
            {"local_ctx": 32},
            r"^invalid option: --local-ctx = 32: .*greater than or equal to 64 .*KV tokens\)$",
        ),
        ({"concurrency": [2, 0]}, r"^invalid option: --concurrency\.1 = 0: .*greater than or equal to 1"),
        ({"concurrency": []}, r"^invalid option: --concurrency = \[\]: List should have at least 1 item"),
        (
            {"agent": "wizard"},
            r"^invalid option: unknown agent 'wizard' for --agent \(allowed: one of 'model'",
        ),
        ({"max_cloud_usd": -1.0}, r"^invalid option: --max-cloud-usd = -1\.0: .*>= 0, USD\)$"),
        ({"retries": "2"}, r"^invalid option: --retries = '2': Input should be a valid integer"),
    ]
    for values, message in cases:
        with pytest.raises(ConfigError, match=message):
            validate_options(SweepOptions(**values))
    validate_options(SweepOptions(concurrency=[1, 2], local_ctx=4096, max_cloud_usd=0.0))


def test_a_bound_applies_inside_optional_and_list_types() -> None:

    @dataclass
    class Example:
        levels: Annotated[list[Annotated[int, COUNT]], Bound(min_items=1)] = field(
            default_factory=lambda: [1]
        )
        limit: Annotated[float | None, Bound(gt=0, unit="s")] = None

    check(Example(), "x")
    with pytest.raises(ConfigError, match=r"^x: levels\.0 = 0: "):
        check(Example(levels=[0]), "x")
    with pytest.raises(ConfigError, match=r"^x: limit = 0\.0: .*\(allowed: a number > 0, s\)$"):
        check(Example(limit=0.0), "x")

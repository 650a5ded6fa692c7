"""One option for HCL's sub-agent memory in both halves, recorded and followed by validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import SubAgentMemory, recorded_sub_agent, sub_agent_memory
from agbench.live.runner.options import SweepOptions, validate_options
from agbench.schema import ConfigError
from agbench.sim.profiles import BehaviourProfile, Profile


def test_the_paper_behaviour_is_the_default_in_both_halves() -> None:
    assert SweepOptions().hcl_sub_agent == BehaviourProfile().hcl_sub_agent == SubAgentMemory.PERSISTENT


def test_run_json_records_it_and_runs_from_before_the_option_were_fresh() -> None:
    stored = SweepOptions(hcl_sub_agent="fresh").to_dict()
    assert stored["hcl_sub_agent"] == "fresh"
    assert SweepOptions.from_dict(stored).hcl_sub_agent == "fresh"
    old = {k: v for k, v in SweepOptions().to_dict().items() if k != "hcl_sub_agent"}
    assert SweepOptions.from_dict(old).hcl_sub_agent == "fresh"  # resumed as it ran
    assert recorded_sub_agent(old) is SubAgentMemory.FRESH
    assert recorded_sub_agent({"hcl_sub_agent": "persistent"}) is SubAgentMemory.PERSISTENT


def test_bad_values_are_one_line_errors() -> None:
    with pytest.raises(AgbenchError, match="hcl_sub_agent must be one of persistent, fresh"):
        sub_agent_memory("sometimes")
    with pytest.raises(AgbenchError, match="hcl_sub_agent"):
        validate_options(SweepOptions(hcl_sub_agent="sometimes"))
    with pytest.raises(ConfigError, match="hcl_sub_agent = 'sometimes'"):
        Profile.from_dict({"behaviour": {"hcl_sub_agent": "sometimes"}}, "p.toml")


def test_calibration_of_the_reference_run_follows_its_recorded_sub_agents(tmp_path: Path) -> None:
    """The profile fitted on a run simulates the sub-agent memory the run recorded (the
    committed reference: persistent), and a run recorded before the option existed (no
    ``hcl_sub_agent`` in run.json) as fresh, so validating compares like with like."""
    import json
    import shutil

    from agbench.calibration.calibrate import fit_profile
    from agbench.calibration.traces import load_live

    reference = Path(__file__).resolve().parents[1] / "calibration" / "reference" / "run"
    recorded = json.loads((reference / "run.json").read_text())["options"]["hcl_sub_agent"]
    assert recorded == "persistent"
    overlay = fit_profile(load_live([reference], [1, 2]))
    assert overlay["behaviour"]["hcl_sub_agent"] == "persistent"

    older = tmp_path / "older"
    shutil.copytree(reference, older)
    meta = json.loads((older / "run.json").read_text())
    del meta["options"]["hcl_sub_agent"]
    (older / "run.json").write_text(json.dumps(meta))
    assert fit_profile(load_live([older], [1, 2]))["behaviour"]["hcl_sub_agent"] == "fresh"

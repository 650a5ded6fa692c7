"""The build network setting: the CLI flag reaches the builders, offline failures say why."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from agbench.cli import main
from agbench.live.sandbox.base import SandboxError
from agbench.live.sandbox.build_network import (
    BUILD_NETWORK_ENV,
    build_network,
    docker_network_mode,
    offline_failure,
)


class _Networks:
    def __init__(self, names: list[str]) -> None:
        self.names = names

    def list(self, names: list[str]) -> list[str]:
        return [n for n in self.names if n in names]


class _Client:
    def __init__(self, names: list[str]) -> None:
        self.networks = _Networks(names)


def test_default_is_the_bridge_or_the_host_stack_and_none_is_none() -> None:
    assert docker_network_mode(_Client(["bridge", "host", "none"]), "default") is None
    assert docker_network_mode(_Client(["host", "none"]), "default") == "host"  # dockerd --bridge=none
    assert docker_network_mode(_Client(["bridge"]), "none") == "none"


def test_offline_failure_names_the_cause_only_when_offline() -> None:
    log = "Step 2/2 : RUN apt-get install -y gcc\nE: Unable to locate package gcc\n"
    assert "needs the network" in str(offline_failure("none", log))
    assert offline_failure("default", log) is None
    assert offline_failure("none", "error: gcc: exit status 1\n") is None


def test_cli_flag_sets_the_process_build_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUILD_NETWORK_ENV, "default")  # restored after the test
    result = CliRunner().invoke(main, ["tasks", "check", "--build-network", "none", "no-such-task"])
    assert result.exit_code != 0  # the task does not exist; the flag was applied before that
    assert os.environ[BUILD_NETWORK_ENV] == "none"
    assert build_network() == "none"


def test_a_bad_setting_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUILD_NETWORK_ENV, "wifi")
    with pytest.raises(SandboxError, match="one of default, none"):
        build_network()

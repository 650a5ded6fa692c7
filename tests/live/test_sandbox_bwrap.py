"""The bubblewrap backend against real bubblewrap and cgroups: break-out attempts must fail."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import sandbox_cases as cases

from agbench.errors import AgbenchError
from agbench.live.sandbox import create_sandbox
from agbench.live.sandbox.bwrap import BwrapSandbox
from agbench.live.sandbox.cgroups import CGROUP_ROOT, CONTROLLERS, PARENT

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]
BACKEND = "bwrap"


@pytest.fixture(scope="session", autouse=True)
def base_rootfs() -> Path:
    from agbench.live.sandbox.images import ensure_rootfs

    return ensure_rootfs()


def test_identity_and_read_only_system(tmp_path: Path) -> None:
    cases.check_identity_and_read_only_system(BACKEND, tmp_path)


def test_grading_runs_isolated_in_a_fresh_sandbox(tmp_path: Path) -> None:
    cases.check_grading_isolated(BACKEND, tmp_path)


def test_no_network(tmp_path: Path) -> None:
    cases.check_no_network(BACKEND, tmp_path)


def test_no_host_files_and_verifier_hidden_until_verification(tmp_path: Path) -> None:
    cases.check_no_host_files_or_hidden_dirs(BACKEND, tmp_path)


def test_memory_bomb_contained(tmp_path: Path) -> None:
    cases.check_memory_bomb(BACKEND, tmp_path)


def test_fork_bomb_contained(tmp_path: Path) -> None:
    cases.check_fork_bomb(BACKEND, tmp_path)


def test_hung_command_killed_at_timeout(tmp_path: Path) -> None:
    cases.check_hung_command_killed(BACKEND, tmp_path)


def test_nothing_left_after_destroy(tmp_path: Path) -> None:
    sb = cases.check_nothing_left_after_destroy(BACKEND, tmp_path)
    name = sb.cgroups.name if isinstance(sb, BwrapSandbox) and sb.cgroups else ""
    assert name
    for ctrl in CONTROLLERS:
        assert not (CGROUP_ROOT / ctrl / PARENT / name).exists(), ctrl
    assert not (tmp_path / "attempt" / "tmp").exists()


def test_missing_required_program(tmp_path: Path) -> None:
    cases.check_missing_required_program(BACKEND, tmp_path)


def test_file_roundtrip(tmp_path: Path) -> None:
    cases.check_file_roundtrip(BACKEND, tmp_path)


def test_unknown_backend_is_a_user_error(tmp_path: Path) -> None:
    task = cases.write_tiny_task(tmp_path / "task")
    with pytest.raises(AgbenchError, match="unknown sandbox backend"):
        create_sandbox("vmware", task, tmp_path / "attempt")


def test_rlimit_fallback_without_cgroups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no cgroup controller is writable, memory falls back to RLIMIT_AS and the report
    says which limits are not enforced."""
    import asyncio

    from agbench.live.sandbox import cgroups

    monkeypatch.setattr(cgroups, "CGROUP_ROOT", tmp_path / "no-cgroups")
    task = cases.write_tiny_task(tmp_path / "task")

    async def go() -> None:
        sb = await cases.started(BACKEND, task, tmp_path / "attempt")
        try:
            assert sb.limits_enforced["memory"] == "rlimit_as"
            assert sb.limits_enforced["cpu"] is False
            assert sb.limits_enforced["pids"] == ("rlimit_nproc" if os.geteuid() != 0 else False)
            bomb = await sb.exec(
                ["python3", "-c", f"x = bytearray({2 * cases.MEMORY_MB} << 20)"], timeout_s=60
            )
            assert bomb.exit_code != 0
            assert "MemoryError" in bomb.stderr_text
            ok = await sb.exec(["python3", "-c", "print('fine')"], timeout_s=60)
            assert ok.stdout_text == "fine\n"
        finally:
            await sb.destroy()

    asyncio.run(go())


def test_concurrent_sandboxes_isolated(tmp_path: Path) -> None:
    cases.check_concurrent_sandboxes_isolated(BACKEND, tmp_path)


def test_output_flood_capped(tmp_path: Path) -> None:
    cases.check_output_flood_capped(BACKEND, tmp_path)

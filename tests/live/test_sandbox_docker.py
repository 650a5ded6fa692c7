"""The Docker backend against a real daemon and the locally built image: break-out attempts
must fail. A daemon is started for the session if none runs, and stopped afterwards (the
``docker_daemon`` fixture of tests/conftest.py)."""

from __future__ import annotations

import shutil
import urllib.request
import uuid
from pathlib import Path

import pytest
import sandbox_cases as cases

from agbench.live.sandbox.dockerd import DockerDaemon
from agbench.task import load_task

pytestmark = [
    pytest.mark.docker,
    pytest.mark.usefixtures("docker_daemon"),
    pytest.mark.skipif(
        shutil.which("dockerd") is None and shutil.which("docker") is None, reason="Docker not installed"
    ),
]
BACKEND = "docker"


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


def test_nothing_left_after_destroy(tmp_path: Path, docker_daemon: DockerDaemon) -> None:
    sb = cases.check_nothing_left_after_destroy(BACKEND, tmp_path)
    container_id = getattr(sb, "container_id", None)
    assert container_id
    client = docker_daemon.client()
    try:
        ids = [c.id for c in client.containers.list(all=True)]
    finally:
        client.close()
    assert container_id not in ids


def test_missing_required_program(tmp_path: Path) -> None:
    cases.check_missing_required_program(BACKEND, tmp_path)


def test_file_roundtrip(tmp_path: Path) -> None:
    cases.check_file_roundtrip(BACKEND, tmp_path)


def test_missing_required_program_found_by_exec_without_rootfs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no host copy of the image's root filesystem, the check runs inside the container."""
    from agbench.live.sandbox.docker import DockerSandbox

    monkeypatch.setattr(DockerSandbox, "_rootfs_for_checks", lambda self: None)
    cases.check_missing_required_program(BACKEND, tmp_path)


def test_failed_start_leaves_no_container(tmp_path: Path, docker_daemon: DockerDaemon) -> None:
    """A task asking for a network on a daemon started without a bridge cannot start; whichever
    way it goes, no container of it is left behind."""
    import asyncio

    from agbench.live.sandbox import SandboxError, create_sandbox
    from agbench.task import load_task

    cases.write_tiny_task(tmp_path / "task")
    manifest = tmp_path / "task" / "task.toml"
    manifest.write_text("network = true\n" + manifest.read_text())
    task = load_task(tmp_path / "task")
    assert task.network

    async def go() -> None:
        sb = create_sandbox(BACKEND, task, tmp_path / "attempt")
        try:
            await sb.start()
        except SandboxError as exc:
            problem: SandboxError | None = exc
        else:
            problem = None
        finally:
            await sb.destroy()
        if problem is not None:  # a dockerd without a bridge cannot give it one: it says so
            assert task.id in str(problem)
        else:
            assert sb.limits_enforced["network"] is False  # allowed, and reported as such

    asyncio.run(go())
    client = docker_daemon.client()
    try:
        left = client.containers.list(all=True, filters={"label": f"agbench.task={task.id}"})
    finally:
        client.close()
    assert left == []


def test_concurrent_sandboxes_isolated(tmp_path: Path) -> None:
    cases.check_concurrent_sandboxes_isolated(BACKEND, tmp_path)


def test_output_flood_capped(tmp_path: Path) -> None:
    cases.check_output_flood_capped(BACKEND, tmp_path)


def _no_debian_archive() -> str | None:
    """Why a build cannot install from the Debian archive the base image uses; None when it can."""
    from agbench.live.sandbox.images import debian_mirror

    url = debian_mirror().rstrip("/") + "/dists/bookworm/InRelease"
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10).close()
    except OSError as exc:
        return f"this host does not reach the Debian archive ({url}: {exc})"
    return None


def test_task_image_installs_from_the_debian_archive_and_runs_offline(
    tmp_path: Path, docker_daemon: DockerDaemon
) -> None:
    """A Harbor-style Dockerfile that apt-installs its tool builds with the host Docker's network
    (here a daemon without a bridge), and the sandbox running the image still has no network."""
    reason = _no_debian_archive()
    if reason is not None:
        pytest.skip(reason)
    from agbench.live.sandbox.task_image import build_log_path, ensure_task_image, task_image_tag

    task = cases.write_tiny_task(tmp_path / "task")
    env = task.environment_dir
    (env / "Dockerfile").write_text(
        "FROM agbench/base\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends pv && rm -rf /var/lib/apt/lists/*\n"
    )
    (env / "build-token.txt").write_text(uuid.uuid4().hex)  # a fresh context: this run builds it
    task = load_task(task.path)
    probe = (
        "import socket\n"
        "try:\n    socket.create_connection(('deb.debian.org', 80), timeout=3).close(); print('REACHED')\n"
        "except OSError as exc:\n    print('blocked', type(exc).__name__)\n"
    )

    async def go() -> None:
        sb = await cases.started(BACKEND, task, tmp_path / "attempt")
        try:
            pv = await sb.exec(["pv", "--version"], timeout_s=30)
            assert pv.exit_code == 0, pv
            assert "pv" in pv.stdout_text, pv
            net = await sb.exec(["python3", "-c", probe], timeout_s=30)
            assert net.stdout_text.startswith("blocked"), net.stdout_text
        finally:
            await sb.destroy()

    client = docker_daemon.client(timeout=900)
    try:
        cases.run(go())
        log = build_log_path(task_image_tag(task))
        built = log.stat().st_mtime_ns
        assert ensure_task_image(client, task) == task_image_tag(task)
        assert log.stat().st_mtime_ns == built  # cached by content: the second call built nothing
    finally:
        client.images.remove(task_image_tag(task), force=True)
        client.close()

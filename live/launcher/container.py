"""Run a suite's external harness in a disposable container and read its result file.

A suite with ``adapter = "harness"`` ships ``harness/`` (a ``Dockerfile`` and ``run.sh``) that
runs its own agent loop. The launcher builds the harness image (cached by content hash, like
task images: ``task_image.ensure_context_image``; never pulled), then starts one
container per run of the suite with every capability dropped, no-new-privileges, the
sandbox's uid, pids/memory/CPU limits from the manifest's ``container`` block and a wall-clock
limit (``--external-timeout``, default 21,600 s). The container has no network; its only way
out is the relay to the recording proxy (``relay.py``), so every model call it makes is recorded
and attributed to the attempt, and the upstream key never enters it. The harness folder is
mounted read-only at ``/harness`` and the suite's assets (only its own) read-only at
``/benchmark/assets``. Its output folder is copied back to the host before the container is
removed; the result file (``agbench_result.json``, or the ``agent_bench_result.json`` spelling)
holds ``score`` in [0, 1] and per-item rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import shutil
import tarfile
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError
from agbench.live.sandbox.dockerd import shared_daemon
from agbench.live.sandbox.images import SANDBOX_GID, SANDBOX_UID
from agbench.live.sandbox.task_image import DEFAULT_BUILD_TIMEOUT_S, ensure_context_image, folder_digest
from agbench.status import Status
from agbench.suites.assets import suite_assets_dir
from agbench.suites.manifest import Manifest

from .environment import ASSETS_DIR, OUTPUT_DIR, RESULT_FILES, HarnessSettings, harness_environment
from .relay import CONTAINER_PORT, CONTAINER_RELAY, ENTRY_SCRIPT, SOCKET_DIR, SocketRelay

DEFAULT_EXTERNAL_TIMEOUT_S = 21600.0
LOG_TAIL_CHARS = 2000


class HarnessError(AgbenchError):
    """The harness could not be started (no harness folder, image build failed)."""


@dataclass
class HarnessRun:
    """One harness container's outcome, with what it left on the host."""

    status: Status
    reason: str
    exit_code: int | None
    timed_out: bool
    output_dir: Path
    result: dict[str, Any] | None
    log_tail: str
    score: float | None = None
    container_env: list[str] = field(default_factory=list)


def container_base_url(proxy_url: str) -> str:
    """The proxy's attempt route as the container reaches it: through the relay's loopback port."""
    return re.sub(r"^http://127\.0\.0\.1:\d+", f"http://127.0.0.1:{CONTAINER_PORT}", proxy_url)


def _limits(manifest: Manifest) -> dict[str, Any]:
    box = manifest.raw.get("container", {})
    memory = f"{int(box.get('memory_mb', 2048))}m"
    return {
        "mem_limit": memory,
        "memswap_limit": memory,
        "pids_limit": int(box.get("pids", 256)),
        "nano_cpus": int(float(box.get("cpus", 1)) * 1e9),
    }


def _copy_back(container: Any, dest: Path) -> None:
    """The container's output folder into ``dest`` (members that would escape it are dropped)."""
    import docker.errors

    try:
        stream, _stat = container.get_archive(OUTPUT_DIR)
    except docker.errors.NotFound:
        return
    data = io.BytesIO(b"".join(stream))
    with tarfile.open(fileobj=data) as tar:
        tar.extractall(dest, filter="data")


def read_result(output_dir: Path) -> dict[str, Any] | None:
    for name in RESULT_FILES:
        for path in output_dir.rglob(name):
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict):
                    return data
    return None


def _outcome(run: HarnessRun) -> None:
    """Status and score from the exit, the deadline and the result file."""
    if run.timed_out:
        run.status, run.reason = Status.TIMEOUT, "external harness passed its wall-clock limit"
        return
    if run.result is None:
        run.status = Status.EXECUTION_ERROR
        run.reason = f"harness exited {run.exit_code} without a result file: {run.log_tail[-300:]}"
        return
    try:
        score = float(run.result.get("score", 0.0))
    except (TypeError, ValueError):
        run.status, run.reason = Status.FAILED_GRADER, "result file's score is not a number"
        return
    if not 0.0 <= score <= 1.0:
        run.status, run.reason = Status.FAILED_GRADER, f"result file's score {score!r} outside [0, 1]"
        return
    run.score = score
    run.status = Status.SUCCESS if run.exit_code == 0 else Status.EXECUTION_ERROR
    run.reason = f"harness score {score:g}, exit {run.exit_code}"


async def launch_harness(
    manifest: Manifest,
    *,
    proxy_base_url: str,
    proxy_port: int,
    settings: HarnessSettings,
    out_dir: Path,
    timeout_s: float = DEFAULT_EXTERNAL_TIMEOUT_S,
    secrets: tuple[str, ...] = (),
    assets_root: Path | None = None,
) -> HarnessRun:
    """Build (or reuse) the harness image, run it once, copy its outputs back, remove it.

    ``proxy_base_url`` is the recording proxy's route for this attempt
    (``RecordingProxy.base_url``) and ``proxy_port`` its port; ``secrets`` are values that must
    never reach the container (the upstream key): passing one raises before anything starts.
    """

    harness = manifest.harness_dir
    if harness is None or not (harness / "Dockerfile").is_file() or not (harness / "run.sh").is_file():
        raise HarnessError(f"suite {manifest.id}: harness folder needs a Dockerfile and run.sh ({harness})")
    env = harness_environment(settings, container_base_url(proxy_base_url), secrets)
    client = await asyncio.to_thread(lambda: shared_daemon().client(timeout=max(int(timeout_s) + 60, 120)))
    tag = f"agbench/harness-{manifest.id}:{folder_digest(harness)[:16]}"
    build_timeout = float(manifest.raw.get("container", {}).get("build_timeout_s", DEFAULT_BUILD_TIMEOUT_S))
    image = await asyncio.to_thread(
        ensure_context_image, client, harness, f"harness {manifest.id}", tag, build_timeout
    )
    stage = Path(tempfile.mkdtemp(prefix=f"agbench-harness-{manifest.id}-"))
    stage.chmod(0o755)
    (stage / "launcher").mkdir()
    (stage / "launcher" / "relay.py").write_text(CONTAINER_RELAY)
    (stage / "launcher" / "entry.sh").write_text(ENTRY_SCRIPT)
    assets = suite_assets_dir(manifest.id, assets_root)
    assets.mkdir(parents=True, exist_ok=True)
    relay = SocketRelay(stage / "proxy", proxy_port)
    await relay.start()
    out_dir.mkdir(parents=True, exist_ok=True)
    container: Any = None
    run = HarnessRun(Status.INFRASTRUCTURE_ERROR, "", None, False, out_dir, None, "")
    try:
        container = await asyncio.to_thread(
            client.containers.run,
            image,
            command=["/bin/sh", "/agbench/launcher/entry.sh"],
            name=f"agbench-harness-{manifest.id}-{uuid.uuid4().hex[:8]}",
            detach=True,
            init=True,
            network_mode="none",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            user=f"{SANDBOX_UID}:{SANDBOX_GID}",
            environment=env,
            working_dir="/harness",
            volumes={
                str(harness.resolve()): {"bind": "/harness", "mode": "ro"},
                str(stage / "launcher"): {"bind": "/agbench/launcher", "mode": "ro"},
                str(relay.socket_dir): {"bind": SOCKET_DIR, "mode": "ro"},
                str(assets.resolve()): {"bind": ASSETS_DIR, "mode": "ro"},
            },
            labels={"agbench": "harness", "agbench.suite": manifest.id},
            **_limits(manifest),
        )
        run.container_env = list(container.attrs.get("Config", {}).get("Env") or [])
        if not run.container_env:
            info = await asyncio.to_thread(client.api.inspect_container, container.id)
            run.container_env = list(info.get("Config", {}).get("Env") or [])
        try:
            waited = await asyncio.to_thread(container.wait, timeout=timeout_s)
            run.exit_code = int(waited.get("StatusCode", -1))
        except Exception:  # the wait's read timed out: the harness ran past its limit
            run.timed_out = True
            with contextlib.suppress(Exception):
                await asyncio.to_thread(container.kill)
        logs = await asyncio.to_thread(container.logs)
        run.log_tail = logs.decode("utf-8", errors="replace")[-LOG_TAIL_CHARS:]
        await asyncio.to_thread(_copy_back, container, out_dir)
        run.result = read_result(out_dir)
        _outcome(run)
    finally:
        if container is not None:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(container.remove, force=True, v=True)
        await relay.stop()
        shutil.rmtree(stage, ignore_errors=True)
        with contextlib.suppress(Exception):
            client.close()
    return run


__all__ = [
    "DEFAULT_EXTERNAL_TIMEOUT_S",
    "HarnessError",
    "HarnessRun",
    "container_base_url",
    "launch_harness",
    "read_result",
]

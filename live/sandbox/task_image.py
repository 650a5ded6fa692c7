"""Per-task environments: a task's own ``environment/Dockerfile``, built once, run by both backends.

Most Terminal-Bench 2 / Harbor tasks need programs the base image lacks (gcc, pytest, ...), and
they say so in a Dockerfile. When a task has one, the Docker backend runs the image built from
it instead of ``agbench/base``, and the bubblewrap backend binds that image's exported root
filesystem as ``/``. Both are cached by a content hash of the whole build context (every file
of ``environment/``, names and bytes) and the base image's version, so editing any file of the
context makes a new image, and an unchanged task never builds twice.

- The build has the network the host's Docker has, so a Dockerfile may ``apt-get install`` or
  ``pip install`` its toolchain; ``--build-network none`` builds offline, and a build that then
  reaches for the network fails saying so (build_network.py). The running sandbox has none.
- ``FROM`` images are never pulled (no registry is reachable from a device): ``agbench/base``
  (any tag) is the local base image, imported on demand; any other image must already be in the
  daemon, else :class:`MissingBaseImage` names it.
- The build log is kept next to the cache (``<cache>/task-images/<tag>.log``); a failed build is
  :class:`TaskImageError` (status ``failed_setup``) with the log's last lines.
- The build timeout is the task's ``build_timeout_s`` (default 600 s).
- The exported root filesystem lives under ``<cache>/rootfs/task-<hash>`` (exported once,
  with the mount points and the sandbox user the backends need, like the base root filesystem).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

from agbench.task import Task

from .base import SandboxError
from .build_network import BuildNetwork, build_network, docker_network_mode, offline_failure
from .dockerd import shared_daemon
from .images import (
    IMAGE_REPOSITORY,
    MOUNT_POINTS,
    SANDBOX_GID,
    SANDBOX_UID,
    _ensure_mount_points,
    _locked,
    cache_root,
    ensure_docker_image,
    image_tag,
    image_version,
)

TASK_IMAGE_REPOSITORY = "agbench/task"
DEFAULT_BUILD_TIMEOUT_S = 600.0
LOG_TAIL_LINES = 5
_COMPLETE_MARKER = ".agbench-complete"


class TaskImageError(SandboxError):
    """A task's own image could not be built or exported (status failed_setup)."""


class MissingBaseImage(TaskImageError):
    """A ``FROM`` image is not in the local daemon, and agbench never pulls."""


def context_digest(task: Task) -> str:
    """SHA-256 over the build context (every file's relative path and bytes, links as their
    target) and the base image version: the cache key of the task's image and root filesystem."""
    return folder_digest(task.environment_dir)


def folder_digest(root: Path) -> str:
    """SHA-256 over a build context folder and the base image version (see context_digest)."""
    h = hashlib.sha256(f"base={image_version()}\n".encode())
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            h.update(f"L {rel} {os.readlink(path)}\n".encode())
        elif path.is_file():
            h.update(f"F {rel} {path.stat().st_size}\n".encode())
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        elif path.is_dir():
            h.update(f"D {rel}\n".encode())
    return h.hexdigest()


def _slug(task_id: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", task_id.lower()).strip("-.") or "task"


def task_image_tag(task: Task) -> str:
    """Keyed by content only: tasks with identical build contexts share one image."""
    return f"{TASK_IMAGE_REPOSITORY}:{context_digest(task)[:16]}"


def build_timeout_s(task: Task) -> float:
    value = task.metadata.get("build_timeout_s", DEFAULT_BUILD_TIMEOUT_S)
    try:
        return float(value)
    except (TypeError, ValueError):
        return DEFAULT_BUILD_TIMEOUT_S


def build_log_path(tag: str) -> Path:
    return cache_root() / "task-images" / (re.sub(r"[^A-Za-z0-9._-]+", "_", tag) + ".log")


def from_images(dockerfile: Path) -> list[str]:
    """The images the Dockerfile's ``FROM`` lines name, less its own stage names and scratch."""
    stages: set[str] = set()
    images: list[str] = []
    for line in dockerfile.read_text(errors="replace").splitlines():
        m = re.match(r"\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", line, re.IGNORECASE)
        if not m:
            continue
        image = m.group(1)
        if image.lower() != "scratch" and image not in stages and "$" not in image:
            images.append(image)
        if m.group(2):
            stages.add(m.group(2))
    return images


def _ensure_from_images(client: Any, dockerfile: Path) -> None:
    import docker.errors

    for image in from_images(dockerfile):
        if image == IMAGE_REPOSITORY or image.startswith(IMAGE_REPOSITORY + ":"):
            local = ensure_docker_image(client)
            if image != local:
                # Any agbench/base reference means the local base image of this version.
                repository, _, tag = image.partition(":")
                client.images.get(local).tag(repository, tag or "latest")
            continue
        try:
            client.images.get(image)
        except docker.errors.ImageNotFound:
            raise MissingBaseImage(
                f"{dockerfile}: FROM image {image!r} is not present locally and agbench does not "
                f"pull images (build it FROM {image_tag()} or `docker load` it first)"
            ) from None


def _tail(log: Path) -> str:
    try:
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-LOG_TAIL_LINES:])[-600:]


def _run_build(
    client: Any, context: Path, name: str, tag: str, log: Path, timeout_s: float, network: BuildNetwork
) -> None:
    """Stream the legacy builder's output into ``log``; raise on error or past the deadline."""
    outcome: dict[str, Any] = {}
    network_mode = docker_network_mode(client, network)

    def stream() -> None:
        try:
            with open(log, "w", encoding="utf-8") as out:
                for chunk in client.api.build(
                    path=str(context),
                    dockerfile="Dockerfile",
                    tag=tag,
                    rm=True,
                    forcerm=True,
                    network_mode=network_mode,
                    decode=True,
                    labels={"agbench": "task-image", "agbench.name": name},
                ):
                    if "stream" in chunk:
                        out.write(str(chunk["stream"]))
                    if "error" in chunk:
                        out.write(f"ERROR: {chunk['error']}\n")
                        outcome["error"] = str(chunk["error"]).strip()
                    out.flush()
        except Exception as exc:  # the daemon refused the build, or the stream broke
            outcome["error"] = f"{type(exc).__name__}: {exc}"

    worker = threading.Thread(target=stream, name=f"agbench-build-{name}", daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        with contextlib.suppress(Exception):
            client.close()  # breaks the stream; the daemon drops the build with the connection
        raise TaskImageError(f"{name}: image build timed out after {timeout_s:g} s (log {log}): {_tail(log)}")
    if "error" in outcome:
        offline = offline_failure(network, log.read_text(errors="replace") if log.is_file() else "")
        if offline is not None:
            raise TaskImageError(f"{name}: image build failed: {offline} (log {log})")
        raise TaskImageError(f"{name}: image build failed (log {log}): {_tail(log)}")
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"agbench: built {tag} in {time.monotonic() - started:.1f} s\n")


def ensure_context_image(
    client: Any, context: Path, name: str, tag: str, timeout_s: float, network: BuildNetwork | None = None
) -> str:
    """The image of the build context ``context`` (its ``Dockerfile``) under ``tag``: built now
    unless the daemon has it; ``name`` labels errors and the build. Used for task environments
    and external harnesses alike. ``network`` defaults to the process's (:func:`build_network`);
    it is not part of the tag: the same context makes the same image, online or not."""
    import docker.errors

    dockerfile = context / "Dockerfile"
    if not dockerfile.is_file():
        raise TaskImageError(f"{name}: no Dockerfile in {context}")
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    log = build_log_path(tag)
    lock = _locked(log.with_suffix(".lock"))
    try:
        with contextlib.suppress(docker.errors.ImageNotFound):
            client.images.get(tag)
            return tag
        _ensure_from_images(client, dockerfile)
        _run_build(client, context, name, tag, log, timeout_s, network or build_network())
        return tag
    finally:
        lock.close()


def ensure_task_image(client: Any, task: Task, network: BuildNetwork | None = None) -> str:
    """The task's image in the daemon (built now unless cached); its tag."""
    if task.dockerfile is None:
        raise TaskImageError(f"task {task.id} has no environment/Dockerfile")
    return ensure_context_image(
        client, task.environment_dir, f"task {task.id}", task_image_tag(task), build_timeout_s(task), network
    )


def task_rootfs_dir(task: Task) -> Path:
    return cache_root() / "rootfs" / f"task-{context_digest(task)[:16]}"


def _finish_exported(root: Path) -> None:
    """Mount points, the sandbox user and no host DNS, as in the base root filesystem."""
    for name in MOUNT_POINTS:
        target = root / name
        if target.is_symlink() or (target.exists() and not target.is_dir()):
            target.unlink()
        if not target.is_dir():
            target.mkdir()
    passwd = root / "etc" / "passwd"
    if passwd.is_file() and f":{SANDBOX_UID}:" not in passwd.read_text():
        with open(passwd, "a") as fh:
            fh.write(f"agent:x:{SANDBOX_UID}:{SANDBOX_GID}:agent:/work:/bin/bash\n")
        with open(root / "etc" / "group", "a") as fh:
            fh.write(f"agent:x:{SANDBOX_GID}:\n")
    # Docker's export leaves its own (empty) hostname and resolver files: as in the base root.
    for name, text in (("resolv.conf", ""), ("hostname", "sandbox\n")):
        path = root / "etc" / name
        if path.is_symlink():
            path.unlink()
        with contextlib.suppress(OSError):
            if not path.is_file() or path.read_text() != text:  # never rewrite a file in use
                path.write_text(text)


def export_rootfs(client: Any, image: str, target: Path) -> Path:
    """Export ``image``'s root filesystem into ``target`` once (a complete marker guards it)."""
    if (target / _COMPLETE_MARKER).is_file():
        return target
    lock = _locked(target.parent / f"{target.name}.lock")
    try:
        if (target / _COMPLETE_MARKER).is_file():
            return target
        partial = target.parent / f"{target.name}.partial"
        for stale in (partial, target):
            if stale.exists():
                shutil.rmtree(stale)
        partial.mkdir(parents=True)
        tar_path = target.parent / f"{target.name}.tar"
        container = client.containers.create(image, command=["true"], network_mode="none")
        try:
            with open(tar_path, "wb") as out:
                for block in container.export():
                    out.write(block)
        finally:
            with contextlib.suppress(Exception):
                container.remove(force=True)
        try:
            with tarfile.open(tar_path) as tar:
                members = [m for m in tar.getmembers() if not (m.ischr() or m.isblk())]
                tar.extractall(partial, members=members, filter="fully_trusted")
        finally:
            tar_path.unlink(missing_ok=True)
        _finish_exported(partial)
        (partial / _COMPLETE_MARKER).write_text(f"exported from {image}\n")
        partial.rename(target)
        return target
    except (OSError, tarfile.TarError) as exc:
        raise TaskImageError(f"could not export {image} to {target}: {exc}") from None
    finally:
        lock.close()


def ensure_task_rootfs(task: Task) -> Path:
    """The exported root filesystem of the task's image, for bubblewrap (built and exported on
    first use through the shared Docker daemon)."""
    target = task_rootfs_dir(task)
    if (target / _COMPLETE_MARKER).is_file():
        _ensure_mount_points(target)  # mount points added since it was exported
        _finish_exported(target)  # idempotent: an export made by an older agbench is brought up to date
        return target
    client = shared_daemon().client()
    try:
        return export_rootfs(client, ensure_task_image(client, task), target)
    finally:
        with contextlib.suppress(Exception):
            client.close()


__all__ = [
    "DEFAULT_BUILD_TIMEOUT_S",
    "MissingBaseImage",
    "TaskImageError",
    "build_log_path",
    "build_timeout_s",
    "context_digest",
    "ensure_context_image",
    "ensure_task_image",
    "ensure_task_rootfs",
    "export_rootfs",
    "folder_digest",
    "from_images",
    "task_image_tag",
    "task_rootfs_dir",
]

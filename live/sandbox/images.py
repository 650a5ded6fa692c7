"""The local base image both sandbox backends run on: a Debian bookworm root filesystem.

Images are never pulled (there is no registry on the device, DESIGN.md): the root filesystem
is made once per machine by ``debootstrap --variant=minbase`` and cached under
``rootfs/`` in agbench's cache directory (``~/.cache/agbench``, :mod:`agbench.resources`). bubblewrap binds it read-only as
``/``; Docker imports it as ``agbench/base:<version>``. Both backends therefore see the same
programs, so a task that passes ``tasks check`` on one passes on the other.

The version tag includes a digest of the package list: adding a package makes a new image
instead of silently reusing a stale one. A file lock makes concurrent builders (several test
sessions, the harness) wait for one build instead of racing.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import time
from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError
from agbench.resources import cache_dir

from .dockerd import ensure_dockerd

SUITE = "bookworm"
IMAGE_REPOSITORY = "agbench/base"
IMAGE_REVISION = "1"
# Programs tasks may declare in required_programs; keep in sync with the suite's needs.
BASE_PACKAGES = (
    "python3",
    "python-is-python3",  # models type `python` as often as `python3`
    "python3-openpyxl",
    "python3-mutagen",
    "procps",
    "file",
    "jq",
    "sqlite3",
    "bc",
    "xz-utils",
    "bzip2",
    "zip",
    "unzip",
)
SANDBOX_UID = 1000
SANDBOX_GID = 1000
GRADER_UID = 1001  # the bubblewrap grading sandbox's uid: never the agent's
# Mount points the backends bind over; they must exist in a read-only root.
MOUNT_POINTS = ("work", "verifier", "solution", "pristine", "tmp", "proc", "dev", "benchmark")
_COMPLETE_MARKER = ".agbench-complete"


class ImageBuildError(AgbenchError):
    """The base root filesystem or image could not be built (status failed_sandbox)."""


def image_version() -> str:
    digest = hashlib.sha256(" ".join(sorted(BASE_PACKAGES)).encode()).hexdigest()[:8]
    return f"{IMAGE_REVISION}-{SUITE}-{digest}"


def image_tag() -> str:
    return f"{IMAGE_REPOSITORY}:{image_version()}"


def cache_root() -> Path:
    """agbench's cache directory (:func:`agbench.resources.cache_dir`)."""
    return cache_dir()


def rootfs_dir() -> Path:
    return cache_root() / "rootfs" / f"base-{image_version()}"


def debian_mirror() -> str:
    return os.environ.get("AGBENCH_DEBIAN_MIRROR", "http://deb.debian.org/debian")


def rootfs_ready() -> bool:
    return (rootfs_dir() / _COMPLETE_MARKER).is_file()


def _locked(path: Path) -> Any:
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "w")  # noqa: SIM115 - held for the lock's lifetime, closed by caller
    fcntl.flock(fh, fcntl.LOCK_EX)
    return fh


def ensure_rootfs(*, quiet: bool = True) -> Path:
    """The cached root filesystem, built on first use (about a minute; needs the mirror)."""
    target = rootfs_dir()
    if (target / _COMPLETE_MARKER).is_file():
        _ensure_mount_points(target)
        return target
    lock = _locked(target.parent / f"{target.name}.lock")
    try:
        if (target / _COMPLETE_MARKER).is_file():
            return target
        if shutil.which("debootstrap") is None:
            raise ImageBuildError(
                "debootstrap not found: apt-get install -y --no-install-recommends debootstrap"
            )
        partial = target.parent / f"{target.name}.partial"
        for stale in (partial, target):
            if stale.exists():
                shutil.rmtree(stale)
        cmd = [
            "debootstrap",
            "--variant=minbase",
            f"--include={','.join(BASE_PACKAGES)}",
            SUITE,
            str(partial),
            debian_mirror(),
        ]
        log = target.parent / f"{target.name}.debootstrap.log"
        started = time.monotonic()
        with open(log, "wb") as out:
            proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False)
        if proc.returncode != 0:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            raise ImageBuildError(
                f"debootstrap failed (exit {proc.returncode}, log {log}): {' | '.join(tail)}"
            )
        _finish_rootfs(partial)
        (partial / _COMPLETE_MARKER).write_text(f"built in {time.monotonic() - started:.0f} s\n")
        partial.rename(target)
        if not quiet:
            print(f"agbench: base root filesystem ready at {target}")
        return target
    finally:
        lock.close()


def _ensure_mount_points(root: Path) -> None:
    """Add mount points a newer backend needs to a root filesystem built before it did."""
    for name in MOUNT_POINTS:
        if not (root / name).is_dir():
            with contextlib.suppress(OSError):
                (root / name).mkdir()


def _finish_rootfs(root: Path) -> None:
    """Trim caches, add the sandbox user and the mount points the backends need."""
    for sub in ("var/cache/apt/archives", "var/lib/apt/lists", "var/cache/debconf"):
        p = root / sub
        if p.is_dir():
            for child in p.iterdir():
                if child.is_file() and child.name != "lock":
                    child.unlink()
    for name in MOUNT_POINTS:
        (root / name).mkdir(exist_ok=True)
    passwd = root / "etc" / "passwd"
    if f":{SANDBOX_UID}:" not in passwd.read_text():
        with open(passwd, "a") as fh:
            fh.write(f"agent:x:{SANDBOX_UID}:{SANDBOX_GID}:agent:/work:/bin/bash\n")
        with open(root / "etc" / "group", "a") as fh:
            fh.write(f"agent:x:{SANDBOX_GID}:\n")
    # No DNS or hosts leak from the build machine into the sandbox.
    (root / "etc" / "resolv.conf").write_text("")
    (root / "etc" / "hostname").write_text("sandbox\n")


def rootfs_has_program(root: Path, name: str) -> bool:
    """Whether ``name`` is an executable on the sandbox's PATH, checked on the host copy of the
    root filesystem (no exec: this runs for every attempt). Links resolve inside ``root``."""
    if "/" in name:
        candidates = [name]
    else:
        candidates = [
            f"{d}/{name}"
            for d in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin")
        ]
    for candidate in candidates:
        path = candidate
        for _ in range(16):
            host = root / path.lstrip("/")
            if host.is_symlink():
                target = os.readlink(host)
                path = (
                    target
                    if target.startswith("/")
                    else os.path.normpath(os.path.join(os.path.dirname(path), target))
                )
                continue
            # Parent folders may be links too (/bin -> usr/bin): resolve them one level up.
            parent = os.path.dirname(path)
            host_parent = root / parent.lstrip("/")
            if parent != "/" and host_parent.is_symlink():
                target = os.readlink(host_parent)
                base = (
                    target
                    if target.startswith("/")
                    else os.path.normpath(os.path.join(os.path.dirname(parent), target))
                )
                path = f"{base}/{os.path.basename(path)}"
                continue
            if host.is_file() and os.access(host, os.X_OK):
                return True
            break
    return False


def rootfs_tarball() -> Path:
    """The root filesystem as a tar for ``docker import`` (removed once imported)."""
    root = ensure_rootfs()
    tar_path = root.parent / f"{root.name}.tar"
    if tar_path.is_file():
        return tar_path
    lock = _locked(root.parent / f"{root.name}.tar.lock")
    try:
        if tar_path.is_file():
            return tar_path
        partial = tar_path.with_suffix(".tar.partial")
        with tarfile.open(partial, "w") as tar:
            for child in sorted(root.iterdir()):
                if child.name == _COMPLETE_MARKER:
                    continue
                tar.add(child, arcname=child.name)
        partial.rename(tar_path)
        return tar_path
    finally:
        lock.close()


def ensure_docker_image(client: Any) -> str:
    """``agbench/base:<version>`` in the daemon, imported from the cached root filesystem."""
    import docker.errors

    tag = image_tag()
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    lock = _locked(rootfs_dir().parent / f"{rootfs_dir().name}.import.lock")
    try:
        try:
            client.images.get(tag)
            return tag
        except docker.errors.ImageNotFound:
            pass
        tar_path = rootfs_tarball()
        try:
            client.api.import_image_from_file(
                str(tar_path),
                repository=IMAGE_REPOSITORY,
                tag=image_version(),
                changes=["WORKDIR /work", 'CMD ["/bin/sh"]'],
            )
        except docker.errors.APIError as exc:
            raise ImageBuildError(f"docker import of {tar_path} failed: {exc}") from None
        tar_path.unlink(missing_ok=True)  # the daemon has it now; the folder stays for bwrap
        return tag
    finally:
        lock.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m agbench.live.sandbox.images [--docker]``: build the cache ahead of time."""
    import argparse

    ap = argparse.ArgumentParser(description="Build agbench's base root filesystem (and Docker image).")
    ap.add_argument("--docker", action="store_true", help="also import it into Docker as " + image_tag())
    args = ap.parse_args(argv)
    try:
        print(ensure_rootfs(quiet=False))
        if args.docker:
            daemon = ensure_dockerd()
            try:
                client = daemon.client()
                print(ensure_docker_image(client))
                client.close()
            finally:
                daemon.stop()
    except AgbenchError as exc:
        print(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The sandbox interface every backend implements, and what an exec returns.

One sandbox per task attempt. The host side of an attempt lives in ``attempt_dir``:

- ``work/``      a fresh copy of the task's ``environment/``, seen as ``/work`` (read-write)
- ``verifier/``  seen as ``/verifier`` (read-only inside); empty until verification copies the
                 task's verifier in, so the agent never sees it
- ``solution/``  seen as ``/solution`` (read-only inside); empty unless the oracle runs
- anything else the backend needs (bubblewrap keeps ``/tmp`` here so it survives between execs)

Everything else inside is the read-only base root filesystem (``images.py``). The verifier and
oracle dirs are bound from the start but filled from the host only later: that is how both
backends "copy in after the agent" without writable system paths.
"""

from __future__ import annotations

import abc
import contextlib
import errno
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agbench.errors import AgbenchError
from agbench.task import Task

from .images import rootfs_has_program

WORK_DIR = "/work"
VERIFIER_DIR = "/verifier"
SOLUTION_DIR = "/solution"
PRISTINE_DIR = "/pristine"
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
# Files in environment/ that describe the environment rather than belong in it.
ENVIRONMENT_EXCLUDES = frozenset({"Dockerfile", ".dockerignore"})


class SandboxError(AgbenchError):
    """The sandbox could not be created or used (status failed_sandbox)."""


class MissingRequiredProgram(SandboxError):
    """A program the task declares in ``required_programs`` is not in the sandbox
    (status failed_missing_required_tool)."""

    def __init__(self, task_id: str, programs: list[str]) -> None:
        self.programs = programs
        super().__init__(f"task {task_id}: required program(s) not in the sandbox: {', '.join(programs)}")


@dataclass(frozen=True)
class GradingMounts:
    """What a grading sandbox sees besides the attempt's /work (read-only there): the host
    folder with the verifier, the module and answer.txt (/verifier), and the task's pristine
    ``environment/`` (/pristine). HOME and TMPDIR are a fresh tmpfs the agent never wrote."""

    verifier_dir: Path
    pristine_dir: Path


@dataclass(frozen=True)
class ExecResult:
    """One command's outcome. Output is bytes: files and tools may be binary; decode at the edge."""

    stdout: bytes
    stderr: bytes
    exit_code: int
    wall_s: float
    cpu_s: float
    timed_out: bool = False

    @property
    def stdout_text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def copy_tree(src: Path, dst: Path, *, excludes: frozenset[str] = frozenset()) -> None:
    """Copy ``src``'s contents into ``dst`` (created), keeping symlinks as symlinks."""
    dst.mkdir(parents=True, exist_ok=True)
    if not src.is_dir():
        return
    for child in src.iterdir():
        if child.name in excludes:
            continue
        target = dst / child.name
        if target.is_symlink():  # never write through a link someone else made
            target.unlink()
        if child.is_symlink():
            target.symlink_to(os.readlink(child))
        elif child.is_dir():
            shutil.copytree(child, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(child, target)


def chown_tree(root: Path, uid: int, gid: int) -> None:
    os.lchown(root, uid, gid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), uid, gid)


def _open_no_symlinks(root: Path, rel: PurePosixPath, flags: int, mode: int = 0o644) -> int:
    """Open ``root/rel`` refusing any symlink on the way: a link the agent made inside /work
    must not send a host-side read or write outside the sandbox (raises ``OSError(ELOOP)``)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        parts = rel.parts
        for part in parts[:-1]:
            if part in ("..", "."):
                raise OSError(errno.ELOOP, "path component not allowed", part)
            nfd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = nfd
        if parts[-1] in ("..", "."):
            raise OSError(errno.ELOOP, "path component not allowed", parts[-1])
        return os.open(parts[-1], flags | os.O_NOFOLLOW, mode, dir_fd=fd)
    finally:
        os.close(fd)


class Sandbox(abc.ABC):
    """An isolated environment for one task attempt (async; one backend per file)."""

    backend: str = "abstract"

    def __init__(self, task: Task, attempt_dir: Path) -> None:
        self.task = task
        self.attempt_dir = attempt_dir
        self.work_dir_host = attempt_dir / "work"
        self.verifier_dir_host = attempt_dir / "verifier"
        self.solution_dir_host = attempt_dir / "solution"
        # Which limits took effect: value True/False, or a string naming the mechanism used.
        self.limits_enforced: dict[str, bool | str] = {}
        self.started = False
        self.destroyed = False
        # (uid, gid) that host-side writes under /work must belong to, if not the host user.
        self.host_owner: tuple[int, int] | None = None
        # Set on a grading twin (see grading_twin): /work read-only, another uid, fresh /tmp.
        self.grading: GradingMounts | None = None
        self.stopped = False

    def limits_report(self) -> str:
        """One line for logs and reports: each limit and the mechanism that enforced it."""
        parts = []
        for key, value in self.limits_enforced.items():
            shown = "no" if value is False else ("yes" if value is True else value)
            parts.append(f"{key}={shown}")
        return f"{self.backend}: " + " ".join(parts)

    # -- lifecycle -------------------------------------------------------------------------
    def _prepare_host_dirs(self) -> None:
        if self.work_dir_host.exists():
            shutil.rmtree(self.work_dir_host)
        self.attempt_dir.mkdir(parents=True, exist_ok=True)
        # The sandbox user owns files on the host side (root under bubblewrap's user mapping,
        # uid 1000 under Docker): a setuid file planted in /work must not be reachable by
        # other host users, so the attempt folder is private.
        os.chmod(self.attempt_dir, 0o700)
        copy_tree(self.task.environment_dir, self.work_dir_host, excludes=ENVIRONMENT_EXCLUDES)
        for d in (self.verifier_dir_host, self.solution_dir_host):
            if d.exists():
                shutil.rmtree(d)
            d.mkdir()

    def grading_twin(self, mounts: GradingMounts) -> Sandbox:
        """A fresh sandbox of the same backend for grading this attempt: the attempt's work
        dir read-only at /work, ``mounts`` at /verifier and /pristine, a uid other than the
        agent's and HOME/TMPDIR on a new tmpfs. Call :meth:`stop` on this sandbox first."""
        twin = type(self)(self.task, self.attempt_dir)
        twin.grading = mounts
        return twin

    async def stop(self) -> None:
        """Stop every process the agent started, keeping /work for grading; no exec after."""
        self.stopped = True
        await self._stop()

    async def _stop(self) -> None:
        """Backend part of :meth:`stop` (the default destroys the sandbox; /work survives)."""
        await self.destroy()

    async def start(self) -> None:
        """Create the environment, then check the task's required programs are there."""
        twin = self.grading is not None  # a grading twin reuses the attempt's work dir as is
        if not twin:
            try:
                self._prepare_host_dirs()
            except OSError as exc:
                raise SandboxError(f"could not prepare {self.attempt_dir} for {self.task.id}: {exc}") from exc
        try:
            await self._start()
        except SandboxError:
            await self.destroy()
            raise
        except Exception as exc:
            await self.destroy()
            what = "grading sandbox" if twin else "sandbox"
            raise SandboxError(f"{self.backend} {what} for {self.task.id} failed to start: {exc}") from exc
        self.started = True
        if not twin:
            await self._check_required_programs()

    def _rootfs_for_checks(self) -> Path | None:
        """The host copy of the sandbox's root filesystem, when the backend knows it."""
        return None

    async def _check_required_programs(self) -> None:
        programs = [p for p in self.task.required_programs if p]
        if not programs:
            return
        rootfs = self._rootfs_for_checks()
        if rootfs is not None:
            missing_here = [p for p in programs if not rootfs_has_program(rootfs, p)]
            if missing_here:
                await self.destroy()
                raise MissingRequiredProgram(self.task.id, missing_here)
            return
        script = 'for p in "$@"; do command -v "$p" >/dev/null 2>&1 || echo "$p"; done'
        res = await self.exec(["/bin/sh", "-c", script, "sh", *programs], timeout_s=30, cwd="/")
        if res.exit_code != 0 and not res.stdout:
            await self.destroy()
            raise SandboxError(f"required-program check failed in the sandbox: {res.stderr_text.strip()}")
        missing = res.stdout_text.split()
        if missing:
            await self.destroy()
            raise MissingRequiredProgram(self.task.id, missing)

    @abc.abstractmethod
    async def _start(self) -> None: ...

    @abc.abstractmethod
    async def exec(
        self,
        cmd: list[str],
        *,
        timeout_s: float,
        stdin: bytes | None = None,
        cwd: str = WORK_DIR,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        """Run ``cmd`` inside; a command still running at ``timeout_s`` is killed with its
        children and reported ``timed_out`` (exit code 137)."""

    @abc.abstractmethod
    async def destroy(self) -> None:
        """Stop everything inside and release all host resources; safe to call twice."""

    def _disarm_host_files(self) -> None:
        """Clear setuid/setgid bits the sandbox set on files it leaves in the host work dir."""
        for dirpath, _dirnames, filenames in os.walk(self.work_dir_host):
            for name in filenames:
                path = os.path.join(dirpath, name)
                with contextlib.suppress(OSError):
                    mode = os.lstat(path).st_mode
                    if stat.S_ISREG(mode) and mode & (stat.S_ISUID | stat.S_ISGID):
                        os.chmod(path, stat.S_IMODE(mode) & ~(stat.S_ISUID | stat.S_ISGID))

    async def __aenter__(self) -> Sandbox:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.destroy()

    # -- files -----------------------------------------------------------------------------
    def _host_path(self, path: str) -> tuple[Path, PurePosixPath] | None:
        """(host root, relative path) for a path under a host-backed dir, else None."""
        p = PurePosixPath(path if path.startswith("/") else f"{WORK_DIR}/{path}")
        for inside, host in ((WORK_DIR, self.work_dir_host),):
            try:
                rel = p.relative_to(inside)
            except ValueError:
                continue
            if rel.parts and ".." not in rel.parts:
                return host, rel
        return None

    async def read_file(self, path: str) -> bytes:
        """A file's bytes; FileNotFoundError / IsADirectoryError / PermissionError as on a host."""
        loc = self._host_path(path)
        if loc is not None:
            try:
                fd = _open_no_symlinks(loc[0], loc[1], os.O_RDONLY)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
            else:
                with os.fdopen(fd, "rb") as fh:
                    if stat.S_ISDIR(os.fstat(fh.fileno()).st_mode):
                        raise IsADirectoryError(errno.EISDIR, "is a directory", path)
                    return fh.read()
        res = await self.exec(["cat", "--", path], timeout_s=60, cwd="/")
        if res.exit_code != 0:
            raise _os_error_from(res.stderr_text, path)
        return res.stdout

    async def write_file(self, path: str, data: bytes) -> None:
        """Create or replace a file (parent dirs created); only /work and /tmp are writable."""
        loc = self._host_path(path)
        if loc is not None:
            root, rel = loc
            parent = root
            with contextlib.suppress(OSError):
                for part in rel.parts[:-1]:
                    parent = parent / part
                    if not parent.exists() and not parent.is_symlink():
                        parent.mkdir()
                        self._own_host_path(parent)
                fd = _open_no_symlinks(root, rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                self._own_host_path(root.joinpath(*rel.parts))
                return
        script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'
        res = await self.exec(["/bin/sh", "-c", script, "sh", path], timeout_s=60, stdin=data, cwd="/")
        if res.exit_code != 0:
            raise _os_error_from(res.stderr_text, path)

    def _own_host_path(self, path: Path) -> None:
        """Give a host-created file to the sandbox user, for backends whose user is a real
        host uid (Docker); bubblewrap's sandbox user maps back to the host user itself."""
        if self.host_owner is not None:
            with contextlib.suppress(OSError):
                os.lchown(path, *self.host_owner)

    async def copy_in(self, host_dir: Path, sandbox_dir: str) -> None:
        """Copy a host folder's contents to ``sandbox_dir`` (/verifier, /solution or under /work)."""
        target = {VERIFIER_DIR: self.verifier_dir_host, SOLUTION_DIR: self.solution_dir_host}.get(
            sandbox_dir.rstrip("/")
        )
        if target is not None:
            copy_tree(host_dir, target)
            return
        if sandbox_dir.rstrip("/") == WORK_DIR:
            loc: tuple[Path, PurePosixPath] | None = (self.work_dir_host, PurePosixPath())
        else:
            loc = self._host_path(sandbox_dir)
        if loc is not None and not any(
            (loc[0].joinpath(*loc[1].parts[: i + 1])).is_symlink() for i in range(len(loc[1].parts))
        ):
            dest = loc[0].joinpath(*loc[1].parts)
            copy_tree(host_dir, dest)
            self._own_host_path(dest)
            for dirpath, dirnames, filenames in os.walk(dest):
                for name in dirnames + filenames:
                    self._own_host_path(Path(dirpath) / name)
            return
        raise SandboxError(
            f"copy_in: {sandbox_dir} is not writable from the host (use /work, /verifier, /solution)"
        )


def _os_error_from(stderr: str, path: str) -> OSError:
    text = stderr.strip()
    if "No such file" in text:
        return FileNotFoundError(errno.ENOENT, "No such file or directory", path)
    if "Is a directory" in text:
        return IsADirectoryError(errno.EISDIR, "Is a directory", path)
    if "Permission denied" in text or "Read-only file system" in text:
        return PermissionError(errno.EACCES, text.splitlines()[-1] if text else "Permission denied", path)
    return OSError(errno.EIO, text or "I/O error", path)

"""Where agent code a verifier runs is put, and the limits it runs under.

Agent code runs on a private copy of only the parts of /work a check names (each file and the
whole copy capped in size and count), as another uid or in its own namespaces, with its own
memory (address space), file-size, process-count and CPU limits and a watched disk budget, so
that its exhaustion ends it (the attempt fails with a reason) and never the verifier.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from grading_core import Fail

UNPRIVILEGED_UID = 65534  # "nobody": agent code never runs as the verifier's uid


@dataclass(frozen=True)
class AgentLimits:
    """What one run of agent code may use. ``memory_bytes`` is an address-space limit, capped
    further by what the grading sandbox's memory cgroup has left (:func:`memory_budget`)."""

    memory_bytes: int = 1 << 30
    disk_bytes: int = 128 << 20  # everything it writes: the copy, HOME, TMPDIR, its output
    file_bytes: int = 64 << 20  # one file it writes
    processes: int = 128
    copy_file_bytes: int = 16 << 20  # one file of /work copied for it
    copy_total_bytes: int = 64 << 20
    copy_files: int = 5000


# Runs the agent's program as pid 1 of a new user + pid + mount namespace (uid 65534 there),
# chrooted into a private root, for a grading sandbox whose verifier cannot switch uid
# (bubblewrap maps a single uid): the program can then neither signal the verifier nor ptrace
# it, cannot see /verifier (nor reach it through another process's /proc entries: the private
# root has no /proc), and dies with the launcher. It refuses to run (exit 126) where any of
# that cannot be set up: running agent code unisolated is never the fallback.
_NAMESPACE_LAUNCHER = """
import ctypes, os, shutil, signal, sys
disk = os.environ.pop("AGBENCH_DISK_BYTES", "134217728")
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
NEWNS, NEWUSER, NEWPID = 0x00020000, 0x10000000, 0x20000000
BIND, REC, PRIVATE, NOSUID, NODEV = 4096, 16384, 1 << 18, 2, 4


def fail(what):
    sys.stderr.write(f"agent code not isolated: {what}: {os.strerror(ctypes.get_errno())}\\n")
    os._exit(126)


def mount(src, dst, fstype, flags, data=None):
    if libc.mount(src, dst.encode(), fstype, flags, data) != 0:
        fail(f"mount {dst}")


uid, gid = os.geteuid(), os.getegid()
if libc.unshare(NEWUSER | NEWPID | NEWNS) != 0:
    fail("unshare")
for name, text in (("setgroups", "deny"), ("uid_map", f"65534 {uid} 1"), ("gid_map", f"65534 {gid} 1")):
    with open(f"/proc/self/{name}", "w") as fh:
        fh.write(text)
mount(None, "/", None, REC | PRIVATE)
cwd = os.getcwd()
scratch = os.path.dirname(cwd)
root = scratch + ".root"
os.makedirs(root, exist_ok=True)
mount(b"tmpfs", root, b"tmpfs", NOSUID | NODEV, b"size=4m")
# A root of its own: the system folders and the private copy, and nothing else of the grading
# sandbox (no /verifier, /pristine, /work, no /proc through which another process's view is
# reachable), so the agent's code cannot read what the verifier holds.
for top in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt", "dev"):
    if os.path.isdir("/" + top) and not os.path.islink("/" + top):
        os.makedirs(root + "/" + top, exist_ok=True)
        mount(("/" + top).encode(), root + "/" + top, None, BIND | REC)
    elif os.path.islink("/" + top):
        os.symlink(os.readlink("/" + top), root + "/" + top)
os.makedirs(root + "/tmp", exist_ok=True)
mount(b"tmpfs", root + "/tmp", b"tmpfs", NOSUID | NODEV, b"size=64m")
# The private copy at its own path (under /tmp), on a tmpfs of the run's disk budget: writing
# more fails with ENOSPC for the agent's code, never fills the grading sandbox.
os.makedirs(root + scratch, exist_ok=True)
mount(b"tmpfs", root + scratch, b"tmpfs", NOSUID | NODEV, ("size=" + disk).encode())
shutil.copytree(scratch, root + scratch, symlinks=True, dirs_exist_ok=True)
pid = os.fork()
if pid == 0:
    libc.prctl(1, signal.SIGKILL)
    os.setsid()
    try:
        os.chroot(root)
        os.chdir(cwd)
    except OSError as exc:
        sys.stderr.write(f"agent code not isolated: chroot: {exc}\\n")
        os._exit(126)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as exc:
        sys.stderr.write(f"could not start {sys.argv[1]}: {exc}\\n")
        os._exit(127)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def _can_switch_uid() -> bool:
    """Root that can become uid 65534 (a host or the docker grading container, not bwrap)."""
    if os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/uid_map") as fh:
            for line in fh:
                inner, _outer, count = (int(x) for x in line.split())
                if inner <= UNPRIVILEGED_UID < inner + count:
                    return True
    except (OSError, ValueError):
        return False
    return False


def _scratch_base(drop: bool) -> str | None:
    """Where the agent code's private copy goes: TMPDIR, unless uid 65534 could not reach it
    there (a host-side check under a private temp dir), then /tmp."""
    base = Path(tempfile.gettempdir()).resolve()
    if not drop or all(p.stat().st_mode & 0o001 for p in (base, *base.parents)):
        return None
    return "/tmp"


def _chown_tree(root: str, uid: int) -> None:
    os.lchown(root, uid, uid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            with contextlib.suppress(OSError):
                os.lchown(os.path.join(dirpath, name), uid, uid)


def memory_budget(limits: AgentLimits) -> int:
    """The address space agent code gets: ``limits.memory_bytes``, but at most half of what the
    sandbox's memory cgroup has left (a docker grading container shares one cgroup with the
    verifier) and at most the verifier's own address-space limit (a bwrap sandbox's rlimit)."""
    budget = limits.memory_bytes
    for top_file, used_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        with contextlib.suppress(OSError, ValueError):
            top = Path(top_file).read_text().strip()
            used = int(Path(used_file).read_text().strip())
            if top != "max" and int(top) < 1 << 50:
                budget = min(budget, max(64 << 20, (int(top) - used) // 2))
            break
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        budget = min(budget, soft)
    return budget


def limiter(limits: AgentLimits, cpu_s: float) -> Callable[[], None]:
    """A ``preexec_fn`` setting the agent code's own rlimits (inherited by its children)."""
    memory = memory_budget(limits)

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        cpu = int(cpu_s) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def copy_work(names: Iterable[str] | None, dest: str, limits: AgentLimits) -> None:
    """Copy ``names`` (files or folders of /work, the cwd; None: all of /work) to ``dest``:
    regular files, folders and links only; Fail when a file or the whole copy is over its cap
    (by apparent size: a sparse 1 GiB file counts as 1 GiB)."""
    root = Path.cwd()
    os.makedirs(dest, exist_ok=True)
    count = total = 0
    todo = [Path(n) for n in names] if names is not None else [Path(p) for p in sorted(os.listdir(root))]
    stack = [(root / rel, Path(dest) / rel) for rel in todo]
    while stack:
        src, dst = stack.pop()
        try:
            st = os.lstat(src)
        except OSError:
            continue  # a named path that is missing: the agent code will notice
        count += 1
        if count > limits.copy_files:
            raise Fail(f"agent code not run: /work holds more than {limits.copy_files} files to copy")
        dst.parent.mkdir(parents=True, exist_ok=True)
        if stat.S_ISLNK(st.st_mode):
            with contextlib.suppress(OSError):
                os.symlink(os.readlink(src), dst)
        elif stat.S_ISDIR(st.st_mode):
            dst.mkdir(exist_ok=True)
            with contextlib.suppress(OSError):
                stack.extend((src / name, dst / name) for name in sorted(os.listdir(src)))
        elif stat.S_ISREG(st.st_mode):
            rel = src.relative_to(root)
            if st.st_size > limits.copy_file_bytes:
                raise Fail(
                    f"agent code not run: {rel} is {st.st_size} bytes (at most {limits.copy_file_bytes} are copied)"
                )
            total += st.st_size
            if total > limits.copy_total_bytes:
                raise Fail(f"agent code not run: more than {limits.copy_total_bytes} bytes of /work to copy")
            with contextlib.suppress(OSError):
                with open(src, "rb") as fin, open(dst, "wb") as fout:
                    fout.write(fin.read(limits.copy_file_bytes + 1)[: limits.copy_file_bytes])
                os.chmod(dst, stat.S_IMODE(st.st_mode) | 0o600)
        # FIFOs, sockets and devices are not copied


def on_private_tmpfs(path: str) -> bool:
    """Whether ``path`` lies on a tmpfs (the grading sandbox's own /tmp), where the free space
    is this sandbox's alone and a drop in it is what the agent code wrote."""
    best, fstype = "", ""
    with contextlib.suppress(OSError), open("/proc/self/mountinfo") as fh:
        for line in fh:
            parts = line.split()
            if " - " not in line:
                continue
            mnt = parts[4]
            after = line.split(" - ", 1)[1].split()
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                best, fstype = mnt, after[0]
    return fstype == "tmpfs"


def disk_used(path: str, baseline_free: int) -> int:
    """Bytes written to ``path``'s file system since it had ``baseline_free`` bytes free."""
    st = os.statvfs(path)
    return baseline_free - st.f_bavail * st.f_frsize


def free_bytes(path: str) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def become_subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER): agent
    code that double-forks or leaves its session still ends up a child of the verifier, where
    :func:`kill_descendants` finds it."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


def _children(me: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError), open(f"/proc/{name}/stat") as fh:
            # pid (comm) state ppid ...: comm may hold spaces and parentheses
            if int(fh.read().rsplit(")", 1)[1].split()[1]) == me:
                out.append(int(name))
    return out


def kill_descendants(rounds: int = 50) -> None:
    """SIGKILL every process below this one (children, and the orphans reparented to it as
    their subreaper) and reap them; only this verifier's own descendants, never another's."""
    me = os.getpid()
    for _ in range(rounds):
        kids = _children(me)
        if not kids:
            break
        for pid in kids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in kids:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


def scratch_dir(drop: bool) -> str:
    return tempfile.mkdtemp(prefix="agent-run-", dir=_scratch_base(drop))


def remove_scratch(scratch: str) -> None:
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(scratch + ".root", ignore_errors=True)  # the launcher's private root (empty)

"""Break-out checks shared by the Docker and bubblewrap sandbox tests.

Each check builds real sandboxes from a tiny task written into the test's tmp dir and tries to
get out: reach the network or the host, read host files or the hidden verifier, exhaust memory
or pids, outlive a timeout, or leave something running or mounted after ``destroy``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import textwrap
import uuid
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import psutil
import pytest

from agbench.live.sandbox import MissingRequiredProgram, Sandbox, SandboxError, create_sandbox
from agbench.live.taskcases import FORGED_VERDICT, generic_cases
from agbench.live.verification import run_oracle, verify
from agbench.status import Status
from agbench.task import Task, load_task

T = TypeVar("T")
MEMORY_MB = 128
PIDS = 64


def write_tiny_task(root: Path, *, required: tuple[str, ...] = ("python3",), token: str = "") -> Task:
    """A task whose oracle writes /work/out.txt and answers 42; the verifier checks both."""
    token = token or uuid.uuid4().hex
    root.mkdir(parents=True, exist_ok=True)
    req = ", ".join(json.dumps(p) for p in required)
    (root / "task.toml").write_text(
        textwrap.dedent(
            f"""\
            id = "tiny-{token[:8]}"
            category = "local_files"
            difficulty = "easy"
            time_limit_s = 60
            required_programs = [{req}]
            [limits]
            memory_mb = {MEMORY_MB}
            pids = {PIDS}
            cpus = 1.0
            [[sensitive]]
            item = "tiny-secret-{token}"
            kind = "credential"
            """
        )
    )
    (root / "instruction.md").write_text("Write the sum of numbers.txt to out.txt and answer it.\n")
    env = root / "environment"
    env.mkdir(exist_ok=True)
    (env / "numbers.txt").write_text("20\n22\n")
    (env / "Dockerfile").write_text("FROM agbench/base\n")  # built: the task image is the base
    ver = root / "verifier"
    ver.mkdir(exist_ok=True)
    (ver / "verify.py").write_text(
        textwrap.dedent(
            f"""\
            # VERIFIER-TOKEN-{token}
            from agbench_grading import Fail, Number, answer, check_files, main, read_text, single_value

            def check():
                if single_value(answer(), Number()) != 42:
                    raise Fail("wrong answer")
                if read_text("out.txt").strip() != "42":
                    raise Fail("out.txt does not hold 42")
                check_files(must_exist=["numbers.txt"])
                return "ok"

            print("checking")
            main(check)
            """
        )
    )
    sol = root / "solution"
    sol.mkdir(exist_ok=True)
    (sol / "solve.py").write_text(
        textwrap.dedent(
            f"""\
            # SOLUTION-TOKEN-{token}
            import pathlib
            total = sum(int(x) for x in pathlib.Path("numbers.txt").read_text().split())
            pathlib.Path("out.txt").write_text(str(total))
            print(total)
            """
        )
    )
    return load_task(root)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def started(backend: str, task: Task, attempt: Path) -> Sandbox:
    sandbox = create_sandbox(backend, task, attempt)
    await sandbox.start()
    return sandbox


def _host_processes_with(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(proc.info.get("cmdline") or [])
        if marker in cmdline and "pytest" not in cmdline:
            found.append(proc)
    return found


def _host_mounts_with(*needles: str) -> list[str]:
    text = Path("/proc/self/mountinfo").read_text() + Path("/proc/1/mountinfo").read_text()
    return [line for line in text.splitlines() if any(n in line for n in needles if n)]


# -- the checks ----------------------------------------------------------------------------------


def check_identity_and_read_only_system(backend: str, tmp_path: Path) -> None:
    task = write_tiny_task(tmp_path / "task")

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            res = await sb.exec(["id", "-u"], timeout_s=30)
            assert res.stdout_text.strip() == "1000"
            status = (await sb.exec(["cat", "/proc/self/status"], timeout_s=30)).stdout_text
            assert "CapEff:\t0000000000000000" in status
            assert "NoNewPrivs:\t1" in status
            for path in ("/usr/evil", "/etc/evil", "/evil", "/verifier/evil", "/solution/evil"):
                res = await sb.exec(["sh", "-c", f"echo x > {path}"], timeout_s=30)
                assert res.exit_code != 0, path
            for path in ("/work/new.txt", "/tmp/new.txt"):
                res = await sb.exec(["sh", "-c", f"echo x > {path} && cat {path}"], timeout_s=30)
                assert res.exit_code == 0, (path, res)
                assert res.stdout_text.strip() == "x", (path, res)
            # The environment is copied, Dockerfile excluded; the original task folder is untouched.
            listing = (await sb.exec(["ls", "-A", "/work"], timeout_s=30)).stdout_text.split()
            assert sorted(listing) == ["new.txt", "numbers.txt"]
            assert not (task.environment_dir / "new.txt").exists()
            for key in (
                "memory",
                "pids",
                "cpu",
                "network",
                "read_only_root",
                "cap_drop",
                "no_new_privileges",
            ):
                assert sb.limits_enforced.get(key), (key, sb.limits_enforced)
            assert sb.limits_report().startswith(f"{backend}: memory=")
            assert "=no" not in sb.limits_report()
        finally:
            await sb.destroy()

    run(go())


def check_no_network(backend: str, tmp_path: Path) -> None:
    task = write_tiny_task(tmp_path / "task")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    probe = textwrap.dedent(
        f"""\
        import socket
        for host, port in (("127.0.0.1", {port}), ("10.0.2.2", 80), ("1.1.1.1", 53), ("deb.debian.org", 80)):
            try:
                socket.create_connection((host, port), timeout=2).close()
                print("REACHED", host)
            except OSError as exc:
                print("blocked", host, type(exc).__name__)
        print(sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:]))
        """
    )

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            res = await sb.exec(["python3", "-c", probe], timeout_s=60)
            assert res.exit_code == 0, res
            assert "REACHED" not in res.stdout_text, res.stdout_text
            assert res.stdout_text.count("blocked") == 4
            assert res.stdout_text.strip().splitlines()[-1] in ("['lo']", "[]")
        finally:
            await sb.destroy()
            listener.close()

    run(go())


def check_no_host_files_or_hidden_dirs(backend: str, tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    task = write_tiny_task(tmp_path / "task", token=token)
    host_secret = tmp_path / "host-secret.txt"
    host_secret.write_text(f"HOST-SECRET-{token}\n")
    repo = Path(__file__).resolve().parents[2]

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            # Nothing of the host: not the repo, the task folder, host homes or the secret.
            for path in (str(repo), str(task.path), str(host_secret), str(tmp_path), "/root/.cache"):
                res = await sb.exec(["test", "-e", path], timeout_s=30)
                assert res.exit_code != 0, f"{path} is visible inside the sandbox"
            assert (
                await sb.exec(["ls", "-A", "/verifier", "/solution"], timeout_s=30)
            ).stdout_text.split() == [
                "/solution:",
                "/verifier:",
            ]
            # Search the whole visible filesystem; a control string in /work proves the search works.
            await sb.write_file("/work/control.txt", f"CONTROL-{token}".encode())
            res = await sb.exec(
                ["grep", "-rlsI", "--exclude-dir=proc", "--exclude-dir=sys", "--exclude-dir=dev", "-e",
                 f"SECRET-{token}", "-e", f"VERIFIER-TOKEN-{token}", "-e", f"SOLUTION-TOKEN-{token}",
                 "-e", f"CONTROL-{token}", "/"],
                timeout_s=120,
            )  # fmt: skip
            assert res.stdout_text.split() == ["/work/control.txt"], res
            # A link the agent plants must not make host-side file access follow it to the host.
            await sb.exec(["ln", "-s", str(host_secret), "/work/link"], timeout_s=30)
            await sb.exec(["ln", "-s", "/etc/hostname", "/work/hostname"], timeout_s=30)
            with pytest.raises(FileNotFoundError):
                await sb.read_file("/work/link")
            assert await sb.read_file("/work/hostname") == b"sandbox\n"
            await sb.exec(["ln", "-s", str(tmp_path), "/work/dirlink"], timeout_s=30)
            with pytest.raises(OSError):  # noqa: PT011 - refused however the backend words it
                await sb.write_file("/work/dirlink/planted.txt", b"x")
            assert not (tmp_path / "planted.txt").exists()
            # Only verification brings the verifier in.
            out = await run_oracle(sb, task)
            assert out == "42"
            verdict = await verify(sb, task, out)
            assert verdict.status == Status.SUCCESS, verdict
            # It ran in a grading twin: the agent's sandbox is stopped and never had it.
            with pytest.raises(SandboxError):
                await sb.exec(["true"], timeout_s=30)
            assert not any(sb.verifier_dir_host.iterdir())
        finally:
            await sb.destroy()

    run(go())


def check_memory_bomb(backend: str, tmp_path: Path) -> None:
    task = write_tiny_task(tmp_path / "task")
    bomb = f"b = []\nwhile True:\n    b.append(bytearray({4 * 1024 * 1024}))\n"

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            res = await sb.exec(["python3", "-c", bomb], timeout_s=60)
            assert res.exit_code != 0, res
            assert not res.timed_out, res
            # Well under the limit still works, and the sandbox survives the bomb.
            ok = await sb.exec(
                ["python3", "-c", f"x = bytearray({MEMORY_MB // 4} << 20); print('fine')"], timeout_s=60
            )
            assert ok.stdout_text.strip() == "fine", ok
        finally:
            await sb.destroy()

    run(go())


def check_fork_bomb(backend: str, tmp_path: Path) -> None:
    task = write_tiny_task(tmp_path / "task")
    counter = textwrap.dedent(
        """\
        import os, signal, time
        kids = []
        while len(kids) < 10000:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                os.close(1); os.close(2)
                time.sleep(60)
                os._exit(0)
            kids.append(pid)
        print(len(kids), flush=True)
        for pid in kids:
            os.kill(pid, signal.SIGKILL)
        for pid in kids:
            os.waitpid(pid, 0)
        """
    )

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            res = await sb.exec(["python3", "-c", counter], timeout_s=60)
            assert res.exit_code == 0, res
            assert 0 < int(res.stdout_text.strip()) < PIDS, res.stdout_text
            await sb.exec(["bash", "-c", ":(){ :|:& };:"], timeout_s=5)
            # While the bomb's processes are still being reaped the pids limit can refuse the
            # probe's own fork (as below); the sandbox must answer once they are gone.
            for _ in range(50):
                after = await sb.exec(["echo", "alive"], timeout_s=30)
                if after.exit_code == 0:
                    break
                await asyncio.sleep(0.1)
            assert after.stdout_text.strip() == "alive", after
            # The bomb is gone: only init, a keep-alive and this probe remain.
            count = "import os; print(sum(d.isdigit() for d in os.listdir('/proc')))"
            left = PIDS
            for _ in range(50):
                probe = await sb.exec(["python3", "-c", count], timeout_s=30)
                # While the bomb's processes are still being reaped the probe itself may fail
                # to fork (empty output); that is "not gone yet", not a count.
                if probe.exit_code == 0 and probe.stdout_text.strip().isdigit():
                    left = int(probe.stdout_text)
                    if left <= 5:
                        break
                await asyncio.sleep(0.1)
            assert left <= 5
        finally:
            await sb.destroy()

    run(go())


def check_hung_command_killed(backend: str, tmp_path: Path) -> None:
    task = write_tiny_task(tmp_path / "task")
    marker = f"{uuid.uuid4().int % 100000}.{uuid.uuid4().int % 1000:03d}"  # a unique sleep length

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            res = await sb.exec(["sh", "-c", f"echo started; sleep {marker} & sleep {marker}"], timeout_s=1.5)
            assert res.timed_out
            assert res.exit_code == 137
            assert res.stdout_text.strip() == "started"  # output before the kill is kept
            assert res.wall_s < 30
            for _ in range(50):
                if not _host_processes_with(f"sleep {marker}"):
                    break
                await asyncio.sleep(0.1)
            assert not _host_processes_with(f"sleep {marker}")
            # A detached process may outlive its exec (Docker) but never the sandbox.
            await sb.exec(["sh", "-c", f"setsid sleep {marker}1 >/dev/null 2>&1 < /dev/null &"], timeout_s=10)
        finally:
            await sb.destroy()
        assert not _host_processes_with(f"sleep {marker}1")

    run(go())


def check_nothing_left_after_destroy(backend: str, tmp_path: Path) -> Sandbox:
    """Returns the destroyed sandbox, for backend-specific extra checks."""
    task = write_tiny_task(tmp_path / "task")
    attempt = tmp_path / "attempt"

    async def go() -> Sandbox:
        sb = await started(backend, task, attempt)
        await sb.exec(["sh", "-c", "sleep 300 >/dev/null 2>&1 &"], timeout_s=10)
        # A setuid copy of a shell left in /work must not stay armed on the host.
        res = await sb.exec(
            ["sh", "-c", "cp /bin/sh /work/suid-sh && chmod 4755 /work/suid-sh"], timeout_s=10
        )
        assert res.exit_code == 0, res
        await sb.destroy()
        await sb.destroy()  # twice is fine
        return sb

    sb = run(go())
    assert not _host_mounts_with(str(attempt.resolve()), getattr(sb, "container_id", None) or "")
    assert (attempt / "work" / "numbers.txt").is_file()  # the work dir stays for inspection
    assert not (attempt / "work" / "suid-sh").stat().st_mode & 0o6000
    assert attempt.stat().st_mode & 0o077 == 0  # private to the harness user
    with pytest.raises(Exception):  # noqa: B017, PT011 - any error: a destroyed sandbox does not run
        run(sb.exec(["true"], timeout_s=5))
    return sb


def check_missing_required_program(backend: str, tmp_path: Path) -> None:
    task = write_tiny_task(tmp_path / "task", required=("python3", "jq", "no-such-program-xyz"))

    async def go() -> None:
        sb = create_sandbox(backend, task, tmp_path / "attempt")
        with pytest.raises(MissingRequiredProgram) as info:
            await sb.start()
        assert info.value.programs == ["no-such-program-xyz"]
        assert sb.destroyed

    run(go())


def check_file_roundtrip(backend: str, tmp_path: Path) -> None:
    task = write_tiny_task(tmp_path / "task")

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            payload = bytes(range(256)) * 10
            for path in ("/work/sub/dir/blob.bin", "/tmp/x/blob.bin"):
                await sb.write_file(path, payload)
                assert await sb.read_file(path) == payload
                res = await sb.exec(["sha256sum", path], timeout_s=30)
                assert res.exit_code == 0
            burn = await sb.exec(["python3", "-c", "sum(i * i for i in range(2_000_000))"], timeout_s=60)
            assert burn.exit_code == 0, burn
            assert burn.cpu_s > 0.01, burn
            assert burn.wall_s > 0, burn
            res = await sb.exec(["cat"], timeout_s=30, stdin=b"through stdin")
            assert res.stdout == b"through stdin"
            res = await sb.exec(["sh", "-c", "echo $FOO; pwd; echo err >&2; exit 3"], timeout_s=30,
                                cwd="/tmp", env={"FOO": "bar"})  # fmt: skip
            assert (res.stdout_text, res.stderr_text, res.exit_code) == ("bar\n/tmp\n", "err\n", 3)
            with pytest.raises(FileNotFoundError):
                await sb.read_file("/work/missing.txt")
            with pytest.raises(OSError):  # noqa: PT011 - refused however the backend words it
                await sb.write_file("/usr/bin/evil", b"x")
            # What the sandbox writes is what the host sees in work_dir_host, and back.
            await sb.exec(["sh", "-c", "echo inside > /work/from_inside.txt"], timeout_s=30)
            assert (sb.work_dir_host / "from_inside.txt").read_text() == "inside\n"
        finally:
            await sb.destroy()

    run(go())


def check_concurrent_sandboxes_isolated(backend: str, tmp_path: Path) -> None:
    """Several attempts at once (concurrency C): each sees only its own /work and processes."""
    task = write_tiny_task(tmp_path / "task")
    n = 4

    async def one(i: int) -> tuple[str, str]:
        sb = await started(backend, task, tmp_path / f"attempt-{i}")
        try:
            await sb.write_file("/work/who.txt", f"attempt-{i}\n".encode())
            res = await sb.exec(
                [
                    "sh",
                    "-c",
                    "sleep 0.5; cat /work/who.txt; ls /work | tr '\\n' ' '",
                ],
                timeout_s=60,
            )
            assert res.exit_code == 0, res
            lines = res.stdout_text.splitlines()
            return lines[0], lines[1]
        finally:
            await sb.destroy()

    async def go() -> list[tuple[str, str]]:
        return list(await asyncio.gather(*(one(i) for i in range(n))))

    results = run(go())
    assert [who for who, _ in results] == [f"attempt-{i}" for i in range(n)]
    assert all(listing.split() == ["numbers.txt", "who.txt"] for _, listing in results)


def check_output_flood_capped(backend: str, tmp_path: Path) -> None:
    """A command printing without end neither hangs the harness nor exhausts its memory."""
    from agbench.live.sandbox.process_io import MAX_CAPTURE_BYTES

    task = write_tiny_task(tmp_path / "task")

    async def go() -> None:
        sb = await started(backend, task, tmp_path / "attempt")
        try:
            res = await sb.exec(
                ["head", "-c", str(MAX_CAPTURE_BYTES + (8 << 20)), "/dev/zero"], timeout_s=120
            )
            assert res.exit_code == 0, res.exit_code
            assert not res.timed_out, res.exit_code
            assert len(res.stdout) == MAX_CAPTURE_BYTES
            flood = await sb.exec(["yes"], timeout_s=2)
            assert flood.timed_out
            assert 0 < len(flood.stdout) <= MAX_CAPTURE_BYTES
        finally:
            await sb.destroy()

    run(go())


# A verifier that reports where it runs; reward 1 only when every isolation property holds.
_INSPECTING_VERIFIER = """\
import json, os, sys, tempfile
from agbench_grading import Fail, main, pristine_path, read_text, run_agent_code

def check():
    problems = []
    if not sys.flags.isolated:
        problems.append("not python3 -I")
    if os.getuid() == 1000:
        problems.append("runs as the agent's uid")
    if os.environ.get("HOME", "").startswith("/work") or tempfile.gettempdir().startswith("/work"):
        problems.append("HOME or TMPDIR under /work")
    if os.listdir(os.environ["HOME"]):
        problems.append("HOME is not fresh: " + ",".join(os.listdir(os.environ["HOME"])))
    if os.access("/work", os.W_OK):
        problems.append("/work is writable")
    if any(p.startswith("/work") or p in ("", ".") for p in sys.path):
        problems.append("/work on sys.path")
    if pristine_path("numbers.txt").read_text() != "20\\n22\\n":
        problems.append("/pristine does not hold the original input")
    if read_text("numbers.txt") != "20\\n22\\n":
        raise Fail("the agent changed numbers.txt")
    run = run_agent_code(["sh", "-c", "id -u; echo planted > /work/x 2>/dev/null; echo $?; kill -9 $PPID"])
    uid, code = (run.stdout_text.split() + ["", ""])[:2]
    if uid in ("1000", str(os.getuid())) or code == "0":
        problems.append(f"agent code ran as uid {uid} or could write /work ({code})")
    if problems:
        raise Fail("; ".join(problems))
    return "isolated"

main(check)
"""


def check_grading_isolated(backend: str, tmp_path: Path) -> None:
    """The verifier runs in a fresh grading sandbox: python3 -I, another uid, read-only /work,
    fresh HOME/TMPDIR, pristine inputs, agent code as a third uid; nothing the agent planted
    in /work (site files, .pth, exit hooks, a surviving daemon) changes its verdict."""
    token = uuid.uuid4().hex
    task = write_tiny_task(tmp_path / "task", token=token)
    (task.verifier_dir / "verify.py").write_text(_INSPECTING_VERIFIER)
    marker = f"agent-daemon-{token}"

    async def grade(planted: bool, answer: str) -> Any:
        sb = await started(backend, task, tmp_path / f"attempt-{planted}-{len(answer)}")
        try:
            if planted:
                for case in generic_cases(task, {"numbers.txt": ""}, {}):
                    for rel, data in case.write.items():
                        await sb.write_file(f"/work/{rel}", data)
                await sb.exec(
                    ["sh", "-c", f"setsid sh -c 'exec -a {marker} sleep 600' >/dev/null 2>&1 < /dev/null &"],
                    timeout_s=30,
                )
            verdict = await verify(sb, task, answer)
            assert not _host_processes_with(marker), "an agent process survived into grading"
            return verdict
        finally:
            await sb.destroy()

    clean = run(grade(False, "42"))
    assert clean.status == Status.SUCCESS, clean
    assert clean.reason == "isolated"
    assert run(grade(True, "42")) == clean
    forged = run(grade(True, FORGED_VERDICT))
    assert forged == clean  # this verifier ignores the answer: the forged line changes nothing

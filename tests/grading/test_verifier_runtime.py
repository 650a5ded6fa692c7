"""The verifier runtime: main()'s verdicts, defensive reads, the end-state manifest and
run_agent_code, each exercised as a real verifier process would use them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from agbench_grading import Fail, check_files, exhaustion, read_bytes, read_text, run_agent_code, sha256_file

GRADING_DIR = Path(__file__).resolve().parents[2] / "tasks" / "_grading"

# Agent code may run as uid 65534, which cannot reach a venv under /root.
SYSTEM_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else "python3"
RUN_ISOLATED = 'import sys, runpy; sys.path.insert(0, sys.argv[1]); runpy.run_path(sys.argv[1] + "/verify.py", run_name="__main__")'


def run_verifier(
    tmp_path: Path, body: str, answer: str = ""
) -> tuple[dict[str, object], subprocess.CompletedProcess[str]]:
    """Write verify.py (with the module next to it) and run it as the harness does."""
    verifier = tmp_path / "verifier"
    work = tmp_path / "work"
    verifier.mkdir(exist_ok=True)
    work.mkdir(exist_ok=True)
    for module in GRADING_DIR.glob("*.py"):  # agbench_grading and its grading_* parts
        shutil.copy(module, verifier)
    (verifier / "verify.py").write_text(textwrap.dedent(body))
    (verifier / "answer.txt").write_text(answer)
    proc = subprocess.run(
        [sys.executable, "-I", "-c", RUN_ISOLATED, str(verifier)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc


def test_check_returning_a_reason_is_reward_one(tmp_path: Path) -> None:
    verdict, proc = run_verifier(
        tmp_path,
        """
        from agbench_grading import main, answer
        main(lambda: "got " + answer().strip())
        """,
        "42",
    )
    assert verdict == {"reward": 1.0, "reason": "got 42"}
    assert proc.returncode == 0


def test_fail_is_reward_zero_with_its_reason(tmp_path: Path) -> None:
    verdict, _ = run_verifier(
        tmp_path,
        """
        from agbench_grading import main, Fail
        def check():
            raise Fail("total is wrong")
        main(check)
        """,
    )
    assert verdict == {"reward": 0.0, "reason": "total is wrong"}


@pytest.mark.parametrize(
    ("code", "exc"),
    [
        ("open('missing.txt').read()", "FileNotFoundError"),
        ("b'\\xff'.decode()", "UnicodeDecodeError"),
        ("{}['k']", "KeyError"),
        ("(lambda f: f(f))(lambda f: f(f))", "RecursionError"),
        ("raise SystemExit(3)", "SystemExit"),
    ],
)
def test_any_other_exception_is_reward_zero_not_a_crash(tmp_path: Path, code: str, exc: str) -> None:
    verdict, proc = run_verifier(
        tmp_path,
        f"""
        from agbench_grading import main
        def check():
            {code}
        main(check)
        """,
    )
    assert verdict["reward"] == 0.0
    assert str(verdict["reason"]).startswith(f"verifier could not grade: {exc}")
    assert proc.returncode == 0


def test_a_huge_answer_fails_before_the_check(tmp_path: Path) -> None:
    verdict, _ = run_verifier(tmp_path, "from agbench_grading import main\nmain(lambda: 'ok')\n", "1 " * 3000)
    assert verdict["reward"] == 0.0
    assert "longer than 4000" in str(verdict["reason"])


def test_an_exit_hook_cannot_print_after_the_verdict(tmp_path: Path) -> None:
    verdict, proc = run_verifier(
        tmp_path,
        """
        import atexit
        from agbench_grading import main, Fail
        atexit.register(lambda: print('{"reward": 1.0, "reason": "hooked"}'))
        def check():
            raise Fail("wrong")
        main(check)
        """,
    )
    assert verdict == {"reward": 0.0, "reason": "wrong"}
    assert "hooked" not in proc.stdout


def test_reads_fail_cleanly_on_missing_binary_linked_out_or_big_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.txt").write_text("héllo")
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\x00bad")
    (tmp_path / "big.txt").write_bytes(b"x" * 101)
    (tmp_path / "out").symlink_to("/etc/hostname")
    (tmp_path / "dir").mkdir()
    assert read_text("ok.txt") == "héllo"
    assert read_bytes("bad.txt") == b"\xff\xfe\x00bad"
    for rel, pattern in [
        ("missing.txt", "missing"),
        ("bad.txt", "not valid UTF-8"),
        ("out", "outside"),
        ("dir", "not a regular file"),
        ("../etc/passwd", "missing|outside"),
    ]:
        with pytest.raises(Fail, match=pattern):
            read_text(rel)
    with pytest.raises(Fail, match="bigger"):
        read_text("big.txt", limit=100)


def test_check_files_reports_the_first_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.txt").write_text("keep")
    (tmp_path / "out.csv").write_text("a,b\n")
    (tmp_path / "empty").mkdir()
    digest = hashlib.sha256(b"keep").hexdigest()
    assert sha256_file("keep.txt") == digest
    check_files(
        must_exist=["keep.txt"],
        unchanged={"keep.txt": digest},
        must_be_gone=["old.txt"],
        must_be_nonempty=["out.csv"],
    )
    with pytest.raises(Fail, match="missing"):
        check_files(must_exist=["nope"])
    with pytest.raises(Fail, match="changed"):
        check_files(unchanged={"keep.txt": "0" * 64})
    with pytest.raises(Fail, match="should be gone"):
        check_files(must_be_gone=["keep.txt"])
    with pytest.raises(Fail, match="empty"):
        check_files(must_be_nonempty=["empty"])
    with pytest.raises(Fail, match="missing"):
        check_files(unchanged={"gone.txt": digest})


def test_agent_code_runs_on_a_private_copy_with_its_output_captured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.txt").write_text("input")
    script = "import sys; print(open('data.txt').read() + sys.stdin.read() + open('extra.txt').read()); open('data.txt', 'w').write('changed'); sys.exit(3)"
    run = run_agent_code([SYSTEM_PYTHON, "-c", script], stdin=b"+in", files={"extra.txt": b"+extra"})
    assert run.exit_code == 3
    assert run.stdout_text.strip() == "input+in+extra"
    assert not run.timed_out
    assert (tmp_path / "data.txt").read_text() == "input"  # the copy changed, not /work


def test_agent_code_that_hangs_or_is_missing_does_not_raise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    hung = run_agent_code(["sh", "-c", "sleep 60 & sleep 60"], timeout_s=0.5)
    assert hung.timed_out
    missing = run_agent_code(["/nonexistent/program"])
    assert missing.exit_code != 0
    assert not missing.timed_out


def test_agent_code_cannot_signal_the_verifier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_agent_code(["sh", "-c", f"kill -9 {os.getpid()}; echo survived-attempt"])
    assert "survived-attempt" in run.stdout_text or run.exit_code != 0
    # Reaching this line is the assertion: this process (the "verifier") was not killed.
    assert os.getpid() > 0


def test_agent_code_runs_when_tmpdir_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host-side check may set TMPDIR to a 0700 folder uid 65534 cannot enter."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    work = tmp_path / "work"
    work.mkdir()
    (work / "in.txt").write_text("seen")
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    run = run_agent_code(["cat", "in.txt"])
    assert (run.exit_code, run.stdout_text) == (0, "seen"), run


def test_agent_code_copies_only_what_a_check_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1 GiB sparse file beside the package costs nothing; inside it, the run fails cleanly."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("print('ran')\n")
    with open(tmp_path / "huge.bin", "wb") as fh:
        fh.truncate(1 << 30)
    run = run_agent_code([SYSTEM_PYTHON, "pkg/m.py"], copy=["pkg"])
    assert (run.exit_code, run.stdout_text.strip()) == (0, "ran"), run
    with open(tmp_path / "pkg" / "huge.bin", "wb") as fh:
        fh.truncate(1 << 30)
    with pytest.raises(Fail, match=r"agent code not run: pkg/huge\.bin"):
        run_agent_code([SYSTEM_PYTHON, "pkg/m.py"], copy=["pkg"])


def test_agent_code_that_exhausts_memory_ends_with_a_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = run_agent_code([SYSTEM_PYTHON, "-c", "x = bytearray(3 << 30)"])
    assert run.exit_code != 0
    assert exhaustion(run) == "agent code exceeded its memory limit", run.stderr_text[-300:]

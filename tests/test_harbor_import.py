"""Importing a Terminal-Bench 2 / Harbor task folder that the test writes itself."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agbench.errors import AgbenchError
from agbench.harbor import import_harbor_task
from agbench.task import load_suite, load_task

HARBOR_TOML = """\
version = "1.0"

[metadata]
author_name = "Test Author"
difficulty = "hard"
category = "file-operations"
tags = ["bash", "text"]

[verifier]
timeout_sec = 60.0

[agent]
timeout_sec = 600.0

[environment]
build_timeout_sec = 600.0
cpus = 2
memory_mb = 1024
storage_mb = 10240
"""

TEST_SH = """\
#!/bin/bash
# Harbor convention: tests live in /tests, the reward goes to /logs/verifier/reward.txt
if [ -f /tests/expected.txt ] && cmp -s /tests/expected.txt greeting.txt; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""

SOLVE_SH = """\
#!/bin/bash
cat /solution/greeting.in > greeting.txt
echo "wrote greeting.txt"
"""


def make_harbor_task(root: Path, name: str = "hello-greeting") -> Path:
    src = root / name
    (src / "environment").mkdir(parents=True)
    (src / "tests").mkdir()
    (src / "solution").mkdir()
    (src / "instruction.md").write_text("Write `greeting.txt` containing `hello, harbor`.\n")
    (src / "task.toml").write_text(HARBOR_TOML)
    (src / "environment" / "Dockerfile").write_text("FROM agbench/base\nWORKDIR /app\n")
    (src / "environment" / "notes.txt").write_text("context file\n")
    (src / "tests" / "test.sh").write_text(TEST_SH)
    (src / "tests" / "expected.txt").write_text("hello, harbor\n")
    (src / "solution" / "solve.sh").write_text(SOLVE_SH)
    (src / "solution" / "greeting.in").write_text("hello, harbor\n")
    return src


def verify(task_dir: Path, work: Path) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, str(task_dir / "verifier" / "verify.py")],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.skipif(shutil.which("bash") is None, reason="Harbor scripts need bash")
def test_imported_task_loads_and_oracle_passes_null_fails(tmp_path: Path) -> None:
    src = make_harbor_task(tmp_path / "harbor")
    dest = import_harbor_task(src, tmp_path / "suite")
    assert dest == tmp_path / "suite" / "terminal" / "hello-greeting"

    task = load_task(dest)
    assert (task.id, task.category, task.difficulty) == ("hello-greeting", "terminal", "hard")
    assert task.time_limit_s == 600.0
    assert task.limits.memory_mb == 1024
    assert task.limits.cpus == 2.0
    assert task.required_programs == ("python3", "bash")
    assert task.dockerfile is not None
    assert "WORKDIR /app" in task.dockerfile.read_text()
    origin = task.metadata["origin"]
    assert origin["format"] == "harbor"
    assert origin["harbor_category"] == "file-operations"
    assert origin["workdir"] == "/app"
    assert origin["tags"] == ["bash", "text"]
    assert [t.id for t in load_suite(tmp_path / "suite")] == ["hello-greeting"]

    # null agent: nothing changed -> reward 0, the reason quotes the reward file
    null_work = tmp_path / "null"
    shutil.copytree(task.environment_dir, null_work)
    result = verify(dest, null_work)
    assert result["reward"] == 0.0
    assert "reward.txt" in str(result["reason"])

    # oracle: solve.py wraps solve.sh (which reads /solution/greeting.in) -> reward 1
    work = tmp_path / "work"
    shutil.copytree(task.environment_dir, work)
    solved = subprocess.run(
        [sys.executable, str(dest / "solution" / "solve.py")],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert solved.returncode == 0, solved.stderr
    assert (work / "greeting.txt").read_text() == "hello, harbor\n"
    assert verify(dest, work)["reward"] == 1.0

    plan = json.loads((dest / "solution" / "tools.json").read_text())
    assert plan[-1] == {"tool": "python", "arguments": {"code": "@solve.py"}}


@pytest.mark.skipif(shutil.which("bash") is None, reason="Harbor scripts need bash")
def test_reward_json_and_missing_reward_file(tmp_path: Path) -> None:
    src = make_harbor_task(tmp_path / "harbor", "json-reward")
    (src / "tests" / "test.sh").write_text("echo '{\"reward\": 0.5}' > /logs/verifier/reward.json\n")
    dest = import_harbor_task(src, tmp_path / "suite")
    work = tmp_path / "w1"
    work.mkdir()
    assert verify(dest, work)["reward"] == 0.5

    src2 = make_harbor_task(tmp_path / "harbor", "exit-only")
    (src2 / "tests" / "test.sh").write_text("exit 3\n")
    dest2 = import_harbor_task(src2, tmp_path / "suite")
    result = verify(dest2, work)
    assert result["reward"] == 0.0
    assert "no reward file" in str(result["reason"])


def test_bad_inputs_raise_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(AgbenchError, match="not found"):
        import_harbor_task(tmp_path / "missing", tmp_path / "suite")

    src = make_harbor_task(tmp_path / "harbor")
    with pytest.raises(AgbenchError, match="unknown category"):
        import_harbor_task(src, tmp_path / "suite", category="games")

    (src / "tests" / "test.sh").unlink()
    with pytest.raises(AgbenchError, match=r"missing tests/test\.sh"):
        import_harbor_task(src, tmp_path / "suite")

    src = make_harbor_task(tmp_path / "harbor2")
    (src / "task.toml").write_text("version = [unclosed\n")
    with pytest.raises(AgbenchError, match=r"task\.toml"):
        import_harbor_task(src, tmp_path / "suite")
    assert not (tmp_path / "suite" / "terminal" / "hello-greeting").exists()

    src = make_harbor_task(tmp_path / "harbor3")
    import_harbor_task(src, tmp_path / "suite")
    with pytest.raises(AgbenchError, match="already exists"):
        import_harbor_task(src, tmp_path / "suite")
    assert import_harbor_task(src, tmp_path / "suite", overwrite=True).is_dir()

    with pytest.raises(AgbenchError) as info:
        import_harbor_task(tmp_path / "missing", tmp_path / "suite")
    assert "\n" not in str(info.value)


@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_imported_task_passes_tasks_check_in_bwrap_sandbox(tmp_path: Path) -> None:
    """The wrappers work inside a real sandbox: no /tests, /solution or /logs to write to."""
    from agbench.live.taskcheck import check_tasks

    dest = import_harbor_task(make_harbor_task(tmp_path / "harbor"), tmp_path / "suite")
    [check] = check_tasks([load_task(dest)], "bwrap", progress=False)
    assert check.oracle_ok, check.detail
    assert check.null_ok, check.detail


def test_import_a_whole_dataset_folder(tmp_path: Path) -> None:
    from agbench.harbor import import_harbor_tasks

    dataset = tmp_path / "dataset"
    make_harbor_task(dataset, "task-a")
    make_harbor_task(dataset, "task-b")
    (dataset / "README.md").write_text("not a task\n")
    (dataset / "assets").mkdir()
    paths = import_harbor_tasks(dataset, tmp_path / "suite", category="system")
    assert [p.name for p in paths] == ["task-a", "task-b"]
    assert {t.id: t.category for t in load_suite(tmp_path / "suite")} == {
        "task-a": "system",
        "task-b": "system",
    }
    with pytest.raises(AgbenchError, match="no Harbor task folders"):
        import_harbor_tasks(dataset / "assets", tmp_path / "suite")


@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_harbor_tests_run_in_the_isolated_grading_sandbox(tmp_path: Path) -> None:
    """test.sh runs where every verifier runs: not as the agent's uid, HOME not /work, /work
    read-only (test.sh gets a writable copy as its cwd); a broken test.sh is reward 0."""
    from agbench.live.taskcheck import check_tasks

    src = make_harbor_task(tmp_path / "harbor", "isolated-greeting")
    (src / "tests" / "test.sh").write_text(
        "#!/bin/bash\n"
        'if [ "$(id -u)" != 1000 ] && [ "$HOME" != /work ] && ! touch /work/probe 2>/dev/null \\\n'
        "   && touch ./probe && cmp -s /tests/expected.txt greeting.txt; then\n"
        "  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi\n"
    )
    dest = import_harbor_task(src, tmp_path / "suite")
    [check] = check_tasks([load_task(dest)], "bwrap", progress=False)
    assert check.oracle_ok, check.detail
    assert check.null_ok, check.detail

    (dest / "verifier" / "tests" / "test.sh").unlink()
    work = tmp_path / "w"
    work.mkdir()
    result = verify(dest, work)
    assert result["reward"] == 0.0
    assert "verifier could not grade" in str(result["reason"])

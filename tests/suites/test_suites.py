"""Suites: strict manifests, asset checks, lenient task loading, the Harbor import on the CLI,
per-task images on both backends, and strict-status rows in a run's report.

The Harbor dataset under ``harbor_dataset/`` is written for these tests in Terminal-Bench 2's
format: each task has its own ``environment/Dockerfile`` built ``FROM`` the local base image
(one installs a Debian package from a .deb and a PyPI package from a wheel, both in the build
context, so it builds offline too), ``tests/test.sh`` writing ``/logs/verifier/reward.txt`` and
``solution/solve.sh``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from agbench.cli import main
from agbench.status import Status
from agbench.suites.assets import check_assets, is_lfs_pointer
from agbench.suites.manifest import validate_manifest
from agbench.suites.registry import FULL_ACTIVE, discover_suites, plan_suites, select_suites
from agbench.task import load_task

if TYPE_CHECKING:
    from agbench.live.serving import ManagedServer

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DATASET = HERE / "harbor_dataset"
LFS_STUB = "version https://git-lfs.github.com/spec/v1\noid sha256:{}\nsize 123456\n".format("a" * 64)
has_docker = shutil.which("dockerd") is not None or shutil.which("docker") is not None
has_bwrap = shutil.which("bwrap") is not None
needs_docker = pytest.mark.skipif(not has_docker, reason="needs Docker (task images are built by it)")


def good_manifest(suite: str) -> dict[str, object]:
    return json.loads((REPO / "tasks" / "manifest.json").read_text()) | {"id": suite, "name": suite}


def native_task(root: Path, task_id: str) -> Path:
    """A minimal agbench task (no Dockerfile): write ok to out.txt."""
    task = root / "terminal" / task_id
    (task / "verifier").mkdir(parents=True)
    (task / "environment").mkdir()
    (task / "solution").mkdir()
    (task / "task.toml").write_text(f'id = "{task_id}"\ncategory = "terminal"\ndifficulty = "easy"\n')
    (task / "instruction.md").write_text("Write ok to out.txt.\n")
    (task / "verifier" / "verify.py").write_text(
        "import json, pathlib\np = pathlib.Path('out.txt')\n"
        "ok = p.is_file() and p.read_bytes().strip() == b'ok'\n"
        "print(json.dumps({'reward': float(ok), 'reason': 'out.txt'}))\n"
    )
    (task / "solution" / "solve.py").write_text("open('out.txt', 'w').write('ok\\n')\nprint('ok')\n")
    return task


def make_suite(root: Path, suite: str, task_id: str, **changes: object) -> Path:
    folder = root / suite
    native_task(folder, task_id)
    manifest = good_manifest(suite)
    for key, value in changes.items():
        if value is None:
            manifest.pop(key, None)
        else:
            manifest[key] = value
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


# --- manifests -----------------------------------------------------------------------------------


def test_builtin_suite_manifest_is_strictly_valid() -> None:
    check = validate_manifest(REPO / "tasks" / "manifest.json")
    assert check.ok, check.problems
    assert check.suite_id == "agbench-60"


def test_incomplete_manifest_or_moving_ref_is_rejected_with_every_problem(tmp_path: Path) -> None:
    moving = {"kind": "git", "url": "https://example.org/b.git", "commit": "main"}
    folder = make_suite(tmp_path, "bad", "bad-task", source=moving, license=None, scoring={"method": "vibes"})
    check = validate_manifest(folder / "manifest.json")
    assert not check.ok
    text = " | ".join(check.problems)
    assert "missing required field 'license'" in text
    assert "'main' is a moving or malformed ref" in text
    assert "scoring.method" in text
    revision = {"kind": "dataset", "url": "https://example.org/d", "revision": "latest"}
    folder = make_suite(tmp_path, "bad2", "bad2-task", source=revision)
    assert any("moving ref" in p for p in validate_manifest(folder / "manifest.json").problems)
    pinned = {
        "kind": "git",
        "url": "https://example.org/b.git",
        "commit": "0123456789abcdef0123456789abcdef01234567",
    }
    folder = make_suite(tmp_path, "good", "good-task", source=pinned)
    assert validate_manifest(folder / "manifest.json").ok
    (tmp_path / "torn").mkdir()
    (tmp_path / "torn" / "manifest.json").write_text("{not json")
    assert "unreadable manifest" in validate_manifest(tmp_path / "torn" / "manifest.json").problems[0]


# --- assets --------------------------------------------------------------------------------------


def test_asset_checks_missing_checksum_size_lfs_and_recipe(tmp_path: Path) -> None:
    data = b"a,b\n1,2\n"
    digest = hashlib.sha256(data).hexdigest()
    folder = make_suite(
        tmp_path / "tasks",
        "assets-suite",
        "assets-task",
        assets=[
            {"path": "data/table.csv", "sha256": digest, "size": len(data), "from": "data/table.csv"},
            {"path": "data/missing.bin", "sha256": "0" * 64},
            {"path": "data/wrong.bin", "sha256": "1" * 64},
            {"path": "data/model.bin", "sha256": "a" * 64, "size": 123456},
        ],
    )
    (folder / "data").mkdir()
    (folder / "data" / "table.csv").write_bytes(data)  # the recipe's source, shipped with the suite
    cache = tmp_path / "assets"
    (cache / "assets-suite" / "data").mkdir(parents=True)
    (cache / "assets-suite" / "data" / "wrong.bin").write_bytes(b"not what the manifest says")
    (cache / "assets-suite" / "data" / "model.bin").write_text(LFS_STUB)
    manifest = validate_manifest(folder / "manifest.json").manifest
    assert manifest is not None
    problems = {p.path: p.problem for p in check_assets(manifest, cache)}
    assert problems == {
        "data/missing.bin": "missing",
        "data/wrong.bin": "checksum",
        "data/model.bin": "lfs_pointer",
    }
    assert (cache / "assets-suite" / "data" / "table.csv").read_bytes() == data  # filled by the recipe
    assert is_lfs_pointer(cache / "assets-suite" / "data" / "model.bin")


# --- loading and selection -----------------------------------------------------------------------


def test_bad_task_toml_does_not_abort_list_or_other_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    native_task(tmp_path, "fine-task")
    broken = native_task(tmp_path, "broken-task")
    (broken / "task.toml").write_text('id = "broken-task"\ncategory = "nonsense"\n')
    monkeypatch.setenv("AGBENCH_TASKS", str(tmp_path))
    result = CliRunner().invoke(main, ["tasks", "list"])
    assert result.exit_code == 0, result.output
    assert "fine-task" in result.output
    assert "skipped:" in result.output
    assert "unknown category" in result.output
    result = CliRunner().invoke(main, ["tasks", "check", "no-such-task"])
    assert result.exit_code == 2
    assert "unknown task id(s): no-such-task" in result.output
    if has_bwrap:  # tasks check of another task is not stopped by the bad one
        result = CliRunner().invoke(main, ["tasks", "check", "--backend", "bwrap", "fine-task"])
        assert result.exit_code == 0, result.output
        assert "all 1 tasks pass" in result.output
        assert "skipped:" in result.output


def test_suite_selection_and_full_active_profile(tmp_path: Path) -> None:
    make_suite(tmp_path, "alpha", "alpha-task")
    make_suite(tmp_path, "beta", "beta-task", active=False)
    make_suite(tmp_path, "gamma", "gamma-task", required_tools=["read_file", "browser_click"])
    suites = discover_suites(tmp_path)
    assert {s.id for s in select_suites(suites, profile=FULL_ACTIVE)} == {"agbench-60", "alpha", "gamma"}
    assert [s.id for s in select_suites(suites, ["beta"])] == ["beta"]
    with pytest.raises(Exception, match="unknown suite 'nope'"):
        select_suites(suites, ["nope"])
    tasks = {t.id: t for t in plan_suites(tmp_path, ["alpha", "gamma"], exposed_tools=["read_file"])}
    assert "suite_status" not in tasks["alpha-task"].metadata
    assert tasks["gamma-task"].metadata["suite_status"] == Status.FAILED_MISSING_REQUIRED_TOOL
    assert "browser_click" in tasks["gamma-task"].metadata["suite_reason"]


# --- Harbor import through the CLI ---------------------------------------------------------------


def import_dataset(root: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> CliRunner:
    monkeypatch.setenv("AGBENCH_TASKS", str(root))
    runner = CliRunner()
    result = runner.invoke(main, ["tasks", "import", "harbor", str(DATASET), *extra, "--suite", "tb2-test"])
    assert result.exit_code == 0, result.output
    return runner


def test_import_keeps_scripts_records_origin_and_skips_a_bad_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "src" / "not-a-task"
    shutil.copytree(DATASET / "fix-greeting", bad)
    (bad / "tests" / "test.sh").unlink()
    import_dataset(tmp_path / "tasks", monkeypatch, str(tmp_path / "src"))
    suite = tmp_path / "tasks" / "tb2-test"
    ids = sorted(p.name for p in (suite / "terminal").iterdir())
    assert ids == ["deb-and-wheel", "fix-greeting", "image-data-sum"]
    task = load_task(suite / "terminal" / "deb-and-wheel")
    assert task.metadata["origin"]["format"] == "harbor"
    assert task.metadata["origin"]["license"] == "Apache-2.0"
    assert task.metadata["build_timeout_s"] == 300.0
    assert (suite / "terminal" / "deb-and-wheel" / "verifier" / "tests" / "test.sh").read_bytes() == (
        DATASET / "deb-and-wheel" / "tests" / "test.sh"
    ).read_bytes()
    check = validate_manifest(suite / "manifest.json")
    assert check.ok, check.problems
    assert check.manifest is not None
    assert check.manifest.raw["source"]["kind"] in ("harbor", "dataset")


def test_import_reports_every_bad_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGBENCH_TASKS", str(tmp_path / "tasks"))
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(
        main, ["tasks", "import", "harbor", str(tmp_path / "empty"), str(tmp_path / "gone")]
    )
    assert result.exit_code == 1
    assert "no Harbor task folders" in result.output
    assert "Harbor folder not found" in result.output


@needs_docker
@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize(
    "backend",
    ["docker", pytest.param("bwrap", marks=pytest.mark.skipif(not has_bwrap, reason="needs bwrap"))],
)
def test_imported_dataset_passes_tasks_check(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = import_dataset(tmp_path / "tasks", monkeypatch)
    result = runner.invoke(main, ["tasks", "check", "--backend", backend, "--suite", "tb2-test"])
    assert result.exit_code == 0, result.output
    assert "all 3 tasks pass" in result.output


# --- per-task images: failures ---------------------------------------------------------------------


def harbor_like(tmp_path: Path, dockerfile: str) -> Path:
    task = tmp_path / "terminal" / "broken-env"
    shutil.copytree(DATASET / "image-data-sum", tmp_path / "src")
    (tmp_path / "src" / "environment" / "Dockerfile").write_text(dockerfile)
    from agbench.harbor import import_harbor_task

    import_harbor_task(tmp_path / "src", tmp_path, "terminal")
    shutil.move(str(tmp_path / "terminal" / "src"), task)
    return task


@needs_docker
@pytest.mark.docker
@pytest.mark.parametrize(
    ("dockerfile", "expected"),
    [
        # Offline (--build-network none), a Dockerfile that fetches says it needs the network.
        ("FROM agbench/base\nRUN apt-get update && apt-get install -y cowsay\n", "needs the network"),
        (
            "FROM registry.invalid/agbench-test/absent:1\n",
            "'registry.invalid/agbench-test/absent:1' is not present",
        ),
    ],
)
def test_a_task_image_that_cannot_build_is_failed_setup(
    tmp_path: Path, dockerfile: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agbench.live.sandbox import create_sandbox
    from agbench.live.sandbox.build_network import BUILD_NETWORK_ENV
    from agbench.live.sandbox.task_image import TaskImageError, build_log_path, task_image_tag

    monkeypatch.setenv(BUILD_NETWORK_ENV, "none")
    task = load_task(harbor_like(tmp_path, dockerfile))
    sandbox = create_sandbox("docker", task, tmp_path / "attempt")
    with pytest.raises(TaskImageError) as err:
        asyncio.run(sandbox.start())
    assert expected in str(err.value)
    if "network" in expected:
        assert "apt-get" in build_log_path(task_image_tag(task)).read_text()
        assert "(log " in str(err.value)


# --- strict statuses in a run's report --------------------------------------------------------------


@pytest.mark.bwrap
@pytest.mark.skipif(not has_bwrap, reason="needs bwrap")
def test_broken_suites_show_strict_status_in_report_while_others_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache = tmp_path / "tasks", tmp_path / "assets"
    moving = {"kind": "git", "url": "https://example.org/b.git", "commit": "HEAD"}
    make_suite(root, "good-suite", "good-task")
    make_suite(root, "broken-manifest", "bm-task", source=moving)
    make_suite(root, "missing-asset", "ma-task", assets=[{"path": "data/table.csv", "sha256": "0" * 64}])
    make_suite(root, "lfs-stub", "lfs-task", assets=[{"path": "data/model.bin", "sha256": "a" * 64}])
    (cache / "lfs-stub" / "data").mkdir(parents=True)
    (cache / "lfs-stub" / "data" / "model.bin").write_text(LFS_STUB)
    monkeypatch.setenv("AGBENCH_TASKS", str(root))
    monkeypatch.setenv("AGBENCH_ASSETS", str(cache))
    monkeypatch.chdir(tmp_path)
    run_dir = tmp_path / "run"
    args = ["run", "--arch", "LO", "--concurrency", "1", "--agent", "oracle", "--backend", "bwrap", "--quiet"]
    for suite in ("good-suite", "broken-manifest", "missing-asset", "lfs-stub"):
        args += ["--suite", suite]
    result = CliRunner().invoke(main, [*args, "--out", str(run_dir)])
    assert result.exit_code == 0, result.output
    rows = {
        r["task"]: r for r in map(json.loads, (run_dir / "graded_results.jsonl").read_text().splitlines())
    }
    assert rows["good-task"]["status"] == Status.SUCCESS
    assert rows["bm-task"]["status"] == Status.FAILED_MANIFEST_VALIDATION
    assert rows["ma-task"]["status"] == Status.FAILED_MISSING_ASSETS
    assert rows["lfs-task"]["status"] == Status.FAILED_MISSING_ASSETS
    assert "LFS pointer" in rows["lfs-task"]["reason"]
    assert "moving" in rows["bm-task"]["reason"]
    summary = json.loads((run_dir / "summary.json").read_text())
    failures = summary["configurations"][0]["failures"]
    assert failures["failed_manifest_validation"] == 1
    assert failures["failed_missing_assets"] == 2
    strict = {s["id"]: s["strict_status"] for s in summary["suites"]}
    assert strict == {
        "good-suite": "ok",
        "broken-manifest": "failed_manifest_validation",
        "missing-asset": "failed_missing_assets",
        "lfs-stub": "failed_missing_assets",
    }
    html = (run_dir / "summary.html").read_text()
    for status in ("failed_manifest_validation", "failed_missing_assets", "Git LFS pointer stub"):
        assert status in html


@pytest.mark.server
def test_official_openai_client_through_the_proxy(server: ManagedServer) -> None:
    """The official client (streaming and not, with tools) against llama-server via the proxy."""
    openai = pytest.importorskip(
        "openai", reason="the openai package is not installed in .venv (agbench does not depend on it)"
    )
    from agbench.attempt import AttemptKey
    from agbench.live.proxy import CallRecord, RecordingProxy, Upstream

    tools = [
        {
            "type": "function",
            "function": {
                "name": "add",
                "description": "Add two integers.",
                "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            },
        }
    ]
    records: list[CallRecord] = []
    key = AttemptKey.of("run-o", "dev", "LO", 1, "openai-client", 0)

    async def go(url: str) -> None:
        async with RecordingProxy(
            {"local": Upstream(url, api_key="sk-upstream")}, None, records.append
        ) as proxy:
            base = proxy.base_url("local", proxy.register_attempt(key, ()))
            client = openai.AsyncOpenAI(base_url=base, api_key="not-a-real-key")
            msgs = [{"role": "user", "content": "What is 2 + 3?"}]
            plain = await client.chat.completions.create(model="m", messages=msgs, tools=tools, max_tokens=8)
            assert plain.choices[0].message is not None
            stream = await client.chat.completions.create(
                model="m", messages=msgs, tools=tools, max_tokens=8, stream=True
            )
            chunks = [c async for c in stream]
            assert chunks
            await client.close()

    asyncio.run(go(server.url))
    assert len(records) == 2
    assert all(r.result.ok for r in records)


# --- assets inside the sandbox -------------------------------------------------------------------

READ_ASSET = """import pathlib
data = pathlib.Path('/benchmark/assets/data/table.csv').read_text()
try:
    pathlib.Path('/benchmark/assets/planted.txt').write_text('x')
    mode = 'writable'
except OSError:
    mode = 'read-only'
pathlib.Path('out.txt').write_text(data + mode)
print('done')
"""


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("bwrap", marks=pytest.mark.skipif(not has_bwrap, reason="needs bwrap")),
        pytest.param("docker", marks=[needs_docker, pytest.mark.docker]),
    ],
)
def test_sandbox_sees_only_its_suites_assets_read_only(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"a,b\n1,2\n"
    root, cache = tmp_path / "tasks", tmp_path / "assets"
    asset = {"path": "data/table.csv", "sha256": hashlib.sha256(data).hexdigest(), "from": "data/table.csv"}
    folder = make_suite(root, "asset-suite", "asset-task", assets=[asset])
    (folder / "data").mkdir()
    (folder / "data" / "table.csv").write_bytes(data)
    task = folder / "terminal" / "asset-task"
    (task / "solution" / "solve.py").write_text(READ_ASSET)
    (task / "verifier" / "verify.py").write_text(
        "import json, pathlib\np = pathlib.Path('out.txt')\n"
        "ok = p.is_file() and p.read_text() == 'a,b\\n1,2\\nread-only'\n"
        "print(json.dumps({'reward': float(ok), 'reason': p.read_text() if p.is_file() else 'none'}))\n"
    )
    make_suite(root, "other-suite", "other-task")  # no assets: no mount
    monkeypatch.setenv("AGBENCH_TASKS", str(root))
    monkeypatch.setenv("AGBENCH_ASSETS", str(cache))
    monkeypatch.chdir(tmp_path)
    args = ["run", "--arch", "LO", "--concurrency", "1", "--agent", "oracle", "--backend", backend, "--quiet"]
    args += ["--suite", "asset-suite", "--suite", "other-suite", "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = {
        r["task"]: r
        for r in map(json.loads, (tmp_path / "run" / "graded_results.jsonl").read_text().splitlines())
    }
    assert rows["asset-task"]["status"] == Status.SUCCESS, rows["asset-task"]["reason"]
    assert rows["other-task"]["status"] == Status.SUCCESS
    assert not (cache / "asset-suite" / "planted.txt").exists()

"""The external harness launcher against the managed llama-server, through the recording proxy.

The test suite ``external_suite/`` ships a tiny harness of our own; it runs in a disposable
container (no network, capabilities dropped, no-new-privileges, limits) and reaches the model
only through the relay to the proxy, which records every call. The upstream key is given to the
proxy only: it must be absent from the container's environment and from every file written.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from agbench.attempt import AttemptKey
from agbench.errors import AgbenchError
from agbench.live.launcher.container import launch_harness
from agbench.live.launcher.contract import BenchmarkAdapter, missing_capabilities
from agbench.live.launcher.environment import HarnessSettings, harness_environment
from agbench.live.proxy import CallRecord, RecordingProxy, Upstream
from agbench.live.serving import ManagedServer
from agbench.status import Status
from agbench.suites.manifest import validate_manifest

HERE = Path(__file__).resolve().parent
SECRET = "sk-agbench-upstream-SECRET-4f1c2b9e"
ATTEMPT = AttemptKey.of("run-h", "dev", "LO", 1, "mini-harness", 0)
needs_docker = pytest.mark.skipif(shutil.which("dockerd") is None, reason="needs Docker (dockerd)")


def test_environment_has_both_spellings_and_refuses_a_key() -> None:
    env = harness_environment(HarnessSettings("m", max_tokens=8, context_limit=512), "http://127.0.0.1:1/v1")
    for key in ("BASE_URL", "MODEL", "PROVIDER", "OUTPUT_DIR", "TOOL_PARSER", "MAX_TOKENS", "CONTEXT_LIMIT"):
        assert env[f"AGBENCH_{key}"] == env[f"AGENT_BENCH_{key}"]
    with pytest.raises(AgbenchError, match="credential"):
        harness_environment(HarnessSettings("m"), f"http://x/{SECRET}/v1", secrets=(SECRET,))


def test_builtin_adapter_implements_the_contract() -> None:
    from agbench.live.launcher.builtin_adapter import BuiltinAdapter

    adapter = BuiltinAdapter("bwrap", Path("/tmp"))
    assert isinstance(adapter, BenchmarkAdapter)
    assert missing_capabilities(adapter) == []
    assert missing_capabilities(object()) == [
        "prepare_task", "available_tools", "run_agent_loop", "collect_outputs", "grade"
    ]  # fmt: skip


@pytest.mark.server
@needs_docker
def test_harness_runs_through_launcher_and_proxy(server: ManagedServer, tmp_path: Path) -> None:
    check = validate_manifest(HERE / "external_suite" / "manifest.json")
    assert check.manifest is not None, check.problems
    records: list[CallRecord] = []
    raw_log = tmp_path / "raw_responses.jsonl"
    out = tmp_path / "harness-output"

    async def go() -> object:
        upstream = Upstream(server.url, api_key=SECRET)
        async with RecordingProxy({"local": upstream}, raw_log, records.append) as proxy:
            token = proxy.register_attempt(ATTEMPT, ())
            return await launch_harness(
                check.manifest,
                proxy_base_url=proxy.base_url("local", token, agent="local"),
                proxy_port=proxy.port,
                settings=HarnessSettings("smollm2-135m", max_tokens=8, context_limit=1024),
                out_dir=out,
                timeout_s=300,
                secrets=(SECRET,),
                assets_root=tmp_path / "assets",
            )

    run = asyncio.run(go())
    assert run.status == Status.SUCCESS, (run.reason, run.log_tail)  # type: ignore[attr-defined]
    result = run.result  # type: ignore[attr-defined]
    # On a miss, say what each item got (an error, an empty answer) and what the proxy recorded.
    items = result["items"]
    assert run.score == 1.0, (items, [(r.result.status_code, r.result.error_class) for r in records])  # type: ignore[attr-defined]
    assert {r["id"] for r in result["items"]} == {"colour", "sum"}
    assert "AGBENCH_BASE_URL" in result["env_seen"]
    assert "AGENT_BENCH_MODEL" in result["env_seen"]
    # Both calls went through the proxy and were recorded for this attempt, as its local agent.
    assert len(records) == 2
    assert all(r.result.ok for r in records)
    assert {r.key for r in records} == {ATTEMPT}
    assert {r.agent for r in records} == {"local"}
    assert len(raw_log.read_text().splitlines()) == 2
    # The key: nowhere in the container's environment or in any file written.
    env = run.container_env  # type: ignore[attr-defined]
    assert env
    assert not any(SECRET in e for e in env)
    assert not any(e.split("=", 1)[0].endswith("API_KEY") for e in env)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "agbench_result.json" for p in written)
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path
    assert json.loads((out / "agbench-output" / "agbench_result.json").read_text())["score"] == 1.0


@pytest.mark.server
@pytest.mark.docker
@needs_docker
def test_harness_suite_is_one_row_of_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`agbench run --suite mini-harness`: the launcher runs as the suite's attempt, its calls are
    recorded in raw_responses.jsonl and counted in the row, its score is the row's reward."""
    from click.testing import CliRunner

    from agbench.cli import main

    shutil.copytree(HERE / "external_suite", tmp_path / "tasks" / "mini-harness")
    monkeypatch.setenv("AGBENCH_TASKS", str(tmp_path / "tasks"))
    monkeypatch.setenv("AGBENCH_ASSETS", str(tmp_path / "assets"))
    monkeypatch.chdir(tmp_path)
    args = ["run", "--arch", "LO", "--concurrency", "1", "--suite", "mini-harness", "--max-tokens", "8"]
    args += ["--local-threads", "1"]
    result = CliRunner().invoke(
        main, [*args, "--external-timeout", "300", "--quiet", "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "run"
    rows = [json.loads(line) for line in (run_dir / "graded_results.jsonl").read_text().splitlines()]
    assert len(rows) == 1
    assert rows[0]["task"] == "mini-harness:suite"
    assert rows[0]["status"] == "success", rows[0]["reason"]
    assert rows[0]["reward"] == 1.0, rows[0]["reason"]
    assert rows[0]["prompt_tokens"] > 0  # the harness's calls count as the attempt's
    assert len((run_dir / "raw_responses.jsonl").read_text().splitlines()) == 2
    assert list(run_dir.glob("harness/*/agbench-output/agbench_result.json"))

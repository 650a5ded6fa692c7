"""Preflight: a mistyped URL, key or model name fails before any task with one line naming it.

Error paths use a scripted loopback server (``FakeOpenAIServer``); the model-list check also
runs against the real managed llama-server (SmolLM2), and the command line is run for real.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agbench.config import Architecture
from agbench.live.providers.mock import FakeOpenAIServer, FakeResponse
from agbench.live.runner import SweepOptions
from agbench.live.runner import preflight as preflight_module
from agbench.live.runner.preflight import (
    EndpointCheck,
    PreflightError,
    check_disk,
    check_endpoint,
    check_managed_model,
    check_sandbox,
    endpoint_checks,
    preflight,
)
from agbench.live.serving import ManagedServer

REPO = Path(__file__).resolve().parents[2]
MODELS = {"object": "list", "data": [{"id": "qwen-local", "object": "model"}]}
TWO_MODELS = {"object": "list", "data": [{"id": "a"}, {"id": "b"}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def check(url: str, model: str = "qwen-local", key: str | None = None) -> EndpointCheck:
    return EndpointCheck("--local-url", url, model, key, "MY_KEY" if key else None, "--local-model")


def against(reply: FakeResponse, endpoint: EndpointCheck) -> tuple[str, FakeOpenAIServer]:
    """``check_endpoint`` (blocking) against a scripted server running in this loop."""

    async def go() -> tuple[str, FakeOpenAIServer]:
        async with FakeOpenAIServer([reply]) as fake:
            target = EndpointCheck(
                endpoint.flag, fake.url + endpoint.url, endpoint.model, endpoint.api_key,
                endpoint.key_env, endpoint.model_flag,
            )  # fmt: skip
            return await asyncio.to_thread(check_endpoint, target), fake

    return asyncio.run(go())


def test_unreachable_url_names_the_flag_and_url() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(PreflightError, match=rf"^--local-url {url}: unreachable"):
        check_endpoint(check(url))


def test_model_must_be_listed() -> None:
    model, _ = against(FakeResponse(body=MODELS), check(""))
    assert model == "qwen-local"
    with pytest.raises(
        PreflightError, match=r"--local-model 'qwen-locl' is not served at .* lists: qwen-local"
    ):
        against(FakeResponse(body=MODELS), check("", model="qwen-locl"))


def test_auto_takes_the_only_model_and_refuses_a_choice() -> None:
    assert against(FakeResponse(body=MODELS), check("", model="auto"))[0] == "qwen-local"
    with pytest.raises(PreflightError, match=r"exactly one model .* lists a, b"):
        against(FakeResponse(body=TWO_MODELS), check("", model="auto"))


def test_rejected_key_is_not_authenticated_and_the_key_is_sent() -> None:
    with pytest.raises(PreflightError, match=r"not authenticated \(HTTP 401\); key from \$MY_KEY"):
        against(FakeResponse(status=401, body={"error": {"message": "bad key"}}), check("", key="sk-x"))
    _, fake = against(FakeResponse(body=MODELS), check("", key="sk-x"))
    assert fake.requests[0][0]["authorization"] == "Bearer sk-x"


def test_local_api_key_env_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_KEY_FOR_TEST", "sk-local")
    options = SweepOptions(local_url="http://h:1", local_api_key_env="LOCAL_KEY_FOR_TEST")
    [endpoint] = endpoint_checks(options)
    assert endpoint.api_key == "sk-local"
    assert endpoint.flag == "--local-url"


def test_cloud_url_checked_only_when_an_architecture_calls_it() -> None:
    only_local = SweepOptions(archs=[Architecture.LO], local_url="http://l:1", cloud_url="http://c:1")
    assert [c.flag for c in endpoint_checks(only_local)] == ["--local-url"]
    hybrid = SweepOptions(archs=[Architecture.HLL], local_url="http://l:1", cloud_url="http://c:1")
    assert [c.flag for c in endpoint_checks(hybrid)] == ["--local-url", "--cloud-url"]
    assert endpoint_checks(SweepOptions(agent="null", local_url="http://l:1")) == []


def test_managed_model_must_resolve() -> None:
    with pytest.raises(PreflightError, match="--local-model: unknown model 'smollm3'"):
        check_managed_model(SweepOptions(local_model="smollm3"))
    with pytest.raises(PreflightError, match="auto needs --local-url"):
        check_managed_model(SweepOptions(local_model="auto"))


def test_disk_needs_room_and_write_access(tmp_path: Path) -> None:
    check_disk(tmp_path / "not" / "yet")
    with pytest.raises(PreflightError, match="MiB free"):
        check_disk(tmp_path, min_free_bytes=1 << 62)
    with pytest.raises(PreflightError, match="not writable"):
        check_disk(Path("/proc/agbench-run"))


@pytest.mark.bwrap  # preflight checks the sandbox too
def test_preflight_resolves_auto_into_the_options(tmp_path: Path) -> None:
    async def go() -> SweepOptions:
        async with FakeOpenAIServer([FakeResponse(body=MODELS)]) as fake:
            options = SweepOptions(agent="model", local_url=fake.url, local_model="auto")
            await asyncio.to_thread(preflight, options, [], tmp_path)
            return options

    assert asyncio.run(go()).local_model == "qwen-local"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGBENCH_")}
    return subprocess.run(
        [sys.executable, "-m", "agbench.cli", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=120, check=False,
    )  # fmt: skip


def test_cli_mistyped_url_is_one_line_exit_2_and_no_run_dir(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    out = tmp_path / "run"
    done = run_cli("run", "--arch", "LO", "--concurrency", "1", "--limit", "1", "--local-url", url,
                   "--out", str(out), "--quiet", cwd=REPO)  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"agbench: error: --local-url {url}: unreachable (ConnectError: [Errno 111] Connection refused)"
    ]
    assert not out.exists()


@pytest.mark.bwrap
def test_cli_no_preflight_runs_into_the_failure(tmp_path: Path) -> None:
    """Without preflight the same mistake reaches the task (an infrastructure error, exit 0)."""
    url = f"http://127.0.0.1:{free_port()}"
    out = tmp_path / "run"
    done = run_cli("run", "--arch", "LO", "--concurrency", "1", "--limit", "1", "--local-url", url,
                   "--out", str(out), "--quiet", "--no-preflight", "--retries", "0", cwd=REPO)  # fmt: skip
    assert done.returncode == 0, done.stderr
    from agbench.store import RunStore

    assert set(RunStore.open(out).table("task_runs").status) == {"infrastructure_error"}


@pytest.mark.server
@pytest.mark.slow
def test_real_server_lists_its_model(server: ManagedServer) -> None:
    assert check_endpoint(check(server.url, model="smollm2-135m")) == "smollm2-135m"
    assert check_endpoint(check(server.url, model="auto")) == "smollm2-135m"
    with pytest.raises(PreflightError, match="'smollm2-13m' is not served"):
        check_endpoint(check(server.url, model="smollm2-13m"))


def test_task_set_needs_verifiers(tmp_path: Path) -> None:
    import dataclasses

    from agbench.live.runner.preflight import check_tasks
    from agbench.task import load_suite

    suite = load_suite()
    check_tasks(suite)  # every shipped task has its verifier (an environment folder is optional)
    broken = dataclasses.replace(suite[0], path=tmp_path / suite[0].id)
    with pytest.raises(PreflightError, match=rf"task {suite[0].id}: verifier folder missing"):
        check_tasks([broken])


def _bwrap_runs(codes: list[int], monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Script the bubblewrap probe's exit codes (a unit test of the error path: no real bwrap)."""
    calls: list[list[str]] = []

    def run(args: list[str], **_kw: object) -> subprocess.CompletedProcess[bytes]:
        calls.append(args)
        code = codes[min(len(calls), len(codes)) - 1]
        err = (
            b""
            if code == 0
            else b'bwrap: Unable to apply mount flags: remount "/newroot/x": Invalid argument'
        )
        return subprocess.CompletedProcess(args, code, b"", err)

    monkeypatch.setattr(preflight_module.shutil, "which", lambda _name: "/usr/bin/bwrap")
    monkeypatch.setattr(preflight_module.subprocess, "run", run)
    monkeypatch.setattr(preflight_module.time, "sleep", lambda _s: None)
    return calls


def test_a_bwrap_probe_that_races_a_vanishing_mount_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _bwrap_runs([1, 0], monkeypatch)
    check_sandbox("bwrap")  # the second try starts
    assert len(calls) == 2


def test_bwrap_that_never_starts_fails_with_its_last_words(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _bwrap_runs([1], monkeypatch)
    with pytest.raises(PreflightError, match=r"cannot start a sandbox .*Invalid argument"):
        check_sandbox("bwrap")
    assert len(calls) == preflight_module.BWRAP_PROBE_TRIES

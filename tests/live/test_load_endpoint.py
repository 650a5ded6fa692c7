"""``--local-url`` of ``agbench load`` and ``agbench profile-server``, checked before anything is
measured (live/load/endpoint.py): one line naming the URL, exit 2, nothing written.

The scripted server stands in only for the error paths (a server that is not llama-server, one
with other slots); the last test reads the slot count from a real llama-server's ``/props``."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agbench.errors import AgbenchError
from agbench.live.load.endpoint import check_llama_server, check_reachable
from agbench.live.providers.mock import FakeOpenAIServer, FakeResponse
from agbench.live.serving.llama_server import ManagedServer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_against(answer: FakeResponse, slots: int) -> str:
    """The error ``check_llama_server`` gives against a server answering ``answer``."""

    async def go() -> str:
        async with FakeOpenAIServer([answer]) as fake:
            try:
                await asyncio.to_thread(check_llama_server, fake.url + "/v1", slots)
            except AgbenchError as exc:
                return str(exc)
            return ""

    return asyncio.run(go())


def test_a_server_without_llama_servers_props_is_refused() -> None:
    message = check_against(FakeResponse(status=404, body="not found"), 4)
    assert message.startswith("--local-url http://127.0.0.1:")
    assert "not a llama-server (GET /props answered HTTP 404" in message
    assert "\n" not in message


def test_the_profile_needs_the_servers_own_slot_count() -> None:
    assert "the server has 8 slots; give --parallel 8" in check_against(
        FakeResponse(body={"total_slots": 8}), 4
    )
    assert check_against(FakeResponse(body={"total_slots": 4}), 4) == ""


def test_an_unreachable_url_is_named() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(
        AgbenchError, match=r"^--local-url http://127\.0\.0\.1:\d+: unreachable \(ConnectError"
    ):
        check_reachable(url)


@pytest.mark.parametrize(
    "command",
    [
        ["profile-server", "--quick", "--out", "{out}"],
        ["load", "--rates", "1", "--requests", "2", "--out", "{out}"],
    ],
)
def test_the_commands_give_one_line_and_write_nothing(tmp_path: Path, command: list[str]) -> None:
    out = tmp_path / "out"
    url = f"http://127.0.0.1:{free_port()}"
    args = [a.replace("{out}", str(out)) for a in command] + ["--local-url", url]
    done = subprocess.run(
        [sys.executable, "-m", "agbench.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"agbench: error: --local-url {url}: unreachable (ConnectError: [Errno 111] Connection refused)"
    ]
    assert not out.exists()


@pytest.mark.server
def test_a_real_llama_server_passes_with_its_own_slot_count(server: ManagedServer) -> None:
    slots = server.settings.n_parallel
    assert check_llama_server(server.url, slots)["total_slots"] == slots
    with pytest.raises(AgbenchError, match=f"the server has {slots} slots; give --parallel {slots}"):
        check_llama_server(server.url, slots + 1)

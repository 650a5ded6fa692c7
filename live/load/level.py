"""Sending one open-loop level to a real server and recording every request.

Prompts are built *before* the level's clock starts (sizing them asks the server's tokenizer,
which would otherwise load the server while it is being measured), each sized exactly with
llama.cpp's ``/apply-template`` + ``/tokenize`` where the server has them, as the replay agent
does; requests of one prefix group share the same leading text so the server's prefix cache
sees them as agents' repeated system prompts. Output length is forced with ``max_tokens`` and
``ignore_eos`` (llama.cpp honours it; other servers stop early and the row's
``completion_tokens`` says so). Each request is sent at its arrival time whatever the server is
doing — open loop: a saturated server shows up as growing TTFT, never as a slower send rate.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agbench.attempt import AgentLabel, AttemptCounters, AttemptKey, Endpoint, ErrorClass
from agbench.live.providers.chat_result import ChatResult
from agbench.live.providers.openai_compatible import ChatClient
from agbench.live.trajectories.sizing import TokenCounter, fit_last_message, sized_text
from agbench.load import LoadLevel, RequestSpec
from agbench.records import ModelCall
from agbench.status import Status

#: ``user`` message content of a load request: the sized text follows this line.
_PREAMBLE = "Continue the following text."


@dataclass
class LevelResult:
    """What a level did: its rows were written to the journal as they came."""

    sent: int
    ok: int
    errors: int
    cancelled: int
    wall_s: float


async def build_prompt(
    counter: TokenCounter, request: RequestSpec, index: int, level: str
) -> list[dict[str, Any]]:
    """The messages of one request, whose templated prompt is ``request.prompt_tokens`` long."""
    prefix = ""
    if request.prefix_group and request.prefix_tokens:
        # Same key → same filler text: every request of the group starts identically.
        prefix = await sized_text(counter, "", request.prefix_tokens, f"prefix|{request.prefix_group}")
    messages: list[dict[str, Any]] = [{"role": "user", "content": ""}]
    await fit_last_message(
        counter, messages, request.prompt_tokens, f"{_PREAMBLE}\n{prefix}", f"{level}|{index}"
    )
    return messages


def _rows(key: AttemptKey, result: ChatResult, call_id: str) -> list[ModelCall]:
    return result.model_calls(key, agent=AgentLabel.LOCAL, call_id=call_id)


async def run_level(
    level: LoadLevel,
    key: AttemptKey,
    client: ChatClient,
    counter: TokenCounter,
    write: Callable[[ModelCall], None],
    *,
    max_duration_s: float,
) -> tuple[LevelResult, AttemptCounters]:
    """Send every request of ``level`` at its arrival time; rows go to ``write`` as they finish.

    Requests still running ``max_duration_s`` after the level started are cancelled and
    recorded with error class ``timeout`` (the level is bounded in time as well as in count).
    """
    prompts = [await build_prompt(counter, r, i, level.name) for i, r in enumerate(level.requests)]
    counters = AttemptCounters()
    done = {"ok": 0, "errors": 0}

    async def one(i: int, request: RequestSpec) -> None:
        delay = request.t - (time.monotonic() - t0)
        if delay > 0:
            await asyncio.sleep(delay)
        result = await client.chat(
            prompts[i],
            max_tokens=request.output_tokens,
            extra_body={"ignore_eos": True, "temperature": 0.0, "cache_prompt": True},
        )
        for row in _rows(key, result, f"r{i}"):
            counters.add_model_call(row)
            write(row)
        counters.add_model_wait(Endpoint.LOCAL, result.total_s)
        done["errors" if result.error_class else "ok"] += 1

    t0 = time.monotonic()
    tasks = [asyncio.create_task(one(i, r)) for i, r in enumerate(level.requests)]
    _, pending = await asyncio.wait(tasks, timeout=max_duration_s)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for task in pending:
        i = tasks.index(task)
        request = level.requests[i]
        row = ModelCall(
            **key.ids(),
            agent=AgentLabel.LOCAL,
            endpoint=Endpoint.LOCAL,
            call_id=f"r{i}",
            t_start=time.time(),
            total_s=max(0.0, max_duration_s - request.t),
            error_class=ErrorClass.TIMEOUT,
            finish_reason="cancelled",
        )
        counters.add_model_call(row)
        write(row)
    wall = time.monotonic() - t0
    return LevelResult(len(level.requests), done["ok"], done["errors"], len(pending), wall), counters


def level_status(result: LevelResult) -> Status:
    """A level is a success when every request was answered; errors make it an execution error."""
    return Status.SUCCESS if result.errors == 0 and result.cancelled == 0 else Status.EXECUTION_ERROR

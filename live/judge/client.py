"""Ask a model for a judgement as strict JSON, repair once, and keep everything it said.

The judge is any OpenAI-compatible chat endpoint (``ChatClient``), the target model itself,
or the offline ``mock`` judge: all three answer ``chat()``. A request goes out as a system
prompt with the JSON Schema the reply must satisfy and a user message holding the request as
JSON. An invalid reply is answered once with a repair prompt that quotes the problem; a
second invalid reply ends the judging with ``judge_parse_error``. A transport failure (timeout,
refused connection, 5xx) ends it with ``judge_error``. Neither is ever the graded model's
failure: the row becomes ``failed_grader``.

Every reply text, the parsed object, token usage and cost are kept on the ``JudgeExchange``
so graded_results.jsonl and summary.json can show them; judge cost is its own figure, apart
from the agent's cloud cost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from agbench.config import PriceTable
from agbench.live.agents.base import ChatBackend
from agbench.live.judge.schema import JudgeParseError, parse_reply
from agbench.live.providers.chat_result import ChatResult

PARSE_ERROR = "judge_parse_error"
TRANSPORT_ERROR = "judge_error"
REQUEST_MARK = "REQUEST (JSON):"
DEFAULT_MAX_TOKENS = 512


class JudgeBackend(ChatBackend, Protocol):
    """What a judge needs of a chat endpoint: an agent's ``chat()`` and the name of its model
    (``ChatClient`` and the mock judge have both)."""

    model: str


@dataclass
class JudgeExchange:
    """One judging, its repair included: what was said, what was understood, what it cost."""

    model: str
    parsed: dict[str, Any] | None = None
    raw: list[str] = field(default_factory=list)  # every reply, in order
    error: str = ""  # "" | "judge_parse_error: ..." | "judge_error: ..."
    repaired: bool = False
    calls: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def ok(self) -> bool:
        return self.parsed is not None and not self.error

    def add_usage(self, result: ChatResult, prices: PriceTable | None) -> None:
        self.calls += 1
        self.prompt_tokens += result.prompt_tokens
        self.cached_tokens += result.cached_tokens
        self.completion_tokens += result.completion_tokens
        if prices is not None:
            self.cost_usd += prices.cost(result.prompt_tokens, result.cached_tokens, result.completion_tokens)

    def record(self) -> dict[str, Any]:
        """The exchange as graded_results.jsonl / summary.json fields."""
        return {
            "judge_model": self.model,
            "judge_raw": self.raw,
            "judge_parsed": self.parsed,
            "judge_error": self.error,
            "judge_repaired": self.repaired,
            "judge_usage": {
                "calls": self.calls,
                "prompt_tokens": self.prompt_tokens,
                "cached_tokens": self.cached_tokens,
                "completion_tokens": self.completion_tokens,
            },
            "judge_cost_usd": self.cost_usd,
        }


def request_message(instruction: str, request: dict[str, Any]) -> str:
    """The user message: what to do, then the request as JSON after a fixed mark."""
    return f"{instruction}\n\n{REQUEST_MARK}\n{json.dumps(request, ensure_ascii=False, indent=1)}"


def system_prompt(role: str, schema: dict[str, Any]) -> str:
    return (
        f"{role}\nReply with exactly one JSON object and nothing else: no prose, no code fence. "
        f"It must satisfy this JSON Schema:\n{json.dumps(schema)}"
    )


def repair_prompt(problem: str, schema: dict[str, Any]) -> str:
    return (
        f"Your reply could not be used: {problem}. Reply again with only one JSON object that "
        f"satisfies this JSON Schema, with no other text:\n{json.dumps(schema)}"
    )


class LLMJudge:
    """A judge over one chat backend. ``structured`` also sends the schema as
    ``response_format`` (for servers that constrain decoding to it; not all accept it)."""

    def __init__(
        self,
        backend: JudgeBackend,
        *,
        prices: PriceTable | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        structured: bool = False,
        temperature: float | None = 0.0,
    ) -> None:
        self.backend = backend
        self.prices = prices
        self.max_tokens = max_tokens
        self.structured = structured
        self.temperature = temperature

    @property
    def model(self) -> str:
        return str(self.backend.model)

    def _extra(self, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        extra: dict[str, Any] = {}
        if self.temperature is not None:
            extra["temperature"] = self.temperature
        if self.structured:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": schema},
            }
        return extra or None

    async def ask(
        self, role: str, instruction: str, request: dict[str, Any], schema: dict[str, Any], name: str
    ) -> JudgeExchange:
        """One judgement against ``schema``: at most two calls (the second a repair)."""
        exchange = JudgeExchange(model=self.model)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(role, schema)},
            {"role": "user", "content": request_message(instruction, request)},
        ]
        for turn in range(2):
            result = await self.backend.chat(
                messages, max_tokens=self.max_tokens, extra_body=self._extra(name, schema)
            )
            exchange.add_usage(result, self.prices)
            if not result.ok:
                exchange.error = f"{TRANSPORT_ERROR}: {result.error_class}: {result.error}"[:500]
                return exchange
            exchange.raw.append(result.content)
            try:
                exchange.parsed = parse_reply(result.content, schema)
                exchange.repaired = turn == 1
                return exchange
            except JudgeParseError as exc:
                problem = str(exc)
            if turn == 0:
                messages += [
                    {"role": "assistant", "content": result.content},
                    {"role": "user", "content": repair_prompt(problem, schema)},
                ]
        exchange.error = f"{PARSE_ERROR}: {problem}"
        return exchange


__all__ = [
    "DEFAULT_MAX_TOKENS",
    "PARSE_ERROR",
    "REQUEST_MARK",
    "TRANSPORT_ERROR",
    "JudgeBackend",
    "JudgeExchange",
    "LLMJudge",
    "repair_prompt",
    "request_message",
    "system_prompt",
]

"""The four architectures' coordination, driven by scripted models in a real bubblewrap sandbox.

The models are scripted (``MockChatClient``) so every path is exercised deterministically:
HCL's ``delegate`` runs a local sub-agent loop with real tools and returns its report; HLL's
``consult`` asks the cloud once; each is one ``messages`` row; a local context error inside a
hybrid is counted against the local agent even when the cloud lead carries on.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from agbench.attempt import AttemptKey
from agbench.config import Architecture, Configuration, PriceTable
from agbench.journal import JournalWriter, read_journal
from agbench.live.agents.base import AgentContext, AttemptRecorder
from agbench.live.agents.model_agent import ModelAgent, final_answer, tools_as_text
from agbench.live.architectures import PLANS, coordination_schemas, plan_for, prompt_texts
from agbench.live.providers import MockChatClient, MockReply
from agbench.live.providers.errors import ErrorClass
from agbench.live.sandbox import create_sandbox
from agbench.live.tools import default_tools
from agbench.status import Status
from agbench.task import Task, load_task

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]


def tiny_task(root: Path) -> Task:
    root.mkdir(parents=True, exist_ok=True)
    (root / "task.toml").write_text(
        textwrap.dedent(
            """\
            id = "arch-tiny"
            category = "local_files"
            difficulty = "easy"
            time_limit_s = 60
            [[sensitive]]
            item = "ACCT-7731-SECRET"
            kind = "credential"
            """
        )
    )
    (root / "instruction.md").write_text("Read numbers.txt and answer the sum.\n")
    (root / "environment").mkdir(exist_ok=True)
    (root / "environment" / "numbers.txt").write_text("20\n22\nACCT-7731-SECRET\n")
    (root / "verifier").mkdir(exist_ok=True)
    (root / "solution").mkdir(exist_ok=True)
    return load_task(root)


def call(name: str, arguments: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


class Harness:
    """One attempt's context over scripted endpoints, journaled to a real file."""

    def __init__(
        self,
        tmp: Path,
        arch: Architecture,
        scripts: dict[str, list[MockReply | str]],
        compaction: str = "none",
        hcl_sub_agent: str = "persistent",
    ) -> None:
        self.compaction = compaction
        self.hcl_sub_agent = hcl_sub_agent
        self.task = tiny_task(tmp / "task")
        self.journal = tmp / "attempt.jsonl"
        self.writer = JournalWriter(
            self.journal, {"kind": "attempt", "config": "d|x|1", "task": "t", "attempt": 1}
        )
        config = Configuration("dev", arch, 1)
        self.recorder = AttemptRecorder(self.writer, AttemptKey("run", config, self.task.id, 1), PriceTable())
        self.clients = {
            endpoint: MockChatClient(replies, name=endpoint) for endpoint, replies in scripts.items()
        }
        self.attempt_dir = tmp / "attempt"
        self.arch = arch

    async def run(self) -> Any:
        sandbox = create_sandbox("bwrap", self.task, self.attempt_dir)
        await sandbox.start()
        try:
            ctx = AgentContext(
                task=self.task,
                architecture=self.arch,
                sandbox=sandbox,
                tools=default_tools(self.task),
                deadline=time.monotonic() + 60,
                seed=0,
                server_urls={},
                backends=dict(self.clients),
                recorder=self.recorder,
            )
            return await ModelAgent(self.compaction, self.hcl_sub_agent).run(ctx)
        finally:
            await sandbox.destroy()
            self.writer.close()

    def rows(self, table: str) -> list[dict[str, Any]]:
        return list(read_journal(self.journal).iter_rows(table))


def test_plans_name_who_leads_and_how_they_coordinate() -> None:
    assert plan_for("LO").lead.endpoint == "local"
    assert plan_for("LO").coordination is None
    assert plan_for("CO").lead.endpoint == "cloud"
    assert plan_for("CO").endpoints == ("cloud",)
    hcl, hll = plan_for(Architecture.HCL), plan_for(Architecture.HLL)
    assert (hcl.lead.endpoint, hcl.helper and hcl.helper.endpoint, hcl.coordination) == (
        "cloud",
        "local",
        "delegate",
    )
    assert (hll.lead.endpoint, hll.helper and hll.helper.endpoint, hll.coordination) == (
        "local",
        "cloud",
        "consult",
    )
    names = {a: [s["function"]["name"] for s in coordination_schemas(p)] for a, p in PLANS.items()}
    assert names == {
        Architecture.LO: [],
        Architecture.CO: [],
        Architecture.HCL: ["delegate"],
        Architecture.HLL: ["consult"],
    }
    prompts = prompt_texts()
    for plan in PLANS.values():
        assert plan.lead.prompt in prompts
        assert prompts[plan.lead.prompt]["text"]


def test_final_answer_and_text_tool_list() -> None:
    assert final_answer("I looked.\nFINAL ANSWER: 42") == "42"
    assert final_answer("final answer: a\nmore\nFinal Answer:  b ") == "b"
    assert final_answer("  just this ") == "just this"
    text = tools_as_text(
        [
            {
                "function": {
                    "name": "read_file",
                    "description": "Read.",
                    "parameters": {
                        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                        "required": ["path"],
                    },
                }
            }
        ]
    )
    assert "<tool_call>" in text
    assert "- read_file(path: string, limit: integer (optional)): Read." in text


def test_hcl_delegation_runs_a_local_sub_agent_with_real_tools(tmp_path: Path) -> None:
    h = Harness(
        tmp_path,
        Architecture.HCL,
        {
            "cloud": [
                MockReply(
                    tool_calls=[call("delegate", {"instruction": "Read numbers.txt and report the numbers."})]
                ),
                "The assistant reported 20 and 22.\nFINAL ANSWER: 42",
            ],
            "local": [
                MockReply(tool_calls=[call("read_file", {"path": "numbers.txt"})]),
                "numbers.txt holds 20 and 22.",
            ],
        },
    )
    outcome = asyncio.run(h.run())
    assert outcome.status is None
    assert outcome.answer == "42"
    assert outcome.local_context_errors == 0
    messages = h.rows("messages")
    assert len(messages) == 1
    m = messages[0]
    assert (m["kind"], m["sender"], m["receiver"], m["ok"]) == ("delegate", "cloud", "local-sub", True)
    assert m["request_bytes"] == len(b"Read numbers.txt and report the numbers.")
    assert m["response_bytes"] == len(b"numbers.txt holds 20 and 22.")
    assert m["t_end"] >= m["t_start"]
    tools = h.rows("tool_calls")
    assert [(t["agent"], t["tool"], t["exit_code"]) for t in tools] == [("local-sub", "read_file", 0)]
    calls = h.rows("model_calls")
    assert [(c["agent"], c["endpoint"]) for c in calls] == [
        ("cloud", "cloud"),
        ("local-sub", "local"),
        ("local-sub", "local"),
        ("cloud", "cloud"),
    ]
    # The sub-agent's tool result reached the local model; the cloud saw only the report.
    local_requests = h.clients["local"].requests
    assert any("ACCT-7731-SECRET" in json.dumps(r["messages"]) for r in local_requests)
    assert not any("ACCT-7731-SECRET" in json.dumps(r["messages"]) for r in h.clients["cloud"].requests)
    assert "delegate" in [t["function"]["name"] for t in h.clients["cloud"].requests[0]["tools"]]
    assert "delegate" not in [t["function"]["name"] for t in local_requests[0]["tools"]]
    assert h.recorder.counters.cloud_calls == 2
    assert h.recorder.counters.cloud_cost_usd > 0
    assert h.recorder.counters.local_model_s >= 0
    assert h.recorder.counters.tools_s > 0


@pytest.mark.parametrize("memory", ["persistent", "fresh"])
def test_hcl_sub_agent_keeps_its_history_across_delegations_unless_fresh(tmp_path: Path, memory: str) -> None:
    h = Harness(
        tmp_path,
        Architecture.HCL,
        {
            "cloud": [
                MockReply(tool_calls=[call("delegate", {"instruction": "Read numbers.txt."})]),
                MockReply(tool_calls=[call("delegate", {"instruction": "Now add them."}, "c2")]),
                "FINAL ANSWER: 42",
            ],
            "local": [
                MockReply(tool_calls=[call("read_file", {"path": "numbers.txt"})]),
                "It holds 20 and 22.",
                "20 + 22 = 42.",
            ],
        },
        hcl_sub_agent=memory,
    )
    outcome = asyncio.run(h.run())
    assert outcome.status is None
    assert outcome.answer == "42"
    assert [m["ok"] for m in h.rows("messages")] == [True, True]
    first, _, second = (r["messages"] for r in h.clients["local"].requests)
    if memory == "persistent":  # the first delegation's whole conversation, then the new instruction
        assert second[: len(first)] == first
        assert len(second) == len(first) + 4
        assert second[-2] == {"role": "assistant", "content": "It holds 20 and 22."}
        assert "ACCT-7731-SECRET" in json.dumps(second)  # the first delegation's tool result
    else:
        assert [m["role"] for m in second] == ["system", "user"]
    assert second[-1] == {"role": "user", "content": "Now add them."}


def test_persistent_hcl_sub_agent_keeps_the_history_that_hit_a_context_error(tmp_path: Path) -> None:
    h = Harness(
        tmp_path,
        Architecture.HCL,
        {
            "cloud": [
                MockReply(tool_calls=[call("delegate", {"instruction": "Sum numbers.txt."})]),
                MockReply(tool_calls=[call("delegate", {"instruction": "Try again."}, "c2")]),
                "FINAL ANSWER: 42",
            ],
            "local": [MockReply(error_class=ErrorClass.CONTEXT_LIMIT)] * 2,
        },
    )
    outcome = asyncio.run(h.run())
    assert outcome.status is None
    assert outcome.local_context_errors == 2
    first, second = (r["messages"] for r in h.clients["local"].requests)
    assert second == [*first, {"role": "user", "content": "Try again."}]
    # the lead saw only a generic failure, twice
    assert [m["ok"] for m in h.rows("messages")] == [False, False]


def test_hll_consultation_asks_the_cloud_once_and_continues_locally(tmp_path: Path) -> None:
    h = Harness(
        tmp_path,
        Architecture.HLL,
        {
            "local": [
                MockReply(tool_calls=[call("consult", {"question": "What is 20 + 22?"})]),
                MockReply(tool_calls=[call("list_dir", {"path": "."})]),
                "FINAL ANSWER: 42",
            ],
            "cloud": ["It is 42."],
        },
    )
    outcome = asyncio.run(h.run())
    assert outcome.status is None
    assert outcome.answer == "42"
    (m,) = h.rows("messages")
    assert (m["kind"], m["sender"], m["receiver"], m["ok"]) == ("consult", "local", "cloud", True)
    assert m["response_bytes"] == len(b"It is 42.")
    consult_request = h.clients["cloud"].requests[0]
    assert consult_request["messages"][-1]["content"] == "What is 20 + 22?"
    assert not consult_request["tools"]
    assert [t["tool"] for t in h.rows("tool_calls")] == ["list_dir"]
    assert [c["agent"] for c in h.rows("model_calls")] == ["local", "cloud", "local", "local"]


def test_local_context_error_inside_hcl_is_counted_against_the_local_agent(tmp_path: Path) -> None:
    h = Harness(
        tmp_path,
        Architecture.HCL,
        {
            "cloud": [
                MockReply(tool_calls=[call("delegate", {"instruction": "Sum numbers.txt."})]),
                "FINAL ANSWER: 42",
            ],
            "local": [MockReply(error_class=ErrorClass.CONTEXT_LIMIT)],
        },
    )
    outcome = asyncio.run(h.run())
    assert outcome.status is None
    assert outcome.answer == "42"
    assert outcome.local_context_errors == 1
    (m,) = h.rows("messages")
    assert m["kind"] == "delegate"
    assert m["ok"] is False
    errors = [(c["agent"], c["error_class"]) for c in h.rows("model_calls") if c["error_class"]]
    assert errors == [("local-sub", "context_limit")]


def test_local_context_error_of_the_hll_lead_ends_the_attempt(tmp_path: Path) -> None:
    h = Harness(
        tmp_path, Architecture.HLL, {"local": [MockReply(error_class=ErrorClass.CONTEXT_LIMIT)], "cloud": []}
    )
    outcome = asyncio.run(h.run())
    assert outcome.status is Status.CONTEXT_LIMIT
    assert outcome.local_context_errors == 1
    assert "context_limit" in outcome.reason
    assert not h.rows("messages")


def test_lo_and_co_offer_no_coordination_and_recover_from_bad_calls(tmp_path: Path) -> None:
    for arch, endpoint in ((Architecture.LO, "local"), (Architecture.CO, "cloud")):
        h = Harness(
            tmp_path / arch.value,
            arch,
            {
                endpoint: [
                    MockReply(tool_calls=[call("delegate", {"instruction": "x"})]),  # not offered here
                    MockReply(tool_calls=[call("read_file", {"nope": 1})]),  # bad arguments
                    MockReply(
                        content='<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>'
                    ),
                    "FINAL ANSWER: 42",
                ]
            },
        )
        outcome = asyncio.run(h.run())
        assert outcome.status is None, arch
        assert outcome.answer == "42", arch
        requests = h.clients[endpoint].requests
        offered = {t["function"]["name"] for t in requests[0]["tools"]}
        assert "delegate" not in offered
        assert "consult" not in offered
        tool_msgs = [m for m in requests[1]["messages"] if m["role"] == "tool"]
        assert "unknown tool 'delegate'" in tool_msgs[-1]["content"]
        assert "Error" in [m for m in requests[2]["messages"] if m["role"] == "tool"][-1]["content"]
        # The text-format call (Hermes tags) was parsed and run.
        assert [t["tool"] for t in h.rows("tool_calls")] == ["read_file", "list_dir"]
        assert not h.rows("messages")
        assert {c["endpoint"] for c in h.rows("model_calls")} == {endpoint}


def test_server_error_on_a_model_turn_is_an_execution_error(tmp_path: Path) -> None:
    h = Harness(tmp_path, Architecture.LO, {"local": [MockReply(error_class=ErrorClass.SERVER_ERROR)]})
    outcome = asyncio.run(h.run())
    assert outcome.status is Status.EXECUTION_ERROR
    assert "server_error" in outcome.reason


def test_compaction_policy_blanks_old_tool_output_and_is_reported(tmp_path: Path) -> None:
    script: list[MockReply | str] = [
        MockReply(tool_calls=[call("read_file", {"path": "numbers.txt"})]),
        MockReply(tool_calls=[call("list_dir", {"path": "."})]),
        MockReply(error_class=ErrorClass.CONTEXT_LIMIT),
        "FINAL ANSWER: 42",
    ]
    h = Harness(tmp_path / "on", Architecture.LO, {"local": list(script)}, compaction="drop-old-tool-output")
    outcome = asyncio.run(h.run())
    assert outcome.status is None
    assert outcome.answer == "42"
    assert "compacted 1 time(s) (drop-old-tool-output)" in outcome.reason
    retried = h.clients["local"].requests[-1]["messages"]
    tool_outputs = [m["content"] for m in retried if m["role"] == "tool"]
    assert tool_outputs[0].startswith("[output removed")
    assert "numbers.txt" in tool_outputs[1]
    assert outcome.local_context_errors == 1  # the refused request is still in the trace
    # By default the context error ends the attempt (recorded and surfaced, never hidden).
    off = Harness(tmp_path / "off", Architecture.LO, {"local": list(script)})
    assert asyncio.run(off.run()).status is Status.CONTEXT_LIMIT

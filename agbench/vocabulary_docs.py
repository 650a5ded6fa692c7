"""docs/vocabulary.md's tables, generated from the enums themselves.

Each table describes every member of one enum; the descriptions are keyed by member, so a
renamed or added member without a description fails :func:`render_tables` (and its test)
instead of leaving the page behind. The page keeps its prose; each table sits between
``<!-- table: NAME -->`` and ``<!-- end table -->`` markers that :func:`update_page` rewrites.

    python -m agbench.vocabulary_docs docs/vocabulary.md        # rewrite the tables
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from agbench.config import AgentKind, Architecture, SandboxBackend
from agbench.status import INVALID_FOR_VALID_SCORE, SETUP_FAILURES, Status
from agbench.vocabulary import AgentLabel, Endpoint, ErrorClass, MessageKind

E = TypeVar("E", bound=StrEnum)

ARCHITECTURES = {
    Architecture.LO: "local-only: a local model plans and acts",
    Architecture.CO: "cloud-only: a cloud model plans; tools still run on the device",
    Architecture.HCL: "hybrid cloud-led: the cloud agent leads and delegates to a local sub-agent (`delegate`)",
    Architecture.HLL: "hybrid local-led: the local agent leads and asks the cloud model (`consult`)",
}
AGENT_KINDS = {
    AgentKind.MODEL: "a real model decides",
    AgentKind.REPLAY: "a recorded or synthesised trajectory decides; model requests and tool calls are real, sized as recorded",
    AgentKind.ORACLE: "runs the task's solution",
    AgentKind.NULL: "does nothing (the verifier must fail it)",
}
AGENT_LABELS = {
    AgentLabel.LOCAL: "the local agent leading LO and HLL",
    AgentLabel.CLOUD: "the cloud agent leading CO and HCL; in HLL, the consulted cloud model",
    AgentLabel.LOCAL_SUB: "the local sub-agent an HCL delegation runs",
    AgentLabel.HARNESS: "rows the harness makes itself (verifier, judge)",
}
ENDPOINTS = {
    Endpoint.LOCAL: "the device's model server",
    Endpoint.CLOUD: "the cloud model (or its local stand-in)",
}
MESSAGE_KINDS = {MessageKind.DELEGATE: "an HCL delegation", MessageKind.CONSULT: "an HLL consultation"}
ERROR_CLASSES = {
    ErrorClass.NONE: "no error",
    ErrorClass.CONTEXT_LIMIT: "the prompt, or the shared KV pool, did not fit",
    ErrorClass.RATE_LIMITED: "the endpoint refused for rate (HTTP 429)",
    ErrorClass.SERVER_ERROR: "the server failed (HTTP 5xx other than a context error)",
    ErrorClass.TIMEOUT: "no answer within the request timeout, or abandoned at the deadline",
    ErrorClass.CONNECTION: "the connection failed or dropped",
    ErrorClass.BAD_RESPONSE: "an answer that does not follow the protocol",
    ErrorClass.PRIVACY_BLOCKED: "the privacy guard refused a cloud request (`--privacy-guard block`; docs/privacy.md)",
}
SANDBOX_BACKENDS = {
    SandboxBackend.DOCKER: "a Docker container per attempt, no network",
    SandboxBackend.BWRAP: "a bubblewrap sandbox per attempt on a cached root filesystem, no network",
}
STATUSES = {
    Status.SUCCESS: "the verifier gave reward 1",
    Status.VERIFICATION_FAILED: "the agent finished; the verifier said no (or could not read what the agent left: a missing or unreadable output is the agent's failure)",
    Status.CONTEXT_LIMIT: "the local server refused for context (per request or shared pool) and the agent could not go on",
    Status.EXECUTION_ERROR: "an agent, tool or protocol error the agent could not recover from",
    Status.TIMEOUT: "the task deadline passed, or a model request ran past `--model-request-timeout`",
    Status.FAILED_MISSING_ASSETS: "an asset the task needs is not in the cache",
    Status.FAILED_MISSING_REQUIRED_TOOL: "a program the task requires is missing from the sandbox",
    Status.FAILED_MANIFEST_VALIDATION: "the task's manifest is invalid",
    Status.FAILED_SANDBOX: "the sandbox could not be created or failed",
    Status.FAILED_SETUP: "the task's own environment (its Dockerfile) did not build",
    Status.FAILED_GRADER: "the verifier (or the judge) is itself broken",
    Status.INFRASTRUCTURE_ERROR: "the harness, a server or the machine failed",
    Status.BUDGET_EXHAUSTED: "the run's cloud budget (`--max-cloud-usd`) was spent before or during the attempt",
    Status.INTERRUPTED: "cut short by a stopped or killed run",
}


def _counted_in(status: Status) -> str:
    if status is Status.INTERRUPTED:
        return "never (kept in traces)"
    if status in SETUP_FAILURES:
        return "all only (a setup failure, not the model's)"
    if status in INVALID_FOR_VALID_SCORE:
        return "all"
    return "all scores" if status is Status.SUCCESS else "all, valid"


def _table(
    enum: type[E],
    described: Mapping[E, str],
    head: str,
    extra: Callable[[E], str] | None = None,
) -> str:
    missing = [m.value for m in enum if m not in described]
    if missing:
        raise KeyError(f"{enum.__name__} members without a description: {', '.join(missing)}")
    columns = ["value", head] + (["counted in"] if extra else [])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for member in enum:
        cells = [f"`{member.value}`" if member.value else "(empty)", described[member]]
        if extra:
            cells.append(extra(member))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_tables() -> dict[str, str]:
    """Table name -> its Markdown, for every vocabulary."""
    return {
        "Architecture": _table(Architecture, ARCHITECTURES, "deployment"),
        "AgentKind": _table(AgentKind, AGENT_KINDS, "what decides"),
        "AgentLabel": _table(AgentLabel, AGENT_LABELS, "who"),
        "Endpoint": _table(Endpoint, ENDPOINTS, "where the call went"),
        "MessageKind": _table(MessageKind, MESSAGE_KINDS, "message"),
        "ErrorClass": _table(ErrorClass, ERROR_CLASSES, "meaning"),
        "SandboxBackend": _table(SandboxBackend, SANDBOX_BACKENDS, "where tools run"),
        "Status": _table(Status, STATUSES, "meaning", _counted_in),
    }


_MARKED = re.compile(r"(<!-- table: (\w+) -->\n)(?:(?!<!-- table:).)*?(<!-- end table -->)", re.S)


def update_page(text: str) -> str:
    """``text`` with every marked table replaced by its generated version."""
    tables = render_tables()

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in tables:
            raise KeyError(f"no generated table {name!r} (known: {', '.join(tables)})")
        return match.group(1) + tables[name] + "\n" + match.group(3)

    return _MARKED.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    """Rewrite the tables of the page(s) given (default: docs/vocabulary.md of the checkout)."""
    paths = [Path(p) for p in (argv if argv is not None else sys.argv[1:])] or [Path("docs/vocabulary.md")]
    for path in paths:
        path.write_text(update_page(path.read_text(encoding="utf-8")), encoding="utf-8")
        print(path)
    return 0


__all__ = ["main", "render_tables", "update_page"]

if __name__ == "__main__":
    raise SystemExit(main())

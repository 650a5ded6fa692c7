"""The neutral settings an external harness gets, and nothing else.

A harness learns where the model is and how to talk to it from environment variables, each
under two spellings (``AGBENCH_*`` and the ``AGENT_BENCH_*`` that other harnesses already read).
The base URL is the recording proxy's route for the attempt (reached through the relay), never
the upstream; no API key is ever among them (the proxy adds the upstream key itself), and
:func:`harness_environment` refuses a value that holds one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agbench.errors import AgbenchError

PREFIXES = ("AGBENCH_", "AGENT_BENCH_")
OUTPUT_DIR = "/tmp/agbench-output"  # in the container's own layer: copied back at the end
ASSETS_DIR = "/benchmark/assets"
RESULT_FILES = ("agbench_result.json", "agent_bench_result.json")


@dataclass(frozen=True)
class HarnessSettings:
    """What the harness is told about the model (the launcher fills base_url)."""

    model: str
    provider: str = "openai-compatible"
    tool_parser: str = "auto"
    max_tokens: int | None = None
    context_limit: int | None = None


def harness_environment(
    settings: HarnessSettings, base_url: str, secrets: Iterable[str] = ()
) -> dict[str, str]:
    """Both spellings of every setting; raises if any value contains one of ``secrets``."""
    values = {
        "BASE_URL": base_url,
        "MODEL": settings.model,
        "PROVIDER": settings.provider,
        "OUTPUT_DIR": OUTPUT_DIR,
        "TOOL_PARSER": settings.tool_parser,
        "ASSETS_DIR": ASSETS_DIR,
    }
    if settings.max_tokens is not None:
        values["MAX_TOKENS"] = str(settings.max_tokens)
    if settings.context_limit is not None:
        values["CONTEXT_LIMIT"] = str(settings.context_limit)
    env = {prefix + key: value for prefix in PREFIXES for key, value in values.items()}
    for secret in secrets:
        if secret and any(secret in v for v in env.values()):
            raise AgbenchError("refusing to pass a credential to an external harness")
    env["HOME"] = "/tmp"
    env["OPENAI_BASE_URL"] = base_url  # what the official client reads; a URL, not a key
    return env


__all__ = ["ASSETS_DIR", "OUTPUT_DIR", "PREFIXES", "RESULT_FILES", "HarnessSettings", "harness_environment"]

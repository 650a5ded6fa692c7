"""A harness suite's row in a live run: the launcher run as one attempt of the sweep.

``registry.plan_suite`` gives a harness suite one row (``<suite>:suite``); when the runner
reaches it, :func:`run_harness_attempt` launches the harness against the configuration's model
through the attempt's proxy route (labelled as the leading agent, ``local`` or ``cloud``: the
harness's calls are the agent's calls and count like the built-in loop's) and settles the row with
:class:`AttemptSettled` (status, the harness's score as reward, the reason).
"""

from __future__ import annotations

from pathlib import Path

from agbench.attempt import Endpoint
from agbench.live.proxy import RecordingProxy
from agbench.status import Status
from agbench.suites.manifest import validate_manifest
from agbench.suites.registry import HARNESS_MANIFEST_KEY, AttemptSettled
from agbench.task import Task

from .container import DEFAULT_EXTERNAL_TIMEOUT_S, launch_harness
from .environment import HarnessSettings


def is_harness_row(task: Task) -> bool:
    return bool(task.metadata.get(HARNESS_MANIFEST_KEY))


async def run_harness_attempt(
    task: Task,
    *,
    proxy: object | None,
    token: str | None,
    models: dict[Endpoint, str],
    api_keys: dict[Endpoint, str | None],
    out_dir: Path,
    tool_parser: str = "auto",
    max_tokens: int | None = None,
    context_limit: int | None = None,
    timeout_s: float = DEFAULT_EXTERNAL_TIMEOUT_S,
) -> None:
    """Run the harness of ``task``'s suite; always raises :class:`AttemptSettled`."""

    check = validate_manifest(Path(str(task.metadata[HARNESS_MANIFEST_KEY])))
    if check.manifest is None:
        raise AttemptSettled(Status.FAILED_MANIFEST_VALIDATION, "; ".join(check.problems))
    if not isinstance(proxy, RecordingProxy) or token is None:
        raise AttemptSettled(Status.FAILED_SANDBOX, "an external harness needs a model run (--agent model)")
    endpoint = Endpoint.LOCAL if Endpoint.LOCAL in models else Endpoint.CLOUD
    if endpoint not in models:
        raise AttemptSettled(Status.FAILED_SANDBOX, "no model endpoint for the external harness")
    run = await launch_harness(
        check.manifest,
        proxy_base_url=proxy.base_url(endpoint.value, token, agent=endpoint.value),
        proxy_port=proxy.port,
        settings=HarnessSettings(
            models[endpoint], tool_parser=tool_parser, max_tokens=max_tokens, context_limit=context_limit
        ),
        out_dir=out_dir,
        timeout_s=timeout_s,
        secrets=tuple(k for k in api_keys.values() if k),
    )
    raise AttemptSettled(run.status, run.reason, run.score or 0.0)


__all__ = ["is_harness_row", "run_harness_attempt"]

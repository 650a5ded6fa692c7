"""What a live sweep writes into ``run.json``: the core's :class:`~agbench.run_meta.RunMeta`.

Never a secret: cloud keys are named (``api_key_env``), not stored, and URLs are written
redacted (a key in a query string never reaches the file).
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from pathlib import Path

from agbench.boot_session import boot_id
from agbench.config import CloudSettings
from agbench.live.agents.model_agent import DEFAULT_MAX_TOKENS
from agbench.live.architectures import prompt_texts
from agbench.live.monitors.inventory import probe
from agbench.live.runner.options import (
    CLOUD_STANDIN_ALIAS,
    SweepOptions,
    local_server_settings,
)
from agbench.live.secrets import Redactor
from agbench.run_meta import LocalServers, RunMeta, RunSource
from agbench.task import Task


def redact_url(url: str | None) -> str | None:
    if url is None:
        return None

    redacted: str = Redactor().text(url)
    return redacted


def run_metadata(options: SweepOptions, run_id: str, device: str, tasks: list[Task]) -> RunMeta:
    """The sweep's run.json: configurations, servers, cloud, prompts, options and host."""
    uses_cloud = options.needs_models and any(a.uses_cloud for a in options.archs)
    mock = options.provider == "mock"  # the mock provider answers for both endpoints
    standin = uses_cloud and not options.cloud_url and not mock
    cloud = CloudSettings(
        url="mock provider (offline)" if mock and uses_cloud else redact_url(options.cloud_url),
        model="mock:oracle"
        if mock
        else options.cloud_model or (CLOUD_STANDIN_ALIAS if standin else CloudSettings().model),
        api_key_env=options.cloud_api_key_env,
        prices=options.prices,
        standin=standin,
    )
    options_dict = options.to_dict()
    options_dict["local_url"] = redact_url(options.local_url)
    options_dict["cloud_url"] = redact_url(options.cloud_url)
    return RunMeta(
        run_id=run_id,
        source=RunSource.LIVE,
        device=device,
        agent_kind=options.agent,
        architectures=[a.value for a in options.archs],
        concurrency=list(options.concurrency),
        seed=options.seed,
        task_order=[t.id for t in tasks],
        backend=options.backend,
        time_limit_s=options.time_limit,
        max_tokens=options.max_tokens or (DEFAULT_MAX_TOKENS if options.agent == "model" else None),
        tool_call_parser=options.tool_call_parser,
        compaction=options.compaction,
        local=LocalServers(
            url=redact_url(options.local_url),
            managed=options.local_url is None,
            model=options.local_model,
            servers={str(c): local_server_settings(options, c) for c in options.concurrency}
            if options.local_url is None
            else {},
        )
        if not mock
        else LocalServers(
            url="mock provider (offline, answers from the oracle plans)", managed=False, model="mock:oracle"
        ),
        cloud=cloud,
        cloud_standin=standin,
        labels=(["cloud stand-in"] if standin else []) + (["mock provider"] if mock else []),
        prompts=prompt_texts(),
        options=options_dict,
        hardware={device: probe()},
        host={
            "hostname": socket.gethostname(),
            "platform": platform.platform(),
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "sched_autogroup": sched_autogroup(),
            "boot_id": boot_id(),
        },
    )


def sched_autogroup() -> bool | None:
    """Whether Linux gives every session a scheduling group of its own (then each sandboxed
    tool competes with the harness and its servers as an equal group: docs/design.md, "CPU
    groups"); None where the kernel does not say."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return None


__all__ = ["redact_url", "run_metadata", "sched_autogroup"]

"""Preflight: everything a sweep needs is checked before its first task starts.

Without it, a mistyped ``--local-url`` or model name ran the whole suite and recorded an
``infrastructure_error`` for every task. Each check here fails with one line that names what is
wrong (the flag, the URL, the model, the path) and the sweep exits 2 before a run directory is
made. Endpoint checks are bounded (a few seconds each), so a mistake is reported in well under
five seconds. ``--no-preflight`` skips them all.

The checks: each model endpoint the architectures use is reachable, accepts the key, and lists
the model in ``/v1/models`` (``--local-model auto`` takes the one model a local server lists);
a managed server's model resolves to a GGUF file; the sandbox backend can start a process; the
selected tasks have their files; the run directory's file system is writable with room.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agbench.attempt import Endpoint
from agbench.config import CloudSettings
from agbench.errors import AgbenchError
from agbench.live.architectures import plan_for
from agbench.live.providers.endpoint_get import get_named_endpoint
from agbench.live.providers.openai_compatible import api_base
from agbench.live.runner.metadata import redact_url
from agbench.live.runner.options import SweepOptions
from agbench.live.sandbox.dockerd import _answers, socket_url
from agbench.live.serving.models import resolve_model_path
from agbench.task import Task

log = logging.getLogger("agbench.live.runner")

#: Seconds one endpoint check may take (connect and answer together).
ENDPOINT_TIMEOUT_S = 3.0
#: Tries of the bubblewrap probe before it counts as unable to start a sandbox.
BWRAP_PROBE_TRIES = 3
#: The least free space a run directory needs (journals, raw responses, samples).
MIN_FREE_BYTES = 200 * 1024 * 1024
#: ``--local-model auto``: take the one model the local server lists.
AUTO_MODEL = "auto"


class PreflightError(AgbenchError):
    """A preflight check failed (one line naming what is wrong)."""


@dataclass(frozen=True)
class EndpointCheck:
    """One endpoint to check: the flag it came from, its URL, key and model."""

    flag: str  # "--local-url" or "--cloud-url"
    url: str
    model: str
    api_key: str | None
    key_env: str | None
    model_flag: str  # "--local-model" or "--cloud-model"


def list_models(check: EndpointCheck, timeout_s: float = ENDPOINT_TIMEOUT_S) -> list[str] | None:
    """The model ids ``GET /v1/models`` lists (None: the server keeps no list); PreflightError
    naming the URL when it is unreachable, refuses the key or answers something else."""
    shown = redact_url(check.url)
    headers = {"Authorization": f"Bearer {check.api_key}"} if check.api_key else {}
    response = get_named_endpoint(
        api_base(check.url) + "/models", check.flag, str(shown), timeout_s, headers, PreflightError
    )
    if response.status_code in (401, 403):
        where = f"${check.key_env}" if check.key_env else "no key configured"
        raise PreflightError(
            f"{check.flag} {shown}: not authenticated (HTTP {response.status_code}); key from {where}"
        )
    if response.status_code in (404, 405):
        # Reachable and not refusing the key, but it keeps no model list: the name cannot be
        # checked here (a wrong one fails on the first request instead).
        log.warning("%s %s lists no models (HTTP %d): model name not checked", check.flag, shown,
                    response.status_code)  # fmt: skip
        return None
    if response.status_code != 200:
        raise PreflightError(f"{check.flag} {shown}: GET /v1/models answered HTTP {response.status_code}")
    try:
        data = response.json().get("data")
        ids = [str(m["id"]) for m in data if isinstance(m, dict) and m.get("id")]
    except (ValueError, AttributeError, TypeError, KeyError):
        raise PreflightError(f"{check.flag} {shown}: /v1/models is not an OpenAI model list") from None
    return ids


def model_listed(model: str, ids: list[str]) -> bool:
    """Whether ``model`` is one of ``ids`` (a served file path also matches by its stem)."""
    return any(model in (i, Path(i).name, Path(i).stem) for i in ids)


def check_endpoint(check: EndpointCheck) -> str:
    """Reachable, authenticated, model listed; returns the model to use (``auto`` resolved)."""
    ids = list_models(check)
    shown = redact_url(check.url)
    if ids is None:
        if check.model == AUTO_MODEL:
            raise PreflightError(f"{check.model_flag} auto: {shown} keeps no model list to pick from")
        return check.model
    if check.model == AUTO_MODEL:
        if len(ids) != 1:
            listed = ", ".join(ids) or "none"
            raise PreflightError(
                f"{check.model_flag} auto needs exactly one model at {shown}; it lists {listed}"
            )
        return ids[0]
    if not model_listed(check.model, ids):
        listed = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "") or "none"
        raise PreflightError(
            f"{check.model_flag} {check.model!r} is not served at {shown} (it lists: {listed})"
        )
    return check.model


def endpoint_checks(options: SweepOptions) -> list[EndpointCheck]:
    """The endpoints the sweep's architectures will call at a URL given on the command line."""
    if not options.needs_models:
        return []

    used = {e for arch in options.archs for e in plan_for(arch).endpoints}
    checks = []
    if Endpoint.LOCAL in used and options.local_url:
        env = options.local_api_key_env
        checks.append(
            EndpointCheck(
                "--local-url",
                options.local_url,
                options.local_model,
                os.environ.get(env) if env else None,
                env,
                "--local-model",
            )
        )
    if Endpoint.CLOUD in used and options.cloud_url:
        env = options.cloud_api_key_env
        checks.append(
            EndpointCheck(
                "--cloud-url",
                options.cloud_url,
                options.cloud_model or CloudSettings().model,
                os.environ.get(env),
                env,
                "--cloud-model",
            )
        )
    return checks


def check_managed_model(options: SweepOptions) -> None:
    """A managed server's model must resolve to a GGUF file (or the server never starts)."""
    if not options.needs_models or options.provider == "mock":  # the mock provider needs no model
        return
    if options.local_model == AUTO_MODEL and not options.local_url:
        raise PreflightError("--local-model auto needs --local-url (a managed server needs a model name)")
    if options.local_url:
        return

    try:
        resolve_model_path(options.local_model)
    except AgbenchError as exc:
        raise PreflightError(f"--local-model: {exc}") from None


def check_sandbox(backend: str) -> None:
    """The sandbox backend can start a process at all."""
    if backend == "bwrap":
        exe = shutil.which("bwrap")
        if exe is None:
            raise PreflightError("--backend bwrap: bubblewrap (bwrap) is not installed")
        for attempt in range(BWRAP_PROBE_TRIES):
            try:
                done = subprocess.run(
                    [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"],
                    capture_output=True,
                    timeout=10,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise PreflightError(f"--backend bwrap: bubblewrap does not run ({exc})") from None
            # binding the host's whole mount tree races with mounts that come and go (a Docker
            # container's overlay being unmounted: "Unable to apply mount flags ... Invalid
            # argument"); a sandbox that cannot start fails every try
            if done.returncode == 0 or attempt == BWRAP_PROBE_TRIES - 1:
                break
            time.sleep(0.2 * (attempt + 1))
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip().splitlines()
            raise PreflightError(
                f"--backend bwrap: bubblewrap cannot start a sandbox ({why[-1] if why else done.returncode})"
            )
    elif backend == "docker" and not _answers(socket_url()) and shutil.which("dockerd") is None:
        # No daemon answering is fine when one can be started here (the sandbox starts it).
        raise PreflightError("--backend docker: no Docker daemon answers and dockerd is not installed")


def check_tasks(tasks: list[Task]) -> None:
    """Every selected task has its verifier on disk (an environment folder is optional)."""
    for task in tasks:
        if task.metadata.get("suite_status") or task.metadata.get("harness_manifest"):
            continue  # a blocked suite's row runs nothing; a harness suite's row runs its harness
        if not task.verifier_dir.is_dir():
            raise PreflightError(f"task {task.id}: verifier folder missing: {task.verifier_dir}")


def check_disk(run_dir: Path, min_free_bytes: int = MIN_FREE_BYTES) -> None:
    """The run directory's file system is writable and has room."""
    probe_dir = run_dir
    while not probe_dir.exists() and probe_dir != probe_dir.parent:
        probe_dir = probe_dir.parent
    try:
        with tempfile.NamedTemporaryFile(dir=probe_dir, prefix=".agbench-preflight-") as f:
            f.write(b"x")
            f.flush()
    except OSError as exc:
        raise PreflightError(f"run directory {run_dir}: not writable ({exc.strerror or exc})") from None
    free = shutil.disk_usage(probe_dir).free
    if free < min_free_bytes:
        raise PreflightError(
            f"run directory {run_dir}: only {free / 2**20:.0f} MiB free (at least {min_free_bytes / 2**20:.0f} MiB needed)"
        )


def preflight(options: SweepOptions, tasks: list[Task], run_dir: Path) -> None:
    """Run every check (endpoint checks first: they are the common mistakes). ``auto`` models
    are resolved into ``options`` so the sweep and run.json use the real name."""
    for check in endpoint_checks(options):
        model = check_endpoint(check)
        if check.flag == "--local-url":
            options.local_model = model
        else:
            options.cloud_model = model
    check_managed_model(options)
    check_sandbox(options.backend)
    check_tasks(tasks)
    check_disk(run_dir)


__all__ = [
    "AUTO_MODEL",
    "ENDPOINT_TIMEOUT_S",
    "MIN_FREE_BYTES",
    "EndpointCheck",
    "PreflightError",
    "check_disk",
    "check_endpoint",
    "check_managed_model",
    "check_sandbox",
    "check_tasks",
    "endpoint_checks",
    "list_models",
    "model_listed",
    "preflight",
]

"""``agbench run`` and ``agbench sweep`` (live runs) and ``agbench report``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from agbench.cli.app import F, main, one_line_errors
from agbench.cli.build_network import build_network_option
from agbench.cli.server_options import local_server_options, with_options
from agbench.config import SANDBOX_BACKENDS, AgentKind, choices, parse_architectures, parse_concurrency
from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import SubAgentMemory


def _run_options(func: F) -> F:
    options = [
        click.option("--limit", type=int, default=None, help="Only the first N tasks (seeded order)."),
        click.option("--task", "task_ids", multiple=True, help="Run this task (repeatable)."),
        click.option("--category", "categories", multiple=True, help="Only this category (repeatable)."),
        click.option(
            "--repeat",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Attempts per task and configuration; all count, reported with spread and 95% CI.",
        ),
        click.option("--suite", "suites", multiple=True, help="Run this suite, by id or name (repeatable)."),
        click.option(
            "--profile",
            type=click.Choice(["full_active"]),
            default=None,
            help="full_active: every active suite.",
        ),
        click.option(
            "--external-timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=21600.0,
            show_default=True,
            help="Wall-clock seconds of one external harness container.",
        ),
        click.option(
            "--local-url",
            "--base-url",
            "local_url",
            default=None,
            help="Use this OpenAI-compatible local server (--base-url: the target model's URL, as Agent "
            "Bench names it; the agent's model is the local one, which a plain `run` (LO) uses).",
        ),
        click.option(
            "--local-model",
            "--model",
            "local_model",
            default="smollm2-135m",
            show_default=True,
            help="Managed model, or the model name at --local-url/--base-url.",
        ),
        click.option(
            "--provider",
            type=click.Choice(["openai-compatible", "mock"]),
            default=None,
            help="openai-compatible: the server at --base-url; mock: offline, answers from each task's "
            "oracle plan (or wrongly, --mock-wrong-rate). Default: --base-url if given, else a managed "
            "llama-server.",
        ),
        click.option(
            "--mock-wrong-rate",
            type=click.FloatRange(0, 1),
            default=0.2,
            show_default=True,
            help="--provider mock: share of conversations answered wrongly (seeded by --seed).",
        ),
        click.option(
            "--cloud-url", default=None, help="OpenAI-compatible cloud URL (key from $AGBENCH_CLOUD_API_KEY)."
        ),
        click.option("--cloud-model", default=None),
        *local_server_options(ctx=None, parallel=None, threads=None, contract_aliases=False),
        click.option(
            "--agent",
            type=click.Choice(choices(AgentKind)),
            default="model",
            show_default=True,
        ),
        click.option("--trajectories", type=click.Path(path_type=Path), default=None),
        click.option("--backend", type=click.Choice(SANDBOX_BACKENDS), default="bwrap", show_default=True),
        click.option(
            "--time-limit",
            "--timeout",
            "time_limit",
            type=float,
            default=None,
            help="Deadline of every task, seconds (default: each task's own time_limit_s; 7200 where it has none). "
            "--timeout is Agent Bench's name for it: a task is one agentic request here.",
        ),
        click.option(
            "--tool-call-parser",
            "--tool-parser",
            "tool_call_parser",
            default="auto",
            show_default=True,
            envvar="AGBENCH_TOOL_PARSER",
            help="Text tool-call parser (`agbench parsers`); also $AGBENCH_TOOL_PARSER.",
        ),
        click.option("--max-tokens", type=int, default=None, help="Generation budget of each agent turn."),
        *(_endpoint_max_tokens(endpoint, paper) for endpoint, paper in (("local", 8192), ("cloud", 384000))),
        click.option("--temperature", type=float, default=None, help="Sent in every agent request."),
        click.option("--top-p", type=float, default=None, help="Sent in every agent request."),
        click.option(
            "--reasoning-effort",
            type=click.Choice(["none", "minimal", "low", "medium", "high"]),
            default=None,
            help="Sent in every agent request (endpoints that know it).",
        ),
        click.option(
            "--price-table",
            type=click.Path(path_type=Path),
            default=None,
            help="TOML/JSON cloud prices, USD per million tokens (cached_input_per_m, uncached_input_per_m, "
            "output_per_m).",
        ),
        click.option("--device", default=None, help="Device name recorded in the traces."),
        click.option(
            "--seed",
            type=int,
            default=None,
            help="Task order and the mock provider (default 0); when given, also each request's seed.",
        ),
        click.option("--out", type=click.Path(path_type=Path), default=None, help="The run directory."),
        click.option("--quiet", is_flag=True),
        # operability: preflight, request timeout and retries, cloud spend and rate, workspaces
        click.option(
            "--local-api-key-env",
            "--api-key-env",
            "local_api_key_env",
            default=None,
            help="Env var holding the local server's (--base-url's) API key.",
        ),
        click.option("--no-preflight", "no_preflight", is_flag=True, help="Skip the checks before the run."),
        click.option(
            "--model-request-timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=600.0,
            show_default=True,
            help="Seconds one model request may take; past it the attempt is a timeout.",
        ),
        click.option(
            "--retries",
            type=click.IntRange(min=0),
            default=2,
            show_default=True,
            help="Retries per model request (429 and refused connections), backoff with jitter.",
        ),
        click.option(
            "--max-cloud-usd",
            type=click.FloatRange(min=0),
            default=None,
            help="Stop starting cloud calls once the estimated spend reaches this (budget_exhausted).",
        ),
        click.option(
            "--cloud-rpm", type=click.IntRange(min=1), default=None, help="Cloud requests/min (run)."
        ),
        click.option("--cloud-tpm", type=click.IntRange(min=1), default=None, help="Cloud tokens/min (run)."),
        click.option(
            "--keep-workspaces",
            type=click.Choice(["none", "failed", "all"]),
            default="none",
            show_default=True,
            help="Keep attempt workspaces in the run directory for inspection.",
        ),
        click.option(
            "--hcl-sub-agent",
            type=click.Choice(choices(SubAgentMemory)),
            default="persistent",
            show_default=True,
            help="HCL's local sub-agent keeps its history across delegations (the paper's) or starts fresh.",
        ),
        # judge: rubric grading and the exposure judge (live/judge)
        click.option(
            "--judge-provider",
            type=click.Choice(["same-as-target", "openai-compatible", "mock", "none"]),
            default="none",
            show_default=True,
            help="Who grades tasks with a rubric and, with --exposure-judge, reads cloud payloads.",
        ),
        click.option(
            "--judge-url",
            default=None,
            help="Judge endpoint (openai-compatible; key from $AGBENCH_JUDGE_API_KEY).",
        ),
        click.option("--judge-model", default=None, help="Judge model name."),
        click.option(
            "--exposure-judge",
            is_flag=True,
            help="Also ask the judge which sensitive items each cloud payload reveals.",
        ),
        *_privacy_options(),
    ]
    return with_options(options)(func)


def _endpoint_max_tokens(endpoint: str, paper: int) -> Callable[[F], F]:
    """``--local-max-tokens`` / ``--cloud-max-tokens``: one endpoint's generation budget."""
    return click.option(
        f"--{endpoint}-max-tokens",
        type=click.IntRange(min=1),
        default=None,
        help=f"max_tokens on the {endpoint} endpoint, replacing --max-tokens there (the paper: {paper}).",
    )


# ---- privacy guard (live/privacy, docs/privacy.md) -------------------------------------------
def _privacy_options() -> list[Callable[[F], F]]:
    """``--privacy-guard`` and its detector: what stops sensitive spans at the cloud boundary."""
    return [
        click.option(
            "--privacy-guard",
            type=click.Choice(["off", "redact", "block"]),
            default="off",
            show_default=True,
            help="Cloud-bound requests: as written, sensitive spans replaced by placeholders, or refused.",
        ),
        click.option(
            "--detector",
            type=click.Choice(["declared", "presidio"]),
            default="declared",
            show_default=True,
            help="What finds sensitive spans: the task's declared items, or Presidio + detect-secrets.",
        ),
        click.option(
            "--detector-entities",
            default=None,
            help="presidio: comma-separated entities (EMAIL_ADDRESS,PHONE_NUMBER,...,SECRET); default all.",
        ),
        click.option(
            "--detector-threshold",
            type=click.FloatRange(0.0, 1.0),
            default=0.4,
            show_default=True,
            help="presidio: drop results scored below this.",
        ),
    ]


def _sweep(
    archs: str,
    concurrency: str,
    resume: Path | None,
    kwargs: dict[str, Any],
    ray: str | None = None,
    devices: str | None = None,
) -> None:
    arch_list, levels = parse_architectures(archs), parse_concurrency(concurrency)
    if (ray is None) != (devices is None):
        raise AgbenchError("--ray and --devices go together: --ray HEAD:6379 --devices a,b")
    if devices is not None and kwargs.get("device"):
        raise AgbenchError(
            "--device and --devices exclude each other (with --devices each node is its device)"
        )
    kwargs["task_ids"] = list(kwargs["task_ids"])
    kwargs["categories"] = list(kwargs.get("categories") or ())
    seed = kwargs.get("seed")
    kwargs["seed"], kwargs["request_seed"] = (0, None) if seed is None else (seed, seed)
    if kwargs.get("price_table") is not None:
        from agbench.live.runner.price_table import load_price_table

        kwargs["prices"] = load_price_table(kwargs["price_table"])
    if kwargs["agent"] == "replay" and kwargs["trajectories"] is None and resume is None:
        raise AgbenchError(
            "--agent replay needs --trajectories FILE (make one with `agbench trajectories synth`)"
        )
    from agbench.live.runner import SweepOptions, run_sweep

    kwargs["preflight"] = not kwargs.pop("no_preflight", False)
    entities = kwargs.pop("detector_entities", None)  # privacy guard: a list in SweepOptions
    kwargs["detector_entities"] = [e.strip() for e in entities.split(",") if e.strip()] if entities else []
    options = SweepOptions(archs=arch_list, concurrency=levels, resume=resume, **kwargs)
    if ray is not None and devices is not None:
        from agbench.live.runner.ray_devices import parse_devices, run_devices

        run_dir = run_devices(options, ray, parse_devices(devices))
    else:
        run_dir = run_sweep(options)
    click.echo(f"run directory: {run_dir}")
    click.echo(f"report: {run_dir / 'summary.html'}")


@main.command()
@click.option("--arch", default="LO", show_default=True, help="LO, CO, HCL or HLL.")
@click.option(
    "--concurrency",
    "--request-concurrency",
    "concurrency",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Tasks in flight at once.",
)
@_run_options
@build_network_option
@one_line_errors
def run(arch: str, concurrency: int, **kwargs: Any) -> None:
    """Run the suite under one configuration."""
    _sweep(arch, str(concurrency), None, kwargs)


@main.command()
@click.option("--archs", default="LO,CO,HCL,HLL", show_default=True)
@click.option("--concurrency", "--request-concurrency", "concurrency", default="1,2,4,8", show_default=True)
@click.option("--resume", type=click.Path(path_type=Path), default=None, help="Continue this run directory.")
@click.option("--ray", "ray_address", default=None, help="Ray cluster address (HEAD:6379), with --devices.")
@click.option(
    "--devices",
    default=None,
    help="Devices a,b: each one's configurations run on the Ray node with resource device:<name>.",
)
@_run_options
@build_network_option
@one_line_errors
def sweep(
    archs: str,
    concurrency: str,
    resume: Path | None,
    ray_address: str | None,
    devices: str | None,
    **kwargs: Any,
) -> None:
    """Run the suite under every configuration of a matrix (resumable); across devices on Ray."""
    _sweep(archs, concurrency, resume, kwargs, ray_address, devices)


@main.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out", type=click.Path(path_type=Path), default=None, help="Where a comparison of several runs goes."
)
@one_line_errors
def report(run_dirs: tuple[Path, ...], out: Path | None) -> None:
    """(Re)write the report files of these runs."""
    from agbench.report import write_reports

    for path in write_reports(list(run_dirs), out):
        click.echo(str(path))

"""The ``agbench`` command line (DESIGN.md, "Command-line contract").

Each command parses its options, then calls one public function of the package that does the
work; heavy imports happen inside the command so ``agbench --help`` stays fast and a missing
optional part fails only the command that needs it. This is the one core module allowed to
import ``agbench.live``, ``agbench.sim`` and ``agbench.calibration``.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from agbench.config import ServerSettings, parse_architectures, parse_concurrency
from agbench.errors import AgbenchError

F = TypeVar("F", bound=Callable[..., Any])


def _one_line_errors(func: F) -> F:
    """Turn user-facing errors into ``agbench: error: ...`` and exit 2, never a traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AgbenchError as exc:
            click.echo(f"agbench: error: {exc}", err=True)
            sys.exit(2)
        except ValueError as exc:
            click.echo(f"agbench: error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("agbench: interrupted", err=True)
            sys.exit(130)

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agbench")
def main() -> None:
    """Benchmark and simulate agentic AI on personal AI devices."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    # Every monitor poll is an HTTP request; httpx would log each one at INFO.
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


# ---- tasks -------------------------------------------------------------------------------------
@main.group()
def tasks() -> None:
    """The task suite."""


@tasks.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--category", default=None, help="Only this category.")
@_one_line_errors
def tasks_list(as_json: bool, category: str | None) -> None:
    """Every suite and its tasks; a bad task.toml is reported without hiding the others."""
    from agbench.suites.registry import discover_suites
    from agbench.task import CATEGORIES, suite_root

    if category is not None and category not in CATEGORIES:
        raise AgbenchError(f"unknown category {category!r} (one of {', '.join(CATEGORIES)})")
    suites = discover_suites(suite_root())
    rows = [(s, t) for s in suites for t in s.tasks if category is None or t.category == category]
    if as_json:
        out = [
            {
                "id": t.id,
                "suite": s.id,
                "category": t.category,
                "difficulty": t.difficulty,
                "resources": list(t.resources),
                "sensitive_items": [x.item for x in t.sensitive_items],
            }
            for s, t in rows
        ]
        click.echo(json.dumps(out, indent=1))
    else:
        for s in suites:
            if s.check is None and not s.tasks:
                continue  # a task root holding only suites
            state = (
                "ok"
                if s.manifest_ok
                else ("no manifest" if s.check is None else "failed_manifest_validation")
            )
            click.echo(f"suite {s.id}: {len(s.tasks)} tasks, manifest {state}")
        for s, t in rows:
            click.echo(f"{t.id:40s} {t.category:12s} {t.difficulty:7s} {','.join(t.resources):14s} {s.id}")
    for s in suites:
        if s.check is not None and not s.check.ok:
            click.echo(f"suite {s.id}: {'; '.join(s.check.problems)}", err=True)
        for problem in s.task_errors:
            click.echo(f"skipped: {problem}", err=True)
    tasks_ = [t for _, t in rows]
    click.echo(
        f"{len(tasks_)} tasks, {sum(len(t.sensitive_items) for t in tasks_)} sensitive items", err=True
    )


@tasks.command("check")
@click.option("--backend", type=click.Choice(["docker", "bwrap"]), default="bwrap", show_default=True)
@click.option("--suite", "suite_ids", multiple=True, help="Only the tasks of this suite (repeatable).")
@click.argument("ids", nargs=-1)
@_one_line_errors
def tasks_check(backend: str, suite_ids: tuple[str, ...], ids: tuple[str, ...]) -> None:
    """Oracle and paraphrased answers must pass; null agent and adversarial cases must fail."""
    from agbench.live.taskcheck import check_tasks, exit_code, summary_line
    from agbench.suites.registry import discover_suites, select_suites
    from agbench.task import select_tasks, suite_root

    suites = discover_suites(suite_root())
    if suite_ids:
        suites = select_suites(suites, suite_ids)
    elif not ids:
        suites = suites[:1]  # the built-in suite, as before suites existed
    for s in suites:
        for problem in s.task_errors:
            click.echo(f"skipped: {problem}", err=True)
    selected = select_tasks([t for s in suites for t in s.tasks], ids=list(ids) or None, seed=None)
    results = check_tasks(selected, backend)
    for r in results:
        if not r.ok:
            click.echo(f"FAIL {r.task_id}: {r.detail}", err=True)
    click.echo(summary_line(results))
    if exit_code(results):
        sys.exit(1)


@tasks.group("import")
def tasks_import() -> None:
    """Bring tasks of another format into a suite."""


@tasks_import.command("harbor")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--suite", "suite", default=None, help="Suite to import into (default: the first PATH's name).")
@click.option("--category", default="terminal", show_default=True, help="agbench category of the tasks.")
@_one_line_errors
def tasks_import_harbor(paths: tuple[Path, ...], suite: str | None, category: str) -> None:
    """Import Harbor / Terminal-Bench 2 task folders (or datasets of them); bad ones are skipped."""
    import re

    from agbench.suites.harbor_import import import_harbor
    from agbench.task import suite_root

    name = suite or re.sub(r"[^a-z0-9._-]+", "-", paths[0].resolve().name.lower()).strip("-")
    report = import_harbor(list(paths), suite_root(), name, category)
    for path in report.imported:
        click.echo(f"imported {path}")
    for problem in report.skipped:
        click.echo(f"skipped: {problem}", err=True)
    if report.manifest_written:
        click.echo(f"wrote {report.folder / 'manifest.json'}")
    click.echo(
        f"suite {report.suite}: {len(report.imported)} imported, {len(report.skipped)} skipped", err=True
    )
    if not report.imported:
        sys.exit(1)


# ---- serving -----------------------------------------------------------------------------------
@main.command()
@click.option("--model", default="smollm2-135m", show_default=True, help="Registry name or a .gguf path.")
@click.option("--port", type=int, default=None, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--parallel", type=click.IntRange(min=1), default=1, show_default=True, help="Slots.")
@click.option("--ctx", type=click.IntRange(min=64), default=4096, show_default=True, help="Total KV tokens.")
@click.option("--kv-unified", is_flag=True, help="One KV pool shared by all slots.")
@click.option("--threads", type=click.IntRange(min=1), default=2, show_default=True)
@_one_line_errors
def serve(model: str, port: int | None, parallel: int, ctx: int, kv_unified: bool, threads: int) -> None:
    """Run llama.cpp's llama-server in the foreground on 127.0.0.1."""
    from agbench.live.serving import serve_forever

    settings = ServerSettings(
        model=model, n_ctx=ctx, n_parallel=parallel, kv_unified=kv_unified, threads=threads
    )
    serve_forever(settings, port)


# ---- parsers -----------------------------------------------------------------------------------
@main.command()
def parsers() -> None:
    """Tool-call parser names, one a line."""
    from agbench.live.parsers import parser_names

    for name in parser_names():
        click.echo(name)


@main.command()
@click.option("--parser", "parser_name", default="auto", show_default=True)
@_one_line_errors
def parse(parser_name: str) -> None:
    """Tool calls found in a model's text (stdin), as JSON."""
    from agbench.live.parsers import parse_text

    calls = parse_text(sys.stdin.read(), parser_name)
    click.echo(json.dumps([c.to_dict() for c in calls], indent=1))


# ---- live runs ---------------------------------------------------------------------------------
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
        click.option(
            "--local-ctx",
            type=click.IntRange(min=64),
            default=None,
            help="Total KV tokens of the managed server.",
        ),
        click.option(
            "--local-parallel",
            type=click.IntRange(min=1),
            default=None,
            help="Slots (default: the concurrency).",
        ),
        click.option("--local-kv-unified", is_flag=True),
        click.option("--local-threads", type=click.IntRange(min=1), default=None),
        click.option(
            "--agent",
            type=click.Choice(["model", "replay", "oracle", "null"]),
            default="model",
            show_default=True,
        ),
        click.option("--trajectories", type=click.Path(path_type=Path), default=None),
        click.option("--backend", type=click.Choice(["docker", "bwrap"]), default="bwrap", show_default=True),
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
        click.option(
            "--local-max-tokens",
            type=click.IntRange(min=1),
            default=None,
            help="max_tokens on the local endpoint, replacing --max-tokens there (the paper: 8192).",
        ),
        click.option(
            "--cloud-max-tokens",
            type=click.IntRange(min=1),
            default=None,
            help="max_tokens on the cloud endpoint, replacing --max-tokens there (the paper: 384000).",
        ),
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
            type=click.Choice(["persistent", "fresh"]),
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
    ]
    for option in reversed(options):
        func = option(func)
    return func


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
@_one_line_errors
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
@_one_line_errors
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


# ---- trajectories ------------------------------------------------------------------------------
@main.group()
def trajectories() -> None:
    """Replayable agent trajectories."""


@trajectories.command("extract")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@_one_line_errors
def trajectories_extract(run_dir: Path, output: Path) -> None:
    """A run's agent behaviour as a replayable trajectory set."""
    from agbench.live.trajectories import extract

    result = extract(run_dir)
    result.save(output)
    click.echo(f"{len(result.trajectories)} trajectories -> {output}")


@trajectories.command("synth")
@click.option("--profile", type=click.Path(path_type=Path), default=None)
@click.option("--backend", type=click.Choice(["docker", "bwrap"]), default="bwrap", show_default=True)
@click.option("--limit", type=int, default=None)
@click.option("--task", "task_ids", multiple=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@_one_line_errors
def trajectories_synth(
    profile: Path | None, backend: str, limit: int | None, task_ids: tuple[str, ...], seed: int, output: Path
) -> None:
    """Trajectories for our suite from oracles + token profiles."""
    from agbench.live.trajectories import synthesize
    from agbench.task import load_suite, select_tasks

    # The one selection rule (as `agbench sweep` and the simulator), so all pick the same tasks.
    selected = select_tasks(load_suite(), ids=list(task_ids) or None, limit=limit, seed=seed)
    result = synthesize(selected, profile, backend=backend, seed=seed)
    result.save(output)
    click.echo(f"{len(result.trajectories)} trajectories -> {output}")


# ---- reports, simulation, calibration ----------------------------------------------------------
@main.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out", type=click.Path(path_type=Path), default=None, help="Where a comparison of several runs goes."
)
@_one_line_errors
def report(run_dirs: tuple[Path, ...], out: Path | None) -> None:
    """(Re)write the report files of these runs."""
    from agbench.report import write_reports

    for path in write_reports(list(run_dirs), out):
        click.echo(str(path))


@main.command()
@click.option("--scenario", default=None, help="A shipped scenario name or a TOML file.")
@click.option(
    "--explain",
    default=None,
    metavar="SCENARIO",
    help="Print the scenario's tokens/s by batch size with the source of every number, and exit.",
)
@click.option("--archs", default=None, help="Default: the scenario's.")
@click.option("--concurrency", default=None, help="Default: the scenario's.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None)
@click.option("--ray", default=None, help="Ray address, or 'local' to start one here.")
@click.option(
    "--trajectories", type=click.Path(path_type=Path), default=None, help="Replay this trajectory set."
)
@click.option("--profile", type=click.Path(path_type=Path), default=None, help="A calibrated profile.")
@click.option("--limit", type=int, default=None)
@click.option(
    "--requests",
    "request_trace",
    type=click.Path(path_type=Path),
    default=None,
    help="Open loop: replay this request trace (JSON lines) or a load run's levels (its directory).",
)
@click.option("--rate", default=None, help="Open loop: constant-rate levels, requests/s (0.2,0.5,1).")
@click.option(
    "--load-requests", type=click.IntRange(min=1), default=40, show_default=True, help="With --rate."
)
@click.option(
    "--prompt-tokens", default="256", show_default=True, help="With --rate: N, LO:HI, lognormal:M,S."
)
@click.option("--output-tokens", default="32", show_default=True, help="With --rate.")
@_one_line_errors
def sim(
    scenario: str | None,
    explain: str | None,
    archs: str | None,
    concurrency: str | None,
    seed: int,
    out: Path | None,
    ray: str | None,
    trajectories: Path | None,
    profile: Path | None,
    limit: int | None,
    request_trace: Path | None,
    rate: str | None,
    load_requests: int,
    prompt_tokens: str,
    output_tokens: str,
) -> None:
    """Simulate a scenario's matrix of architectures × concurrency (or, with --requests or
    --rate, open-loop requests through its server alone)."""
    if explain is not None:
        from agbench.sim.predictors.explain import render
        from agbench.sim.scenario import load_scenario

        click.echo(render(load_scenario(explain)))
        return
    if scenario is None:
        raise click.UsageError("give --scenario (or --explain SCENARIO)")
    if request_trace is not None or rate is not None:
        from agbench.load import levels_for_sim
        from agbench.sim.open_loop import run_load_sim
        from agbench.sim.sweep import default_out_dir

        levels = levels_for_sim(request_trace, rate, load_requests, prompt_tokens, output_tokens, seed)
        target = out or default_out_dir("sim-load")
        run_dir = run_load_sim(scenario, levels, target, profile=profile, seed=seed)
        click.echo(f"run directory: {run_dir}")
        click.echo(f"report: {run_dir / 'summary.html'}")
        return
    from agbench.sim import run_matrix

    run_dir = run_matrix(
        scenario,
        archs=parse_architectures(archs) if archs else None,
        concurrency=parse_concurrency(concurrency) if concurrency else None,
        seed=seed,
        out_dir=out,
        ray=ray,
        trajectories=trajectories,
        profile=profile,
        limit=limit,
    )
    click.echo(f"run directory: {run_dir}")
    click.echo(f"report: {run_dir / 'summary.html'}")


@main.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True)
@click.option("--fit-concurrency", default=None, help="Fit only on these levels, e.g. 1,2 (default: all).")
@click.option(
    "--fit-levels",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Load runs: lowest-rate levels.",
)
@_one_line_errors
def calibrate(run_dirs: tuple[Path, ...], output: Path, fit_concurrency: str | None, fit_levels: int) -> None:
    """Fit a simulator profile from live runs (or from one load run's lowest-rate levels)."""
    if len(run_dirs) == 1 and _is_load_run(run_dirs[0]):
        from agbench.calibration.load_fit import calibrate_load

        calibrate_load(run_dirs[0], output, fit_levels)
        click.echo(f"profile: {output}")
        return
    from agbench.calibration import calibrate as fit

    fit(list(run_dirs), output, concurrency=parse_concurrency(fit_concurrency) if fit_concurrency else None)
    click.echo(f"profile: {output}")


def _is_load_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds an open-loop load run (its run.json names the agent kind)."""
    try:
        meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("agent_kind") in ("load", "sim-load")


@main.command()
@click.option("--profile", type=click.Path(path_type=Path), required=True)
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("."), show_default=True)
@_one_line_errors
def validate(profile: Path, run_dirs: tuple[Path, ...], out: Path) -> None:
    """Simulated vs live errors per metric; writes OUT/validation.json."""
    if len(run_dirs) == 1 and _is_load_run(run_dirs[0]):
        from agbench.calibration.load_fit import validate_load

        click.echo(f"validation: {validate_load(profile, run_dirs[0], out)}")
        return
    from agbench.calibration import validate as check

    path = check(profile, list(run_dirs), out)
    click.echo(f"validation: {path}")


@main.command()
@click.argument("spec")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Report directory.")
@click.option("--ray", default=None, help="Ray address, or 'local' to start one here.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes (default: cores).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Tasks per point.")
@_one_line_errors
def whatif(spec: str, out: Path | None, ray: str | None, workers: int | None, limit: int | None) -> None:
    """Search deployments (device, model, KV pool, slots, architecture, concurrency) in the
    simulator; print and plot the Pareto front of the spec's objectives."""
    from agbench.sim.sweep import default_out_dir
    from agbench.sim.whatif import search, write_report
    from agbench.sim.whatif.report import front_lines

    result = search(spec, workers=workers, ray=ray, limit=limit)
    target = out or default_out_dir("whatif")
    files = write_report(result, target)
    for line in front_lines(result):
        click.echo(line)
    click.echo(f"report: {files[-1]}")


# ---- open-loop load ------------------------------------------------------------------------------
@main.command()
@click.option("--local-url", default=None, help="Load this OpenAI-compatible server (default: start one).")
@click.option(
    "--model", default="smollm2-135m", show_default=True, help="Managed model, or the URL's model name."
)
@click.option("--rates", default=None, help="Constant-rate levels, requests/s: 0.2,0.5,1,2.")
@click.option("--poisson", default=None, help="Poisson-rate levels, requests/s: 0.5 or 0.5,1.")
@click.option(
    "--trace", "trace_file", type=click.Path(path_type=Path), default=None, help="Replay this request trace."
)
@click.option(
    "--requests", "n_requests", type=click.IntRange(min=1), default=40, show_default=True, help="Per level."
)
@click.option("--prompt-tokens", default="256", show_default=True, help="N, LO:HI or lognormal:MEDIAN,SIGMA.")
@click.option("--output-tokens", default="32", show_default=True, help="N, LO:HI or lognormal:MEDIAN,SIGMA.")
@click.option(
    "--prefix-tokens", type=click.IntRange(min=0), default=0, show_default=True, help="Shared prefix."
)
@click.option(
    "--ctx", type=click.IntRange(min=64), default=8192, show_default=True, help="Managed server KV."
)
@click.option("--parallel", type=click.IntRange(min=1), default=4, show_default=True, help="Managed slots.")
@click.option("--kv-unified", is_flag=True)
@click.option("--threads", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--api-key-env", default=None, help="Environment variable holding the server's key.")
@click.option("--max-level-s", type=click.FloatRange(min=1), default=600.0, show_default=True)
@click.option("--device", default="this-machine", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None, help="The run directory.")
@click.option("--resume", type=click.Path(path_type=Path), default=None, help="Continue this load run.")
@click.option("--quiet", is_flag=True)
@_one_line_errors
def load(**kw: Any) -> None:
    """Open-loop load on a model server: latency and throughput against offered load."""
    from agbench.live.load.cli_options import load_options_from_cli
    from agbench.live.load.run import run_load

    options, resume = load_options_from_cli(kw)
    run_dir = run_load(options, resume=resume)
    click.echo(f"run directory: {run_dir}")
    click.echo(f"report: {run_dir / 'summary.html'}")


if __name__ == "__main__":
    main()

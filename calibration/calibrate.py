"""``agbench calibrate``: live traces -> a simulator profile (TOML) with its goodness of fit.

The profile is an *overlay* (sim/profiles.py): it names only what the traces determine —
server rates and slot layout, cloud latency and cache behaviour, tool CPU demand, agent
behaviour — and is laid over a scenario's device and model, so what the traces cannot say
(memory size, bandwidth) still comes from the scenario or the roofline model.
"""

from __future__ import annotations

import logging
import math
import time
from pathlib import Path
from typing import Any, Literal

import tomli_w

from agbench.attempt import Endpoint
from agbench.boot_session import same_boot
from agbench.calibration.cpu_fit import CROWDED_KEYS
from agbench.calibration.harness_fit import fit_harness
from agbench.calibration.held_out_error import default_file as default_held_out_error
from agbench.calibration.held_out_error import load as load_held_out_error
from agbench.calibration.machine_load import QUIET_BACKGROUND_CORES, quiet_mask
from agbench.calibration.noise_floor import default_floor
from agbench.calibration.noise_floor import load as load_noise_floor
from agbench.calibration.run_drift import run_drift, run_level
from agbench.calibration.server_fit import DEFAULT_N_BATCH, fit_server
from agbench.calibration.server_preset import SETTING_KEYS, server_table
from agbench.calibration.server_profile import (
    MEASURED_RATES,
    load_server_profile,
    measured_ranges,
    measured_server_rates,
    rate_value,
)
from agbench.calibration.traces import LiveTraces, load_live
from agbench.calibration.usage_fit import fit_behaviour, fit_cloud, fit_tools
from agbench.errors import AgbenchError
from agbench.hcl_sub_agent import recorded_sub_agent
from agbench.sim.profiles import Profile
from agbench.sim.uncertainty import RATE_FIELDS, scaled_rates

log = logging.getLogger(__name__)

#: live/runner.py ``standin_server_settings``: the stand-in gets this many tokens per slot.
STANDIN_CTX_PER_SLOT = 4096
#: What the live replay agent does on a failed delegation (live/replay.py MAX_REDELEGATIONS = 2:
#: always re-delegate, at most twice; the simulator counts failures, so 2 + 1), whether its
#: sub-agent persists or starts fresh (``hcl_sub_agent``, taken from the run, see fit_profile).
REPLAY_POLICY: dict[str, Any] = {"hcl_redelegate_p": 1.0, "hcl_redelegate_max": 3}


def _ctx_per_slot(traces: LiveTraces) -> int:
    """The per-slot pool size when every fitted level's pool was slots x that size, else 0."""
    sizes = set()
    for level in traces.concurrency:
        settings = traces.server_settings(level)
        if settings is None or settings.kv_unified:
            return 0
        slots = settings.n_parallel or level
        n_ctx = settings.n_ctx
        if slots <= 0 or n_ctx % slots:
            return 0
        sizes.add(n_ctx // slots)
    if len(sizes) != 1 or len(traces.concurrency) < 2:
        return 0  # one level cannot tell a per-slot size from a fixed total
    return sizes.pop()


def fit_profile(traces: LiveTraces) -> dict[str, Any]:
    """The profile overlay as a plain dict (TOML tables), fits included under ``fit``."""
    tables = traces.tables
    meta = traces.meta
    cpus = int(meta.host.get("cpus") or 2)
    first = traces.server_settings(traces.concurrency[0])
    threads = (first.threads if first is not None else 0) or 1
    # the decode step is fitted on calls measured while other processes left the machine alone
    quiet = quiet_mask(tables["model_calls"], tables["resource_samples"], cpus, threads)
    calls = tables["model_calls"].reset_index(drop=True).assign(quiet=quiet)
    unified = {
        level: bool(s.kv_unified) for level in traces.concurrency if (s := traces.server_settings(level))
    }
    calls["unified"] = calls["concurrency"].map(unified).fillna(False).astype(bool) & (
        calls["endpoint"] == Endpoint.LOCAL
    )
    n_batch = (first.batch_size if first is not None else 0) or DEFAULT_N_BATCH
    rates, server_fits = fit_server(calls, meta.is_standin, n_batch)
    server_fits["machine_load"] = {
        "quiet_calls": int(quiet.sum()),
        "calls": len(quiet),
        "quiet_background_cores_below": QUIET_BACKGROUND_CORES,
    }
    cloud, cloud_fits = fit_cloud(tables["model_calls"])
    tools, tool_fits = fit_tools(tables["tool_calls"])
    # each tool a CPU scheduling group of its own (docs/design.md, "CPU groups"): a container's
    # cgroup always; bubblewrap's new session wherever the kernel's autogroup was not off (a run
    # from before the host recorded it: on, this machine's and desktop kernels' default)
    tools["own_sched_group"] = meta.backend == "docker" or meta.host.get("sched_autogroup") is not False
    behaviour, behaviour_fits = fit_behaviour(tables["task_runs"], tables["model_calls"], tables["messages"])
    harness, harness_fits = fit_harness(tables["task_runs"], tables["model_calls"], tables["tool_calls"])
    behaviour.update(harness["behaviour"])
    level = traces.concurrency[0]
    settings = traces.server_settings(level)
    server: dict[str, Any] = {}
    if settings is not None:
        explicit_slots = meta.options.get("local_parallel")
        per_slot = _ctx_per_slot(traces)
        # The runner gives the server one slot per concurrent task unless told otherwise.
        server = server_table(
            settings, n_parallel=int(explicit_slots) if explicit_slots else 0, n_ctx_per_slot=per_slot
        )
    server.update(harness["server"])
    if rates:
        server["rates"] = {**rates, "source": "calibrated"}
    behaviour_table: dict[str, Any] = dict(behaviour)
    if meta.time_limit_s:  # else each task's own limit, as the live run had it
        behaviour_table["deadline_s"] = float(meta.time_limit_s)
    if meta.agent_kind == "replay":
        behaviour_table.update(REPLAY_POLICY)
    # HCL's sub-agent as the run had it (a run.json from before the option: fresh)
    behaviour_table["hcl_sub_agent"] = recorded_sub_agent(meta.options).value
    overlay: dict[str, Any] = {
        "device": {"name": meta.device or "device", "cores": cpus, "gpu": False},
        "server": server,
        "tools": tools,
        "behaviour": behaviour_table,
    }
    if meta.is_standin:
        # The cloud was a second local llama-server on the same cores: simulate it as one.
        threads = int(meta.options.get("local_threads") or server.get("threads") or 0)
        overlay["cloud"] = {
            "name": "cloud stand-in (local llama-server)",
            **cloud,
            "standin_local": True,
            "standin_ctx_per_slot": STANDIN_CTX_PER_SLOT,
            "standin_threads": threads,
        }
    elif cloud:
        overlay["cloud"] = {"name": meta.cloud.model if meta.cloud is not None else "cloud", **cloud}
    overlay["fit"] = {
        "source_runs": [str(p) for p in traces.run_dirs],
        "concurrency": traces.concurrency,
        "agent_kind": meta.agent_kind,
        "cloud_standin": meta.is_standin,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **server_fits,
        **cloud_fits,
        **tool_fits,
        **behaviour_fits,
        **harness_fits,
    }
    Profile.from_dict({k: v for k, v in overlay.items()}, "calibrated profile")  # schema check
    return overlay


def cpu_server_fields(cpu: dict[str, Any]) -> dict[str, Any]:
    """The server-table fields a server profile's CPU fit (``[cpu]``, or one bootstrap refit of
    it) gives the simulator: the one-busy-core efficiency, the displaced speeds, the crowded
    table."""
    out: dict[str, Any] = {}
    for key in ("oversubscribed_efficiency", "displaced_speed", "displaced_thread_share"):
        if key in cpu:
            out[key] = float(cpu[key])
    if "displaced_speed" in cpu:  # the probe displaced some of the threads: its per-kind figures
        for key in ("displaced_decode_speed", "displaced_prefill_speed"):
            if math.isfinite(float(cpu.get(key, math.nan))) and float(cpu[key]) > 0:
                out[key] = min(1.0, float(cpu[key]))
    for key in CROWDED_KEYS:
        if key in cpu:
            out[key] = [[float(x) for x in v] if isinstance(v, list) else float(v) for v in cpu[key]]
    return out


def lay_server_profile(overlay: dict[str, Any], path: Path) -> dict[str, Any]:
    """The overlay with the server's rates taken from a server profile (``agbench
    profile-server``) instead of the run: what the traces fitted is kept under
    ``fit.server_from_run`` for comparison, the profile's ranges and errors under
    ``fit.server_profile`` (the simulator flags predictions outside them)."""
    profile = load_server_profile(path)
    server = overlay.setdefault("server", {})
    fitted = server.get("rates", {})
    where = f"measured (server profile {path})"
    rates = {k: rate_value(v) for k, v in profile["rates"].items() if k in MEASURED_RATES}
    # the prompt-cache probes' figures, where they measured one (a profile from before the save
    # probe leaves the scenario's figure and its source in place)
    for table, key in (("restore", "restore_s_per_k_tokens"), ("save", "save_s_per_k_tokens")):
        if key in profile.get(table, {}):
            rates[key] = float(profile[table][key])
    server["rates"] = {**rates, "source": "measured", "sources": {k: where for k in rates}}
    cpu = profile.get("cpu", {})
    server.update(cpu_server_fields(cpu))
    bootstrap = profile.get("bootstrap", {})
    mismatched = _settings_mismatch(profile.get("server", {}), server)
    if mismatched:
        log.warning("server profile %s was measured with other settings: %s", path, "; ".join(mismatched))
    if profile.get("meta", {}).get("quick"):
        # its contexts stop at 256 tokens, a sweep's conversations reach 1-2,000 (docs/design.md)
        log.warning(
            "server profile %s is the quick grid (profile-server --quick): its short contexts and one "
            "background size leave the workload's range to extrapolation; predict from the full grid",
            path,
        )
    overlay.setdefault("fit", {})["server_profile"] = {
        "path": str(path),
        "ranges": measured_ranges(profile),
        "fit": profile.get("fit", {}),
        "cpu": cpu,
        "restore": profile.get("restore", {}),
        "save": profile.get("save", {}),
        "noise": profile.get("noise", {}),
        "bootstrap": bootstrap.get("rates", []),
        # the CPU speeds of the same resamples, as server fields (empty: a profile from before)
        "bootstrap_cpu": [cpu_server_fields(c) for c in bootstrap.get("cpu", []) if isinstance(c, dict)],
        "settings_mismatch": mismatched,
    }
    if boot := profile.get("meta", {}).get("boot_id"):  # absent from profiles made before
        overlay["fit"]["server_profile"]["boot_id"] = boot
    overlay["fit"]["server_from_run"] = {k: v for k, v in fitted.items() if k != "source"}
    return overlay


def _check_session(fit: dict[str, Any], traces: LiveTraces, path: Path) -> None:
    """Record whether the profile was measured in the boot of one of the runs (``same_boot``,
    absent where either predates the record) and warn where it was not: a profile from another
    session calibrates worse, whatever its grid (agbench/boot_session.py)."""
    same = same_boot(fit.get("boot_id"), [m.host.get("boot_id") for m in traces.metas])
    if same is None:
        return
    fit["same_boot"] = same
    if not same:
        log.warning(
            "server profile %s was measured in another boot of this machine than the runs: "
            "the host under a VM can change the server's shape between boots; profile in the "
            "session of the sweeps",
            path,
        )


def _settings_mismatch(profiled: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """Settings in which the profiled server differs from the run's (rates may not carry over)."""
    out = []
    for theirs, ours in SETTING_KEYS:
        if theirs in ("n_ctx", "n_parallel"):  # a profile measures the rates, not the pool
            continue
        if theirs in profiled and ours in run and profiled[theirs] != run[ours]:
            out.append(f"{ours}: profile {profiled[theirs]}, run {run[ours]}")
    return out


def level_rates(rates: dict[str, Any], level: dict[str, float]) -> dict[str, Any]:
    """The profile's rates moved to the run's level, their sources saying so.

    Each level is measured on the run's C = 1 calls for one kind of work: the decode level on
    steps of one sequence (a pass over the weights per token), the prompt level on prompt
    batches (many tokens per pass). Where the profile measured the decode steps of two or more
    sequences apart (``decode_table_*``), those move with the prompt level: on a CPU they are
    several tokens per pass too, and on the development recordings they drifted nearer the
    prompt work than batch 1 (``python bench/batched_steps.py``: the runs' own C = 1, 2 fits
    put batch 2 at 0.97 / 0.93 / 0.97 / 0.56 of the profile, their prompt levels say 0.98 /
    0.81 / 1.03 / 0.60, their decode levels 0.82 / 0.78 / 0.95 / 0.46: a mean miss of 7 %
    against 13 %). Without a table the line's every term takes the decode level, as before."""
    batched = level["prefill"] if rates.get("decode_table_batch") else None
    out = scaled_rates(rates, level["decode"], level["prefill"], batched=batched)
    decode, prompt = (
        ("decode at batch 1", "prompt work and batched decode")
        if batched is not None
        else ("decode", "prompt work")
    )
    note = f"; level x{level['decode']:.3f} {decode}, x{level['prefill']:.3f} {prompt} from the run's C = 1 calls"
    out["sources"] = {
        k: f"{v}{note}" if k in RATE_FIELDS else v for k, v in dict(rates.get("sources", {})).items()
    }
    return out


def calibrate(
    run_dirs: list[Path],
    output: Path,
    concurrency: list[int] | None = None,
    server_profile: Path | None = None,
    noise_floor: Path | Literal["shipped"] | None = "shipped",
    held_out_error: Path | Literal["shipped"] | None = "shipped",
) -> Path:
    """Fit a profile from live runs (optionally only some concurrency levels) and write it.

    With ``server_profile`` the server's rates come from that profile and only the agents'
    behaviour (turns, tokens, tool and harness times, cloud latency) from the runs: the
    documented path is a profile plus the C = 1 run alone. ``noise_floor`` (a file of
    ``agbench noise-floor``; "shipped": the one this package ships; None: none) goes into
    ``fit.noise_floor``: the least an interval of this profile is widened to; ``held_out_error``
    (a file of ``agbench held-out-error``, "shipped" or None) into ``fit.held_out_error``: the
    least a band at a level the fit did not see is widened to."""
    if output.is_dir():  # before the fit, not after it
        raise AgbenchError(f"-o {output} is a folder; name the profile file (e.g. {output / 'profile.toml'})")
    traces = load_live(run_dirs, concurrency)
    overlay = fit_profile(traces)
    if noise_floor is not None:
        floor_path = default_floor() if noise_floor == "shipped" else Path(noise_floor)
        overlay.setdefault("fit", {})["noise_floor"] = load_noise_floor(floor_path)
    if held_out_error is not None:
        error_path = default_held_out_error() if held_out_error == "shipped" else Path(held_out_error)
        overlay.setdefault("fit", {})["held_out_error"] = load_held_out_error(error_path)
    if server_profile is not None:
        overlay = lay_server_profile(overlay, server_profile)
        _check_session(overlay["fit"]["server_profile"], traces, server_profile)
        rates = measured_server_rates(overlay["server"]["rates"])
        drift = run_drift(traces.tables["model_calls"], rates)
        overlay["fit"]["server_profile"]["run_drift"] = drift
        level = run_level(drift)
        if level:  # the profile's shape at the run's speed (run_drift.run_level)
            overlay["fit"]["server_profile"]["run_level"] = level
            overlay["server"]["rates"] = level_rates(overlay["server"]["rates"], level)
        Profile.from_dict(overlay, "calibrated profile")  # schema check
    output.parent.mkdir(parents=True, exist_ok=True)
    try:
        output.write_text(tomli_w.dumps(overlay))
    except (TypeError, ValueError) as exc:
        raise AgbenchError(f"cannot write profile {output}: {exc}") from None
    log.info("profile written to %s (fitted on C=%s)", output, ",".join(map(str, traces.concurrency)))
    return output

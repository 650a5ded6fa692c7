"""The server profile: fits recover known rates, calibration lays them over a run, the simulator
flags what leaves the measured range, and ``agbench profile-server`` measures a real server.

The fit tests build profiler calls from a known ``ServerRates`` (the form the simulator
integrates), so recovering it checks the regression design, not a figure of this machine.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomli_w

from agbench.calibration import calibrate
from agbench.calibration.cpu_fit import fit_cpu
from agbench.calibration.intervals import rate_draws, server_draws
from agbench.calibration.server_profile import (
    fit_server_profile,
    refit_server_profile,
    write_server_profile,
)
from agbench.errors import AgbenchError
from agbench.sim.predictors.cpu_speed import server_speed
from agbench.sim.predictors.explain import term_source
from agbench.sim.profiles import Profile, ServerProfile, ServerRates

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "calibration" / "reference" / "run"
TRUE = ServerRates(
    prefill_tok_s=180.0,
    prefill_ctx_slowdown_per_k=0.3,
    prefill_masked_batch_s_per_k=0.05,
    prefill_masked_token_s_per_k=0.0004,
    decode_step_s=0.012,
    decode_step_per_seq_s=0.006,
    decode_step_per_kv_token_s=2e-6,
)
META = {"server": {"n_ctx": 4096, "n_parallel": 4, "kv_unified": True, "threads": 1, "batch_size": 512}}


def _call(probe: str, params: dict[str, Any], **kw: Any) -> dict[str, Any]:
    base = {
        "probe": probe,
        "params": params,
        "prompt_tokens": 1,
        "cached_tokens": 0,
        "completion_tokens": 1,
        "prompt_ms": None,
        "predicted_ms": None,
        "ttft_s": 0.1,
        "total_s": 0.2,
        "t_start": 0.0,
        "error_class": "",
    }
    return {**base, **kw}


def synthetic_calls(noise: float = 0.0, seed: int = 0, true: ServerRates = TRUE) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)

    def prompt_ms(n: int, cached: int) -> float:
        """One prompt alone: the fixed part once per 512-token batch, then its tokens."""
        seconds = true.prefill_batch_s * math.ceil(n / 512) + n / true.prefill_rate(cached + n / 2)
        return seconds * 1000 * jitter()

    def jitter() -> float:
        return float(math.exp(rng.normal(0.0, noise))) if noise else 1.0

    calls = []
    for rep in range(2):
        for ctx in (64, 512):
            for b in (1, 2, 3, 4):
                out = 48
                tau = true.decode_step(b, b * (ctx + out / 2))
                for _ in range(b):
                    calls.append(
                        _call(
                            "decode",
                            {"batch": b, "ctx": ctx, "rep": rep},
                            prompt_tokens=ctx,
                            completion_tokens=out,
                            predicted_ms=tau * out * 1000 * jitter(),
                        )
                    )
        for n in (64, 256, 1024):
            ms = prompt_ms(n, 0)
            calls.append(_call("prefill", {"tokens": n, "rep": rep}, prompt_tokens=n, prompt_ms=ms))
        cached, n = 1024, 128
        ms = prompt_ms(n, cached)
        calls.append(
            _call(
                "prefill_cached",
                {"cached": cached, "rep": rep},
                prompt_tokens=cached + n,
                cached_tokens=cached,
                prompt_ms=ms,
            )
        )
    # masked: one background of ``held`` cells that generates nothing meanwhile (its rate is 0)
    for i, (held, n) in enumerate(((1024, 64), (1024, 384), (2048, 64), (2048, 384))):
        t0 = 100.0 * (i + 1)
        prompt_s = n / true.prefill_rate(n / 2) + true.decode_step(1, held) + true.masked_s(held, n)
        calls.append(
            _call(
                "masked",
                {"background": 1, "held": held, "tokens": n, "rep": 0},
                prompt_tokens=n,
                prompt_ms=prompt_s * 1000,
                ttft_s=prompt_s,
                total_s=prompt_s,
                t_start=t0,
            )
        )
        calls.append(
            _call(
                "masked_background",
                {"background": 1, "held": held, "probe_sent": t0},
                prompt_tokens=held,
                completion_tokens=1,
                predicted_ms=1e-3,
                ttft_s=1e9,
                t_start=t0,
            )
        )
    return calls


def test_the_fit_recovers_the_rates_it_was_built_from() -> None:
    tables = fit_server_profile(synthetic_calls(), META)
    rates = tables["rates"]
    for name in ("prefill_tok_s", "decode_step_s", "decode_step_per_seq_s", "decode_step_per_kv_token_s"):
        assert rates[name] == pytest.approx(getattr(TRUE, name), rel=0.02), name
    assert rates["prefill_ctx_slowdown_per_k"] == pytest.approx(TRUE.prefill_ctx_slowdown_per_k, rel=0.05)
    assert rates["prefill_masked_token_s_per_k"] == pytest.approx(TRUE.prefill_masked_token_s_per_k, rel=0.1)
    assert rates["prefill_masked_batch_s_per_k"] == pytest.approx(TRUE.prefill_masked_batch_s_per_k, rel=0.1)
    fit = tables["fit"]
    assert fit["decode"]["batch"] == [1.0, 4.0]
    assert fit["masked"]["masked_cells"] == [1024.0, 2048.0]
    assert fit["decode"]["median_abs_rel_error"] < 1e-3


#: A CPU-like server: batch 1 well below the line through the other sizes, its own KV slope,
#: and a fixed part in every prompt batch.
CPU_LIKE = ServerRates(
    prefill_tok_s=300.0,
    prefill_ctx_slowdown_per_k=0.3,
    prefill_batch_s=0.035,
    prefill_masked_batch_s_per_k=0.05,
    prefill_masked_token_s_per_k=0.0004,
    decode_step_s=0.012,
    decode_step_per_seq_s=0.005,
    decode_step_per_kv_token_s=1e-5,
    decode_table_batch=[1.0, 2.0, 3.0, 4.0],
    decode_table_step_s=[0.009, 0.017, 0.021, 0.026],
    decode_table_per_kv_token_s=[7e-6, 9e-6, 1e-5, 1.1e-5],
)


def test_the_fit_keeps_each_measured_batch_size_and_the_prompt_batches_fixed_part() -> None:
    rates = fit_server_profile(synthetic_calls(true=CPU_LIKE), META)["rates"]
    assert rates["decode_table_batch"] == CPU_LIKE.decode_table_batch
    assert rates["decode_table_step_s"] == pytest.approx(CPU_LIKE.decode_table_step_s, rel=0.02)
    assert rates["decode_table_per_kv_token_s"] == pytest.approx(
        CPU_LIKE.decode_table_per_kv_token_s, rel=0.02
    )
    assert rates["prefill_batch_s"] == pytest.approx(CPU_LIKE.prefill_batch_s, rel=0.05)
    assert rates["prefill_tok_s"] == pytest.approx(CPU_LIKE.prefill_tok_s, rel=0.02)
    # the line through the sizes (what the step was before the table) misses batch 1 by a tenth
    assert rates["decode_step_s"] > 1.1 * CPU_LIKE.decode_table_step_s[0]


def test_each_batch_counts_once_however_many_requests_it_held() -> None:
    """Batch b leaves b rows with one step time; fitted per row, the large batches would pull the
    shared KV slope their way. Duplicating the rows of batch 4 must not move the fit."""
    calls = synthetic_calls(true=CPU_LIKE)
    doubled = calls + [c for c in calls if c["probe"] == "decode" and c["params"]["batch"] == 4]
    once = fit_server_profile(calls, META)["rates"]
    twice = fit_server_profile(doubled, META)["rates"]
    assert twice["decode_table_step_s"] == pytest.approx(once["decode_table_step_s"], rel=1e-6)


def test_a_profile_is_fitted_again_from_its_recorded_calls(tmp_path: Path) -> None:
    calls = synthetic_calls(true=CPU_LIKE)
    folder = tmp_path / "profile"
    folder.mkdir()
    (folder / "profile_calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))
    old = write_server_profile(calls, META, folder / "server_profile.toml")
    data = tomllib.loads(old.read_text())
    del data["rates"]["prefill_batch_s"]  # as a profile fitted before the term existed
    old.write_text(tomli_w.dumps(data))
    new = tomllib.loads(refit_server_profile(old, tmp_path / "again.toml").read_text())
    assert new["rates"]["prefill_batch_s"] == pytest.approx(CPU_LIKE.prefill_batch_s, rel=0.05)
    assert new["server"] == data["server"]
    assert new["meta"]["refitted_from"] == str(old)
    cli = [
        sys.executable,
        "-m",
        "agbench.cli",
        "profile-server",
        "--refit",
        str(old),
        "--out",
        str(tmp_path / "cli"),
    ]
    done = subprocess.run(cli, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (
        tomllib.loads((tmp_path / "cli" / "server_profile.toml").read_text())["rates"]["prefill_batch_s"] > 0
    )
    done = subprocess.run(cli, capture_output=True, text=True, check=False)  # the same --out again
    assert done.returncode == 2
    assert "server_profile.toml exists; give --refit another --out" in done.stderr
    (folder / "profile_calls.jsonl").unlink()
    done = subprocess.run([*cli[:-1], str(tmp_path / "cli-2")], capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "no profile_calls.jsonl beside it" in done.stderr
    with pytest.raises(AgbenchError, match=r"no profile_calls\.jsonl"):
        refit_server_profile(old, tmp_path / "again.toml")


def test_a_draw_slows_every_decode_term_alike_and_keeps_the_batch_sizes() -> None:
    table = {
        "decode_step_s": 0.01,
        "decode_step_per_kv_token_s": 1e-5,
        "decode_table_batch": [1.0, 2.0],
        "decode_table_step_s": [0.009, 0.017],
        "decode_table_per_kv_token_s": [7e-6, 9e-6],
    }
    fit = {"server_profile": {"bootstrap": [table], "noise": {"decode_rel_sd": 0.2}}}
    for draw in rate_draws(fit, 4):
        factor = draw["decode_step_s"] / table["decode_step_s"]
        assert factor != pytest.approx(1.0)
        assert draw["decode_table_batch"] == table["decode_table_batch"]
        for key in ("decode_step_per_kv_token_s", "decode_table_step_s", "decode_table_per_kv_token_s"):
            assert np.asarray(draw[key]) / np.asarray(table[key]) == pytest.approx(factor), key


def test_noisy_calls_give_bootstrap_draws_and_a_drift(tmp_path: Path) -> None:
    path = write_server_profile(synthetic_calls(noise=0.05), META, tmp_path / "server_profile.toml")
    data = tomllib.loads(path.read_text())
    assert len(data["bootstrap"]["rates"]) >= 10
    assert 0.0 < data["noise"]["decode_rel_sd"] < 0.2
    draws = rate_draws(
        {"server_profile": {"bootstrap": data["bootstrap"]["rates"], "noise": data["noise"]}}, 8
    )
    spread = {round(d["decode_step_s"], 6) for d in draws}
    assert len(draws) == 8
    assert len(spread) > 1


def test_too_few_decode_calls_is_an_error() -> None:
    with pytest.raises(AgbenchError, match="decode"):
        fit_server_profile([c for c in synthetic_calls() if c["probe"] != "decode"], META)


@pytest.mark.skipif(not (REFERENCE / "run.json").is_file(), reason="the reference dataset is not here")
def test_a_profile_from_another_boot_than_the_runs_is_flagged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    run = tmp_path / "run"
    shutil.copytree(REFERENCE, run)
    meta = json.loads((run / "run.json").read_text())
    meta.setdefault("host", {})["boot_id"] = "boot-a"
    (run / "run.json").write_text(json.dumps(meta))
    for boot, same in (("boot-a", True), ("boot-b", False)):
        (tmp_path / boot).mkdir()
        path = write_server_profile(synthetic_calls(), {**META, "boot_id": boot}, tmp_path / boot / "p.toml")
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            out = calibrate([run], tmp_path / f"{boot}.toml", concurrency=[1], server_profile=path)
        assert tomllib.loads(out.read_text())["fit"]["server_profile"]["same_boot"] is same
        assert ("another boot" in caplog.text) is not same
    # a run recorded before runs named their boot: nothing to compare, nothing said
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        out = calibrate([REFERENCE], tmp_path / "old.toml", concurrency=[1], server_profile=path)
    assert "same_boot" not in tomllib.loads(out.read_text())["fit"]["server_profile"]
    assert "another boot" not in caplog.text


@pytest.mark.skipif(not (REFERENCE / "run.json").is_file(), reason="the reference dataset is not here")
def test_calibrating_on_a_profile_takes_its_rates_and_keeps_its_ranges(tmp_path: Path) -> None:
    server_profile = write_server_profile(synthetic_calls(), META, tmp_path / "server_profile.toml")
    out = calibrate([REFERENCE], tmp_path / "p.toml", concurrency=[1], server_profile=server_profile)
    data = tomllib.loads(out.read_text())
    rates = data["server"]["rates"]
    # the profile's rates, at the level the run's own C = 1 calls ran at (run_drift.run_level)
    level = data["fit"]["server_profile"]["run_level"]
    assert rates["decode_step_s"] == pytest.approx(TRUE.decode_step_s * level["decode"], rel=0.02)
    assert rates["prefill_tok_s"] == pytest.approx(TRUE.prefill_tok_s / level["prefill"], rel=0.02)
    assert rates["source"] == "measured"
    assert "server profile" in rates["sources"]["prefill_tok_s"]
    assert data["fit"]["concurrency"] == [1]
    assert data["fit"]["server_profile"]["ranges"]["decode_batch"] == [1.0, 4.0]
    assert "decode_step_s" in data["fit"]["server_from_run"]


def _save_calls(ms_per_k: float) -> list[dict[str, Any]]:
    """The save probe's calls: 3 ms of HTTP and template, plus the launch's copy of the held
    slot (``saved`` False) or of the 32-token request's slot (True)."""
    calls = []
    for rep in range(2):
        for held in (256, 1024):
            for saved in (False, True):
                copied = 32 if saved else held
                wait = 0.003 + copied * ms_per_k / 1e6 + (0.0005 if rep else -0.0005)
                params = {"held": held, "saved": saved, "short": 32, "rep": rep}
                calls.append(_call("save", params, prompt_ms=400.0, ttft_s=0.4 + wait))
    return calls


def test_the_save_probe_gives_the_copy_time_per_token_and_calibration_takes_it(tmp_path: Path) -> None:
    tables = fit_server_profile(synthetic_calls() + _save_calls(13.0), META)
    assert tables["save"]["save_s_per_k_tokens"] == pytest.approx(0.013)
    assert tables["save"]["held_tokens"] == [256, 1024]
    server_profile = write_server_profile(synthetic_calls() + _save_calls(13.0), META, tmp_path / "sp.toml")
    out = calibrate([REFERENCE], tmp_path / "p.toml", concurrency=[1], server_profile=server_profile)
    profile = Profile.from_dict(tomllib.loads(out.read_text()))
    assert profile.server.rates is not None
    assert profile.server.rates.save_s_per_k_tokens == pytest.approx(0.013)  # not moved to the run's level
    assert term_source(profile, "server.rates", "save_s_per_k_tokens").startswith("measured (server profile")
    # a profile from before the probe leaves the scenario's figure and says where it is from
    old = write_server_profile(synthetic_calls(), META, tmp_path / "old.toml")
    assert "note" in fit_server_profile(synthetic_calls(), META)["save"]
    out = calibrate([REFERENCE], tmp_path / "q.toml", concurrency=[1], server_profile=old)
    assert "save_s_per_k_tokens" not in tomllib.loads(out.read_text())["server"]["rates"]


def _cpu_calls(busy_factor: float) -> list[dict[str, Any]]:
    """Decode calls quiet and with a core busy, the busy ones ``busy_factor`` times slower."""
    calls = []
    for probe, factor in (("decode", 1.0), ("decode_cpu_busy", busy_factor)):
        calls.append(_call(probe, {"batch": 1, "ctx": 64}, predicted_ms=480.0 * factor, completion_tokens=48))
    return calls


def test_cpu_probe_slower_than_the_forms_floor_holds_efficiency_at_zero_and_says_so() -> None:
    # Two threads, two cores, one busy: share 2/3, the form's slowest speed share**2 = 0.444.
    fit = fit_cpu(_cpu_calls(1 / 0.39), threads=2, cores=2)
    assert fit["busy_core_decode_speed"] == pytest.approx(0.39)
    assert fit["oversubscribed_efficiency"] == 0.0
    assert "below the form's floor" in fit["note"]
    # ...and a profile with it is a valid simulator profile (0 is allowed: speed = share**2).
    assert ServerProfile(oversubscribed_efficiency=0.0).oversubscribed_efficiency == 0.0


def test_cpu_probe_between_floor_and_full_share_recovers_the_efficiency() -> None:
    share, e = 2 / 3, 0.4
    speed = share * (1 - (1 - e) * (1 - share))
    fit = fit_cpu(_cpu_calls(1 / speed), threads=2, cores=2)
    assert fit["oversubscribed_efficiency"] == pytest.approx(e)
    assert "note" not in fit


def test_measured_efficiency_records_its_data_and_explain_says_measured() -> None:
    share, e = 2 / 3, 0.4
    speed = share * (1 - (1 - e) * (1 - share))
    fit = fit_cpu(_cpu_calls(1 / speed), threads=2, cores=2)
    assert fit["share"] == pytest.approx(share)
    assert fit["samples"] == 1
    assert fit["speed_range"] == pytest.approx([speed, speed])
    profile = Profile(fit={"server_profile": {"path": "p.toml", "cpu": fit}})
    text = term_source(profile, "server", "oversubscribed_efficiency")
    assert text.startswith("measured (server profile p.toml, one busy core, share 0.67, speed ")
    # where the threads fit beside the busy core the probe says so and sets nothing
    unmeasured = fit_cpu(_cpu_calls(1.05), threads=1, cores=2)
    assert "oversubscribed_efficiency" not in unmeasured
    assert unmeasured["share"] == 1.0


def _displaced_calls(slowdown: float) -> list[dict[str, Any]]:
    """Decode and prefill quiet, and ``slowdown`` times slower beside another session's loop."""
    quiet_decode = _call("decode", {"batch": 1, "ctx": 64}, predicted_ms=480.0, completion_tokens=48)
    quiet_prefill = _call("prefill", {"tokens": 64}, prompt_tokens=64, prompt_ms=256.0)
    return [
        quiet_decode,
        quiet_prefill,
        _call(
            "decode_cpu_displaced", {"batch": 1, "ctx": 64}, predicted_ms=80.0 * slowdown, completion_tokens=8
        ),
        _call("prefill_cpu_displaced", {"tokens": 64}, prompt_tokens=64, prompt_ms=256.0 * slowdown),
    ]


def test_displaced_probe_measures_the_speed_and_the_share_of_threads_it_displaced() -> None:
    fit = fit_cpu(_displaced_calls(160.0), threads=2, cores=2)
    assert fit["displaced_decode_speed"] == pytest.approx(1 / 160)
    assert fit["displaced_speed"] == pytest.approx(1 / 160)
    assert fit["displaced_thread_share"] == pytest.approx(0.5)  # one of two threads lost its core
    assert fit["displaced_samples"] == 2
    profile = Profile(fit={"server_profile": {"path": "p.toml", "cpu": fit}})
    assert term_source(profile, "server", "displaced_speed").startswith(
        "measured (server profile p.toml, a busy loop in a session of its own, 0.50 of the threads"
    )
    # a one-thread server keeps its core beside the loop: nothing displaced, nothing set
    alone = fit_cpu(_displaced_calls(1.1), threads=1, cores=2)
    assert "displaced_speed" not in alone
    # and a profile without the probe has no displaced figures at all
    assert not any(k.startswith("displaced") for k in fit_cpu(_cpu_calls(2.0), threads=2, cores=2))


def _crowded_calls() -> list[dict[str, Any]]:
    """Quiet decode and prefill, then beside one busy core and beside a twin server: the busy
    calls 2x and 1.5x slower, the twin's decode calls 5x and 15x (mean 10x), its prompts 2.5x."""
    calls = [
        _call("decode", {"batch": 1, "ctx": 64}, predicted_ms=480.0, completion_tokens=48),
        _call("prefill", {"tokens": 64}, prompt_tokens=64, prompt_ms=256.0),
        _call("decode_cpu_busy", {"batch": 1, "ctx": 64}, predicted_ms=960.0, completion_tokens=48),
        _call("prefill_cpu_busy", {"tokens": 64}, prompt_tokens=64, prompt_ms=384.0),
        _call("prefill_cpu_twin", {"tokens": 64}, prompt_tokens=64, prompt_ms=640.0),
    ]
    for factor in (5.0, 15.0):
        calls.append(
            _call(
                "decode_cpu_twin", {"batch": 1, "ctx": 64}, predicted_ms=480.0 * factor, completion_tokens=48
            )
        )
    return calls


def test_crowded_speeds_are_measured_per_kind_of_work_at_each_probes_share() -> None:
    fit = fit_cpu(_crowded_calls(), threads=2, cores=2)
    assert fit["crowded_share"] == pytest.approx([0.5, 2 / 3])  # a twin: 2 / (2 x 2); a loop: 2 / 3
    assert fit["crowded_probes"] == ["cpu_twin", "cpu_busy"]
    # the twin's decode: the quiet time over the mean of its calls (10x), not their median
    assert fit["crowded_decode_speed"] == pytest.approx([0.1, 0.5])
    assert fit["crowded_prefill_speed"] == pytest.approx([0.4, 2 / 3])
    profile = Profile(fit={"server_profile": {"path": "p.toml", "cpu": fit}})
    assert term_source(profile, "server", "crowded_decode_speed") == (
        "measured (server profile p.toml, share 0.50 beside a twin server decoding, "
        "0.67 beside one busy core, 5 calls)"
    )
    # where the threads fit beside a twin and a loop (one thread, two cores), nothing is crowded
    assert "crowded_share" not in fit_cpu(_crowded_calls(), threads=1, cores=2)


def _crowded_calls_by_length() -> list[dict[str, Any]]:
    """:func:`_crowded_calls` with prompts of 2,048 tokens too (four 512-token batches): beside
    the busy loop 1.25x slower, beside the twin 2x (the 64-token ones: 1.5x and 2.5x)."""
    calls = _crowded_calls()
    for probe, ms in (("prefill", 2048.0), ("prefill_cpu_busy", 2560.0), ("prefill_cpu_twin", 4096.0)):
        calls.append(_call(probe, {"tokens": 2048}, prompt_tokens=2048, prompt_ms=ms))
    return calls


def test_crowded_prompt_speed_is_kept_per_batch_size_where_every_point_measured_several() -> None:
    fit = fit_cpu(_crowded_calls_by_length(), threads=2, cores=2, n_batch=512)
    # the batches the prompts were read in: 2,048 tokens 512 at a time; where the prompts'
    # prefix was cached, the tokens left
    assert fit["crowded_prefill_tokens"] == [64.0, 512.0]
    cached = [
        {**c, "cached_tokens": 30} if c["params"].get("tokens") == 64 else c
        for c in _crowded_calls_by_length()
    ]
    assert fit_cpu(cached, threads=2, cores=2)["crowded_prefill_tokens"] == [34.0, 512.0]
    twin, busy = fit["crowded_prefill_speed_by_tokens"]  # rows by share: the twin's, the loop's
    assert (twin, busy) == (pytest.approx([0.4, 0.5]), pytest.approx([2 / 3, 0.8]))
    assert fit["crowded_prefill_speed"] == pytest.approx([0.45, (2 / 3 + 0.8) / 2])  # their median
    # one length measured at one point: no table
    assert "crowded_prefill_tokens" not in fit_cpu(_crowded_calls(), threads=2, cores=2)
    profile = Profile(fit={"server_profile": {"path": "p.toml", "cpu": fit}})
    assert term_source(profile, "server", "crowded_prefill_speed_by_tokens").startswith("measured (")
    none = Profile(
        fit={"server_profile": {"path": "p.toml", "cpu": fit_cpu(_crowded_calls(), threads=2, cores=2)}}
    )
    none.server.crowded_share = [0.5]
    assert term_source(none, "server", "crowded_prefill_tokens") == (
        "not measured per batch size: crowded_prefill_speed at every size"
    )


def test_calibration_lays_the_crowded_and_displaced_speeds_over_the_server(tmp_path: Path) -> None:
    path = tmp_path / "server_profile.toml"
    meta = {**META, "server": {**META["server"], "threads": 2}, "cores": 2}
    write_server_profile(synthetic_calls() + _crowded_calls_by_length() + _displaced_calls(160.0), meta, path)
    out = tmp_path / "p.toml"
    calibrate([REFERENCE], out, concurrency=[1], server_profile=path)
    server, cpu = Profile.load(out).server, tomllib.loads(path.read_text())["cpu"]
    assert server.crowded_share == pytest.approx([0.5, 2 / 3])
    assert server.crowded_prefill_tokens == pytest.approx(cpu["crowded_prefill_tokens"])
    assert server.crowded_prefill_speed_by_tokens[0] == pytest.approx(
        cpu["crowded_prefill_speed_by_tokens"][0]
    )
    assert server.crowded_decode_speed == pytest.approx(cpu["crowded_decode_speed"])
    assert server.crowded_prefill_speed == pytest.approx(cpu["crowded_prefill_speed"])
    assert server.crowded_decode_speed[0] < server.crowded_prefill_speed[0] < 1.0
    # and the displaced speeds, per kind of work
    assert server.displaced_decode_speed == pytest.approx(cpu["displaced_decode_speed"])
    assert server.displaced_prefill_speed == pytest.approx(cpu["displaced_prefill_speed"])


@pytest.mark.skipif(not (REFERENCE / "run.json").is_file(), reason="the reference dataset is not here")
def test_interval_draws_take_the_crowded_speeds_of_the_same_bootstrap_resample(tmp_path: Path) -> None:
    path = tmp_path / "server_profile.toml"
    meta = {**META, "server": {**META["server"], "threads": 2}, "cores": 2}
    write_server_profile(synthetic_calls(noise=0.05) + _crowded_calls(), meta, path)
    refits = tomllib.loads(path.read_text())["bootstrap"]
    assert len(refits["cpu"]) == len(refits["rates"]) > 10
    # the twin's two decode calls (5x and 15x slower) resampled: the speed moves several-fold
    twin = [c["crowded_decode_speed"][0] for c in refits["cpu"]]
    assert max(twin) > 2 * min(twin)
    out = tmp_path / "p.toml"
    calibrate([REFERENCE], out, concurrency=[1], server_profile=path)
    fit = Profile.load(out).fit
    draws = server_draws(fit, 12)
    assert len(draws) == 12
    assert all("decode_step_s" in d["rates"] and len(d["crowded_decode_speed"]) == 2 for d in draws)
    # draw i's CPU speeds and rates come from bootstrap refit i
    boot = fit["server_profile"]["bootstrap_cpu"]
    assert [d["crowded_decode_speed"] for d in draws] == [
        boot[i % len(boot)]["crowded_decode_speed"] for i in range(12)
    ]
    # a profile from before the CPU bootstrap: rates alone, as before
    fit["server_profile"].pop("bootstrap_cpu")
    assert all(set(d) == {"rates"} for d in server_draws(fit, 3))


def test_calibrate_refuses_a_file_that_is_no_server_profile(tmp_path: Path) -> None:
    bogus = tmp_path / "x.toml"
    bogus.write_text("[server]\nthreads = 1\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "agbench.cli",
            "calibrate",
            str(REFERENCE),
            "--server-profile",
            str(bogus),
            "--fit-concurrency",
            "1",
            "-o",
            str(tmp_path / "p.toml"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "not a server profile" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


QUICK_PROFILE = [
    "profile-server",
    "--quick",
    "--ctx",
    "1024",  # a smaller pool parks smaller background sequences: the same probes, faster
    "--kv-unified",
    "--threads",
    "1",
    "--parallel",
    "2",
]


def profile_server(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agbench.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def kill_after_a_finished_probe(out: Path) -> dict[str, Any]:
    """Start a quick profile into ``out`` and kill it (SIGKILL) once a probe has finished and
    the next has written calls; returns the progress it left."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agbench.cli", *QUICK_PROFILE, "--repeats", "1", "--out", str(out), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                progress = json.loads((out / "profile_progress.json").read_text())
                lines = (out / "profile_calls.jsonl").read_text().count("\n")
                if progress["done"] and lines > progress["calls"]:
                    break
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    return dict(json.loads((out / "profile_progress.json").read_text()))


def test_a_profile_whose_server_does_not_start_keeps_nothing_and_runs_again(tmp_path: Path) -> None:
    out = tmp_path / "profile"
    for _ in range(2):  # the same command again: not refused as an unfinished profile
        done = profile_server(
            "profile-server", "--model", str(tmp_path / "none.gguf"), "--out", str(out), timeout=120
        )
        assert done.returncode == 2
        assert done.stderr.strip().endswith(f"(no probe finished; nothing kept in {out})")
        assert len(done.stderr.strip().splitlines()) == 1
        assert not (out / "profile_calls.jsonl").exists()
        assert not (out / "profile_progress.json").exists()


@pytest.mark.server
@pytest.mark.slow
def test_a_killed_profile_keeps_its_finished_probes_and_resume_measures_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "profile"
    left = kill_after_a_finished_probe(out)
    assert left["done"]
    assert not (out / "server_profile.toml").exists()
    recorded = (out / "profile_calls.jsonl").read_text().splitlines(keepends=True)
    assert len(recorded) > left["calls"]  # the probe cut short had written calls
    kept = recorded[: left["calls"]]

    again = profile_server(*QUICK_PROFILE, "--repeats", "1", "--out", str(out), timeout=120)
    assert again.returncode == 2
    assert "holds an unfinished profile; give --resume to finish it, or another --out" in again.stderr
    other = profile_server(*QUICK_PROFILE, "--repeats", "2", "--resume", "--out", str(out), timeout=120)
    assert other.returncode == 2
    assert "was begun with repeats=1; resume it with the same options" in other.stderr
    assert (out / "profile_calls.jsonl").read_text().splitlines(keepends=True) == recorded

    result = profile_server(*QUICK_PROFILE, "--repeats", "1", "--resume", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert not (out / "profile_progress.json").exists()
    calls = (out / "profile_calls.jsonl").read_text().splitlines(keepends=True)
    assert calls[: len(kept)] == kept  # the finished probes' calls, as measured before the kill
    rows = [json.loads(line) for line in calls]
    # one call per probe and parameters, but where a point sends several at once
    keys = [
        (c["probe"], json.dumps(c["params"])) for c in rows if c["probe"] not in ("decode", "restore_fresh")
    ]
    assert len(keys) == len(set(keys))  # the probe cut short ran once more, its first calls dropped
    done = {json.loads(line)["probe"] for line in kept}
    assert done
    assert all(c["probe"] not in done for c in rows[len(kept) :])  # nothing finished ran twice
    assert {"decode", "prefill", "restore", "save", "decode_cpu_busy"} <= {c["probe"] for c in rows}

    data = tomllib.loads((out / "server_profile.toml").read_text())
    assert data["server"]["n_ctx"] == 1024
    assert data["server"]["kv_unified"] is True
    assert data["meta"]["sessions"] == 2
    assert data["rates"]["prefill_tok_s"] > 0
    assert data["rates"]["decode_step_s"] > 0
    assert data["fit"]["decode"]["batch"] == [1.0, 2.0]
    assert data["fit"]["masked"]["samples"] >= 1 or "note" in data["fit"]["masked"]
    assert data["save"]["held_tokens"] == [256, 768]  # the quick sizes, within the 1,024-cell pool
    assert "save_s_per_k_tokens" in data["save"]
    finished = profile_server("profile-server", "--quick", "--resume", "--out", str(out), timeout=120)
    assert finished.returncode == 2  # refused before any server starts, nothing written over
    assert "already holds a server profile" in finished.stderr
    assert (out / "profile_calls.jsonl").read_text().splitlines(keepends=True) == calls


DEV_T2_PROFILE = ROOT / "calibration" / "reference" / "dev-t2" / "profile" / "server_profile.toml"
CROWDED_KEYS = ("crowded_share", "crowded_decode_speed", "crowded_prefill_speed")


@pytest.mark.skipif(not DEV_T2_PROFILE.is_file(), reason="dev-t2 is not in this checkout")
def test_a_profile_without_its_twin_point_reads_the_twin_share_near_where_the_twin_probe_measured(
    tmp_path: Path,
) -> None:
    """dev-t2's two-thread profile measured both crowded points: the busy loop (share 2/3) and
    the twin server (1/2). Fitted again without the twin probe's calls, the simulator reads the
    twin's share below its one remaining point; that reading lands near the measured one."""
    full = tomllib.loads(
        refit_server_profile(DEV_T2_PROFILE, tmp_path / "full" / "server_profile.toml").read_text()
    )
    alone = tmp_path / "no-twin"
    alone.mkdir()
    (alone / "server_profile.toml").write_text(DEV_T2_PROFILE.read_text())
    calls = (DEV_T2_PROFILE.parent / "profile_calls.jsonl").read_text().splitlines()
    (alone / "profile_calls.jsonl").write_text("\n".join(c for c in calls if "_cpu_twin" not in c) + "\n")
    part = tomllib.loads(
        refit_server_profile(
            alone / "server_profile.toml", tmp_path / "part" / "server_profile.toml"
        ).read_text()
    )
    assert full["cpu"]["crowded_share"] == pytest.approx([0.5, 2 / 3])
    assert part["cpu"]["crowded_share"] == pytest.approx([2 / 3])
    read = server_speed(ServerProfile(threads=2, **{k: part["cpu"][k] for k in CROWDED_KEYS}), 1.0, 0.0)
    measured_decode, measured_prefill = (
        full["cpu"]["crowded_decode_speed"][0],
        full["cpu"]["crowded_prefill_speed"][0],
    )
    assert read.decode == pytest.approx(measured_decode, rel=0.25)
    assert read.prefill == pytest.approx(measured_prefill, rel=0.25)

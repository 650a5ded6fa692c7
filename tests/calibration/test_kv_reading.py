"""A recorded run's KV reading: the output counted once or twice, told from its data, and
simulated the same way."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pandas as pd
import simpy

from agbench.calibration.kv_reading import output_read_twice
from agbench.sim.entities.local_server import LocalServer
from agbench.sim.profiles import ServerProfile, ServerRates
from agbench.store import RunStore

REPO = Path(__file__).resolve().parents[2]


def _run(read_twice: bool) -> dict[str, pd.DataFrame]:
    """One LO C = 1 call a second: a 500-token prompt read in 0.2 s, 40 tokens decoded over
    0.4 s, sampled every 20 ms as the sampler would read /slots."""
    calls, samples = [], []
    for k in range(5):
        t0 = 10.0 + k
        calls.append(
            {
                "architecture": "LO",
                "concurrency": 1,
                "endpoint": "local",
                "status_code": 200,
                "t_start": t0,
                "ttft_s": 0.2,
                "total_s": 0.6,
                "prompt_tokens": 500,
                "completion_tokens": 40,
            }
        )
        for step in range(30):
            t = t0 + 0.02 * step
            decoded = max(0, min(40, round((t - t0 - 0.2) / 0.01)))
            used = 500 + decoded * (2 if read_twice else 1)
            samples.append(
                {
                    "architecture": "LO",
                    "concurrency": 1,
                    "server": "local",
                    "t": t,
                    "slots_busy": 1,
                    "kv_used": used,
                }
            )
    return {"model_calls": pd.DataFrame(calls), "server_samples": pd.DataFrame(samples)}


def test_a_run_tells_whether_its_sampler_read_the_output_twice() -> None:
    assert output_read_twice(_run(read_twice=True))
    assert not output_read_twice(_run(read_twice=False))
    few = _run(read_twice=True)
    few["server_samples"] = few["server_samples"].head(12)  # one call: too few samples to tell
    assert not output_read_twice(few)
    assert not output_read_twice({"model_calls": pd.DataFrame(), "server_samples": pd.DataFrame()})


def test_the_recorded_development_run_was_read_twice() -> None:
    # recorded before the sampler's fix, on xllamacpp 2026.10 (live/monitors/server_sampler.py)
    assert output_read_twice(RunStore.open(REPO / "calibration" / "reference" / "run").tables())


def _peak_sampled(how: str) -> float:
    """The largest KV sample of one request (500-token prompt, 40 tokens generated), sampled
    every 0.1 s as the live sampler polls."""
    env = simpy.Environment()
    rates = ServerRates(prefill_tok_s=1000.0, decode_step_s=0.02, decode_step_per_seq_s=0.0)
    samples: list[float] = []

    def hook(s: LocalServer, *, t: float | None = None, kv: float | None = None) -> None:
        samples.append(s.kv_sampled() if kv is None else kv)

    settings = ServerProfile(n_ctx=4096, n_parallel=1, kv_sampled_as=how)
    server = LocalServer(env, settings, rates, 1, sample_hook=hook, sample_interval_s=0.1)

    def load() -> Generator[simpy.Event, Any, None]:
        yield server.submit("a", None, 0, 500, 40).done

    env.process(load())
    env.run()
    return max(samples)


def test_the_simulated_reading_counts_the_output_as_the_recording_did() -> None:
    once, twice = _peak_sampled("slots"), _peak_sampled("slots_output_twice")
    generated = once - 500
    assert 20 <= generated <= 40, once  # the last tick inside the 0.8 s decode
    assert twice == 500 + 2 * generated

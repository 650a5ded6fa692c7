"""How a recorded run's server samples read the KV cells in use: the output once, or twice.

The live sampler sums each busy llama-server slot's ``/slots`` figures. Until agbench read
``n_prompt_tokens`` as the build it runs on gives it (live/monitors/server_sampler.py,
``slot_cells``), it added ``n_decoded`` to it, and on builds whose ``n_prompt_tokens`` is the
slot's token list (xllamacpp 2026.10, every recording of this project until then) a
generating slot was read as its prompt plus *twice* its output. The simulator compares a
sampled peak with a sampled peak, so a run recorded that way is simulated read that way
(``kv_sampled_as = "slots_output_twice"``); its cells in the pool, and everything timed, are
the same either way.

Whether a run was read so is in its data, whatever agbench or llama.cpp recorded it: a sample
with one busy slot, taken while exactly one local call was past its first token, reads the
call's prompt plus what it had generated, never more than its prompt and whole output. Read
twice, the second half of every decode reads more (measured: 45-57 % of such samples on the
agent sweeps recorded before the fix, 23 % on the load run). The fix's reading leaves none
above (a sample's ``/slots`` answer comes a few milliseconds after its timestamp; the
last 50 ms of a call are left out for that).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from agbench.attempt import Endpoint

#: Samples with one busy slot inside one call's decode that a verdict needs, and the share
#: of them above prompt + output that says the output was read twice.
MIN_SAMPLES = 10
TWICE_SHARE = 0.1
#: Tokens of slack above prompt + output (the slot's count lags a token; a rounding).
SLACK_TOKENS = 2
#: The end of a call left out: its ``/slots`` answer may already show the next request.
END_GUARD_S = 0.05


def output_read_twice(tables: dict[str, pd.DataFrame]) -> bool:
    """Whether a live run's server samples read each generating slot's output twice (module
    docstring); False where too few samples tell."""
    samples, calls = tables.get("server_samples"), tables.get("model_calls")
    if samples is None or calls is None or samples.empty or calls.empty:
        return False
    if "server" in samples.columns:
        samples = samples[samples["server"].astype(str) == Endpoint.LOCAL.value]
    samples = samples[samples["slots_busy"] == 1]
    calls = calls[(calls["endpoint"] == Endpoint.LOCAL.value) & (calls["status_code"] == 200)]
    above = seen = 0
    for (arch, conc), group in samples.groupby(["architecture", "concurrency"], observed=True):
        mine = calls[(calls["architecture"] == arch) & (calls["concurrency"] == conc)]
        if mine.empty:
            continue
        start = mine["t_start"].to_numpy(float)
        first = start + mine["ttft_s"].to_numpy(float)
        end = start + mine["total_s"].to_numpy(float)
        most = (mine["prompt_tokens"] + mine["completion_tokens"]).to_numpy(float) + SLACK_TOKENS
        for t, used in zip(group["t"].to_numpy(float), group["kv_used"].to_numpy(float), strict=True):
            active = np.flatnonzero((start <= t) & (t <= end))
            if len(active) != 1:
                continue
            i = active[0]
            if first[i] < t < end[i] - END_GUARD_S:
                seen += 1
                above += used > most[i]
    return seen >= MIN_SAMPLES and above >= TWICE_SHARE * seen


__all__ = ["output_read_twice"]

"""Each local call's prompt time, live over simulated, by what ran beside it on the server.

A fidelity table says a configuration is off; this says which calls carry it. The
simulation of a live run (``agbench validate``'s, profile plus the fitted levels) replays the
same calls, so a live call and its simulated twin are matched by (configuration, task, agent,
turn). For every matched call with the same prompt tokens to process (``prompt_tokens -
cached_tokens``, at least 16), llama.cpp's ``prompt_ms`` live over the simulated one, grouped by
what the *live* call's prompt phase overlapped: nothing (**alone**), another call's prompt
phase for over 30 % of it (**beside a prompt**), else another call's decoding for over 30 %
(**beside decode**). Printed per architecture and level: the calls' summed ratio (their total
prompt time, live over simulated) and the median.

At C = 1 every call is alone and the ratios sit at 1 (the calibration's level); where the
calls beside others run slower live than simulated while the calls alone do not, the
simulator prices the server's shared work too cheaply, not the machine's speed.

With ``--wait`` it prints instead each configuration's wait before a call's first prompt
batch (TTFT less ``prompt_ms``: the client and HTTP time, and the batch or decode step the
request arrived in, which llama-server runs to its end before it reads a new task), median
and mean over every matched local call, live / simulated.

    agbench calibrate RUN_DIR --server-profile SERVER_PROFILE.toml --fit-concurrency 1 -o PROFILE.toml
    .venv/bin/python bench/call_overlap.py RUN_DIR --profile PROFILE.toml [--archs LO,HLL] [--wait]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from agbench.calibration.validation import simulate_pair
from agbench.store import RunStore

MIN_NEW_TOKENS = 16
KEY = ["architecture", "concurrency", "task", "agent", "turn"]


def local_calls(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The local calls with their prompt phase and what overlapped it, indexed by KEY."""
    mc = tables["model_calls"]
    # each configuration's calls together, in time order: its group's rows in the frame's order
    mc = mc[mc["endpoint"] == "local"].sort_values(["architecture", "concurrency", "t_start"]).copy()
    mc["turn"] = mc.groupby(KEY[:-1]).cumcount()
    mc["new"] = mc["prompt_tokens"] - mc["cached_tokens"]
    mc["p0"] = mc["t_start"] + mc["queue_s"].fillna(0.0)
    mc["p1"] = mc["t_start"] + mc["ttft_s"]
    mc["d1"] = mc["t_start"] + mc["total_s"]
    beside_prompt, beside_decode = [], []
    for _, group in mc.groupby(["architecture", "concurrency"], sort=False):
        p0, p1, d1 = (group[c].to_numpy(float) for c in ("p0", "p1", "d1"))
        for i in range(len(group)):
            others = np.arange(len(group)) != i
            # nansum: a call that failed before its first token has no prompt phase to overlap
            beside_prompt.append(
                np.nansum(np.clip(np.minimum(p1[others], p1[i]) - np.maximum(p0[others], p0[i]), 0, None))
            )
            beside_decode.append(
                np.nansum(np.clip(np.minimum(d1[others], p1[i]) - np.maximum(p1[others], p0[i]), 0, None))
            )
    mc["beside_prompt_s"], mc["beside_decode_s"] = beside_prompt, beside_decode
    return mc.set_index(KEY)


def overlap_kind(row: pd.Series) -> str:
    phase = max(float(row["p1"] - row["p0"]), 1e-9)
    if row["beside_prompt_s"] > 0.3 * phase:
        return "beside a prompt"
    if row["beside_decode_s"] > 0.3 * phase:
        return "beside decode"
    return "alone" if row["beside_prompt_s"] + row["beside_decode_s"] < 0.2 * phase else "mixed"


def wait_s(calls: pd.DataFrame) -> pd.Series:
    """TTFT less the prompt time and any wait for a slot: what passed before the first batch."""
    return calls["ttft_s"] - calls["prompt_ms"].fillna(0.0) / 1000.0 - calls["queue_s"].fillna(0.0)


def print_waits(run_dir: Path, live: pd.DataFrame, sim: pd.DataFrame, archs: list[str]) -> None:
    both = pd.DataFrame({"live": wait_s(live)}).join(pd.DataFrame({"sim": wait_s(sim)}), how="inner").dropna()
    print(f"{run_dir}: wait before a local call's first prompt batch (ms), live / simulated")
    print(f"{'where':10s} {'calls':>5s} {'median':>15s} {'mean':>15s}")
    for (arch, conc), g in both.groupby(level=["architecture", "concurrency"]):
        if archs and arch not in archs:
            continue
        med = f"{g['live'].median() * 1e3:6.0f} /{g['sim'].median() * 1e3:6.0f}"
        mean = f"{g['live'].mean() * 1e3:6.0f} /{g['sim'].mean() * 1e3:6.0f}"
        print(f"{arch:4s} C={conc:<4d} {len(g):5d} {med:>15s} {mean:>15s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--profile", type=Path, required=True, help="a calibrated PROFILE.toml")
    parser.add_argument("--archs", default="", help="comma-separated (default: every one)")
    parser.add_argument("--wait", action="store_true", help="the wait before each call's first prompt batch")
    args = parser.parse_args()
    pair = simulate_pair(args.run_dir, args.profile)
    live = local_calls(RunStore.open(args.run_dir).tables())
    sim = local_calls(pair.sim_tables)
    archs = [a for a in args.archs.split(",") if a]
    if args.wait:
        print_waits(args.run_dir, live, sim, archs)
        return
    both = live.join(sim[["new", "prompt_ms"]].add_suffix("_sim"), how="inner")
    both = both[
        (both["new"] >= MIN_NEW_TOKENS) & (both["new"] == both["new_sim"]) & (both["prompt_ms_sim"] > 0)
    ]
    both["kind"] = both.apply(overlap_kind, axis=1)
    print(
        f"{args.run_dir}: local calls' prompt_ms, live / simulated (summed; median), by what ran beside them live"
    )
    print(
        f"{'where':10s} {'all':>22s}"
        + "".join(f" {k:>24s}" for k in ("alone", "beside decode", "beside a prompt"))
    )
    for (arch, conc), g in both.groupby(level=["architecture", "concurrency"]):
        if archs and arch not in archs:
            continue
        cells = [
            f"{len(g):3d}: {g['prompt_ms'].sum() / g['prompt_ms_sim'].sum():5.2f}; "
            f"{(g['prompt_ms'] / g['prompt_ms_sim']).median():5.2f}"
        ]
        for kind in ("alone", "beside decode", "beside a prompt"):
            k = g[g["kind"] == kind]
            cells.append(
                f"{len(k):3d}: {k['prompt_ms'].sum() / k['prompt_ms_sim'].sum():5.2f}; "
                f"{(k['prompt_ms'] / k['prompt_ms_sim']).median():5.2f}"
                if len(k)
                else "-"
            )
        print(f"{arch:4s} C={conc:<4d} {cells[0]:>22s}" + "".join(f" {c:>24s}" for c in cells[1:]))


if __name__ == "__main__":
    main()

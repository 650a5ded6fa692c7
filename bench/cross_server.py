"""Model calls beside the other server's, live and simulated: how often the two servers of a
hybrid architecture (the local llama-server and the cloud stand-in, on the same cores) run at
once, and what a call costs then.

A hybrid agent alternates between the two servers, so two agents are either in step (both on
one server, batched) or out of step (each on its own server, the two servers sharing the
cores). Per endpoint, the calls are grouped by what overlapped them for over half their time:
the other server's calls (**beside other server**), else another call on the same server
(**beside same server**), else **alone-ish**; each group's count, summed wall time, output
tokens and wall seconds per output token, for the live run and its simulation (``agbench
validate``'s, profile + C = 1). A simulation that prices the shared cores right but puts more
calls beside the other server than live has the agents out of step more often than live.

A second table bins the calls by the share of their time the other server had any call in
flight (the union of those calls, so two at once count once): under 10 %, 10-90 %, over 90 %;
per bin the calls and their median seconds per output token, live and simulated. The first bin
says whether a call alone is priced right, the last what both servers working at once cost,
apart from how often the agents fall out of step.

    agbench calibrate RUN_DIR --server-profile SERVER_PROFILE.toml --fit-concurrency 1 -o PROFILE.toml
    .venv/bin/python bench/cross_server.py RUN_DIR --profile PROFILE.toml --arch HCL --concurrency 2
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from agbench.calibration.validation import simulate_pair
from agbench.store import RunStore


def call_spans(mc: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each call's start and end (seconds) and its endpoint, as arrays in the frame's order."""
    start = mc["t_start"].to_numpy(float)
    return start, start + mc["total_s"].to_numpy(float), mc["endpoint"].to_numpy()


def configuration_calls(model_calls: pd.DataFrame, arch: str, concurrency: int) -> pd.DataFrame:
    return model_calls[(model_calls["architecture"] == arch) & (model_calls["concurrency"] == concurrency)]


def grouped_calls(model_calls: pd.DataFrame, arch: str, concurrency: int) -> pd.DataFrame:
    """One configuration's calls, per endpoint and what overlapped them."""
    mc = configuration_calls(model_calls, arch, concurrency)
    start, end, endpoint = call_spans(mc)
    rows = []
    for i in range(len(mc)):
        overlap = np.clip(np.minimum(end, end[i]) - np.maximum(start, start[i]), 0, None)
        overlap[i] = 0.0
        dur = max(end[i] - start[i], 1e-9)
        other = overlap[endpoint != endpoint[i]].sum() / dur
        same = overlap[endpoint == endpoint[i]].sum() / dur
        kind = "beside other server" if other > 0.5 else "beside same server" if same > 0.5 else "alone-ish"
        rows.append((endpoint[i], kind, dur, int(mc["completion_tokens"].iloc[i])))
    frame = pd.DataFrame(rows, columns=["endpoint", "kind", "wall_s", "out"])
    table = frame.groupby(["endpoint", "kind"]).agg(
        calls=("wall_s", "size"), wall_s=("wall_s", "sum"), out=("out", "sum")
    )
    table["s_per_out_token"] = table["wall_s"] / table["out"].where(table["out"] > 0)
    return table


def other_server_share(model_calls: pd.DataFrame, arch: str, concurrency: int) -> pd.DataFrame:
    """One configuration's calls: the share of each call's time during which the other server
    had a call in flight, and its seconds per output token."""
    mc = configuration_calls(model_calls, arch, concurrency)
    mc = mc[mc["error_class"].fillna("") == ""]
    start, end, endpoint = call_spans(mc)
    out = mc["completion_tokens"].to_numpy(float)
    rows = []
    for i in range(len(mc)):
        spans = sorted(
            (max(start[j], start[i]), min(end[j], end[i]))
            for j in np.flatnonzero(endpoint != endpoint[i])
            if end[j] > start[i] and start[j] < end[i]
        )
        covered, reach = 0.0, start[i]
        for a, b in spans:  # the union of the spans, each second once
            covered += max(0.0, b - max(a, reach))
            reach = max(reach, b)
        dur = max(end[i] - start[i], 1e-9)
        rows.append((covered / dur, dur / max(out[i], 1.0)))
    frame = pd.DataFrame(rows, columns=["share", "s_per_out_token"])
    frame["other server busy"] = pd.cut(
        frame["share"], [-0.01, 0.1, 0.9, 1.01], labels=["under 10 %", "10-90 %", "over 90 %"]
    )
    return frame.groupby("other server busy", observed=False).agg(
        calls=("share", "size"), median_s_per_out_token=("s_per_out_token", "median")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--profile", type=Path, required=True, help="a calibrated PROFILE.toml")
    parser.add_argument("--arch", default="HCL")
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    pair = simulate_pair(args.run_dir, args.profile)
    live_calls = RunStore.open(args.run_dir).tables()["model_calls"]
    live = grouped_calls(live_calls, args.arch, args.concurrency)
    sim = grouped_calls(pair.sim_tables["model_calls"], args.arch, args.concurrency)
    print(
        f"{args.run_dir}: {args.arch} C={args.concurrency}, calls by what overlapped them (live | simulated)"
    )
    both = live.add_suffix(" live").join(sim.add_suffix(" sim"), how="outer")
    print(both.round(3).to_string())
    live_share = other_server_share(live_calls, args.arch, args.concurrency)
    sim_share = other_server_share(pair.sim_tables["model_calls"], args.arch, args.concurrency)
    print("calls by the share of their time the other server had a call in flight (live | simulated)")
    print(live_share.add_suffix(" live").join(sim_share.add_suffix(" sim")).round(3).to_string())


if __name__ == "__main__":
    main()

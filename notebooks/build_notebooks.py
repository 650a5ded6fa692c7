"""Writes notebooks/calibration.ipynb and notebooks/whatif.ipynb from the cells below.

The notebooks are generated, not hand-edited, so their code stays reviewable as Python and
reproducible; the tests execute them headless on the committed reference dataset
(calibration/reference/) and render them to HTML.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
import json, os, tempfile
from pathlib import Path
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from agbench.store import RunStore

ROOT = Path(os.environ.get("AGBENCH_ROOT", Path.cwd())).resolve()
if not (ROOT / "calibration" / "reference").is_dir():
    ROOT = ROOT.parent
REFERENCE = ROOT / "calibration" / "reference" / "run"
WORK = Path(tempfile.mkdtemp(prefix="agbench-nb-"))
store = RunStore.open(REFERENCE)
meta = store.meta()
tables = store.tables()
print("reference run:", meta.get("run_id"), "| agent:", meta.get("agent_kind"),
      "| cloud stand-in:", meta.get("cloud_standin"), "| levels:", meta.get("concurrency"))
"""

CALIBRATION = [
    new_markdown_cell(
        "# Calibration report\n\n"
        "The documented path: the server's rates come from its **server profile** (the server "
        "measured alone, `calibration/reference/dev-profile/`), the agents' behaviour from the "
        "**C = 1** run only; the simulator is then asked to predict C = 2, 4 and 8, which it never "
        "saw. The reference dataset was recorded on this machine with the real llama-server "
        "(SmolLM2-135M), the replay agent, all four architectures and a cloud stand-in "
        "(`calibration/reference/record.sh`, then `record_dev_profile.sh`)."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "from agbench.calibration import calibrate, validate\n"
        "SERVER_PROFILE = REFERENCE.parent / 'dev-profile' / 'server_profile.toml'\n"
        "profile = calibrate([REFERENCE], WORK / 'profile.toml', concurrency=[1], server_profile=SERVER_PROFILE)\n"
        "# draws=5: the simulation repeated over bootstrap draws of the profile's rates (90 % intervals;\n"
        "# each row's sim is then the median of the draws and the nominal run, kept as sim_nominal)\n"
        "validation = json.loads(validate(profile, [REFERENCE], WORK, draws=5).read_text())\n"
        "print(profile.read_text()[:1500])"
    ),
    new_code_cell(
        "# What the intervals are, and what they leave out (said, not hidden)\n"
        "print('intervals:', validation.get('intervals'))\n"
        "print({m: e.get('coverage_90') for m, e in validation['metrics'].items() if e.get('coverage_90') is not None})"
    ),
    new_markdown_cell("## Fitted server rates over the measurements"),
    new_code_cell(
        "from agbench.calibration.overlap import decode_intervals, mean_overlap\n"
        "from agbench.calibration.server_fit import local_calls\n"
        "import tomllib\n"
        "fitted = tomllib.loads(profile.read_text())\n"
        "rates = fitted.get('server', {}).get('rates', {})\n"
        "calls = local_calls(tables['model_calls'])\n"
        "start, end = decode_intervals(calls)\n"
        "calls['batch'] = mean_overlap(start, end)\n"
        "ok = calls[(calls.error_class == '') & (calls.completion_tokens >= 4) & (calls.predicted_ms > 0)]\n"
        "fig, axes = plt.subplots(1, 2, figsize=(11, 4))\n"
        "tau = ok.predicted_ms / 1000 / ok.completion_tokens\n"
        "axes[0].scatter(ok.batch, tau, s=8, alpha=0.5, c=ok.concurrency, cmap='viridis', label='requests')\n"
        "b = np.linspace(1, max(2, ok.batch.max()), 50)\n"
        "if rates:  # the step's fixed part at each batch size (the profile's table where it measured one)\n"
        "    from agbench.calibration.server_profile import measured_server_rates\n"
        "    step = measured_server_rates(rates)\n"
        "    axes[0].plot(b, [step.weights_step(x) for x in b], 'r-', label='fit')\n"
        "axes[0].set(xlabel='mean decode batch seen', ylabel='s per generated token', title='decode')\n"
        "axes[0].legend()\n"
        "ttft = calls[calls.error_class == '']\n"
        "axes[1].scatter(ttft.prompt_tokens - ttft.cached_tokens, ttft.ttft_s, s=8, alpha=0.5, c=ttft.concurrency, cmap='viridis')\n"
        "axes[1].set(xlabel='uncached prompt tokens', ylabel='TTFT (s)', title='TTFT vs prompt length')\n"
        "plt.tight_layout(); plt.show()"
    ),
    new_markdown_cell("## Tool times"),
    new_code_cell(
        "tools = tables['tool_calls']\n"
        "fig, ax = plt.subplots(figsize=(7, 4))\n"
        "for name, group in tools.groupby('tool'):\n"
        "    v = np.sort(group.wall_s.to_numpy())\n"
        "    ax.step(v, np.arange(1, len(v) + 1) / len(v), where='post', label=f'{name} ({len(v)})')\n"
        "ax.set(xscale='log', xlabel='wall time (s)', ylabel='CDF', title='tool-time CDFs')\n"
        "ax.legend(fontsize=7); plt.show()"
    ),
    new_markdown_cell("## Simulated vs live, per metric and configuration"),
    new_code_cell(
        "rows = []\n"
        "for metric, entry in validation['metrics'].items():\n"
        "    for r in entry['rows']:\n"
        "        rows.append({'metric': metric, **r})\n"
        "frame = pd.DataFrame(rows)\n"
        "summary = pd.DataFrame([\n"
        "    {'metric': m, 'MAPE all %': e['mape'], 'MAPE held-out %': e['mape_held_out'], 'max |diff|': e['max_abs_diff']}\n"
        "    for m, e in validation['metrics'].items()])\n"
        "summary.round(2)"
    ),
    new_code_cell(
        "key = ['suite_wall_s', 'mean_completion_s_common', 'ttft_p50_s', 'kv_peak_cells', 'context_limit']\n"
        "fig, axes = plt.subplots(1, len(key), figsize=(4 * len(key), 3.6))\n"
        "for ax, metric in zip(axes, key):\n"
        "    sub = frame[frame.metric == metric]\n"
        '    labels = [f"{a}\\nC={c}" for a, c in zip(sub.architecture, sub.concurrency)]\n'
        "    x = np.arange(len(sub))\n"
        "    ax.bar(x - 0.2, sub.live, 0.4, label='live'); ax.bar(x + 0.2, sub.sim, 0.4, label='sim')\n"
        "    ax.set_xticks(x, labels, fontsize=6); ax.set_title(metric, fontsize=9)\n"
        "axes[0].legend(); plt.tight_layout(); plt.show()"
    ),
    new_markdown_cell("## Error heatmap (signed %, held-out levels are C = 2, 4 and 8)"),
    new_code_cell(
        "rel = frame[frame.error_pct.notna()]\n"
        "pivot = rel.pivot_table(index='metric', columns=['architecture', 'concurrency'], values='error_pct')\n"
        "fig, ax = plt.subplots(figsize=(1 + 0.6 * pivot.shape[1], 0.5 + 0.4 * pivot.shape[0]))\n"
        "im = ax.imshow(pivot.to_numpy(dtype=float), cmap='RdBu_r', vmin=-50, vmax=50, aspect='auto')\n"
        "ax.set_yticks(range(len(pivot.index)), pivot.index, fontsize=7)\n"
        "ax.set_xticks(range(pivot.shape[1]), [f'{a} C{c}' for a, c in pivot.columns], rotation=90, fontsize=7)\n"
        "fig.colorbar(im, label='sim vs live, %'); plt.tight_layout(); plt.show()"
    ),
    new_markdown_cell("## Residuals of the held-out predictions"),
    new_code_cell(
        "held = rel[rel.held_out]\n"
        "fig, ax = plt.subplots(figsize=(7, 3.5))\n"
        "for metric, group in held.groupby('metric'):\n"
        "    ax.scatter(group.concurrency + np.random.default_rng(0).uniform(-0.2, 0.2, len(group)), group.error_pct, s=12, label=metric)\n"
        "ax.axhline(0, color='k', lw=0.5); ax.set(xlabel='concurrency', ylabel='error %')\n"
        "ax.legend(fontsize=6, ncol=2); plt.show()"
    ),
]

# `agbench whatif`: the deployment search's Pareto front (the same cells are appended to an
# existing whatif.ipynb by `python notebooks/build_notebooks.py --whatif-search-only`).
SEARCH_TAG = "whatif-search"
WHATIF_SEARCH = [
    new_markdown_cell(
        "## Deployment search: the Pareto front (`agbench whatif quick`)\n\n"
        "Which device x quantisation x KV pool x slots x architecture x concurrency is best depends on "
        "the user's priorities; the search simulates the spec's points (refusing those whose weights and "
        "KV pool do not fit in memory) and keeps those no other point beats on every objective. "
        "Each front point's bottleneck comes from its own simulated tables."
    ),
    new_code_cell(
        "import matplotlib.pyplot as plt\n"
        "import pandas as pd\n"
        "from agbench.sim.whatif import search\n"
        "from agbench.sim.whatif.report import summary as whatif_summary\n"
        "from agbench.sim.whatif.report import answer_lines\n"
        "# draws=4: each front point simulated again under 4 draws of its device's [uncertainty]\n"
        "# assumptions (a range over assumptions, not a calibrated interval)\n"
        "result = search('quick', workers=1, draws=4)\n"
        "found = whatif_summary(result)\n"
        "points = pd.DataFrame(found['all'])\n"
        "front = pd.DataFrame(found['front'])\n"
        "print(f\"{found['points']} points: {found['simulated']} simulated, {found['refused']} refused (memory); front {len(front)}\")\n"
        "print('\\n'.join(answer_lines(result)))\n"
        "bands = found['intervals']['bands']\n"
        "for o in ('success', 'goodput', 'mean_completion', 'cloud_cost'):\n"
        "    front[o + ' [90 % range]'] = [\n"
        "        f\"{v:.3g} [{bands[l][o][0]:.3g}, {bands[l][o][1]:.3g}]\" if l in bands else f'{v:.3g}'\n"
        "        for l, v in zip(front.label, front[o])\n"
        "    ]\n"
        "front[['label'] + [c for c in front.columns if c.endswith('range]')] + ['exposure', 'bottleneck']]"
    ),
    new_code_cell(
        "ok = points[points.refused == '']\n"
        "fig, axes = plt.subplots(1, 2, figsize=(12, 4))\n"
        "for ax, (x, y) in zip(axes, [('cloud_cost', 'goodput'), ('exposure', 'success')]):\n"
        "    for arch, g in ok.groupby('arch'):\n"
        "        ax.scatter(g[x], g[y], s=12, alpha=0.4, label=arch)\n"
        "    ax.scatter(front[x], front[y], s=50, facecolors='none', edgecolors='k', label='Pareto front')\n"
        "    ax.set(xlabel=x, ylabel=y)\n"
        "axes[0].legend(fontsize=7); plt.tight_layout(); plt.show()\n"
        "front[['label', 'explanation']]"
    ),
]

WHATIF = [
    new_markdown_cell(
        "# What-if: the calibrated device beyond what was measured\n\n"
        "The profile calibrated on the reference run (its server profile and C = 1, the documented "
        "path) drives the simulator at C = 16 and 32, "
        "with twice the KV pool, and with another model (Qwen2.5-0.5B's scenario), replaying the "
        "reference trajectories. Every figure here is simulated."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "from agbench.calibration import calibrate\n"
        "from agbench.calibration.validation import records_to_tables, run_trajectories\n"
        "from agbench.metrics import summarize\n"
        "from agbench.sim import load_scenario, replay_workload, simulate\n"
        "SERVER_PROFILE = REFERENCE.parent / 'dev-profile' / 'server_profile.toml'\n"
        "profile = calibrate([REFERENCE], WORK / 'profile.toml', concurrency=[1], server_profile=SERVER_PROFILE)\n"
        "workload = replay_workload(run_trajectories(REFERENCE, meta))\n"
        "base_ctx = int(meta['local']['servers'][str(meta['concurrency'][0])]['n_ctx'])\n"
        "\n"
        "def run(scenario, label, levels, n_ctx, archs=('LO', 'CO', 'HCL', 'HLL')):\n"
        "    records = []\n"
        "    for arch in archs:\n"
        "        for c in levels:\n"
        "            sc = load_scenario(scenario).with_profile(profile)\n"
        "            sc.profile.server.n_ctx = n_ctx\n"
        "            sc.profile.server.kv_unified = True\n"
        "            records += simulate(sc.profile, arch, c, 0, workload, device=label).records\n"
        "    summary = summarize(records_to_tables(records), {'source': 'sim', 'cloud': meta.get('cloud', {})})\n"
        "    return pd.DataFrame(summary.to_json_dict()['configurations'])\n"
        "\n"
        "levels = [1, 2, 4, 8, 16, 32]\n"
        "frames = [\n"
        "    run('this-machine-smollm2', 'SmolLM2, KV x1', levels, base_ctx),\n"
        "    run('this-machine-smollm2', 'SmolLM2, KV x2', levels, 2 * base_ctx),\n"
        "    run('this-machine-qwen05b', 'Qwen0.5B, KV x1', levels, base_ctx),\n"
        "]\n"
        "whatif = pd.concat(frames, ignore_index=True)\n"
        "whatif['context_limit'] = [f.get('context_limit', 0) for f in whatif.failures]\n"
        "whatif[['device', 'architecture', 'concurrency', 'success', 'context_limit', 'suite_wall_s', 'goodput_per_h', 'cloud_cost_usd', 'exposure_ratio']].round(3)"
    ),
    new_code_cell(
        "# Intervals: what `agbench sim --draws N` could draw for these simulations\n"
        "from agbench.calibration.intervals import draw_plan\n"
        "for name in ('this-machine-smollm2', 'this-machine-qwen05b'):\n"
        "    plan = draw_plan(load_scenario(name).with_profile(profile), 1)\n"
        "    print(f'{name}: ' + (f'interval over {plan.kind} draws' if plan.overlays else f'no interval: {plan.reason}'))"
    ),
    new_markdown_cell("## Goodput and context errors vs concurrency"),
    new_code_cell(
        "fig, axes = plt.subplots(1, 2, figsize=(12, 4))\n"
        "for (device, arch), g in whatif.groupby(['device', 'architecture']):\n"
        "    axes[0].plot(g.concurrency, g.goodput_per_h, marker='o', label=f'{device} {arch}')\n"
        "    axes[1].plot(g.concurrency, g.context_limit, marker='o', label=f'{device} {arch}')\n"
        "axes[0].set(xscale='log', xlabel='concurrency', ylabel='goodput (tasks/h)')\n"
        "axes[1].set(xscale='log', xlabel='concurrency', ylabel='context-limit failures')\n"
        "axes[0].legend(fontsize=6, ncol=2); plt.tight_layout(); plt.show()"
    ),
    new_markdown_cell("## Goodput / cost / exposure trade-off per architecture (C = 8)"),
    new_code_cell(
        "c8 = whatif[(whatif.concurrency == 8) & (whatif.device == 'SmolLM2, KV x1')]\n"
        "fig, ax = plt.subplots(figsize=(6, 4))\n"
        "sc = ax.scatter(c8.cloud_cost_usd, c8.goodput_per_h, s=50 + 400 * c8.exposure_ratio, c=range(len(c8)), cmap='tab10')\n"
        "for _, r in c8.iterrows():\n"
        '    ax.annotate(f"{r.architecture} (exposure {r.exposure_ratio:.0%})", (r.cloud_cost_usd, r.goodput_per_h), fontsize=8)\n'
        "ax.set(xlabel='cloud cost (USD)', ylabel='goodput (tasks/h)', title='bubble size = exposure')\n"
        "plt.show()"
    ),
    *WHATIF_SEARCH,
]


def build(execute: bool = True) -> None:
    """Write both notebooks; executed (outputs kept, for readers) unless ``execute`` is false."""
    for name, cells in (("calibration.ipynb", CALIBRATION), ("whatif.ipynb", WHATIF)):
        nb = new_notebook(cells=cells)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        if execute:
            NotebookClient(
                nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE.parent)}}
            ).execute()
        nbformat.write(nb, HERE / name)


def append_whatif_search() -> None:
    """Execute only the deployment-search cells and append them to the existing whatif.ipynb
    (the rest of it needs the reference runs to re-execute)."""
    nb = new_notebook(cells=list(WHATIF_SEARCH))
    for cell in nb.cells:
        cell.metadata["tags"] = [SEARCH_TAG]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE.parent)}}).execute()
    path = HERE / "whatif.ipynb"
    existing = nbformat.read(path, as_version=4)
    existing.cells = [c for c in existing.cells if SEARCH_TAG not in c.metadata.get("tags", [])] + nb.cells
    nbformat.write(existing, path)


if __name__ == "__main__":
    if "--whatif-search-only" in sys.argv:
        append_whatif_search()
    else:
        build(execute="--no-execute" not in sys.argv)

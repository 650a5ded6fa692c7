"""A live sweep across devices on Ray: one sweep per device, pinned to that device's node.

Each device joins the cluster as a node carrying a custom resource that names it
(``ray start --address HEAD:6379 --resources '{"device:max395": 1}'``). ``agbench sweep --ray
ADDR --devices max395,rtx5090`` sends one Ray task per device asking for one unit of
``device:<name>``, so Ray can place it only on that node; there the task runs the ordinary
sweep (every configuration, against the node's own local server, managed or ``--local-url``),
packs the run directory and returns it. The driver unpacks each under
``<run>/devices/<name>/`` and merges their trace tables into one run whose rows keep their
device, so the report compares the devices side by side (the paper's two-device layout).

Why a task per device rather than per configuration: configurations on one device share its
server and its memory, and must not run at the same time as each other; the device's sweep
already orders them. The node needs this project installed, the task suite, and any
trajectory file at the same path as on the driver.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import socket
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from agbench.errors import AgbenchError
from agbench.hardware import HardwareInventory
from agbench.live.runner.options import SweepOptions
from agbench.live.runner.sweep import run_sweep
from agbench.records import TABLES
from agbench.run_meta import RunMeta, RunSource
from agbench.store import RunStore, copy_to_latest

DEVICES_DIR = "devices"


def device_resource(name: str) -> str:
    """The custom Ray resource a device's node carries."""
    return f"device:{name}"


def parse_devices(text: str) -> list[str]:
    """``a,b`` -> ["a", "b"]; names must be unique and usable as a configuration's device."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise AgbenchError("--devices needs at least one device name")
    bad = [n for n in names if not all(ch.isalnum() or ch in "._-" for ch in n)]
    if bad:
        raise AgbenchError(f"--devices: {bad[0]!r} is not a device name (letters, digits, . _ -)")
    if len(set(names)) != len(names):
        raise AgbenchError("--devices: a device is named twice")
    return names


@dataclass
class DeviceRun:
    """What a device's task sends back: its run directory packed, and where it ran."""

    device: str
    node: str  # host name
    node_id: str  # Ray's id of the node that ran it
    run_id: str
    archive: bytes


def pack(run_dir: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(run_dir, arcname=".")
    return buf.getvalue()


def unpack(archive: bytes, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(target, filter="data")  # refuses links and paths out of the target


def sweep_on_this_node(options: dict[str, Any], device: str) -> DeviceRun:
    """The body of a device's Ray task: the ordinary sweep in a scratch folder, packed."""

    scratch = Path(tempfile.mkdtemp(prefix=f"agbench-{device}-"))
    try:
        opts = SweepOptions.from_dict(options)
        opts.device, opts.quiet, opts.resume = device, True, None
        opts.out, opts.runs_root = scratch / "run", scratch  # runs/latest of the node stays as it was
        run_dir = run_sweep(opts)
        run_id = RunStore.open(run_dir).run_id
        return DeviceRun(
            device=device,
            node=socket.gethostname(),
            node_id=str(_ray().get_runtime_context().get_node_id()),
            run_id=run_id,
            archive=pack(run_dir),
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise AgbenchError("--ray needs Ray: pip install 'agbench[ray]'") from None
    return ray


def connect(address: str) -> Any:
    """Join the cluster at ``address`` (or the one already joined)."""
    ray = _ray()
    if not ray.is_initialized():
        try:
            ray.init(address=address, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise AgbenchError(f"cannot join the Ray cluster at {address}: {exc}".splitlines()[0]) from None
    return ray


def check_devices(ray: Any, devices: list[str]) -> None:
    """One-line error naming a device no node carries (before anything is started)."""
    resources = ray.cluster_resources()
    for name in devices:
        if resources.get(device_resource(name), 0) < 1:
            raise AgbenchError(
                f"no Ray node offers {device_resource(name)!r}: start it on the device with "
                f"ray start --address HEAD:6379 --resources '{{\"{device_resource(name)}\": 1}}'"
            )


def run_devices(options: SweepOptions, address: str, devices: list[str]) -> Path:
    """Run the sweep on every device's node and merge the runs; returns the merged run dir."""
    if options.resume is not None:
        raise AgbenchError("--resume is not supported with --devices (resume a device's own run on its node)")
    ray = connect(address)
    check_devices(ray, devices)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    out = options.out or options.runs_root / f"{stamp}-devices"
    if (out / "run.json").exists():
        raise AgbenchError(f"{out} already holds a run")
    payload = options.to_dict()
    task = ray.remote(sweep_on_this_node)
    refs = [task.options(resources={device_resource(d): 1}, num_cpus=1).remote(payload, d) for d in devices]
    try:
        runs: list[DeviceRun] = list(ray.get(refs))
    except Exception as exc:  # a device's sweep failed: say which, in one line
        cause = getattr(exc, "cause", None) or exc
        raise AgbenchError(
            f"a device sweep failed: {type(cause).__name__}: {cause}".splitlines()[0]
        ) from None
    for run in runs:
        unpack(run.archive, out / DEVICES_DIR / run.device)
    placements = {r.device: {"node": r.node, "ray_node_id": r.node_id} for r in runs}
    merge_runs(out, [out / DEVICES_DIR / r.device for r in runs], placements)
    if options.write_reports:
        from agbench.report import write_reports  # lazy: matplotlib loads only when a report is written

        write_reports([out])
    with contextlib.suppress(OSError):
        copy_to_latest(out, options.runs_root)  # as a one-machine sweep does
    return out


def merged_meta(run_id: str, metas: list[RunMeta]) -> RunMeta:
    """The merged run's run.json: the first device run's settings, every device's hardware."""
    first = metas[0]
    merged = RunMeta.from_dict(first.to_dict())
    merged.run_id = run_id
    merged.source = RunSource.LIVE
    merged.device = ",".join(m.device for m in metas)
    merged.architectures = list(dict.fromkeys(a for m in metas for a in m.architectures))
    merged.concurrency = sorted({c for m in metas for c in m.concurrency})
    merged.labels = list(dict.fromkeys(label for m in metas for label in m.labels))
    hardware: dict[str, HardwareInventory] = {}
    for m in metas:
        hardware.update(m.hardware)
    merged.hardware = hardware
    merged.finished = max((m.finished or 0.0) for m in metas) or None
    merged.stopped = any(bool(m.stopped) for m in metas)
    merged.host = {}
    return merged


def merge_runs(out: Path, run_dirs: list[Path], placements: dict[str, dict[str, str]] | None = None) -> Path:
    """One run at ``out`` holding every row of ``run_dirs`` (device runs with distinct devices);
    ``placements`` says where each device's run ran (recorded in run.json under ``devices``)."""
    stores = [RunStore.open(d) for d in run_dirs]
    metas = [s.run_meta() for s in stores]
    devices = [m.device for m in metas]
    if len(set(devices)) != len(devices):
        raise AgbenchError(f"cannot merge runs of the same device twice: {devices}")
    run_id = out.name
    meta = merged_meta(run_id, metas)
    meta.extra["devices"] = {
        m.device: {
            "run_id": m.run_id,
            "dir": str(d.relative_to(out)) if d.is_relative_to(out) else str(d),
            "host": m.host,
            **(placements or {}).get(m.device, {}),
        }
        for m, d in zip(metas, run_dirs, strict=True)
    }
    store = RunStore.create(out, meta)
    for source in stores:
        for table in TABLES:
            source.table(table)  # compacts the device run if it was not
            data = pq.read_table(source.traces_dir / f"{table}.parquet")
            if data.num_rows:
                # The merged run is one run: its rows carry its id (each device run's id stays
                # in run.json under ``devices``).
                column = pa.array([run_id] * data.num_rows, pa.string())
                data = data.set_column(data.schema.get_field_index("run_id"), "run_id", column)
                store.append_columns(table, data)
    store.compact()
    return out


__all__ = [
    "DEVICES_DIR",
    "DeviceRun",
    "check_devices",
    "connect",
    "device_resource",
    "merge_runs",
    "merged_meta",
    "pack",
    "parse_devices",
    "run_devices",
    "sweep_on_this_node",
    "unpack",
]

"""GPU power and energy, CPU package energy, the hardware inventory and the energy metrics.

NVML is replaced by a stand-in ``pynvml`` module (this machine has no NVIDIA GPU; a GPU
machine runs the real path with bench/gpu_sweep.py) and RAPL by a fake powercap folder laid
out as Linux lays it out. The sampler, inventory, run.json, summary and report code under test
is the real code; the simulator's energy model is checked on a real simulated run.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agbench.attempt import RunScope
from agbench.config import Architecture, Configuration
from agbench.hardware import HardwareInventory
from agbench.live.monitors import ResourceSampler
from agbench.live.monitors.inventory import probe
from agbench.live.monitors.rapl import RaplReader, package_zones
from agbench.metrics import summarize
from agbench.metrics.energy import busy_seconds, counter_j, integrated_j
from agbench.records import ResourceSample, TaskRun, from_row, to_row
from agbench.report.html import render
from agbench.run_meta import RunMeta
from agbench.sim.energy import check_power, power_assumptions, simulated_energy_wh
from agbench.sim.profiles import DeviceProfile

MW = 1000.0


class StandInNvml(types.ModuleType):
    """Two GPUs; power in mW and a cumulative energy counter in mJ that grows each read,
    as NVML reports them. ``power_supported`` False makes power raise (NotSupported)."""

    NVML_TEMPERATURE_GPU = 0

    def __init__(self, power_supported: bool = True) -> None:
        super().__init__("pynvml")
        self.power_supported = power_supported
        self.energy_mj = [1_000_000.0, 2_000_000.0]
        self.shutdowns = 0

    def nvmlInit(self) -> None:
        pass

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlDeviceGetCount(self) -> int:
        return 2

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetUtilizationRates(self, h: int) -> Any:
        return types.SimpleNamespace(gpu=[40, 80][h], memory=10)

    def nvmlDeviceGetMemoryInfo(self, h: int) -> Any:
        return types.SimpleNamespace(used=[2, 6][h] * 2**30, total=80 * 2**30, free=0)

    def nvmlDeviceGetPowerUsage(self, h: int) -> int:
        if not self.power_supported:
            raise RuntimeError("NVML_ERROR_NOT_SUPPORTED")
        return [250_000, 350_000][h]

    def nvmlDeviceGetTemperature(self, h: int, sensor: int) -> int:
        assert sensor == self.NVML_TEMPERATURE_GPU
        return [55, 61][h]

    def nvmlDeviceGetTotalEnergyConsumption(self, h: int) -> int:
        if not self.power_supported:
            raise RuntimeError("NVML_ERROR_NOT_SUPPORTED")
        self.energy_mj[h] += [500.0, 700.0][h]  # J added per read: 0.5 and 0.7
        return int(self.energy_mj[h])

    def nvmlDeviceGetName(self, h: int) -> bytes:
        return b"NVIDIA H200"  # older bindings return bytes

    def nvmlSystemGetDriverVersion(self) -> str:
        return "570.86.15"

    def nvmlDeviceGetEnforcedPowerLimit(self, h: int) -> int:
        return 700_000


def fake_powercap(root: Path, packages: dict[int, int], max_uj: int = 262_143_328_850) -> Path:
    """``intel-rapl:N`` package zones (plus a core subzone, which must be ignored)."""
    for n, uj in packages.items():
        zone = root / f"intel-rapl:{n}"
        zone.mkdir(parents=True)
        (zone / "name").write_text(f"package-{n}\n")
        (zone / "energy_uj").write_text(f"{uj}\n")
        (zone / "max_energy_range_uj").write_text(f"{max_uj}\n")
        sub = root / f"intel-rapl:{n}:0"
        sub.mkdir()
        (sub / "name").write_text("core\n")
        (sub / "energy_uj").write_text("5\n")
    (root / "intel-rapl").mkdir(exist_ok=True)  # the driver's own folder
    return root


def set_uj(root: Path, n: int, uj: int) -> None:
    (root / f"intel-rapl:{n}" / "energy_uj").write_text(f"{uj}\n")


@pytest.fixture
def nvml(monkeypatch: pytest.MonkeyPatch) -> StandInNvml:
    module = StandInNvml()
    monkeypatch.setitem(sys.modules, "pynvml", module)
    return module


SCOPE = RunScope("r1", Configuration("box", Architecture.LO, 1))


def test_sampler_records_gpu_power_temperature_energy_and_rapl(nvml: StandInNvml, tmp_path: Path) -> None:
    rapl = fake_powercap(tmp_path / "powercap", {0: 1_000_000, 1: 3_000_000})
    got: list[ResourceSample] = []
    sampler = ResourceSampler(got.append, 0.5, scope=SCOPE, powercap_root=rapl)
    assert sampler.has_gpu
    assert sampler.has_cpu_energy
    assert not sampler.gpu_reason
    first = sampler.sample_once()
    set_uj(rapl, 0, 4_000_000)  # +3 J
    set_uj(rapl, 1, 3_500_000)  # +0.5 J
    second = sampler.sample_once()
    sampler.stop()
    assert nvml.shutdowns == 1
    assert first.gpu_util_percent == pytest.approx(60.0)
    assert first.gpu_mem_used_bytes == 8 * 2**30
    assert first.gpu_power_w == pytest.approx(600.0)  # summed over both GPUs
    assert first.gpu_temp_c == 61.0  # the hottest
    assert first.gpu_energy_j is not None
    assert second.gpu_energy_j is not None
    assert second.gpu_energy_j - first.gpu_energy_j == pytest.approx(1.2)
    assert first.cpu_energy_j == 0.0
    assert second.cpu_energy_j == pytest.approx(3.5)
    assert (first.run_id, first.device) == ("r1", "box")
    assert got == [first, second]


def test_a_reading_nvml_does_not_support_stays_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", StandInNvml(power_supported=False))
    sample = ResourceSampler(lambda s: None, scope=SCOPE).sample_once()
    assert sample.gpu_util_percent == pytest.approx(60.0)
    assert sample.gpu_power_w is None
    assert sample.gpu_energy_j is None
    assert sample.gpu_temp_c == 61.0


def test_without_nvml_or_rapl_the_columns_are_empty_and_the_reason_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails as if not installed
    sampler = ResourceSampler(lambda s: None, scope=SCOPE, powercap_root=tmp_path / "none")
    sample = sampler.sample_once()
    assert not sampler.has_gpu
    assert "nvidia-ml-py" in sampler.gpu_reason
    assert not sampler.has_cpu_energy
    assert "does not exist" in sampler.cpu_energy_reason
    assert sample.gpu_power_w is None
    assert sample.cpu_energy_j is None


def test_rapl_counter_wrap_and_zones(tmp_path: Path) -> None:
    root = fake_powercap(tmp_path, {0: 900}, max_uj=1000)
    assert [z.name for z in package_zones(root)] == ["intel-rapl:0 (package-0)"]
    reader = RaplReader(root)
    set_uj(root, 0, 100)  # wrapped: 900 -> 1000 -> 100 is 200 µJ
    assert reader.read_j() == pytest.approx(200e-6)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no package zone" in RaplReader(empty).reason


def test_inventory_with_nvml_and_rapl_round_trips_through_run_json(nvml: StandInNvml, tmp_path: Path) -> None:
    inv = probe(powercap_root=fake_powercap(tmp_path / "pc", {0: 1}), dmi_entries=tmp_path / "no-dmi")
    assert [g.name for g in inv.gpus] == ["NVIDIA H200", "NVIDIA H200"]
    assert inv.gpus[0].memory_bytes == 80 * 2**30
    assert inv.gpus[0].driver == "570.86.15"
    assert inv.gpus[0].power_limit_w == 700.0
    assert inv.accelerator == "cuda"
    assert inv.energy_sources == {
        "gpu": "nvml (total energy counter)",
        "cpu": "rapl (package energy counters)",
    }
    assert inv.cpu_threads
    assert inv.ram_bytes
    assert inv.cpu_model
    assert inv.ram_type == ""
    assert any("RAM type unreadable" in n for n in inv.notes)
    meta = RunMeta(run_id="r1", device="box", hardware={"box": inv})
    back = RunMeta.from_dict(meta.to_dict())
    assert back.hardware == {"box": inv}
    assert "NVIDIA H200 80 GiB, driver 570.86.15" in back.hardware["box"].summary_line()


def test_ram_type_from_smbios_records(tmp_path: Path) -> None:
    from agbench.live.monitors.inventory import ram_type

    def record(kind: int, size_mb: int) -> bytes:
        raw = bytearray(0x28)
        raw[0x0C:0x0E] = size_mb.to_bytes(2, "little")
        raw[0x12] = kind
        return bytes(raw)

    for i, (kind, size) in enumerate([(0x22, 16384), (0x22, 16384), (0x1A, 0)]):  # last slot empty
        entry = tmp_path / f"17-{i}"
        entry.mkdir()
        (entry / "raw").write_bytes(record(kind, size))
    assert ram_type(tmp_path) == ("DDR5", "")


def _task(i: int, status: str, t0: float, t1: float) -> dict[str, Any]:
    row = to_row(
        TaskRun(
            run_id="r1",
            device="box",
            architecture="LO",
            concurrency=1,
            agent_kind="oracle",
            task=f"t{i}",
            category="c",
            attempt=1,
            t_start=t0,
            t_end=t1,
            status=status,
        )
    )
    return row


def _samples(n: int, **series: list[float | None]) -> pd.DataFrame:
    rows = []
    for i in range(n):
        s = ResourceSample(run_id="r1", device="box", architecture="LO", concurrency=1, t=100.0 + i)
        for name, values in series.items():
            setattr(s, name, values[i])
        rows.append(to_row(s))
    return pd.DataFrame(rows)


def test_energy_per_task_and_per_success_from_counters() -> None:
    tasks = pd.DataFrame([_task(0, "success", 100, 101), _task(1, "wrong_answer", 101, 103)])
    # GPU counter: 3600 J; RAPL: 1800 J with a restart (a resumed sampler) that adds nothing.
    samples = _samples(
        4,
        gpu_energy_j=[1000.0, 2000.0, 3000.0, 4600.0],
        gpu_power_w=[300.0, 320.0, 340.0, 360.0],
        gpu_temp_c=[50.0, 60.0, 70.0, 65.0],
        cpu_energy_j=[0.0, 900.0, 0.0, 900.0],
    )
    meta = {"run_id": "r1", "source": "live"}
    config = summarize({"task_runs": tasks, "resource_samples": samples}, meta).to_json_dict()[
        "configurations"
    ][0]
    assert config["energy_wh"] == pytest.approx(1.5)  # 5400 J
    assert config["energy_wh_per_task"] == pytest.approx(0.75)
    assert config["energy_wh_per_success"] == pytest.approx(1.5)
    assert config["energy_source"] == "GPU (NVML energy counter) + CPU package (RAPL)"
    assert config["gpu_power_w_mean"] == pytest.approx(330.0)
    assert config["gpu_power_w_peak"] == 360.0
    assert config["gpu_temp_c_peak"] == 70.0
    assert config["energy_note"] == ""


def test_gpu_power_alone_is_integrated() -> None:
    frame = _samples(3, gpu_power_w=[100.0, 200.0, None])
    assert integrated_j(frame, "gpu_power_w") == pytest.approx(150.0)
    assert counter_j(frame, "gpu_energy_j") is None
    assert busy_seconds([0, 1, 5], [2, 2, 1]) == pytest.approx(4.0)  # [0,3] and [5,6]


def test_no_source_gives_empty_energy_with_the_reason_in_summary_and_report() -> None:
    tasks = pd.DataFrame([_task(0, "success", 100, 101)])
    inv = HardwareInventory(
        cpu_model="X",
        energy_sources={"gpu": "no NVML: no driver", "cpu": "RAPL unreadable: needs root"},
    )
    meta = RunMeta(run_id="r1", device="box", hardware={"box": inv}).to_dict()
    summary = summarize({"task_runs": tasks, "resource_samples": _samples(3)}, meta)
    config = summary.to_json_dict()["configurations"][0]
    assert config["energy_wh"] is None
    assert config["energy_wh_per_task"] is None
    assert config["energy_note"] == "no NVML: no driver; RAPL unreadable: needs root"
    page = render(summary, [])
    assert "Wh / task" in page
    assert "energy: no NVML: no driver; RAPL unreadable: needs root" in page
    assert "hardware: box" in page
    assert "energy sources: box" in page


def test_old_resource_rows_without_energy_columns_still_read() -> None:
    row = {"run_id": "r", "device": "d", "architecture": "LO", "concurrency": 1, "t": 1.0, "cpu_percent": 5.0}
    sample = from_row("resource_samples", row)
    assert sample.gpu_power_w is None
    assert sample.cpu_energy_j is None


@pytest.mark.slow
def test_simulated_energy_from_the_scenario_power_figures(tmp_path: Path) -> None:
    from agbench.metrics import summarize_run
    from agbench.sim.metrics_out import write_run
    from agbench.sim.scenario import load_scenario
    from agbench.sim.sweep import matrix_jobs, run_jobs

    sc = load_scenario("h200-27b")
    device = sc.profile.device
    assert device.idle_w > 0
    assert device.active_w > device.idle_w
    assert "idle_w" in device.sources
    jobs = matrix_jobs(sc, sc.workload(seed=0, limit=3), [Architecture.LO], [1, 2], seed=0)
    results = run_jobs(jobs, workers=1)
    expected = simulated_energy_wh([r for res in results for r in res.records], device)
    run_dir = write_run(tmp_path / "sim", sc, results, "replay", 0)
    configs = summarize_run(run_dir).to_json_dict()["configurations"]
    assert len(configs) == 2
    for c in configs:
        key = (c["device"], c["architecture"], c["concurrency"])
        assert c["energy_wh"] == pytest.approx(expected[key])
        assert (
            device.idle_w * c["suite_wall_s"] / 3600
            < c["energy_wh"]
            < device.active_w * c["suite_wall_s"] / 3600
        )
        assert c["energy_source"].startswith("modelled: 75 W idle, 700 W serving")
        assert c["energy_wh_per_task"] == pytest.approx(c["energy_wh"] / c["tasks"])
    assert any("700 W" in line for line in power_assumptions(device))


def test_a_scenario_without_power_figures_says_so() -> None:
    tasks = pd.DataFrame([_task(0, "success", 0, 10)])
    summary = summarize({"task_runs": tasks}, {"run_id": "s", "source": "sim", "profile": {"device": {}}})
    assert summary.configurations[0].energy_note.startswith("no power figures in the scenario")
    with pytest.raises(Exception, match="idle_w"):
        check_power(DeviceProfile(idle_w=200.0, active_w=100.0))


def test_gpu_sweep_script_stops_with_the_reason_without_nvml() -> None:
    """bench/gpu_sweep.py runs on a GPU machine; elsewhere it exits 2 naming what is missing."""
    import subprocess

    try:
        import pynvml

        pynvml.nvmlInit()
        pynvml.nvmlShutdown()
        pytest.skip("NVML answers here: run bench/gpu_sweep.py itself")
    except Exception:
        pass
    script = Path(__file__).resolve().parents[2] / "bench" / "gpu_sweep.py"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "needs an NVIDIA GPU" in done.stderr
    assert "NVML" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1

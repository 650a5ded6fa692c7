"""A configuration on a server the sweep kept running starts from what the previous one left:
which configurations shared a server (calibration/server_lifetimes.py), what is carried
(sim/entities/server_state.py), and the development recording that showed it (dev-slots/)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from agbench.calibration import calibrate
from agbench.calibration.server_lifetimes import run_order
from agbench.calibration.validation import simulate_pair
from agbench.config import ServerSettings
from agbench.run_meta import LocalServers, RunMeta
from agbench.sim.engine import LOCAL_SERVER, STANDIN_SERVER
from agbench.sim.entities.server_state import NEVER_USED, ServerState
from agbench.sim.schedulers.slot_policy import Slot
from agbench.status import Status
from agbench.store import RunStore

DEV_SLOTS = Path(__file__).resolve().parents[2] / "calibration" / "reference" / "dev-slots"


def _runs(*configs: tuple[str, int, float, str]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"architecture": a, "concurrency": c, "t_start": t, "status": s, "task": "t"}
            for a, c, t, s in configs
        ]
    )


def test_a_server_is_shared_while_its_settings_stay_and_a_resume_ends_it() -> None:
    fixed = ServerSettings(n_ctx=3072, n_parallel=3)
    meta = RunMeta(
        run_id="r",
        local=LocalServers(servers={"1": fixed, "2": fixed, "4": ServerSettings(n_ctx=4096, n_parallel=4)}),
        cloud_standin=True,
    )
    ok = Status.SUCCESS.value
    runs = _runs(
        ("LO", 2, 30.0, ok), ("LO", 1, 0.0, ok), ("CO", 1, 10.0, ok), ("HLL", 1, 20.0, Status.INTERRUPTED.value),
        ("LO", 4, 40.0, ok),
    )  # fmt: skip
    uses = run_order(runs, meta)
    assert [(u.architecture, u.concurrency) for u in uses] == [
        ("LO", 1),
        ("CO", 1),
        ("HLL", 1),
        ("LO", 2),
        ("LO", 4),
    ]
    lo1, co1, hll1, lo2, lo4 = uses
    assert lo1.servers == {LOCAL_SERVER: fixed}  # LO has no cloud
    assert co1.servers == {STANDIN_SERVER: 1}  # the stand-in has one slot a task: one per level
    assert hll1.servers == {LOCAL_SERVER: fixed, STANDIN_SERVER: 1}
    assert hll1.interrupted
    assert lo2.servers[LOCAL_SERVER] == lo1.servers[LOCAL_SERVER]  # the same settings: kept running
    assert lo4.servers[LOCAL_SERVER] != lo2.servers[LOCAL_SERVER]  # restarted
    external = RunMeta(run_id="r", local=LocalServers(url="http://x", managed=False))
    assert {u.servers[LOCAL_SERVER] for u in run_order(runs[runs.architecture == "LO"], external)} == {
        "external"
    }


def test_a_carried_slot_keeps_its_place_in_the_lru_order_before_the_next_start() -> None:
    slots = [Slot(0, last_used=5.0), Slot(1), Slot(2, last_used=2.0, busy=True), Slot(3, last_used=-0.5)]
    state = ServerState.left(slots, None, None)
    times = [s.last_used for s in state.slots]
    assert times[1] == NEVER_USED  # never used: llama.cpp's t_last_used = -1
    assert NEVER_USED < times[3] < times[2] < times[0] < 0  # older configurations' slots stay older
    assert not any(s.busy for s in state.slots)
    assert slots[0].last_used == 5.0  # a copy: the server it came from is left as it was


@pytest.mark.skipif(
    not (DEV_SLOTS / "run" / "run.json").is_file(), reason="dev-slots is not in this checkout"
)
def test_each_configuration_starts_from_what_the_last_left_on_the_kept_server(tmp_path: Path) -> None:
    """dev-slots kept one per-slot server through C = 1, 2, 3: live, every first turn from C = 2
    on found its 480-token prompt cached (479 tokens; llama.cpp evaluates the last), restored
    from the earlier level's conversation of the same task; a fresh server reads them whole."""
    profile = calibrate(
        [DEV_SLOTS / "run"],
        tmp_path / "p.toml",
        concurrency=[1],
        server_profile=DEV_SLOTS / "server_profile.toml",
    )

    def first_turns(tables: dict[str, pd.DataFrame]) -> dict[tuple[str, int], list[int]]:
        calls = tables["model_calls"]
        calls = calls[calls["agent"].astype(str).str.startswith("local")].sort_values("t_start")
        return {
            (str(a), int(c)): sorted(int(x) for x in group.groupby("task").head(1)["cached_tokens"])
            for (a, c), group in calls.groupby(["architecture", "concurrency"])
        }

    live = first_turns(RunStore.open(DEV_SLOTS / "run").tables())
    sim = first_turns(simulate_pair(DEV_SLOTS / "run", profile).sim_tables)
    assert live.keys() == sim.keys()
    for config, cached in live.items():
        assert sim[config] == pytest.approx(cached, abs=1), config  # the template's one token
    assert sim[("LO", 2)] == [479] * 4

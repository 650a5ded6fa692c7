"""The one live-settings -> simulator preset: both calibration paths describe llama-server alike."""

from __future__ import annotations

from agbench.calibration.server_preset import pool_table, server_table
from agbench.config import ServerSettings
from agbench.sim.profiles import ServerProfile


def test_unified_pool_keeps_and_purges_idle_cells() -> None:
    settings = ServerSettings(n_ctx=4096, n_parallel=4, kv_unified=True, threads=1, batch_size=256)
    table = server_table(settings, n_parallel=0, n_ctx_per_slot=0)
    assert table["idle_cache_holds_kv"] is True
    assert table["purge_idle_on_full"] is True
    assert table["n_batch"] == 256
    assert table["prefill_scheduling"] == "iterations"
    assert pool_table(settings)["purge_idle_on_full"] is True
    # every key is a ServerProfile field (the simulator reads the table as is)
    fields = set(ServerProfile.__dataclass_fields__)
    assert set(table) <= fields
    assert set(pool_table(settings)) <= fields


def test_per_slot_pools_have_no_idle_facts() -> None:
    table = server_table(ServerSettings(kv_unified=False), n_parallel=2, n_ctx_per_slot=4096)
    assert "idle_cache_holds_kv" not in table
    assert "purge_idle_on_full" not in table
    assert table["n_parallel"] == 2
    assert table["n_ctx_per_slot"] == 4096

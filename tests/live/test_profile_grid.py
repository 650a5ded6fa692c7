"""Which batch sizes ``agbench profile-server`` decodes at: the quick grid keeps batch 2 (where a
CPU's batched kernels start) and 4 (how the step bends), since the simulator reads every other
size between measured ones (bench/decode_batch_table.py)."""

from __future__ import annotations

from pathlib import Path

from agbench.config import ServerSettings
from agbench.live.load.profile import ProfileOptions, Profiler


def sizes(parallel: int, quick: bool) -> list[int]:
    options = ProfileOptions(out=Path("."), server=ServerSettings(n_parallel=parallel), quick=quick)
    return Profiler(options, client=None, counter=None).batch_sizes()  # type: ignore[arg-type]


def test_the_quick_grid_measures_batch_two_and_four_below_the_slots() -> None:
    assert sizes(8, quick=True) == [1, 2, 4, 8]
    assert sizes(6, quick=True) == [1, 2, 4, 6]
    assert sizes(3, quick=True) == [1, 2, 3]
    assert sizes(2, quick=True) == [1, 2]
    assert sizes(1, quick=True) == [1]


def test_the_full_grid_measures_every_usual_size_up_to_the_slots() -> None:
    assert sizes(8, quick=False) == [1, 2, 3, 4, 6, 8]
    assert sizes(10, quick=False) == [1, 2, 3, 4, 6, 8, 10]

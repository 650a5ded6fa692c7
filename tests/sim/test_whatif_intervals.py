"""What-if answers carry their range, and say when the choice flips inside it."""

from __future__ import annotations

import json
from pathlib import Path

from agbench.sim.whatif import search, write_report
from agbench.sim.whatif.report import answer_lines, front_lines

SPEC = """
[whatif]
name = "small"
search = "grid"
limit = 4
objectives = ["goodput", "success", "cloud_cost"]

[space]
device = ["paper-rtx5090"]
weight_quant = ["Q4_K_M"]
kv_cache = ["f16"]
pool_tokens = [65536]
arch = ["LO", "HLL"]
concurrency = [1, 4]
"""


def test_the_front_is_redrawn_and_the_answer_states_its_range(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    plain = search(spec, workers=1)
    drawn = search(spec, workers=1, draws=4)
    assert plain.intervals is None
    assert answer_lines(plain) == []
    # the draws leave the point search alone
    assert [r.objectives for r in plain.results] == [r.objectives for r in drawn.results]
    assert plain.front == drawn.front
    iv = drawn.intervals
    assert iv is not None
    assert iv.kinds == {"paper-rtx5090": "assumptions"}
    assert iv.answer in drawn.front
    assert set(iv.bands) == set(drawn.front)
    lines = front_lines(drawn)
    answer = next(line for line in lines if line.startswith("answer (best goodput)"))
    assert "[assumed " in answer
    flip = lines[lines.index(answer) + 1]
    assert ("flips inside the interval" in flip) == (iv.flipped_draws > 0)
    assert ("a tie on goodput" in flip) == (iv.flipped_draws == 0 and iv.tied_draws > 0)
    files = write_report(drawn, tmp_path / "out")
    data = json.loads(files[0].read_text())
    assert data["intervals"]["draws"] == 4
    assert data["intervals"]["answer"] == drawn.results[iv.answer].point.label
    assert "The answer and its interval" in files[-1].read_text()


def test_an_answer_another_front_point_beats_in_some_draw_is_said_to_flip(tmp_path: Path) -> None:
    from agbench.sim.whatif.intervals import FrontIntervals

    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    result = search(spec, workers=1)
    first, second = result.front[0], result.front[-1]
    result.intervals = FrontIntervals(
        draws=10,
        kinds={"paper-rtx5090": "calibrated"},
        bands={first: {"goodput": (1.0, 2.0)}, second: {"goodput": (1.5, 2.5)}},
        answer=first,
        flips={second: 3},
        flipped_draws=3,
    )
    lines = answer_lines(result)
    assert "[1, 2]" in lines[0]
    assert "assumed" not in lines[0]
    assert "flips inside the interval" in lines[1]
    assert "in 3 of 10 draws" in lines[1]
    assert result.results[second].point.label in lines[1]

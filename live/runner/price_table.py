"""``--price-table FILE``: the cloud prices a run costs its cloud calls with.

The file is TOML or JSON (by its suffix; anything else is read as TOML) holding the three
prices of :class:`agbench.config.PriceTable` in USD per million tokens::

    cached_input_per_m = 0.028
    uncached_input_per_m = 0.28
    output_per_m = 0.42

A price left out keeps its default; an unknown key, a non-number or a negative price is a
one-line error (a typo must not silently price a run at the defaults).
"""

from __future__ import annotations

import dataclasses
import json
import math
import tomllib
from pathlib import Path
from typing import Any

from agbench.config import PriceTable
from agbench.errors import AgbenchError

PRICE_KEYS = tuple(f.name for f in dataclasses.fields(PriceTable))


def load_price_table(path: Path) -> PriceTable:
    """The prices in ``path``; AgbenchError (one line) naming the file and the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AgbenchError(f"--price-table {path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise AgbenchError(
            f"--price-table {path}: not valid {path.suffix.lstrip('.') or 'TOML'}: {first}"
        ) from None
    if not isinstance(data, dict):
        raise AgbenchError(f"--price-table {path}: expected a table of {', '.join(PRICE_KEYS)}")
    unknown = sorted(set(data) - set(PRICE_KEYS))
    if unknown:
        raise AgbenchError(
            f"--price-table {path}: unknown key(s) {', '.join(unknown)} (known: {', '.join(PRICE_KEYS)})"
        )
    prices: dict[str, float] = {}
    for key, value in data.items():
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise AgbenchError(f"--price-table {path}: {key} must be a non-negative number, not {value!r}")
        prices[key] = float(value)
    return PriceTable(**prices)


__all__ = ["PRICE_KEYS", "load_price_table"]

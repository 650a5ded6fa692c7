"""Dataclasses to plain data and back, and TOML files read with one-line errors.

Profiles, scenarios and workload parameters are flat dataclasses stored as TOML tables. TOML
has no None, so an absent key means "the default" both ways: ``to_plain`` leaves None fields
out, and ``from_plain`` builds a dataclass from the keys a file names (unknown keys are an
error naming the file and key; values are checked against their declared types and ranges,
agbench.schema). ``deep_merge`` lays one such table over another (a partial calibration file
over a device profile).
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from agbench.errors import AgbenchError
from agbench.schema import check

T = TypeVar("T")


def to_plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if value is not None:
                out[f.name] = to_plain(value)
        return out
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list | tuple):
        return [to_plain(v) for v in obj]
    return obj


def _dataclass_in(hint: Any) -> type[Any] | None:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        for arg in typing.get_args(hint):
            if dataclasses.is_dataclass(arg):
                return typing.cast(type[Any], arg)
        return None
    return typing.cast(type[Any], hint) if dataclasses.is_dataclass(hint) else None


def from_plain(cls: type[T], data: Any, where: str) -> T:
    """Build dataclass ``cls`` from a dict; unknown keys are an error naming the file and key."""
    if not isinstance(data, dict):
        raise AgbenchError(f"{where}: expected a table, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise AgbenchError(
            f"{where}: unknown key(s) {', '.join(unknown)} (expected some of {', '.join(sorted(names))})"
        )
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        sub = _dataclass_in(hints[name])
        if sub is not None and isinstance(value, dict):
            kwargs[name] = from_plain(sub, value, f"{where}.{name}")
        else:
            kwargs[name] = value
    try:
        obj = cls(**kwargs)
    except TypeError as exc:
        raise AgbenchError(f"{where}: {exc}") from None
    check(obj, where)  # types and ranges (agbench.schema): a bad value names its key and range
    return obj


def deep_merge(base: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def load_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise AgbenchError(f"file not found: {path}")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise AgbenchError(f"{path}: not valid TOML ({exc})") from None


__all__ = ["deep_merge", "from_plain", "load_toml", "to_plain"]

"""Validated configuration (pydantic v2): one rule for every file a user writes or edits and
for the command line's options.

Scenarios, device profiles, workload parameters, price tables, trajectories, run.json and the
sweep options are plain dataclasses in their own modules; each field that has a range says so in
its own type, ``Annotated[float, Bound(gt=0, unit="GB")]``. ``check(obj, where)`` validates an
instance against those types in pydantic's strict mode (``"4"`` is not an int, ``2.5`` is not a
slot count) and walks nested dataclasses and lists of them. A bad value is one line naming the
file (or flag), the key, the value and what is allowed, e.g.::

    sim/scenarios/x.toml.server: n_parallel = -4: Input should be greater than or equal to 0
    (allowed: an integer >= 0, slots; 0 = as many as the concurrency)

:class:`Bound` is annotated-types grouped metadata, so pydantic applies its limits wherever the
type appears (``list[Annotated[int, COUNT]]`` checks every element).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from agbench.errors import AgbenchError


class ConfigError(AgbenchError):
    """A configuration value of the wrong type or out of range (one line: file, key, range)."""


@dataclass(frozen=True)
class Bound(annotated_types.GroupedMetadata):
    """What a field allows, beyond its type: a numeric range, a set of choices, and its unit.

    Used as ``Annotated[T, Bound(...)]`` on the field itself; pydantic reads the range
    (``ge``/``gt``/``le``/``lt``, ``min_items`` for lists), :func:`check` the choices, and error
    messages the unit."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    choices: tuple[str, ...] | None = None
    unit: str = ""
    min_items: int | None = None

    def __iter__(self) -> Iterator[object]:
        if self.ge is not None:
            yield annotated_types.Ge(self.ge)
        if self.gt is not None:
            yield annotated_types.Gt(self.gt)
        if self.le is not None:
            yield annotated_types.Le(self.le)
        if self.lt is not None:
            yield annotated_types.Lt(self.lt)
        if self.min_items is not None:
            yield annotated_types.MinLen(self.min_items)

    def text(self, type_name: str) -> str:
        parts = []
        if self.choices is not None:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices))
        else:
            limits = []
            if self.ge is not None:
                limits.append(f">= {self.ge:g}")
            if self.gt is not None:
                limits.append(f"> {self.gt:g}")
            if self.le is not None:
                limits.append(f"<= {self.le:g}")
            if self.lt is not None:
                limits.append(f"< {self.lt:g}")
            if self.min_items is not None:
                limits.append(f"at least {self.min_items} item{'s' if self.min_items > 1 else ''}")
            parts.append(f"{type_name} " + " and ".join(limits) if limits else type_name)
        if self.unit:
            parts.append(self.unit)
        return ", ".join(parts)


POSITIVE = Bound(gt=0)
NON_NEGATIVE = Bound(ge=0)
FRACTION = Bound(ge=0, le=1)
SHARE = Bound(gt=0, le=1)
COUNT = Bound(ge=1)


def _mentions_dataclass(hint: Any) -> bool:
    if typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]  # the type, not its metadata (a Bound is a dataclass)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return True
    return any(_mentions_dataclass(arg) for arg in typing.get_args(hint))


def _bound_of(hint: Any) -> Bound | None:
    """The Bound a field declares (``Annotated[T, Bound(...)]``, possibly inside ``T | None``)."""
    if typing.get_origin(hint) is Annotated:
        return next((m for m in hint.__metadata__ if isinstance(m, Bound)), None)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return next((b for a in typing.get_args(hint) if (b := _bound_of(a)) is not None), None)
    return None


def _type_name(hint: Any) -> str:
    """``float | None`` -> "a number" (what the error message says the key must be)."""
    if typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        hint = next((a for a in typing.get_args(hint) if a is not type(None)), hint)
        return _type_name(hint)
    if typing.get_origin(hint) is list:
        return "a list"
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


@functools.cache
def _model(cls: type[Any]) -> tuple[type[BaseModel], dict[str, Any]]:
    """A strict pydantic model of ``cls``'s own fields (nested dataclasses are checked apart),
    with each field's declared Bound."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        if _mentions_dataclass(hint) or f.name.startswith("_"):
            continue
        # Aliased so a key such as run.json's "schema" never shadows a pydantic attribute.
        fields[f"field_{f.name}"] = (hint, Field(default=None, alias=f.name))
    model: type[BaseModel] = create_model(
        f"{cls.__name__}Schema", __config__=ConfigDict(strict=True, arbitrary_types_allowed=True), **fields
    )
    return model, hints


def bounds(cls: Any) -> dict[str, Bound]:
    """Field name -> the Bound it declares, for a dataclass."""
    _, hints = _model(cls)
    return {name: b for name, hint in hints.items() if (b := _bound_of(hint)) is not None}


def _check_choices(obj: Any, declared: dict[str, Bound], where: str, flags: bool) -> None:
    """The fields with ``choices``: the value (or each item of a list) must be one of them."""
    for name, bound in declared.items():
        if bound.choices is None:
            continue
        value = getattr(obj, name, None)
        if isinstance(value, list):
            value = next((v for v in value if str(v) not in bound.choices), None)
        if value is not None and str(value) not in bound.choices:
            if flags:  # "invalid option: unknown agent 'wizard' for --agent (allowed: ...)"
                flag = "--" + name.replace("_", "-")
                what = f"unknown {name.replace('_', ' ')} {value!r} for {flag}"
                raise ConfigError(f"{where}: {what} (allowed: {bound.text('')})")
            raise ConfigError(f"{where}: {name} = {value!r} (allowed: {bound.text('')})")


def check(obj: Any, where: str, skip: tuple[str, ...] = (), flags: bool = False) -> None:
    """Validate dataclass ``obj`` (and the dataclasses inside it); ConfigError on a bad value.

    ``skip``: fields of ``obj`` left alone (measured data kept beside the configuration).
    ``flags``: name fields as command-line flags (``--local-ctx``) instead of keys."""
    cls: Any = type(obj)
    model, hints = _model(cls)
    declared = bounds(cls)

    def key_text(name: str) -> str:
        return "--" + name.replace("_", "-") if flags else name

    names = [info.alias for info in model.model_fields.values() if info.alias and info.alias not in skip]
    values = {name: getattr(obj, name) for name in names}
    try:
        model.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0])
        key = ".".join([key_text(name), *(str(part) for part in error["loc"][1:])])
        allowed = declared.get(name, Bound()).text(_type_name(hints.get(name)))
        raise ConfigError(
            f"{where}: {key} = {error['input']!r}: {error['msg']} (allowed: {allowed})"
        ) from None
    _check_choices(obj, declared, where, flags)
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            check(value, f"{where}.{f.name}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if dataclasses.is_dataclass(item) and not isinstance(item, type):
                    check(item, f"{where}.{f.name}[{i}]")
        elif isinstance(value, dict):
            for k, item in value.items():
                if dataclasses.is_dataclass(item) and not isinstance(item, type):
                    check(item, f"{where}.{f.name}.{k}")


__all__ = [
    "COUNT",
    "FRACTION",
    "NON_NEGATIVE",
    "POSITIVE",
    "SHARE",
    "Bound",
    "ConfigError",
    "bounds",
    "check",
]

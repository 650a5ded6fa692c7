"""Validated configuration: one schema layer (pydantic v2) for every file a user writes or edits.

Scenarios, device profiles, workload parameters, price tables, trajectories and run.json are
plain dataclasses in their own modules; this module checks an instance of any of them against
its type hints and the ranges declared here, in pydantic's strict mode (``"4"`` is not an int,
``2.5`` is not a slot count). A bad value is one line naming the file, the key, the value and
what is allowed, e.g.::

    sim/scenarios/x.toml.server: n_parallel = -4: Input should be greater than or equal to 0
    (allowed: an integer >= 0, slots; 0 = as many as the concurrency)

Ranges live here, in one table keyed by class and field name, so the dataclasses stay plain and
every loader validates the same way (``check(obj, where)``, which also walks nested
dataclasses and lists of them).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from agbench.errors import AgbenchError


class ConfigError(AgbenchError):
    """A configuration value of the wrong type or out of range (one line: file, key, range)."""


@dataclass(frozen=True)
class Bound:
    """What a field allows, beyond its type: a numeric range, a set of choices, and its unit."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    choices: tuple[str, ...] | None = None
    unit: str = ""

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
            parts.append(f"{type_name} " + " and ".join(limits) if limits else type_name)
        if self.unit:
            parts.append(self.unit)
        return ", ".join(parts)


POSITIVE = Bound(gt=0)
NON_NEGATIVE = Bound(ge=0)
FRACTION = Bound(ge=0, le=1)
SHARE = Bound(gt=0, le=1)
COUNT = Bound(ge=1)

#: The ranges of every validated field: class name -> field name -> Bound. A field not listed
#: is still type-checked.
BOUNDS: dict[str, dict[str, Bound]] = {
    "DeviceProfile": {
        "memory_gb": Bound(gt=0, unit="GB"),
        "bandwidth_gb_s": Bound(gt=0, unit="GB/s"),
        "compute_tflops": Bound(gt=0, unit="TFLOPS"),
        "cores": Bound(ge=1, unit="CPU cores"),
        "memory_overhead_gb": Bound(ge=0, unit="GB"),
        "bandwidth_efficiency": Bound(gt=0, le=1, unit="achieved / peak"),
        "compute_efficiency": Bound(gt=0, le=1, unit="achieved / peak"),
        "batch_growth_per_token": NON_NEGATIVE,
        "vec_kernel_max_tokens": Bound(ge=0, unit="tokens; 0 = no limit"),
        "idle_w": Bound(ge=0, unit="W"),
        "active_w": Bound(ge=0, unit="W"),
    },
    "ModelProfile": {
        "params_b": Bound(gt=0, unit="billions of parameters"),
        "layers": COUNT,
        "kv_heads": COUNT,
        "head_dim": COUNT,
        "weight_bits": Bound(gt=0, le=64, unit="bits per weight"),
        "kv_bits": Bound(gt=0, le=64, unit="bits per value"),
        "q_heads": Bound(ge=0, unit="0 = 4 x kv_heads"),
        "max_output_tokens": Bound(ge=1, unit="tokens"),
    },
    "ServerRates": {
        "prefill_tok_s": Bound(gt=0, unit="tokens/s"),
        "prefill_ctx_slowdown_per_k": NON_NEGATIVE,
        "decode_step_s": Bound(gt=0, unit="s"),
        "decode_step_per_seq_s": Bound(ge=0, unit="s"),
        "decode_step_per_kv_token_s": Bound(ge=0, unit="s"),
        "decode_compute_per_seq_s": Bound(ge=0, unit="s"),
        "decode_batch_saturation": Bound(ge=0, unit="sequences; 0 = never"),
        "spec_tokens_per_step": Bound(ge=1, unit="tokens"),
    },
    "ServerProfile": {
        "n_ctx": Bound(ge=16, unit="KV tokens"),
        "n_ctx_per_slot": Bound(ge=0, unit="KV tokens per slot; 0 = use n_ctx"),
        "n_parallel": Bound(ge=0, unit="slots; 0 = as many as the concurrency"),
        "n_batch": Bound(ge=1, unit="tokens"),
        "threads": Bound(ge=1, unit="threads"),
        "oversubscribed_efficiency": SHARE,
        "slot_policy": Bound(choices=("llama-cpp", "sticky")),
        "slot_prompt_similarity": FRACTION,
        "prompt_cache_mib": Bound(ge=0, unit="MiB; 0 = off"),
        "prefill_scheduling": Bound(choices=("shared", "iterations")),
        "kv_sampled_as": Bound(choices=("held", "slots")),
        "request_overhead_s": Bound(ge=0, unit="s"),
        "spec_draft_max": Bound(ge=0, unit="draft tokens"),
        "spec_acceptance": FRACTION,
        "spec_step_overhead": NON_NEGATIVE,
    },
    "CloudProfile": {
        "ttft_median_s": Bound(gt=0, unit="s"),
        "ttft_sigma": NON_NEGATIVE,
        "output_tok_s_median": Bound(gt=0, unit="tokens/s"),
        "output_tok_s_sigma": NON_NEGATIVE,
        "prefill_tok_s": Bound(gt=0, unit="tokens/s"),
        "cache_hit_p": FRACTION,
        "cache_block_tokens": Bound(ge=1, unit="tokens"),
        "standin_ctx_per_slot": Bound(ge=16, unit="KV tokens"),
        "standin_threads": Bound(ge=0, unit="threads; 0 = the local server's"),
        "consult_prefix_tokens": Bound(ge=0, unit="tokens"),
    },
    "ToolProfile": {
        "default_cpu_fraction": Bound(ge=0, unit="CPU s / wall s"),
        "max_cores_per_tool": Bound(gt=0, unit="cores"),
        "wall_scale": POSITIVE,
    },
    "BehaviourProfile": {
        "deadline_s": Bound(gt=0, unit="s"),
        "hcl_redelegate_p": FRACTION,
        "hcl_redelegate_max": NON_NEGATIVE,
        "hcl_sub_agent": Bound(choices=("persistent", "fresh")),
        "hll_consult_on_context_error_p": FRACTION,
        "sensitive_items_per_task": NON_NEGATIVE,
        "harness_overhead_s": Bound(ge=0, unit="s"),
        "setup_share": FRACTION,
        "turn_gap_s": Bound(ge=0, unit="s"),
        "turn_gap_cpu_s": Bound(ge=0, unit="s"),
    },
    "PriceTable": {
        "cached_input_per_m": Bound(ge=0, unit="USD per million tokens"),
        "uncached_input_per_m": Bound(ge=0, unit="USD per million tokens"),
        "output_per_m": Bound(ge=0, unit="USD per million tokens"),
    },
    "ToolStep": {
        "wall_s": Bound(ge=0, unit="s"),
        "cpu_s": Bound(ge=0, unit="s"),
        "output_tokens": Bound(ge=0, unit="tokens"),
    },
    "Turn": {
        "endpoint": Bound(choices=("local", "cloud")),
        "prompt_tokens_added": Bound(ge=0, unit="tokens"),
        "output_tokens": Bound(ge=0, unit="tokens"),
        "think_s": Bound(ge=0, unit="s"),
    },
    "Trajectory": {
        "architecture": Bound(choices=("LO", "CO", "HCL", "HLL")),
        "system_prompt_tokens": Bound(ge=0, unit="tokens"),
    },
    "RunMeta": {
        "seed": NON_NEGATIVE,
        "schema": NON_NEGATIVE,
        "time_limit_s": Bound(gt=0, unit="s"),
        "max_tokens": Bound(ge=1, unit="tokens"),
    },
    "Scenario": {
        "seed": NON_NEGATIVE,
        "limit": Bound(ge=0, unit="tasks; 0 = all"),
        "workload_kind": Bound(choices=("synthetic", "replay")),
    },
    "ServerSettings": {
        "n_ctx": Bound(ge=16, unit="KV tokens"),
        "n_parallel": Bound(ge=1, unit="slots"),
        "threads": Bound(ge=1, unit="threads"),
    },
}


def _mentions_dataclass(hint: Any) -> bool:
    if dataclasses.is_dataclass(hint):
        return True
    return any(_mentions_dataclass(arg) for arg in typing.get_args(hint))


def _type_name(hint: Any) -> str:
    """``float | None`` -> "a number" (what the error message says the key must be)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        hint = next((a for a in typing.get_args(hint) if a is not type(None)), hint)
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


@functools.cache
def _model(cls: type[Any]) -> tuple[type[BaseModel], dict[str, Any]]:
    """A strict pydantic model of ``cls``'s own fields (nested dataclasses are checked apart)."""
    hints = typing.get_type_hints(cls)
    bounds = BOUNDS.get(cls.__name__, {})
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        if _mentions_dataclass(hint) or f.name.startswith("_"):
            continue
        bound = bounds.get(f.name)
        constraints: dict[str, Any] = {}
        if bound is not None and bound.choices is None:
            constraints = {k: v for k in ("ge", "gt", "le", "lt") if (v := getattr(bound, k)) is not None}
        # Aliased so a key such as run.json's "schema" never shadows a pydantic attribute.
        fields[f"field_{f.name}"] = (hint, Field(default=None, alias=f.name, **constraints))
    model: type[BaseModel] = create_model(
        f"{cls.__name__}Schema", __config__=ConfigDict(strict=True, arbitrary_types_allowed=True), **fields
    )
    return model, hints


def check(obj: Any, where: str, skip: tuple[str, ...] = ()) -> None:
    """Validate dataclass ``obj`` (and the dataclasses inside it); ConfigError on a bad value.

    ``skip``: fields of ``obj`` left alone (measured data kept beside the configuration)."""
    cls: Any = type(obj)
    model, hints = _model(cls)
    names = [info.alias for info in model.model_fields.values() if info.alias and info.alias not in skip]
    values = {name: getattr(obj, name) for name in names}
    try:
        model.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        name = str(error["loc"][0])
        bound = BOUNDS.get(cls.__name__, {}).get(name, Bound())
        allowed = bound.text(_type_name(hints.get(name)))
        raise ConfigError(
            f"{where}: {key} = {error['input']!r}: {error['msg']} (allowed: {allowed})"
        ) from None
    for name, bound in BOUNDS.get(cls.__name__, {}).items():
        value = getattr(obj, name, None)
        if bound.choices is not None and value is not None and str(value) not in bound.choices:
            raise ConfigError(f"{where}: {name} = {value!r} (allowed: {bound.text('')})")
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


__all__ = ["BOUNDS", "Bound", "ConfigError", "check"]

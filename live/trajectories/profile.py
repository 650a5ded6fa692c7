"""Token profiles: how big a synthesised agent's turns are, per task category.

A profile says how many tokens each part of a synthesised conversation takes (system prompt,
task instruction, one tool result, one tool-calling reply, the final answer) and how many
extra exploring turns an agent takes before it follows the oracle's plan; hybrid settings say
how HCL delegates and HLL consults. Categories override the defaults key by key, so a profile
file only states what differs.

Profiles are TOML (``profiles/*.toml`` ship; ``this-machine`` is the default)::

    name = "this-machine"
    description = "..."
    jitter = 0.2                 # sizes vary by up to ±20 % per turn (seeded)

    [defaults]
    system_prompt_tokens = 200
    instruction_tokens = 96
    tool_result_tokens = 90
    output_tokens = 24
    answer_tokens = 24
    exploration_turns = 0
    tools_per_turn = 1
    think_s = 0.0

    [categories.retrieval]       # any [defaults] key
    tool_result_tokens = 140

    [hybrid]
    delegations = 1
    delegate_instruction_tokens = 48
    delegate_report_tokens = 32
    consultations = 1
    consult_question_tokens = 48
    consult_prompt_tokens = 160
    consult_answer_tokens = 48

Every mistake (unknown key, wrong type, negative size, unknown category) is an
``AgbenchError`` naming the file and the key, so ``agbench trajectories synth --profile``
fails in one line.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from agbench.errors import AgbenchError
from agbench.resources import shipped_dir
from agbench.shipped import find_toml, shipped_names
from agbench.task import CATEGORIES

PROFILE_DIR = shipped_dir("trajectory-profiles")
DEFAULT_PROFILE = "this-machine"


@dataclass(frozen=True)
class TokenProfile:
    """Sizes of one category's turns, in tokens as the serving model counts them.

    ``tool_result_tokens`` is what one tool's result adds to the history (the result text and
    its message framing); ``output_tokens`` is what a tool-calling turn generates and
    ``answer_tokens`` what the closing turn generates. ``exploration_turns`` are turns that
    list the working directory before the oracle's plan starts (real agents look first).
    """

    system_prompt_tokens: int = 200
    instruction_tokens: int = 96
    tool_result_tokens: int = 90
    output_tokens: int = 24
    answer_tokens: int = 24
    exploration_turns: int = 0
    tools_per_turn: int = 1
    think_s: float = 0.0


@dataclass(frozen=True)
class HybridProfile:
    """How the hybrids coordinate.

    HCL: the cloud lead splits the plan into ``delegations`` delegations; each delegate call
    is a lead turn generating ``delegate_instruction_tokens`` (the sub-agent's instruction),
    and the sub-agent closes with a report of ``delegate_report_tokens``.
    HLL: the local lead makes ``consultations`` consult calls (a turn generating
    ``consult_question_tokens``); the cloud consultant reads ``consult_prompt_tokens`` (its
    system prompt and the question with the context the lead included) and answers in
    ``consult_answer_tokens``.
    """

    delegations: int = 1
    delegate_instruction_tokens: int = 48
    delegate_report_tokens: int = 32
    consultations: int = 1
    consult_question_tokens: int = 48
    consult_prompt_tokens: int = 160
    consult_answer_tokens: int = 48


@dataclass(frozen=True)
class Profile:
    name: str
    description: str = ""
    jitter: float = 0.0
    defaults: TokenProfile = field(default_factory=TokenProfile)
    categories: dict[str, TokenProfile] = field(default_factory=dict)
    hybrid: HybridProfile = field(default_factory=HybridProfile)
    source: str = ""  # the file it was read from

    def for_category(self, category: str) -> TokenProfile:
        return self.categories.get(category, self.defaults)

    def to_dict(self) -> dict[str, Any]:
        """What a trajectory file's header records about the profile that made it."""
        return {
            "name": self.name,
            "description": self.description,
            "jitter": self.jitter,
            "defaults": asdict(self.defaults),
            "categories": {k: asdict(v) for k, v in sorted(self.categories.items())},
            "hybrid": asdict(self.hybrid),
            "source": self.source,
        }


_TOP_KEYS = {"name", "description", "jitter", "defaults", "categories", "hybrid"}


def _check_fields(cls: type[Any], table: dict[str, Any], where: str) -> dict[str, Any]:
    """Validate one table against a dataclass's fields: known keys, right types, not negative."""
    if not isinstance(table, dict):
        raise AgbenchError(f"{where}: expected a table")
    kinds = {f.name: f.type for f in fields(cls)}
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in kinds:
            raise AgbenchError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(kinds))})")
        want_float = kinds[key] in (float, "float")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise AgbenchError(f"{where}.{key}: expected a number, got {value!r}")
        if not want_float and not isinstance(value, int):
            raise AgbenchError(f"{where}.{key}: expected a whole number, got {value!r}")
        if value < 0:
            raise AgbenchError(f"{where}.{key}: must not be negative, got {value!r}")
        out[key] = float(value) if want_float else int(value)
    return out


def profile_from_dict(data: dict[str, Any], source: str = "<profile>") -> Profile:
    """Build and validate a profile from parsed TOML."""
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise AgbenchError(f"{source}: unknown key(s) {', '.join(unknown)}")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise AgbenchError(f"{source}: name must be a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise AgbenchError(f"{source}: description must be a string")
    jitter = data.get("jitter", 0.0)
    if isinstance(jitter, bool) or not isinstance(jitter, (int, float)) or not 0 <= jitter < 1:
        raise AgbenchError(f"{source}: jitter must be a number in [0, 1), got {jitter!r}")
    defaults = TokenProfile(**_check_fields(TokenProfile, data.get("defaults", {}), f"{source}: [defaults]"))
    categories: dict[str, TokenProfile] = {}
    cats = data.get("categories", {})
    if not isinstance(cats, dict):
        raise AgbenchError(f"{source}: [categories] must be a table of tables")
    for category, table in cats.items():
        if category not in CATEGORIES:
            raise AgbenchError(f"{source}: unknown category {category!r} (known: {', '.join(CATEGORIES)})")
        categories[category] = replace(
            defaults, **_check_fields(TokenProfile, table, f"{source}: [categories.{category}]")
        )
    hybrid = HybridProfile(**_check_fields(HybridProfile, data.get("hybrid", {}), f"{source}: [hybrid]"))
    for prof, where in [(defaults, "[defaults]"), *((p, f"[categories.{c}]") for c, p in categories.items())]:
        if prof.tools_per_turn < 1:
            raise AgbenchError(f"{source}: {where}.tools_per_turn must be at least 1")
        if prof.output_tokens < 1 or prof.answer_tokens < 1:
            raise AgbenchError(f"{source}: {where}: output_tokens and answer_tokens must be at least 1")
    if hybrid.delegations < 1:
        raise AgbenchError(f"{source}: [hybrid].delegations must be at least 1")
    return Profile(
        name=name,
        description=description,
        jitter=float(jitter),
        defaults=defaults,
        categories=categories,
        hybrid=hybrid,
        source=source,
    )


def shipped_profiles() -> list[str]:
    """Names of the profiles that ship with agbench (``profiles/*.toml``)."""
    return shipped_names(PROFILE_DIR)


def load_profile(path: Path | str | None = None) -> Profile:
    """A profile from a TOML file, or a shipped one by name (None: ``this-machine``)."""
    if path is None:
        path = DEFAULT_PROFILE
    candidate = find_toml(path, PROFILE_DIR)
    if candidate is None:
        raise AgbenchError(f"profile not found: {path} (shipped profiles: {', '.join(shipped_profiles())})")
    try:
        data = tomllib.loads(candidate.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise AgbenchError(f"{candidate}: not valid TOML ({exc})") from None
    return profile_from_dict(data, str(candidate))


__all__ = [
    "DEFAULT_PROFILE",
    "PROFILE_DIR",
    "HybridProfile",
    "Profile",
    "TokenProfile",
    "load_profile",
    "profile_from_dict",
    "shipped_profiles",
]

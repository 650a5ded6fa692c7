"""A benchmark suite's manifest (``manifest.json``) and its strict validation.

A suite is a folder of tasks (``<suite>/<category>/<id>/``) plus one ``manifest.json`` that says
where the tasks came from and how they are scored, so a result can be compared with the
suite's published numbers. Validation is strict: every field below must be present and well
formed, and the source must be pinned (a 40-hex commit, or a dataset revision that is not a
moving name such as ``main`` or ``latest``). A manifest that fails gives each of its tasks a
``failed_manifest_validation`` row with every problem listed; nothing of it runs.

Required fields::

    id, name, version               the suite id (a slug), display name, manifest version
    source                          {"kind": "git" | "harbor", "url", "commit": 40 hex}
                                    | {"kind": "dataset", "url", "revision": pinned name}
                                    | {"kind": "in-repository", "path"} (tasks versioned here)
    split                           e.g. "test", "all"
    prompt_format                   how the instruction reaches the agent
    scoring                         {"method": exact|numeric|program|rubric|task_compliance|
                                     reward_file, "normalization": mean_reward|pass_rate}
    grader                          {"command": str, "config": str | object}
    assets                          [{"path", "sha256", "size"?, "from"?}] (may be empty)
    container                       {"network": bool, "memory_mb", "cpus", "pids", "timeout_s"}
    adapter                         "builtin" (agbench's own agent loop) | "harness"
    reporting                       {"group": str, "name": str}
    credits, citation, license      strings
    active                          bool (``--profile full_active`` runs the active suites)

Optional: ``required_tools`` (tool names the tasks need; preflight gives
``failed_missing_required_tool`` rows when the run does not expose one) and ``harness``
(the folder with the external harness's Dockerfile and run.sh, for ``adapter = harness``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST_FILE = "manifest.json"
SOURCE_KINDS = ("git", "harbor", "dataset", "in-repository")
SCORING_METHODS = ("exact", "numeric", "program", "rubric", "task_compliance", "reward_file")
NORMALIZATIONS = ("mean_reward", "pass_rate")
ADAPTERS = ("builtin", "harness")
MOVING_REFS = frozenset({"main", "master", "head", "latest", "dev", "develop", "trunk", "stable", "nightly"})
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
REQUIRED = (
    "id", "name", "version", "source", "split", "prompt_format", "scoring", "grader", "assets",
    "container", "adapter", "reporting", "credits", "citation", "license", "active",
)  # fmt: skip


@dataclass(frozen=True)
class AssetSpec:
    """One file the suite needs, checked by size and SHA-256 before anything runs."""

    path: str
    sha256: str
    size: int | None = None
    source: str | None = None  # a file in the suite folder that fills the cache (a recipe)


@dataclass(frozen=True)
class Manifest:
    """A manifest that passed validation (``raw`` keeps every field for the report)."""

    id: str
    name: str
    folder: Path
    adapter: str
    assets: tuple[AssetSpec, ...]
    required_tools: tuple[str, ...]
    active: bool
    reporting_group: str
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def harness_dir(self) -> Path | None:
        rel = self.raw.get("harness")
        return (self.folder / str(rel)) if rel else None

    def credits_entry(self) -> dict[str, Any]:
        """The report's credits row for this suite (as ``credits.toml``'s ``[[suite]]``)."""
        r = self.raw
        return {
            "id": self.id,
            "name": self.name,
            "summary": str(r.get("credits", "")),
            "citation": str(r.get("citation", "")),
            "license": str(r.get("license", "")),
            "url": str(r.get("source", {}).get("url", "")),
        }


@dataclass(frozen=True)
class ManifestCheck:
    """The outcome of validating one manifest file: a manifest, or the problems found."""

    path: Path
    suite_id: str  # the declared id when readable, else the folder name
    manifest: Manifest | None
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.manifest is not None


def _is_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _check_source(source: Any, problems: list[str]) -> None:
    if not isinstance(source, dict):
        problems.append("source must be an object")
        return
    kind = source.get("kind")
    if kind not in SOURCE_KINDS:
        problems.append(f"source.kind must be one of {', '.join(SOURCE_KINDS)}, not {kind!r}")
        return
    if kind == "in-repository":
        if not _is_str(source.get("path")):
            problems.append("source.path is required for an in-repository suite")
        return
    if not _is_str(source.get("url")):
        problems.append("source.url is required")
    if kind in ("git", "harbor"):
        commit = str(source.get("commit", ""))
        if not commit:
            problems.append("source.commit is required (a pinned 40-hex commit)")
        elif commit.lower() in MOVING_REFS or not _COMMIT.match(commit):
            problems.append(f"source.commit {commit!r} is a moving or malformed ref (need 40 hex digits)")
    else:
        revision = str(source.get("revision", ""))
        if not revision:
            problems.append("source.revision is required (a pinned dataset revision)")
        elif revision.lower() in MOVING_REFS:
            problems.append(f"source.revision {revision!r} is a moving ref")


def _check_assets(assets: Any, problems: list[str]) -> tuple[AssetSpec, ...]:
    if not isinstance(assets, list):
        problems.append("assets must be a list")
        return ()
    specs = []
    for i, entry in enumerate(assets):
        if not isinstance(entry, dict):
            problems.append(f"assets[{i}] must be an object")
            continue
        path, digest = entry.get("path"), str(entry.get("sha256", "")).lower()
        if not _is_str(path) or Path(str(path)).is_absolute() or ".." in Path(str(path)).parts:
            problems.append(f"assets[{i}].path must be a relative path inside the suite's cache")
            continue
        if not _HEX64.match(digest):
            problems.append(f"assets[{i}].sha256 must be 64 hex digits")
            continue
        size = entry.get("size")
        if size is not None and (not isinstance(size, int) or size < 0):
            problems.append(f"assets[{i}].size must be a non-negative integer")
            continue
        source = entry.get("from")
        specs.append(AssetSpec(str(path), digest, size, str(source) if source else None))
    return tuple(specs)


def _check_fields(data: dict[str, Any], problems: list[str]) -> None:
    scoring = data.get("scoring")
    if not isinstance(scoring, dict) or scoring.get("method") not in SCORING_METHODS:
        problems.append(f"scoring.method must be one of {', '.join(SCORING_METHODS)}")
    elif scoring.get("normalization") not in NORMALIZATIONS:
        problems.append(f"scoring.normalization must be one of {', '.join(NORMALIZATIONS)}")
    grader = data.get("grader")
    if not isinstance(grader, dict) or not _is_str(grader.get("command")) or "config" not in grader:
        problems.append("grader must give a command and a config")
    container = data.get("container")
    if not isinstance(container, dict):
        problems.append("container must be an object")
    else:
        if not isinstance(container.get("network"), bool):
            problems.append("container.network must be true or false")
        for key in ("memory_mb", "cpus", "pids", "timeout_s"):
            value = container.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                problems.append(f"container.{key} must be a positive number")
    if data.get("adapter") not in ADAPTERS:
        problems.append(f"adapter must be one of {', '.join(ADAPTERS)}")
    elif data.get("adapter") == "harness" and not _is_str(data.get("harness")):
        problems.append("a harness suite must name its harness folder")
    reporting = data.get("reporting")
    if (
        not isinstance(reporting, dict)
        or not _is_str(reporting.get("group"))
        or not _is_str(reporting.get("name"))
    ):
        problems.append("reporting must give a group and a name")
    for key in ("name", "version", "split", "prompt_format", "credits", "citation", "license"):
        if key in data and not _is_str(data.get(key)):
            problems.append(f"{key} must be a non-empty string")
    if not isinstance(data.get("active"), bool):
        problems.append("active must be true or false")
    tools = data.get("required_tools", [])
    if not isinstance(tools, list) or not all(_is_str(t) for t in tools):
        problems.append("required_tools must be a list of tool names")


def validate_manifest(path: Path) -> ManifestCheck:
    """Read and strictly validate one ``manifest.json``; every problem is collected."""
    folder = path.parent
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return ManifestCheck(path, folder.name, None, (f"unreadable manifest: {exc}",))
    if not isinstance(data, dict):
        return ManifestCheck(path, folder.name, None, ("manifest must be a JSON object",))
    problems = [f"missing required field {k!r}" for k in REQUIRED if k not in data]
    suite_id = str(data.get("id", folder.name))
    if not _SLUG.match(suite_id):
        problems.append(f"id {suite_id!r} must be a lower-case slug")
    if "source" in data:
        _check_source(data["source"], problems)
    assets = _check_assets(data.get("assets", []), problems)
    _check_fields(data, problems)
    if problems:
        return ManifestCheck(path, suite_id, None, tuple(problems))
    manifest = Manifest(
        id=suite_id,
        name=str(data["name"]),
        folder=folder,
        adapter=str(data["adapter"]),
        assets=assets,
        required_tools=tuple(str(t) for t in data.get("required_tools", [])),
        active=bool(data["active"]),
        reporting_group=str(data["reporting"]["group"]),
        raw=data,
    )
    return ManifestCheck(path, suite_id, manifest, ())


__all__ = [
    "ADAPTERS",
    "MANIFEST_FILE",
    "MOVING_REFS",
    "REQUIRED",
    "SCORING_METHODS",
    "SOURCE_KINDS",
    "AssetSpec",
    "Manifest",
    "ManifestCheck",
    "validate_manifest",
]

"""``agbench tasks import harbor PATH… [--suite NAME] [--category C]``: Harbor folders into a suite.

Each PATH is one Harbor task folder (it holds ``task.toml``) or a dataset of them (its
sub-folders do). Every task is converted by :func:`agbench.harbor.import_harbor_task` into
``<tasks root>/<suite>/<category>/<id>/``, the original scripts kept; a folder that is not a
valid Harbor task is reported and skipped, the others still import. The suite gets a strict
``manifest.json`` when it has none: the source is pinned to the checkout's git commit when the
dataset is a git work tree, else to a SHA-256 of the imported folders' contents (a dataset
revision that cannot move), and the licence is the dataset's LICENSE file's first line when it
has one.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from agbench.errors import AgbenchError
from agbench.harbor import import_harbor_task
from agbench.suites.manifest import MANIFEST_FILE
from agbench.task import CATEGORIES


@dataclass
class ImportReport:
    suite: str
    folder: Path
    imported: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "PATH: why"
    manifest_written: bool = False


def harbor_task_folders(path: Path) -> list[Path]:
    """``path`` itself when it is a task, else its sub-folders that hold a task.toml."""
    if not path.is_dir():
        raise AgbenchError(f"Harbor folder not found: {path}")
    if (path / "task.toml").is_file():
        return [path]
    return sorted(p.parent for p in path.glob("*/task.toml"))


def _git_commit(path: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    commit = out.stdout.strip()
    if out.returncode != 0 or len(commit) != 40:
        return None
    # A commit pins the dataset only if the folder has no changes of its own on top of it.
    dirty = subprocess.run(
        ["git", "-C", str(path), "status", "--porcelain", "--", "."],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return commit if dirty.returncode == 0 and not dirty.stdout.strip() else None


def _content_digest(folders: list[Path]) -> str:
    h = hashlib.sha256()
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file() and not p.is_symlink():
                h.update(f"{folder.name}/{p.relative_to(folder).as_posix()}\n".encode())
                h.update(p.read_bytes())
    return h.hexdigest()


def _licence(paths: list[Path]) -> str:
    for root in paths:
        for name in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"):
            lic = (root if (root / name).is_file() else root.parent) / name
            if lic.is_file():
                first = next(
                    (ln.strip() for ln in lic.read_text(errors="replace").splitlines() if ln.strip()), ""
                )
                if first:
                    return first[:200]
    return "see the source dataset (no LICENSE file found at import)"


def draft_manifest(suite: str, paths: list[Path], folders: list[Path]) -> dict[str, object]:
    """A strict manifest for an imported Harbor dataset (pinned source, reward-file scoring)."""
    first = paths[0].resolve()
    commit = _git_commit(first)
    source: dict[str, str] = (
        {"kind": "harbor", "url": str(first), "commit": commit}
        if commit
        else {"kind": "dataset", "url": str(first), "revision": "sha256:" + _content_digest(folders)}
    )
    return {
        "id": suite,
        "name": suite,
        "version": "1",
        "active": True,
        "source": source,
        "split": "all",
        "prompt_format": "instruction.md as the user message (Harbor), the common tool set",
        "scoring": {"method": "reward_file", "normalization": "mean_reward"},
        "grader": {
            "command": "bash tests/test.sh (wrapped by verifier/verify.py)",
            "config": "reward from /logs/verifier/reward.txt or reward.json, else test.sh's exit status",
        },
        "assets": [],
        "container": {"network": False, "memory_mb": 2048, "cpus": 1, "pids": 256, "timeout_s": 7200},
        "adapter": "builtin",
        "reporting": {"group": "Terminal", "name": suite},
        "credits": f"Harbor / Terminal-Bench 2 format tasks imported from {first}",
        "citation": "Terminal-Bench: a benchmark for AI agents in terminal environments (Harbor task format).",
        "license": _licence(paths),
    }


def import_harbor(
    paths: list[Path], tasks_root: Path, suite: str, category: str = "terminal"
) -> ImportReport:
    """Import every Harbor task under ``paths`` into suite ``suite`` of ``tasks_root``."""
    if category not in CATEGORIES:
        raise AgbenchError(f"unknown category {category!r} (one of {', '.join(CATEGORIES)})")
    if suite in CATEGORIES or suite.startswith("_") or not suite or "/" in suite:
        raise AgbenchError(f"bad suite name {suite!r} (not a category name, no '/' or leading '_')")
    dest = tasks_root / suite
    report = ImportReport(suite, dest)
    folders: list[Path] = []
    for path in paths:
        try:
            found = harbor_task_folders(path)
        except AgbenchError as exc:
            report.skipped.append(str(exc))
            continue
        if not found:
            report.skipped.append(f"{path}: no Harbor task folders (none has a task.toml)")
        folders += found
    for folder in folders:
        try:
            report.imported.append(import_harbor_task(folder, dest, category, overwrite=True))
        except AgbenchError as exc:
            report.skipped.append(f"{folder}: {exc}")
    if report.imported and not (dest / MANIFEST_FILE).is_file():
        manifest = draft_manifest(suite, paths, [f for f in folders])
        (dest / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
        report.manifest_written = True
    return report


__all__ = ["ImportReport", "draft_manifest", "harbor_task_folders", "import_harbor"]

"""The asset cache: files a suite needs, checked before any sandbox or harness starts.

The cache is ``$AGBENCH_ASSETS`` or ``~/.cache/agbench/assets`` (:func:`agbench.resources.assets_dir`); each suite
has its own folder in it (``<cache>/<suite id>/``), and only that folder is handed to the
suite's sandboxes and harness containers, read-only. A manifest's asset may name a recipe
(``from``: a file shipped in the suite folder) that fills the cache when the file is absent;
nothing is downloaded at run time. An asset that is missing, has the wrong size or SHA-256, or
is a Git LFS pointer stub (a clone made without ``git lfs``) fails its suite with
``failed_missing_assets``.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from agbench.resources import assets_dir
from agbench.suites.manifest import AssetSpec, Manifest

LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"
LFS_POINTER_MAX_BYTES = 1024  # git-lfs pointer files are about 130 bytes


def assets_root() -> Path:
    """``$AGBENCH_ASSETS`` or ``assets/`` in the user cache directory (:mod:`agbench.resources`)."""
    return assets_dir()


def suite_assets_dir(suite_id: str, root: Path | None = None) -> Path:
    return (root or assets_root()) / suite_id


def is_lfs_pointer(path: Path) -> bool:
    """True for a Git LFS pointer stub standing where the real file should be."""
    try:
        if path.stat().st_size > LFS_POINTER_MAX_BYTES:
            return False
        with open(path, "rb") as fh:
            return fh.read(len(LFS_POINTER_PREFIX)) == LFS_POINTER_PREFIX
    except OSError:
        return False


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class AssetProblem:
    path: str
    problem: str  # "missing" | "lfs_pointer" | "size" | "checksum"
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


def fill_from_recipe(manifest: Manifest, spec: AssetSpec, target: Path) -> None:
    """Copy a recipe's file from the suite folder into the cache when the cache lacks it."""
    if spec.source is None or target.exists():
        return
    src = (manifest.folder / spec.source).resolve()
    if not src.is_file() or manifest.folder.resolve() not in src.parents:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, target)


def check_asset(manifest: Manifest, spec: AssetSpec, root: Path | None = None) -> AssetProblem | None:
    target = suite_assets_dir(manifest.id, root) / spec.path
    fill_from_recipe(manifest, spec, target)
    if not target.is_file():
        return AssetProblem(spec.path, "missing", f"missing from the asset cache ({target})")
    if is_lfs_pointer(target):
        return AssetProblem(
            spec.path, "lfs_pointer", "a Git LFS pointer stub, not the file (run git lfs pull)"
        )
    size = target.stat().st_size
    if spec.size is not None and size != spec.size:
        return AssetProblem(spec.path, "size", f"size {size} bytes, manifest says {spec.size}")
    digest = sha256_of(target)
    if digest != spec.sha256:
        return AssetProblem(spec.path, "checksum", f"sha256 {digest[:12]}… differs from the manifest's")
    return None


def check_assets(manifest: Manifest, root: Path | None = None) -> list[AssetProblem]:
    """Every asset problem of the suite (recipes run first); empty when all are good."""
    problems = []
    for spec in manifest.assets:
        problem = check_asset(manifest, spec, root)
        if problem is not None:
            problems.append(problem)
    return problems


__all__ = [
    "LFS_POINTER_PREFIX",
    "AssetProblem",
    "assets_root",
    "check_asset",
    "check_assets",
    "fill_from_recipe",
    "is_lfs_pointer",
    "sha256_of",
    "suite_assets_dir",
]

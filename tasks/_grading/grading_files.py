"""Reading the attempt's end state in /work, every read bounded, and its pristine inputs.

Nothing here trusts /work: a path is resolved and must stay inside it, must be a regular file,
and is read only up to a limit (a 1 GiB sparse file or a FIFO costs the verifier nothing).
The pristine copy (``/pristine``) is the task's own and read as it is.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from grading_core import PRISTINE_DIR, PRISTINE_ENV, VERIFIER_DIR, Fail

HASH_LIMIT = 512_000_000  # bytes sha256_file reads at most: no input of a task comes near it


def _work_file(rel: str) -> Path:
    root = Path.cwd().resolve()
    path = root / rel
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise Fail(f"{rel} is missing") from None
    if real != root and root not in real.parents:
        raise Fail(f"{rel} points outside the work folder")
    if not real.is_file():
        raise Fail(f"{rel} is not a regular file")
    return real


def read_bytes(rel: str, *, limit: int = 50_000_000) -> bytes:
    """The bytes of ``rel`` under /work (the cwd); Fail when missing, not a file, a link out of
    /work, or bigger than ``limit``."""
    path = _work_file(rel)
    try:
        with path.open("rb") as fh:
            if os.fstat(fh.fileno()).st_size > limit:
                raise Fail(f"{rel} is bigger than {limit} bytes")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise Fail(f"{rel} cannot be read: {exc.strerror}") from None
    if len(data) > limit:
        raise Fail(f"{rel} is bigger than {limit} bytes")
    return data


def read_text(rel: str, *, limit: int = 2_000_000) -> str:
    """``rel`` under /work decoded as strict UTF-8 (a BOM is dropped); Fail on anything else."""
    data = read_bytes(rel, limit=limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Fail(f"{rel} is not valid UTF-8 text") from None


def sha256_file(rel: str, *, limit: int = HASH_LIMIT) -> str:
    """The hex SHA-256 of ``rel`` under /work (Fail when it cannot be read or is bigger than
    ``limit``: no input a check compares is anywhere near that big)."""
    path = _work_file(rel)
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            if os.fstat(fh.fileno()).st_size > limit:
                raise Fail(f"{rel} is bigger than {limit} bytes")
            read = 0
            while chunk := fh.read(1 << 20):
                read += len(chunk)
                if read > limit:
                    raise Fail(f"{rel} is bigger than {limit} bytes")
                digest.update(chunk)
    except OSError as exc:
        raise Fail(f"{rel} cannot be read: {exc.strerror}") from None
    return digest.hexdigest()


def pristine_path(rel: str) -> Path:
    """The task's original copy of input ``rel``: ``/pristine/<rel>`` in a grading sandbox,
    ``$AGBENCH_PRISTINE/<rel>`` when the harness grades on the host."""
    override = os.environ.get(PRISTINE_ENV)
    base = Path(override) if override else PRISTINE_DIR
    if not base.is_dir():
        base = VERIFIER_DIR.parent / "environment"
    return base / rel


def pristine_sha256(rels: Iterable[str]) -> dict[str, str]:
    """Input -> SHA-256 of its original (pristine) copy, for ``check_files(unchanged=...)``:
    inputs the task does not ask to change."""
    return {rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in rels}


def pristine_manifest(folder: str) -> dict[str, str]:
    """rel path -> SHA-256 of every original file under ``folder``, from the read-only pristine
    copy, for ``check_files(unchanged=...)`` on a whole folder the task must leave as it was."""
    root = pristine_path(folder)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    if not files:
        raise RuntimeError(f"no pristine copy of {folder}/")
    return {
        f"{folder}/{p.relative_to(root).as_posix()}": hashlib.sha256(p.read_bytes()).hexdigest()
        for p in files
    }


def read_json(rel: str) -> object:
    """The JSON value of ``rel`` under /work; Fail when it cannot be read or is not JSON."""
    try:
        return json.loads(read_text(rel))
    except json.JSONDecodeError:
        raise Fail(f"{rel} is not valid JSON") from None


def json_number(data: object, key: str, rel: str) -> float:
    """``data[key]`` of the JSON object the agent wrote to ``rel``, as a finite number (a bool,
    a string or a missing key is no number); Fail naming ``rel`` otherwise."""
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Fail(f"{rel} has no number {key!r}")
    return float(value)


def check_files(
    *,
    must_exist: Iterable[str] = (),
    unchanged: Mapping[str, str] | None = None,
    must_be_gone: Iterable[str] = (),
    must_be_nonempty: Iterable[str] = (),
) -> None:
    """Check /work's end state against a manifest; Fail with the first problem.

    ``unchanged`` maps a relative path to the SHA-256 the verifier recorded for it."""
    root = Path.cwd()
    for rel in must_exist:
        if not (root / rel).exists() and not (root / rel).is_symlink():
            raise Fail(f"{rel} is missing")
    for rel, digest in (unchanged or {}).items():
        if sha256_file(rel) != digest:
            raise Fail(f"{rel} was changed")
    for rel in must_be_gone:
        if (root / rel).exists() or (root / rel).is_symlink():
            raise Fail(f"{rel} should be gone")
    for rel in must_be_nonempty:
        path = root / rel
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                raise Fail(f"{rel} is empty")
        elif os.path.getsize(_work_file(rel)) == 0:
            raise Fail(f"{rel} is empty")


def folder_files(folder: str, *, limit: int = 10_000) -> list[str]:
    """Every entry under ``folder`` of /work that is not a folder (files, links, FIFOs), as
    sorted paths relative to /work; Fail past ``limit`` entries. For end states that must hold
    nothing more than a manifest (no leftover copy, no new file)."""
    root = Path.cwd() / folder
    if root.is_symlink() or not root.is_dir():
        raise Fail(f"{folder}/ is missing")
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            out.append(Path(dirpath, name).relative_to(Path.cwd()).as_posix())
            if len(out) > limit:
                raise Fail(f"{folder}/ holds more than {limit} files")
    return sorted(out)

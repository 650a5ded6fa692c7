"""The optional parts of agbench and the extra that installs each.

The base install (``pip install agbench``) is the simulator, calibration and the reports. Live
runs need ``agbench[live]`` (the native llama-server wheel, the Docker SDK, the HTTP client);
``[notebooks]``, ``[ray]``, ``[gpu]`` (NVML), ``[duckdb]`` and ``[privacy]`` (the Presidio
detector of ``--detector presidio``) add one thing each. A command that
reaches a missing one stops with one line naming the extra (:func:`missing_extra_message`,
applied by the CLI to every command) instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OptionalPart:
    """One optional dependency: the module it imports as (or the binary it runs) and its extra."""

    what: str
    module: str | None = None
    extra: str | None = None
    binary: str | None = None
    how: str = ""


OPTIONAL_PARTS: tuple[OptionalPart, ...] = (
    OptionalPart("llama-server wheel (xllamacpp)", "xllamacpp", "live"),
    OptionalPart("Docker SDK (docker)", "docker", "live"),
    OptionalPart("HTTP client (httpx)", "httpx", "live"),
    OptionalPart("process sampling (psutil)", "psutil", "live"),
    OptionalPart("console (rich)", "rich", "live"),
    OptionalPart("bubblewrap binary (bwrap)", binary="bwrap", how="apt-get install bubblewrap"),
    OptionalPart("Docker daemon binary (dockerd)", binary="dockerd", how="apt-get install docker.io"),
    OptionalPart("NVML (nvidia-ml-py)", "pynvml", "gpu"),
    OptionalPart("ray", "ray", "ray"),
    OptionalPart("notebooks (nbclient)", "nbclient", "notebooks"),
    OptionalPart("DuckDB (duckdb)", "duckdb", "duckdb"),
    OptionalPart("Presidio (presidio-analyzer)", "presidio_analyzer", "privacy"),
    OptionalPart("detect-secrets", "detect_secrets", "privacy"),
)

EXTRA_OF_MODULE: dict[str, str] = {p.module: p.extra for p in OPTIONAL_PARTS if p.module and p.extra}
EXTRA_OF_MODULE.update(
    {"sniffio": "live", "nbformat": "notebooks", "nbconvert": "notebooks", "tldextract": "privacy"}
)


def missing_extra_message(exc: ModuleNotFoundError) -> str | None:
    """One line naming the extra that installs the missing module, or None when the module is
    not one of agbench's optional dependencies (then it is a bug, and the traceback stays)."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    if extra is None:
        return None
    return f"this needs the optional module {top!r}: pip install 'agbench[{extra}]'"


__all__ = ["EXTRA_OF_MODULE", "OPTIONAL_PARTS", "OptionalPart", "missing_extra_message"]

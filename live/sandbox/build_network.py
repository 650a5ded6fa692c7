"""The network an image build gets: the host Docker's, as users build (and Harbor does), or none.

Real task Dockerfiles install their toolchains with ``apt-get`` or ``pip``, so a per-task image
builds with the network the host's Docker has (``default``): the daemon's default bridge where
it has one, else the host's network stack (the daemon agbench starts runs ``--bridge=none``,
and the legacy builder's ``host`` mode needs no bridge). ``none`` is for offline machines: a
build that reaches for the network then fails with one line saying so. Only builds get a
network; the sandboxes that run the images keep none (unless the task declares one).

The setting is ``--build-network`` on the command line, carried to every builder of the
process (and to its worker processes) as ``$AGBENCH_BUILD_NETWORK``.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal

from .base import SandboxError

BuildNetwork = Literal["default", "none"]
BUILD_NETWORKS: tuple[BuildNetwork, ...] = ("default", "none")
BUILD_NETWORK_ENV = "AGBENCH_BUILD_NETWORK"

# What apt, pip, curl and the resolver print when there is no network (the build log's words).
_NO_NETWORK = re.compile(
    r"Temporary failure (in name )?resolution|Temporary failure resolving|Could not resolve"
    r"|Network is unreachable|Failed to establish a new connection|Name or service not known"
    r"|Failed to fetch http|No matching distribution found|Unable to locate package",
    re.IGNORECASE,
)


def build_network() -> BuildNetwork:
    """The process's build network: ``$AGBENCH_BUILD_NETWORK``, else ``default``."""
    value = os.environ.get(BUILD_NETWORK_ENV, "default") or "default"
    if value not in BUILD_NETWORKS:
        raise SandboxError(
            f"{BUILD_NETWORK_ENV}={value!r}: the build network is one of {', '.join(BUILD_NETWORKS)}"
        )
    return value


def set_build_network(value: BuildNetwork) -> None:
    """Make ``value`` the build network of this process and the processes it starts."""
    if value not in BUILD_NETWORKS:
        raise SandboxError(f"build network {value!r}: one of {', '.join(BUILD_NETWORKS)}")
    os.environ[BUILD_NETWORK_ENV] = value


def docker_network_mode(client: Any, setting: BuildNetwork) -> str | None:
    """The legacy builder's ``network_mode`` for ``setting``: None is the daemon's default bridge."""
    if setting == "none":
        return "none"
    try:
        has_bridge = bool(client.networks.list(names=["bridge"]))
    except Exception:  # an old daemon or a refused call: the host's stack needs no bridge
        has_bridge = False
    return None if has_bridge else "host"


def offline_failure(setting: BuildNetwork, log_text: str) -> str | None:
    """Why a failed build failed when it reached for a network it was not given; else None."""
    if setting != "none":
        return None
    match = _NO_NETWORK.search(log_text)
    if match is None:
        return None
    return f"the Dockerfile needs the network ({match.group(0)!r}) and images build with --build-network none"


__all__ = [
    "BUILD_NETWORKS",
    "BUILD_NETWORK_ENV",
    "BuildNetwork",
    "build_network",
    "docker_network_mode",
    "offline_failure",
    "set_build_network",
]

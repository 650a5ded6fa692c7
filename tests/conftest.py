"""Fixtures more than one test module uses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from agbench.live.serving import ManagedServer


@pytest.fixture(scope="module")
def server() -> Iterator[ManagedServer]:
    """A real llama-server for a module's tests: 2 slots of 512 tokens each and one thread,
    because the machine is shared. A module that needs other settings defines its own."""
    from agbench.config import ServerSettings
    from agbench.live.serving import ManagedServer

    with ManagedServer(ServerSettings(n_ctx=1024, n_parallel=2, threads=1)) as s:
        yield s

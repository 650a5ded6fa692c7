"""Fixtures more than one test module uses, and how the suite is spread over xdist workers.

Costly real parts are shared for the whole session where a test only needs *one* of them: one
llama-server (``server``) and one Docker daemon with the base image (``docker_daemon``). A test
that needs other server settings, or that kills or stops its server, starts its own.

With pytest-xdist (``make pytest`` runs ``-n 2 --dist loadgroup``) every test that uses Docker
goes to one worker (the ``docker`` group): the daemon is started at most once, by one process,
and stopped by the same one, never under another worker's feet. Everything else is spread over
the workers; each worker holds its own session server.
"""

from __future__ import annotations

import os
import resource
import time
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from agbench.live.sandbox.dockerd import DockerDaemon
    from agbench.live.serving import ManagedServer


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Send every Docker test to one xdist worker (a no-op without ``--dist loadgroup``)."""
    for item in items:
        if item.get_closest_marker("docker") is not None:
            item.add_marker(pytest.mark.xdist_group("docker"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """With ``AGBENCH_TEST_CPU_LOG=FILE``, append each test's wall and CPU seconds (setup, call
    and teardown; this process plus the children it reaped, such as sandboxes and CLI runs)
    to FILE as ``nodeid<TAB>wall<TAB>cpu``. On a shared machine wall time measures the load as
    much as the test; CPU seconds are what a test costs."""
    path = os.environ.get("AGBENCH_TEST_CPU_LOG")
    if not path:
        yield
        return
    wall, cpu = time.monotonic(), _cpu_s()
    yield
    line = f"{item.nodeid}\t{time.monotonic() - wall:.2f}\t{_cpu_s() - cpu:.2f}\n"
    with open(path, "a") as log:
        log.write(line)


def _cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedServer]:
    """A real llama-server shared by every test that only needs *a* server: 2 slots of 512
    tokens each (the context-limit tests rely on that slot size) and one thread, because the
    machine is shared. Tests must leave it idle and alive; one that needs other settings, or
    kills its server, starts its own. Its log is kept, so a death can be read."""
    from agbench.config import ServerSettings
    from agbench.live.serving import ManagedServer

    log = tmp_path_factory.mktemp("shared-server") / "llama-server.log"
    with ManagedServer(ServerSettings(n_ctx=1024, n_parallel=2, threads=1), log_path=log) as s:
        yield s


@pytest.fixture
def server(shared_server: ManagedServer) -> ManagedServer:
    """The shared server, alive: one found dead (something else on the machine stopped it) is
    restarted on the same port with a warning naming how it died, so one death fails no later
    test and the run's warnings summary says it happened."""
    from agbench.live.serving.llama_server import ServerDiedError

    if shared_server.pid is not None and not shared_server.alive():
        try:
            shared_server.check()
            how = "its /health did not answer"
        except ServerDiedError as exc:  # how it died, and the log's last line
            how = str(exc)
        warnings.warn(f"the shared llama-server was found dead and restarted: {how}", stacklevel=1)
        shared_server.restart()
    return shared_server


@pytest.fixture(scope="session")
def docker_daemon() -> Iterator[DockerDaemon]:
    """The Docker daemon (the running one, or one started here and stopped at the end) with the
    locally built base image (built once per machine, cached)."""
    from agbench.live.sandbox.dockerd import shared_daemon, stop_shared_daemon
    from agbench.live.sandbox.images import ensure_docker_image

    daemon = shared_daemon()
    client = daemon.client()
    try:
        ensure_docker_image(client)
    finally:
        client.close()
    yield daemon
    stop_shared_daemon()

"""The managed-server watchdog: a dead or hung llama-server is restarted with the same settings.

Without it, one crash of a managed server would fail every later attempt of the configuration.
While a configuration runs, the watchdog checks each managed server every ``interval_s``: a
process that has exited, or one whose ``/health`` has not answered ``misses`` times in a row
(hung), is killed and started again with the same settings on the same port (so the recording
proxy and the monitors keep their URLs). Each restart bumps :attr:`generation`: an attempt that
was in flight across a restart is recorded as ``infrastructure_error`` (the failure was not the
agent's), and attempts that start afterwards proceed against the fresh server. The number of
restarts goes into run.json (``server_restarts``) and from there into the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

import httpx

from agbench.errors import AgbenchError

if TYPE_CHECKING:
    from agbench.live.runner.endpoints import EndpointManager

log = logging.getLogger("agbench.live.runner")


class ServerWatchdog:
    """Restarts the endpoint manager's dead or hung managed servers; counts the restarts."""

    def __init__(
        self,
        manager: EndpointManager,
        *,
        interval_s: float = 2.0,
        health_timeout_s: float = 5.0,
        misses: int = 3,
        max_restarts: int = 5,
    ) -> None:
        self.manager = manager
        self.interval_s = interval_s
        self.health_timeout_s = health_timeout_s
        self.misses = misses
        self.max_restarts = max_restarts  # per server: past this a crash loop stops the sweep
        self.generation = 0  # bumped by every restart
        self.restarts: dict[str, int] = {}
        self._missed: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.failure: str | None = None  # set when a server could not be brought back
        self._earlier = int(manager.store.meta().get("server_restarts") or 0)  # before a resume

    @property
    def total_restarts(self) -> int:
        return sum(self.restarts.values())

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="server-watchdog")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _loop(self) -> None:
        async with httpx.AsyncClient(timeout=self.health_timeout_s, trust_env=False) as client:
            while True:
                await asyncio.sleep(self.interval_s)
                for name in list(self.manager.servers):
                    await self._check(name, client)

    async def _check(self, name: str, client: httpx.AsyncClient) -> None:
        entry = self.manager.servers.get(name)
        if entry is None:
            return
        server = entry[1]
        if self._lock.locked():
            return  # a restart is under way (a half-started server is not a hung one)
        try:
            server.check()
        except AgbenchError as exc:
            await self.revive(name, str(exc))
            return
        generation = self.generation
        try:
            healthy = (await client.get(server.url + "/health")).status_code == 200
        except (httpx.HTTPError, AgbenchError):
            healthy = False
        if generation != self.generation or self._lock.locked():
            return  # restarted meanwhile: this answer was about the old server
        self._missed[name] = 0 if healthy else self._missed.get(name, 0) + 1
        if self._missed[name] >= self.misses:
            why = f"{name} server stopped answering /health ({self._missed[name]} checks in a row)"
            await self.revive(name, why, hung=True)

    async def revive_dead(self) -> str | None:
        """Restart any managed server whose process has exited; what died, or None."""
        died: str | None = self.manager.dead_server()
        if died is not None:
            for name, (_settings, server) in list(self.manager.servers.items()):
                try:
                    server.check()
                except AgbenchError:
                    await self.revive(name, died)
        return died

    async def revive(self, name: str, why: str, *, hung: bool = False) -> None:
        """Kill and restart server ``name`` with its settings (once, however many ask at once)."""
        async with self._lock:
            entry = self.manager.servers.get(name)
            if entry is None:
                return
            server = entry[1]
            if not hung:
                try:
                    server.check()
                except AgbenchError:
                    pass
                else:
                    return  # another caller already brought it back
            elif await asyncio.to_thread(server.alive):
                self._missed[name] = 0
                return  # it answers again: slow, not hung
            count = self.restarts.get(name, 0)
            if count >= self.max_restarts:
                self.failure = f"{why}; not restarted again after {count} restart(s)"
                return
            log.warning("%s: restarting it with the same settings", why)
            self.generation += 1  # first: attempts in flight now know the server went away
            self._missed[name] = 0
            try:
                await asyncio.to_thread(server.restart)
            except AgbenchError as exc:
                self.failure = f"{why}; the restart failed: {exc}"
                log.error("%s", self.failure)
                return
            self.restarts[name] = count + 1
            self.manager.store.update_meta(server_restarts=self._earlier + self.total_restarts)
            log.info("%s server back at %s (restart %d)", name, server.url, self.restarts[name])


__all__ = ["ServerWatchdog"]

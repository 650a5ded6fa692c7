"""The harness container's only way out: a Unix socket to the recording proxy.

The container has no network (``network_mode=none``): nothing in it can reach a host port, the
model server or the internet. The launcher binds one Unix socket into it, read-only; on the
host, :class:`SocketRelay` pipes each connection on that socket to the recording proxy's TCP
port; inside, :data:`CONTAINER_RELAY` (started by the entry script before ``run.sh``) listens
on the container's own loopback and pipes to the socket, so the harness uses an ordinary
``http://127.0.0.1:PORT/...`` base URL. Only the proxy's routes are behind it, and the proxy
holds the upstream key.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

CONTAINER_PORT = 18080
SOCKET_NAME = "proxy.sock"
SOCKET_DIR = "/agbench/proxy"

# Runs inside the container with the image's python3 (stdlib only).
CONTAINER_RELAY = r"""
import socket, sys, threading

PORT, PATH = int(sys.argv[1]), sys.argv[2]


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(PATH)
    except OSError:
        client.close()
        return
    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
    pipe(client, upstream)


server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", PORT))
server.listen(64)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""

# The container's command: start the relay, wait for it, run the harness, keep its exit status.
ENTRY_SCRIPT = f"""#!/bin/sh
python3 /agbench/launcher/relay.py {CONTAINER_PORT} {SOCKET_DIR}/{SOCKET_NAME} > /tmp/agbench-relay.log 2>&1 &
i=0
while ! grep -q ready /tmp/agbench-relay.log 2>/dev/null; do
  i=$((i + 1)); [ "$i" -gt 100 ] && echo "agbench: relay did not start" >&2 && exit 125
  sleep 0.05
done
mkdir -p "$AGBENCH_OUTPUT_DIR" || exit 125
cd /harness && exec /bin/sh ./run.sh
"""


class SocketRelay:
    """Host side: a Unix socket whose connections are piped to 127.0.0.1:``port``."""

    def __init__(self, socket_dir: Path, port: int) -> None:
        self.socket_dir = socket_dir
        self.port = port
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def path(self) -> Path:
        return self.socket_dir / SOCKET_NAME

    async def start(self) -> None:
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.socket_dir, 0o755)
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        os.chmod(self.path, 0o666)  # the harness runs as the sandbox uid

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), timeout=5)
            self._server = None
        with contextlib.suppress(OSError):
            self.path.unlink()


__all__ = ["CONTAINER_PORT", "CONTAINER_RELAY", "ENTRY_SCRIPT", "SOCKET_DIR", "SocketRelay"]

"""A managed llama.cpp ``llama-server`` (through the ``xllamacpp`` wheel) on 127.0.0.1.

xllamacpp has no command line: ``xllamacpp.Server(CommonParams)`` starts llama.cpp's own HTTP
server inside the calling process and stops it when the object is collected. We run it in a
*child process* (``server_process``, started with subprocess) instead of the harness process:

- a crash inside llama.cpp (abort, OOM kill) takes down only the child; the harness sees
  the child exit, reports the server as dead (``ServerDiedError``) and its requests fail as
  ``connection`` errors instead of the harness dying with it;
- stopping is reliable: the child is asked to exit (stdin closed) and, failing that, killed;
  in-process, a server busy in a long decode cannot be interrupted;
- llama.cpp's log output goes to a log file of its own, not into the harness's terminal;
- inference threads do not share the harness's interpreter, so the harness's event loop and
  its timings are not perturbed by the server.

subprocess rather than multiprocessing-spawn: spawn re-imports the parent's ``__main__``,
which breaks for scripts without a main guard, notebooks and code fed on stdin. The cost is
one Python start-up (~1 s) per server, paid once per run.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import httpx

from agbench.config import ServerSettings
from agbench.errors import AgbenchError
from agbench.live.serving.models import resolve_model_path, served_chat_template


class ServerDiedError(AgbenchError):
    """The managed llama-server process exited while it was supposed to be serving."""


_KV_TYPES = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"}


class ManagedServer:
    """llama-server for ``settings`` on 127.0.0.1, in a child process; a context manager.

    ``port=None`` picks a free port. ``url`` is the base URL (no ``/v1``). ``check()`` raises
    ServerDiedError if the process has exited; ``alive()`` says whether it is up and healthy.
    """

    def __init__(
        self,
        settings: ServerSettings,
        port: int | None = None,
        alias: str | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.settings = settings
        self.port = port
        if alias:
            self.alias = alias
        elif settings.model.endswith(".gguf"):
            self.alias = Path(settings.model).stem
        else:
            self.alias = settings.model
        self.log_path = log_path
        self._url: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._own_log = False  # a temporary log we made: removed after a clean stop

    # --- lifecycle --------------------------------------------------------------------------

    def start(self, timeout_s: float = 60) -> None:
        """Start the server and return once ``/health`` answers 200; AgbenchError otherwise."""
        if self._proc is not None:
            raise AgbenchError("server already started")
        s = self.settings
        if s.cache_type_k.lower() not in _KV_TYPES or s.cache_type_v.lower() not in _KV_TYPES:
            raise AgbenchError(f"unknown KV cache type {s.cache_type_k!r}/{s.cache_type_v!r}")
        if s.n_parallel < 1 or s.n_ctx < 16 * s.n_parallel:
            raise AgbenchError(f"bad server size: ctx {s.n_ctx} for {s.n_parallel} slot(s)")
        if s.threads < 1:
            raise AgbenchError(f"threads must be at least 1, got {s.threads}")
        model_path = resolve_model_path(s.model)
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="agbench-llama-server-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
            self._own_log = True
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        options = {
            "settings": s.to_dict(),
            "model_path": str(model_path),
            "port": self.port or 0,
            "alias": self.alias,
            "template": self._chat_template(model_path),
            "log_path": str(self.log_path),
        }
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "agbench.live.serving.server_process", json.dumps(options)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout_s
        try:
            self._url = self._await_ready(deadline)
            self._await_health(deadline)
        except BaseException:
            self.stop()
            raise

    def _chat_template(self, model_path: Path) -> str | None:
        template = self.settings.chat_template
        if template:
            if "\n" not in template and "{" not in template:  # a file name, not template text
                candidate = Path(template).expanduser()
                if candidate.suffix in (".jinja", ".j2", ".txt") and not candidate.is_file():
                    raise AgbenchError(f"chat template file not found: {candidate}")
                if candidate.is_file():
                    return candidate.read_text()
            return template  # a built-in template name or the template text itself
        embedded: str | None = served_chat_template(self.settings.model, model_path)
        return embedded

    def _await_ready(self, deadline: float) -> str:
        assert self._proc is not None
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        buffer = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break  # the child closed its control pipe: it exited
                buffer += chunk
                if b"\n" in buffer:
                    answer = json.loads(buffer.split(b"\n", 1)[0])
                    if "ready" in answer:
                        address = str(answer["ready"])
                        return address if address.startswith("http") else "http://" + address
                    raise AgbenchError(
                        f"llama-server failed to start: {answer.get('error')} (log: {self.log_path})"
                    )
            elif self._proc.poll() is not None:
                break
        if self._proc.poll() is None:
            raise AgbenchError(f"llama-server did not start within the time limit (log: {self.log_path})")
        raise AgbenchError(
            f"llama-server exited during start-up ({self._exit_text()}); last log line: {self._last_log_line()}"
        )

    def _await_health(self, deadline: float) -> None:
        with httpx.Client(timeout=5) as client:
            while time.monotonic() < deadline:
                self.check()
                try:
                    if client.get(self.url + "/health").status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
        raise AgbenchError(f"llama-server at {self.url} never became healthy (log: {self.log_path})")

    def stop(self, timeout_s: float = 10) -> None:
        """Ask the server to exit; kill it if it does not. Safe to call twice."""
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
        if self._own_log and proc.returncode == 0 and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)

    def restart(self, timeout_s: float = 60) -> None:
        """Stop the server (killing it if it no longer answers) and start it again with the same
        settings on the same port, so every URL handed out for it stays valid."""
        if self._url is not None and self.port is None:
            self.port = int(self._url.rsplit(":", 1)[1])
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(10)
            if proc.stdout is not None:
                with contextlib.suppress(OSError):
                    proc.stdout.close()
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
        self._proc = None
        self._url = None
        self.start(timeout_s)

    def kill(self) -> None:
        """SIGKILL the server process (tests of dead-server handling use this); keeps state."""
        if self._proc is not None and self._proc.poll() is None:
            os.kill(self._proc.pid, signal.SIGKILL)
            self._proc.wait(5)

    # --- state ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:PORT``; the OpenAI API is under ``/v1``."""
        if self._url is None:
            raise AgbenchError("server not started")
        return self._url

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _exit_text(self) -> str:
        code = self._proc.poll() if self._proc is not None else None
        if code is None:
            return "still running"
        if code < 0:
            return f"killed by signal {-code}"
        return f"exit code {code}"

    def _last_log_line(self) -> str:
        try:
            text = Path(str(self.log_path)).read_text(errors="replace")
        except OSError:
            return "(no log)"
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return lines[-1][-200:] if lines else "(empty log)"

    def check(self) -> None:
        """Raise ServerDiedError (one line, with the log's last line) if the process exited."""
        if self._proc is None:
            raise ServerDiedError("llama-server was never started")
        if self._proc.poll() is not None:
            raise ServerDiedError(
                f"llama-server at {self._url} died ({self._exit_text()}); "
                f"last log line: {self._last_log_line()} (log: {self.log_path})"
            )

    def alive(self) -> bool:
        """True if the process runs and ``/health`` answers 200 within 2 s."""
        if self._proc is None or self._proc.poll() is not None or self._url is None:
            return False
        try:
            return httpx.get(self._url + "/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def __enter__(self) -> ManagedServer:
        if self._proc is None:
            self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def serve_forever(settings: ServerSettings, port: int | None) -> None:
    """``agbench serve``: run llama-server in the foreground until Ctrl-C or until it dies."""
    server = ManagedServer(settings, port=port)
    server.start()
    s = settings
    print(
        f"llama-server {s.model} at {server.url}  (OpenAI base URL {server.url}/v1; "
        f"{s.n_parallel} slot(s), ctx {s.n_ctx}{' unified' if s.kv_unified else ''}, "
        f"{s.threads} thread(s); log {server.log_path}). Ctrl-C stops it.",
        flush=True,
    )
    try:
        while True:
            time.sleep(1.0)
            server.check()
    except KeyboardInterrupt:
        print("stopping llama-server", file=sys.stderr, flush=True)
    finally:
        server.stop()

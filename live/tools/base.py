"""The common tool interface of the paper: what a tool is, what a call returns, how the model
sees the set.

Every tool takes the sandbox it acts on and a JSON object of arguments and returns a
:class:`ToolResult`: the text the model reads plus what the trace records (exit code, wall and
CPU time, bytes read from the environment, bytes returned). A bad call (missing or mistyped
arguments, a file that is not there) is an answer to the model, not an exception: small models
make such calls all the time and must be able to recover.
"""

from __future__ import annotations

import abc
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from agbench.live.sandbox import Sandbox

MAX_OUTPUT_CHARS = 16_000


@dataclass
class ToolResult:
    output: str
    exit_code: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    bytes_in: int = 0  # read from the environment (file sizes, command output before truncation)
    bytes_out: int = 0  # returned to the agent
    error: str = ""  # non-empty when the call itself failed (bad arguments, missing file, ...)
    args_bytes: int = 0

    @property
    def ok(self) -> bool:
        return not self.error and self.exit_code == 0


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]

    async def call(self, sandbox: Sandbox, arguments: dict[str, Any]) -> ToolResult: ...


class ToolArgumentError(ValueError):
    """Arguments that do not match the tool's schema; shown to the model."""


def truncate(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Keep the head and tail of long output with a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... output truncated: {cut} characters omitted ...]\n{text[-tail:]}"


def check_arguments(schema: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """Validate the JSON-schema subset our tools use (object of typed properties, required)."""
    if not isinstance(arguments, dict):
        raise ToolArgumentError(f"arguments must be a JSON object, got {type(arguments).__name__}")
    props: dict[str, Any] = schema.get("properties", {})
    missing = [k for k in schema.get("required", []) if k not in arguments]
    if missing:
        raise ToolArgumentError(f"missing required argument(s): {', '.join(missing)}")
    unknown = [k for k in arguments if k not in props]
    if unknown:
        raise ToolArgumentError(f"unknown argument(s): {', '.join(unknown)}; expected {', '.join(props)}")
    types = {
        "string": (str,),
        "integer": (int,),
        "number": (int, float),
        "boolean": (bool,),
        "object": (dict,),
        "array": (list,),
    }
    out = dict(arguments)
    for key, value in arguments.items():
        expected = props[key].get("type")
        if expected is None or (value is None and key not in schema.get("required", [])):
            continue
        ok_types = types.get(expected, (object,))
        if expected in ("integer", "number") and isinstance(value, bool):
            raise ToolArgumentError(f"argument {key!r} must be a {expected}")
        if expected in ("integer", "number") and isinstance(value, str):
            try:  # models often quote numbers
                out[key] = int(value) if expected == "integer" else float(value)
                continue
            except ValueError:
                pass
        if expected == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
            out[key] = value.lower() == "true"
            continue
        if not isinstance(value, ok_types):
            raise ToolArgumentError(f"argument {key!r} must be a {expected}, got {type(value).__name__}")
    return out


class BaseTool(abc.ABC):
    """Shared plumbing: argument checking, timing, turning failures into model-facing text."""

    name: str = ""
    description: str = ""
    parameters: dict[str, Any] = {}

    async def call(self, sandbox: Sandbox, arguments: dict[str, Any]) -> ToolResult:
        t0 = time.monotonic()
        args_bytes = len(json.dumps(arguments, default=str).encode()) if arguments is not None else 0
        try:
            args = check_arguments(self.parameters, arguments)
            result = await self.run(sandbox, args)
        except ToolArgumentError as exc:
            result = ToolResult(f"Error: {exc}", exit_code=2, error=str(exc))
        except FileNotFoundError as exc:
            msg = f"no such file or directory: {exc.filename or exc}"
            result = ToolResult(f"Error: {msg}", exit_code=1, error=msg)
        except IsADirectoryError as exc:
            msg = f"is a directory: {exc.filename or exc}"
            result = ToolResult(f"Error: {msg}", exit_code=1, error=msg)
        except PermissionError as exc:
            msg = f"permission denied: {exc.filename or exc}"
            result = ToolResult(f"Error: {msg}", exit_code=1, error=msg)
        except OSError as exc:
            msg = f"{exc.strerror or exc}: {exc.filename or ''}".strip(": ")
            result = ToolResult(f"Error: {msg}", exit_code=1, error=msg)
        if not result.wall_s:
            result.wall_s = time.monotonic() - t0
        result.args_bytes = args_bytes
        if not result.bytes_out:
            result.bytes_out = len(result.output.encode())
        return result

    @abc.abstractmethod
    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        """Do the tool's work on validated arguments (each tool its own)."""


def tool_schemas(tools: list[Tool]) -> list[dict[str, Any]]:
    """The tools in OpenAI chat-completions ``tools`` format."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]

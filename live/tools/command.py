"""run_command: a shell command in the sandbox, with a timeout, its exit code and its output.

Output is stdout, then stderr under a marker, then the exit status, truncated in the middle
with a marker saying how much was cut, so the model can tell a cut log from a short one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import BaseTool, ToolArgumentError, ToolResult, truncate

if TYPE_CHECKING:
    from agbench.live.sandbox import ExecResult, Sandbox

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 1800.0


def format_exec(res: ExecResult, timeout_s: float) -> str:
    parts = []
    if res.stdout:
        parts.append(res.stdout_text.rstrip("\n"))
    if res.stderr:
        parts.append("[stderr]\n" + res.stderr_text.rstrip("\n"))
    if res.timed_out:
        parts.append(f"[killed: the command ran past its timeout of {timeout_s:g} s]")
    else:
        parts.append(f"[exit code {res.exit_code}]")
    return truncate("\n".join(parts))


def exec_tool_result(res: ExecResult, timeout_s: float) -> ToolResult:
    """What the model sees of a program run by a tool (run_command, python): its formatted
    output, exit code, cost, and ``timeout`` as the error when it was killed."""
    return ToolResult(
        format_exec(res, timeout_s),
        exit_code=res.exit_code,
        wall_s=res.wall_s,
        cpu_s=res.cpu_s,
        bytes_in=len(res.stdout) + len(res.stderr),
        error="timeout" if res.timed_out else "",
    )


def timeout_argument(args: dict[str, Any]) -> float:
    value = args.get("timeout_s")
    if value is None:
        return DEFAULT_TIMEOUT_S
    if value <= 0:
        raise ToolArgumentError("timeout_s must be positive")
    return min(float(value), MAX_TIMEOUT_S)


class RunCommand(BaseTool):
    name = "run_command"
    description = (
        "Run a bash command in the task environment (cwd /work, no network). "
        f"Returns its output and exit code; killed after timeout_s seconds (default {DEFAULT_TIMEOUT_S:g})."
    )
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "the bash command line"},
            "timeout_s": {"type": "number", "description": "seconds before the command is killed"},
        },
        "required": ["command"],
    }

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        timeout_s = timeout_argument(args)
        if not args["command"].strip():
            raise ToolArgumentError("command is empty")
        res = await sandbox.exec(["/bin/bash", "-c", args["command"]], timeout_s=timeout_s)
        return exec_tool_result(res, timeout_s)

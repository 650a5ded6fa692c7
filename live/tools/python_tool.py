"""python: run a Python program in the sandbox (the data-processing tool of the paper).

The code goes in on stdin to ``python3 -``, so nothing is written into /work that the
verifier would later see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import BaseTool, ToolArgumentError, ToolResult
from .command import DEFAULT_TIMEOUT_S, exec_tool_result, timeout_argument

if TYPE_CHECKING:
    from agbench.live.sandbox import Sandbox


class PythonTool(BaseTool):
    name = "python"
    description = (
        "Run Python 3 code in the task environment (cwd /work, standard library, no network). "
        "Print what you want to see. Returns output and exit code; killed after timeout_s "
        f"seconds (default {DEFAULT_TIMEOUT_S:g})."
    )
    parameters = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "the Python program"},
            "timeout_s": {"type": "number", "description": "seconds before the program is killed"},
        },
        "required": ["code"],
    }

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        timeout_s = timeout_argument(args)
        code = args["code"]
        if not code.strip():
            raise ToolArgumentError("code is empty")
        res = await sandbox.exec(["python3", "-"], timeout_s=timeout_s, stdin=code.encode())
        return exec_tool_result(res, timeout_s)

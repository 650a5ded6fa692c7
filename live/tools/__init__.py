"""The common tool interface agents use inside a task's sandbox (paper: file operations, command
execution, information retrieval, data processing).

``default_tools(task)`` is the set an agent gets: all common tools, or the task's ``tools``
list from task.toml when it names one.
"""

from __future__ import annotations

from pathlib import Path

from agbench.errors import AgbenchError
from agbench.task import Task

from .base import BaseTool, Tool, ToolArgumentError, ToolResult, tool_schemas, truncate
from .command import RunCommand
from .files import EditFile, ListDir, ReadFile, SearchFiles, WriteFile
from .python_tool import PythonTool
from .retrieval import WebFetch, WebSearch

__all__ = [
    "TOOL_NAMES",
    "BaseTool",
    "Tool",
    "ToolArgumentError",
    "ToolResult",
    "default_tools",
    "tool_schemas",
    "truncate",
]

TOOL_NAMES = (
    "read_file",
    "write_file",
    "edit_file",
    "list_dir",
    "search_files",
    "run_command",
    "python",
    "web_search",
    "web_fetch",
)


def default_tools(task: Task | None = None, corpus_dir: Path | None = None) -> list[Tool]:
    """The common tools (in TOOL_NAMES order), narrowed to ``task.tools`` when the task names them."""
    tools: list[Tool] = [
        ReadFile(),
        WriteFile(),
        EditFile(),
        ListDir(),
        SearchFiles(),
        RunCommand(),
        PythonTool(),
        WebSearch(corpus_dir),
        WebFetch(corpus_dir),
    ]
    if task is not None and task.tools is not None:
        unknown = [n for n in task.tools if n not in TOOL_NAMES]
        if unknown:
            raise AgbenchError(f"task {task.id}: unknown tool(s) in task.toml: {', '.join(unknown)}")
        tools = [t for t in tools if t.name in task.tools]
    return tools

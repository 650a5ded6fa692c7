"""File tools: read, write, edit, list and search files inside the sandbox.

Paths are sandbox paths; relative ones are taken from /work. Reads and writes go through the
sandbox's own file methods (a host fast path for /work that refuses symlinks, else an exec), so
a tool can never reach a host file the sandbox could not.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from .base import BaseTool, ToolArgumentError, ToolResult, truncate

if TYPE_CHECKING:
    from agbench.live.sandbox import Sandbox

LIST_LIMIT = 500
SEARCH_LIMIT = 200


def sandbox_path(path: str) -> str:
    path = path.strip() or "."
    return posixpath.normpath(path if path.startswith("/") else posixpath.join("/work", path))


def _looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


class ReadFile(BaseTool):
    name = "read_file"
    description = (
        "Read a text file from the task environment. Relative paths start at /work. "
        "Optionally give start_line (1-based) and max_lines to read part of a long file."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path, e.g. notes/todo.txt"},
            "start_line": {"type": "integer", "description": "first line to return (1-based)"},
            "max_lines": {"type": "integer", "description": "how many lines to return"},
        },
        "required": ["path"],
    }

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        path = sandbox_path(args["path"])
        data = await sandbox.read_file(path)
        if _looks_binary(data):
            return ToolResult(
                f"{path} is a binary file of {len(data)} bytes; inspect it with run_command or python.",
                bytes_in=len(data),
            )
        text = data.decode("utf-8", errors="replace")
        start = args.get("start_line")
        count = args.get("max_lines")
        if start is not None or count is not None:
            lines = text.splitlines(keepends=True)
            first = max(int(start or 1), 1) - 1
            last = len(lines) if count is None else first + max(int(count), 0)
            text = "".join(lines[first:last])
            if not text:
                text = f"(no lines in range; the file has {len(lines)} lines)"
        return ToolResult(truncate(text), bytes_in=len(data))


class WriteFile(BaseTool):
    name = "write_file"
    description = (
        "Create or overwrite a text file (parent folders are created). Relative paths start at /work."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path"},
            "content": {"type": "string", "description": "the complete new content"},
        },
        "required": ["path", "content"],
    }

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        path = sandbox_path(args["path"])
        data = args["content"].encode()
        await sandbox.write_file(path, data)
        return ToolResult(f"Wrote {len(data)} bytes to {path}.")


class EditFile(BaseTool):
    name = "edit_file"
    description = "Replace exact text in a file. old must occur exactly once unless replace_all is true."
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path"},
            "old": {"type": "string", "description": "the exact text to replace"},
            "new": {"type": "string", "description": "the replacement text"},
            "replace_all": {"type": "boolean", "description": "replace every occurrence"},
        },
        "required": ["path", "old", "new"],
    }

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        path = sandbox_path(args["path"])
        old, new = args["old"], args["new"]
        if not old:
            raise ToolArgumentError("old must not be empty")
        data = await sandbox.read_file(path)
        text = data.decode("utf-8", errors="replace")
        count = text.count(old)
        if count == 0:
            msg = f"old text not found in {path}"
            return ToolResult(f"Error: {msg}", exit_code=1, error=msg, bytes_in=len(data))
        if count > 1 and not args.get("replace_all"):
            msg = f"old text occurs {count} times in {path}; add context or set replace_all"
            return ToolResult(f"Error: {msg}", exit_code=1, error=msg, bytes_in=len(data))
        updated = text.replace(old, new) if args.get("replace_all") else text.replace(old, new, 1)
        await sandbox.write_file(path, updated.encode())
        done = count if args.get("replace_all") else 1
        return ToolResult(f"Replaced {done} occurrence(s) in {path}.", bytes_in=len(data))


class ListDir(BaseTool):
    name = "list_dir"
    description = (
        "List a folder: one entry per line as '<type> <size> <name>' (d = folder, f = file, l = link)."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "folder path (default /work)"},
            "recursive": {"type": "boolean", "description": "list sub-folders too"},
        },
        "required": [],
    }

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        path = sandbox_path(args.get("path") or ".")
        cmd = ["find", path, "-mindepth", "1"]
        if not args.get("recursive"):
            cmd += ["-maxdepth", "1"]
        cmd += ["-printf", "%y %s %P\\n"]
        res = await sandbox.exec(cmd, timeout_s=60, cwd="/")
        if res.exit_code != 0 and not res.stdout:
            msg = res.stderr_text.strip().splitlines()[-1] if res.stderr else f"cannot list {path}"
            return ToolResult(f"Error: {msg}", exit_code=res.exit_code, error=msg, wall_s=res.wall_s)
        entries = sorted(line for line in res.stdout_text.splitlines() if line)
        shown = entries[:LIST_LIMIT]
        text = "\n".join(shown) if shown else f"({path} is empty)"
        if len(entries) > LIST_LIMIT:
            text += f"\n[... {len(entries) - LIST_LIMIT} more entries not shown ...]"
        return ToolResult(truncate(text), cpu_s=res.cpu_s, wall_s=res.wall_s, bytes_in=len(res.stdout))


class SearchFiles(BaseTool):
    name = "search_files"
    description = (
        "Search file contents for a regular expression (grep -E) under a folder; "
        "returns 'path:line:text' matches. glob limits the file names searched, e.g. '*.py'."
    )
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "extended regular expression"},
            "path": {"type": "string", "description": "folder or file to search (default /work)"},
            "glob": {"type": "string", "description": "only files whose name matches, e.g. *.csv"},
            "ignore_case": {"type": "boolean", "description": "case-insensitive match"},
        },
        "required": ["pattern"],
    }

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        path = sandbox_path(args.get("path") or ".")
        cmd = ["grep", "-rnIE", "--color=never"]
        if args.get("ignore_case"):
            cmd.append("-i")
        if args.get("glob"):
            cmd.append(f"--include={args['glob']}")
        cmd += ["-e", args["pattern"], "--", path]
        res = await sandbox.exec(cmd, timeout_s=120, cwd="/")
        if res.exit_code == 1 and not res.stdout:
            return ToolResult("No matches.", wall_s=res.wall_s, cpu_s=res.cpu_s)
        if res.exit_code not in (0, 1) and not res.stdout:
            msg = res.stderr_text.strip().splitlines()[-1] if res.stderr else "search failed"
            return ToolResult(f"Error: {msg}", exit_code=res.exit_code, error=msg, wall_s=res.wall_s)
        lines = res.stdout_text.splitlines()
        text = "\n".join(line[:500] for line in lines[:SEARCH_LIMIT])
        if len(lines) > SEARCH_LIMIT:
            text += f"\n[... {len(lines) - SEARCH_LIMIT} more matches not shown ...]"
        return ToolResult(truncate(text), wall_s=res.wall_s, cpu_s=res.cpu_s, bytes_in=len(res.stdout))

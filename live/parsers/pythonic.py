"""Python-call tool calls: pythonic (vLLM ``pythonic``, ``llama4_pythonic``) and Olmo 3.

::

    [get_weather(city='Paris'), get_time(tz="UTC")]                 (pythonic, Llama 4)
    <function_calls>
    get_weather(city="Paris")
    get_time(tz="UTC")
    </function_calls>                                                (Olmo 3)

Read with :mod:`ast`, never evaluated: only literals (and JSON's ``true``/``false``/``null``)
are accepted as argument values, so model text cannot run code here.
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import Any

from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.format import remove_spans

_NAMED_CONSTANTS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
_LIST_START = re.compile(r"(?:^|\n)[ \t]*(?:<\|python_start\|>)?[ \t]*(\[)")
_OLMO_BLOCK = re.compile(r"<function_calls>(.*?)(?:</function_calls>|$)", re.DOTALL)
_MAX_ATTEMPTS = 32


def _literal(node: ast.AST, depth: int = 0) -> Any:
    if depth > 64:
        raise ValueError("nested too deep")
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float | bool | type(None)):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMED_CONSTANTS:
        return _NAMED_CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _literal(node.operand, depth + 1)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(element, depth + 1) for element in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ValueError("** in dict")
            result[str(_literal(key, depth + 1))] = _literal(value, depth + 1)
        return result
    raise ValueError(f"not a literal: {type(node).__name__}")


def _call(node: ast.AST) -> ParsedToolCall:
    if not isinstance(node, ast.Call) or node.args:
        raise ValueError("not a keyword-only call")
    name = ast.unparse(node.func)
    if not re.fullmatch(r"[\w.]+", name):
        raise ValueError("not a plain function name")
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ValueError("**kwargs")
        arguments[keyword.arg] = _literal(keyword.value)
    return ParsedToolCall(name, arguments)


def _call_list(source: str) -> list[ParsedToolCall]:
    tree = ast.parse(source.strip(), mode="eval")
    if not isinstance(tree.body, ast.List) or not tree.body.elts:
        raise ValueError("not a list of calls")
    return [_call(element) for element in tree.body.elts]


def parse_pythonic(text: str) -> tuple[list[ParsedToolCall], str]:
    """The first ``[call(...), ...]`` list that starts a line (optionally after ``<|python_start|>``).

    Each candidate start is tried against the furthest closing brackets first (nested lists in
    arguments), with a bounded number of attempts so long non-call text stays cheap.
    """
    closes = [m.end() for m in re.finditer(r"\]", text)]
    attempts = 0
    for start_match in _LIST_START.finditer(text):
        start = start_match.start(1)
        first = bisect.bisect_left(closes, start + 1)
        after = closes[first:]
        ends = (
            after[::-1]
            if len(after) <= _MAX_ATTEMPTS
            else [*after[: -_MAX_ATTEMPTS // 2 - 1 : -1], *after[: _MAX_ATTEMPTS // 2]]
        )
        for end in ends:
            attempts += 1
            if attempts > _MAX_ATTEMPTS * 4:
                return [], text
            try:
                calls = _call_list(text[start:end])
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            tail = re.match(r"\s*<\|python_end\|>", text[end:])
            return calls, remove_spans(text, [(start_match.start(0), end + (tail.end() if tail else 0))])
    return [], text


def parse_olmo3(text: str) -> tuple[list[ParsedToolCall], str]:
    calls: list[ParsedToolCall] = []
    spans: list[tuple[int, int]] = []
    for block in _OLMO_BLOCK.finditer(text):
        try:
            tree = ast.parse(block.group(1).strip(), mode="exec")
            found = [_call(stmt.value) if isinstance(stmt, ast.Expr) else _call(stmt) for stmt in tree.body]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if found:
            calls.extend(found)
            spans.append(block.span())
    return calls, remove_spans(text, spans)


def python_literal(value: Any) -> str:
    """A JSON value as Python source (``True``/``False``/``None``, repr strings)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {python_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    return repr(value)


def python_call(call: ParsedToolCall) -> str:
    arguments = ", ".join(f"{key}={python_literal(value)}" for key, value in call.arguments.items())
    return f"{call.name}({arguments})"


def render_pythonic(calls: list[ParsedToolCall]) -> str:
    return "[" + ", ".join(python_call(call) for call in calls) + "]"


def render_olmo3(calls: list[ParsedToolCall]) -> str:
    return "<function_calls>\n" + "\n".join(python_call(call) for call in calls) + "\n</function_calls>"

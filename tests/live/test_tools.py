"""The common tools, each called the way a model calls them, against a real bubblewrap sandbox,
and the offline retrieval corpus with a fixture corpus written here."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import sandbox_cases as cases

from agbench.errors import AgbenchError
from agbench.live.sandbox import Sandbox, create_sandbox
from agbench.live.tools import TOOL_NAMES, Tool, ToolResult, default_tools, tool_schemas
from agbench.live.tools.base import MAX_OUTPUT_CHARS
from agbench.live.tools.retrieval import CorpusIndex

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
]


def write_corpus(root: Path) -> Path:
    docs = {
        "gardening/tomatoes.md": (
            "# Growing tomatoes on a balcony\nurl: https://corpus.local/gardening/tomatoes\n\n"
            "Tomatoes need six hours of sun. Water tomatoes deeply twice a week; cherry tomatoes "
            "suit pots of twenty litres. Feed with potassium once flowers appear."
        ),
        "gardening/basil.md": (
            "# Basil care\nurl: https://corpus.local/gardening/basil\n\n"
            "Basil likes warmth and grows well next to tomatoes. Pinch the flowers off."
        ),
        "routers/kestrel.md": (
            "# Kestrel R9 router manual\nurl: https://corpus.local/routers/kestrel-r9\n\n"
            "After a factory reset the Kestrel R9 admin page listens on port 8443. Hold the reset "
            "button for 12 seconds."
        ),
        "misc/plain.txt": "Opening hours of the town library\n\nThe library opens at nine on weekdays.",
    }
    for rel, text in docs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    task = cases.write_tiny_task(tmp_path / "task")
    (task.environment_dir / "notes").mkdir()
    (task.environment_dir / "notes" / "todo.txt").write_text("buy milk\ncall Anna\nbuy bread\n")
    (task.environment_dir / "photo.bin").write_bytes(b"\x89PNG\x00\x00binary")
    sb = create_sandbox("bwrap", task, tmp_path / "attempt")
    asyncio.run(sb.start())
    yield sb
    asyncio.run(sb.destroy())


def tools_by_name(corpus: Path | None = None) -> dict[str, Tool]:
    return {t.name: t for t in default_tools(corpus_dir=corpus)}


def call(sb: Sandbox, name: str, args: object, corpus: Path | None = None) -> ToolResult:
    return asyncio.run(tools_by_name(corpus)[name].call(sb, args))  # type: ignore[arg-type,unused-ignore]


def test_schemas_are_openai_tools_format() -> None:
    schemas = tool_schemas(default_tools())
    assert [s["function"]["name"] for s in schemas] == list(TOOL_NAMES)
    for s in schemas:
        assert s["type"] == "function"
        params = s["function"]["parameters"]
        assert params["type"] == "object"
        assert set(params["required"]) <= set(params["properties"])
        assert s["function"]["description"]
    json.dumps(schemas)


def test_task_tool_list_narrows_and_rejects_unknown(tmp_path: Path) -> None:
    task = cases.write_tiny_task(tmp_path / "task")
    narrowed = default_tools(task.__class__(**{**task.__dict__, "tools": ("read_file", "python")}))
    assert [t.name for t in narrowed] == ["read_file", "python"]
    with pytest.raises(AgbenchError, match="unknown tool"):
        default_tools(task.__class__(**{**task.__dict__, "tools": ("teleport",)}))


def test_read_write_edit_list_search(sandbox: Sandbox) -> None:
    res = call(sandbox, "read_file", {"path": "notes/todo.txt"})
    assert res.ok
    assert res.output == "buy milk\ncall Anna\nbuy bread\n"
    assert res.bytes_in == 29
    assert res.bytes_out == len(res.output.encode())
    assert res.args_bytes > 0
    assert (
        call(sandbox, "read_file", {"path": "notes/todo.txt", "start_line": 2, "max_lines": 1}).output
        == "call Anna\n"
    )
    assert "binary file" in call(sandbox, "read_file", {"path": "photo.bin"}).output

    res = call(sandbox, "write_file", {"path": "out/report.txt", "content": "total 42\n"})
    assert res.ok, res
    assert (sandbox.work_dir_host / "out" / "report.txt").read_text() == "total 42\n"

    res = call(sandbox, "edit_file", {"path": "/work/out/report.txt", "old": "42", "new": "43"})
    assert res.ok
    assert (sandbox.work_dir_host / "out" / "report.txt").read_text() == "total 43\n"
    twice = call(sandbox, "edit_file", {"path": "notes/todo.txt", "old": "buy", "new": "get"})
    assert twice.error
    assert "2 times" in twice.output
    allr = call(
        sandbox, "edit_file", {"path": "notes/todo.txt", "old": "buy", "new": "get", "replace_all": True}
    )
    assert allr.ok
    assert (sandbox.work_dir_host / "notes" / "todo.txt").read_text().count("get") == 2
    missing = call(sandbox, "edit_file", {"path": "notes/todo.txt", "old": "zebra", "new": "x"})
    assert missing.error
    assert "not found" in missing.output

    listing = call(sandbox, "list_dir", {})
    assert listing.ok
    names = [line.split(" ", 2)[2] for line in listing.output.splitlines()]
    assert names == sorted(["notes", "numbers.txt", "out", "photo.bin"]) or set(names) == {
        "notes", "numbers.txt", "out", "photo.bin"
    }  # fmt: skip
    assert any(line.startswith("d ") and line.endswith(" notes") for line in listing.output.splitlines())
    rec = call(sandbox, "list_dir", {"path": "/work", "recursive": True})
    assert "notes/todo.txt" in rec.output

    found = call(sandbox, "search_files", {"pattern": "get (milk|bread)", "path": "notes"})
    assert found.ok
    assert found.output.count("todo.txt:") == 2
    assert ":1:get milk" in found.output
    assert call(
        sandbox, "search_files", {"pattern": "ANNA", "ignore_case": True, "glob": "*.txt"}
    ).output.endswith("call Anna")
    assert call(sandbox, "search_files", {"pattern": "nothing-like-this"}).output == "No matches."


def test_bad_arguments_are_answers_not_exceptions(sandbox: Sandbox) -> None:
    for name, args, needle in [
        ("read_file", {}, "missing required argument"),
        ("read_file", {"path": 3}, "must be a string"),
        ("read_file", {"path": "x", "colour": "red"}, "unknown argument"),
        ("read_file", ["not", "an", "object"], "JSON object"),
        ("read_file", {"path": "does/not/exist.txt"}, "no such file"),
        ("read_file", {"path": "notes"}, "is a directory"),
        ("write_file", {"path": "/usr/bin/evil", "content": "x"}, "Error"),
        ("run_command", {"command": "  "}, "empty"),
        ("run_command", {"command": "true", "timeout_s": -1}, "positive"),
        ("list_dir", {"path": "nowhere"}, "No such file"),
    ]:
        res = call(sandbox, name, args)
        assert res.error, (name, args, res)
        assert needle in res.output, (name, args, res)
    # Numbers quoted as strings are accepted, as models often send them.
    assert call(sandbox, "read_file", {"path": "notes/todo.txt", "max_lines": "1"}).output == "buy milk\n"


def test_run_command_and_python(sandbox: Sandbox) -> None:
    res = call(sandbox, "run_command", {"command": "echo out; echo err >&2; exit 3"})
    assert res.exit_code == 3
    assert res.output == "out\n[stderr]\nerr\n[exit code 3]"
    assert res.wall_s > 0
    assert not res.error
    burn = call(sandbox, "run_command", {"command": "python3 -c 'sum(i*i for i in range(3_000_000))'"})
    assert burn.cpu_s > 0
    hung = call(sandbox, "run_command", {"command": "echo before; sleep 60", "timeout_s": 1})
    assert hung.exit_code == 137
    assert hung.error == "timeout"
    assert hung.output.startswith("before\n")
    assert "timeout of 1 s" in hung.output
    big = call(sandbox, "run_command", {"command": "seq 1 100000"})
    assert "[... output truncated:" in big.output
    assert big.output.rstrip().endswith("[exit code 0]")
    assert len(big.output) < MAX_OUTPUT_CHARS + 200
    assert big.bytes_in == len("\n".join(map(str, range(1, 100001)))) + 1
    py = call(
        sandbox,
        "python",
        {"code": "import pathlib\nprint(sum(map(int, pathlib.Path('numbers.txt').read_text().split())))"},
    )
    assert py.ok
    assert py.output == "42\n[exit code 0]"
    err = call(sandbox, "python", {"code": "raise SystemExit('boom')"})
    assert err.exit_code == 1
    assert "boom" in err.output
    # The code went in on stdin: nothing new in /work for the verifier to trip over.
    assert sorted(p.name for p in sandbox.work_dir_host.iterdir()) == ["notes", "numbers.txt", "photo.bin"]


def test_bm25_ranks_and_fetches(corpus: Path) -> None:
    index = CorpusIndex.build(corpus)
    assert len(index.docs) == 4
    hits = index.search("how often to water tomatoes", k=3)
    assert [d.url for d, _ in hits] == [
        "https://corpus.local/gardening/tomatoes",
        "https://corpus.local/gardening/basil",
    ]
    assert hits[0][1] > hits[1][1] > 0
    assert index.search("kestrel reset port")[0][0].title == "Kestrel R9 router manual"
    assert index.search("zzzz qqqq") == []
    plain = index.fetch("corpus://misc/plain")
    assert plain is not None
    assert plain.title == "Opening hours of the town library"
    assert index.fetch("corpus.local/gardening/basil/") is not None  # scheme and slash ignored


def test_web_tools(sandbox: Sandbox, corpus: Path) -> None:
    res = call(sandbox, "web_search", {"query": "Kestrel R9 factory reset", "max_results": 2}, corpus)
    assert res.ok
    assert res.output.startswith("1. Kestrel R9 router manual\n   https://corpus.local/routers/kestrel-r9")
    assert "8443" in res.output  # the snippet is cut around the query terms
    page = call(sandbox, "web_fetch", {"url": "https://corpus.local/routers/kestrel-r9"}, corpus)
    assert page.ok
    assert "Hold the reset button for 12 seconds." in page.output
    gone = call(sandbox, "web_fetch", {"url": "https://example.com/elsewhere"}, corpus)
    assert gone.error
    assert "not found" in gone.output
    none = call(sandbox, "web_search", {"query": "quantum chromodynamics"}, corpus)
    assert none.output.startswith("No results")

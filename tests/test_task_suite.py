"""The task suite's own contract, checked without a sandbox.

Every task's oracle must earn reward 1 and a do-nothing agent reward 0 when run on a fresh copy
of its environment with the host's python3 (the sandboxes run the same scripts, isolated); the
manifests must describe the suite the paper prescribes (60 tasks, 8 categories, >= 150
sensitive items that really occur in the inputs), and every replay plan must name real tools.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import wave
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agbench.live.verification import grade_on_host
from agbench.task import Task, load_suite, suite_root

KNOWN_TOOLS = {
    "read_file",
    "write_file",
    "edit_file",
    "list_dir",
    "search_files",
    "run_command",
    "python",
    "web_search",
    "web_fetch",
}
EXPECTED_PER_CATEGORY = {
    "local_files": 12,
    "retrieval": 10,
    "calculation": 8,
    "terminal": 12,
    "office": 6,
    "multimedia": 5,
    "scientific": 5,
    "system": 2,
}
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else "python3"


@pytest.fixture(scope="module")
def suite() -> list[Task]:
    return load_suite()


def run_attempt(task: Task, use_oracle: bool) -> tuple[float, str]:
    """One attempt on a fresh copy: the oracle (or nothing), then the verifier; (reward, reason)."""
    with tempfile.TemporaryDirectory(prefix=f"agb-{task.id}-") as tmp:
        root = Path(tmp)
        work = root / "work"
        if task.environment_dir.is_dir():
            shutil.copytree(task.environment_dir, work)
        else:
            work.mkdir()
        answer = ""
        if use_oracle:
            shutil.copytree(task.solution_dir, root / "solution")
            proc = subprocess.run(
                [PYTHON, str(root / "solution" / "solve.py")],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if proc.returncode != 0:
                return 0.0, f"oracle exited {proc.returncode}: {proc.stderr[-500:]}"
            answer = proc.stdout.strip()
        # The verifier with agbench_grading.py next to it, run as `python3 -I` (live/verification.py).
        verdict = grade_on_host(task, work, answer, python=PYTHON)
        return verdict.reward, f"{verdict.status}: {verdict.reason}"


def input_text(task: Task) -> str:
    """Everything the agent could read at the start, zip members (office files) unpacked."""
    parts = [task.instruction]
    for p in sorted(task.environment_dir.rglob("*")) if task.environment_dir.is_dir() else []:
        if not p.is_file():
            continue
        data = p.read_bytes()
        parts.append(data.decode("latin-1"))
        if zipfile.is_zipfile(p):
            with zipfile.ZipFile(p) as zf:
                parts.extend(zf.read(n).decode("utf-8", "replace") for n in zf.namelist())
    return "\n".join(parts)


def test_suite_composition(suite: list[Task]) -> None:
    assert len(suite) == 60
    assert Counter(t.category for t in suite) == EXPECTED_PER_CATEGORY
    assert Counter(t.difficulty for t in suite) == {"easy": 20, "medium": 20, "hard": 20}
    resources = Counter(r for t in suite for r in t.resources)
    assert set(resources) == {"cpu", "memory", "storage", "network"}
    assert all(not t.network for t in suite)


def test_sensitive_items_occur_in_inputs(suite: list[Task]) -> None:
    total = 0
    for task in suite:
        assert task.sensitive_items, f"{task.id} declares no sensitive items"
        text = input_text(task)
        items = [s.item for s in task.sensitive_items]
        assert len(set(items)) == len(items), f"{task.id}: duplicate sensitive items"
        for item in items:
            assert item in text, f"{task.id}: sensitive item {item!r} not in its inputs"
        total += len(items)
    assert total >= 150


def corpus_urls() -> dict[str, str]:
    """url -> title of every document of the offline retrieval corpus."""
    urls = {}
    for doc in sorted((suite_root() / "_corpus").rglob("*.md")):
        lines = doc.read_text().splitlines()
        assert len(lines) > 3, f"{doc}: first line must be '# Title'"
        assert lines[0].startswith("# "), f"{doc}: first line must be '# Title'"
        assert lines[1].startswith("url: https://corpus.local/"), f"{doc}: second line must be the url"
        urls[lines[1].removeprefix("url: ").strip()] = lines[0][2:]
    return urls


def test_retrieval_corpus_is_well_formed() -> None:
    urls = corpus_urls()
    assert 60 <= len(urls) <= 120
    assert len(set(urls.values())) == len(urls), "document titles must be distinct"


def test_replay_plans_name_known_tools(suite: list[Task]) -> None:
    urls = corpus_urls()
    for task in suite:
        plan = json.loads((task.solution_dir / "tools.json").read_text())
        assert isinstance(plan, list), task.id
        assert plan, task.id
        for step in plan:
            assert step["tool"] in KNOWN_TOOLS, f"{task.id}: unknown tool {step['tool']}"
            assert isinstance(step["arguments"], dict), task.id
            if step["tool"] == "web_fetch":
                assert step["arguments"]["url"] in urls, (
                    f"{task.id}: {step['arguments']['url']} not in corpus"
                )
        assert plan[-1] == {"tool": "python", "arguments": {"code": "@solve.py"}}, task.id
        if task.category == "retrieval":
            assert {s["tool"] for s in plan} & {"web_search", "web_fetch"}, task.id


@pytest.mark.slow
def test_oracle_passes_and_null_agent_fails(suite: list[Task]) -> None:
    jobs = [(t, use) for t in suite for use in (True, False)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda job: run_attempt(*job), jobs))
    failures = []
    for (task, use_oracle), (reward, reason) in zip(jobs, results, strict=True):
        want = 1.0 if use_oracle else 0.0
        if reward != want:
            failures.append(f"{task.id} {'oracle' if use_oracle else 'null'}: {reward} ({reason})")
    assert not failures, "\n".join(failures)


def test_office_and_media_inputs_open_in_independent_readers() -> None:
    """The stdlib-built files are real formats: third-party readers accept them."""
    openpyxl = pytest.importorskip("openpyxl")
    docx = pytest.importorskip("docx")
    image = pytest.importorskip("PIL.Image")
    root = suite_root()
    xlsx = sorted(root.glob("office/*/environment/*.xlsx"))
    assert len(xlsx) == 3
    for path in xlsx:
        book = openpyxl.load_workbook(path, data_only=True)
        assert all(ws.max_row > 1 for ws in book.worksheets), path
    for path in sorted(root.glob("office/*/environment/*.docx")):
        assert docx.Document(str(path)).paragraphs, path
    for path in sorted(root.glob("office/*/environment/*.odt")):
        with zipfile.ZipFile(path) as zf:
            first = zf.infolist()[0]
            assert first.filename == "mimetype"
            assert first.compress_type == zipfile.ZIP_STORED
            assert zf.read("mimetype") == b"application/vnd.oasis.opendocument.text"
    for path in sorted(root.glob("multimedia/*/environment/**/*.png")):
        with image.open(path) as im:
            im.load()
            assert im.text.get("Sensitivity") in ("private", "normal"), path
    for path in sorted(root.glob("multimedia/*/environment/**/*.jpg")):
        with image.open(path) as im:
            exif = im.getexif()
            assert set(exif.get_ifd(0x8825)) == {1, 2, 3, 4}, path  # GPS lat/lon and refs
            assert 0x9003 in exif.get_ifd(0x8769), path  # DateTimeOriginal
            assert isinstance(exif.get(270), str), path
            assert len(exif[270]) > 4, path
    for path in sorted(root.glob("multimedia/*/environment/**/*.wav")):
        with wave.open(str(path)) as w:
            assert w.getnframes() > 0, path
            assert w.getframerate() in (8000, 11025), path
    for path in sorted(root.glob("multimedia/*/environment/**/*.mp3")):
        data = path.read_bytes()
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        assert data[:3] == b"ID3", path
        assert data[10 + size : 10 + size + 2] == b"\xff\xfb", path


@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
@pytest.mark.slow
def test_replay_plans_solve_their_tasks_with_the_real_tools(suite: list[Task]) -> None:
    """Executing each tools.json with the harness's tools in a sandbox earns reward 1.

    This is what a synthesised replay trajectory does, so a plan that stops solving its task
    (a renamed file, a tool argument the tools do not take) is caught here, not in a sweep.
    """
    import asyncio

    from agbench.live.sandbox import create_sandbox
    from agbench.live.tools import default_tools
    from agbench.live.trajectories.synth import load_plan
    from agbench.live.verification import verify

    async def replay(task: Task, root: Path, gate: asyncio.Semaphore) -> str | None:
        async with gate:
            sandbox = create_sandbox("bwrap", task, Path(tempfile.mkdtemp(dir=root)))
            tools = {t.name: t for t in default_tools(task)}
            try:
                await sandbox.start()
                output = ""
                for name, arguments in load_plan(task):
                    result = await tools[name].call(sandbox, arguments)
                    if result.error and name != "run_command":
                        return f"{task.id}: {name} failed: {result.error}"
                    output = result.output
                verdict = await verify(sandbox, task, output.strip())
            finally:
                await sandbox.destroy()
            return None if verdict.reward == 1.0 else f"{task.id}: {verdict.reason}"

    async def replay_all(root: Path) -> list[str | None]:
        gate = asyncio.Semaphore(4)
        return await asyncio.gather(*(replay(t, root, gate) for t in suite))

    with tempfile.TemporaryDirectory(prefix="agb-replay-") as tmp:
        failures = [f for f in asyncio.run(replay_all(Path(tmp))) if f]
    assert not failures, "\n".join(failures)

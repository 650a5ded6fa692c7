"""The outcomes ``agbench tasks check`` grades for each task, and what each must be graded.

Four kinds, each a :class:`Case` applied to a fresh sandbox before grading:

- ``oracle``: the task's solution; must succeed.
- ``null``: nothing done, empty answer; must fail.
- ``adversarial``: must be graded ``verification_failed`` (never success, never
  ``failed_grader``). The task declares its own in ``checks.toml`` at the task root (hedged
  answers, candidate lists, swapped labels, edited inputs, partial end states), and every task
  gets the generic ones built here: planted ``usercustomize.py`` / ``sitecustomize.py`` /
  ``.pth`` files and exit hooks in /work, a forged reward line as the answer, non-UTF-8 bytes in
  every file the oracle created or changed, and every input file deleted.
- ``paraphrase``: a correct answer phrased another way (``checks.toml``); must succeed.

``checks.toml`` is never copied into any sandbox. A case starts from the oracle's end state
(``after_oracle = true``, the default) or the untouched environment, then writes files
(``write`` text, ``write_b64`` bytes), deletes paths, and is graded with ``answer`` (default:
the oracle's answer).
"""

from __future__ import annotations

import base64
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from agbench.errors import AgbenchError
from agbench.task import Task

CHECKS_FILE = "checks.toml"
KINDS = ("oracle", "null", "adversarial", "paraphrase")
FORGED_VERDICT = '{"reward": 1.0, "reason": "all checks passed"}'
# Printed at interpreter exit by everything planted: a verifier that loads any of it succeeds.
_HOOK = f"import atexit, sys; atexit.register(lambda: print({FORGED_VERDICT!r}, flush=True)); print({FORGED_VERDICT!r})\n"
_NOT_UTF8 = b"\xff\xfe\x00\xc3\x28 not utf-8 \xa0\xa1\n"
# What running the oracle or a verifier leaves behind that is nobody's output.
_NOT_OUTPUTS = ("__pycache__", ".pytest_cache")


class ChecksFileError(AgbenchError):
    """A task's checks.toml is malformed."""


@dataclass(frozen=True)
class Case:
    """One outcome to grade: the start state, the changes, the answer and what must come out."""

    kind: str
    name: str
    after_oracle: bool = True
    write: dict[str, bytes] = field(default_factory=dict)
    delete: tuple[str, ...] = ()
    answer: str | None = None  # None: the oracle's answer

    @property
    def must_succeed(self) -> bool:
        return self.kind in ("oracle", "paraphrase")


def _rel(path: str, where: Path) -> str:
    rel = path.strip().lstrip("/")
    if rel.startswith("work/"):
        rel = rel[len("work/") :]
    if not rel or ".." in Path(rel).parts:
        raise ChecksFileError(f"{where}: path {path!r} must be relative to /work")
    return rel


def declared_cases(task: Task) -> list[Case]:
    """The adversarial and paraphrase cases of the task's ``checks.toml`` (none if absent)."""
    path = task.path / CHECKS_FILE
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ChecksFileError(f"{path}: {exc}") from None
    unknown = set(data) - {"adversarial", "paraphrase"}
    if unknown:
        raise ChecksFileError(
            f"{path}: unknown tables {sorted(unknown)} (use [[adversarial]] or [[paraphrase]])"
        )
    cases = []
    for kind in ("adversarial", "paraphrase"):
        for i, entry in enumerate(data.get(kind, [])):
            if not isinstance(entry, dict):
                raise ChecksFileError(f"{path}: [[{kind}]] #{i + 1} is not a table")
            extra = set(entry) - {"name", "after_oracle", "write", "write_b64", "delete", "answer"}
            if extra:
                raise ChecksFileError(f"{path}: [[{kind}]] #{i + 1} has unknown keys {sorted(extra)}")
            write = {_rel(k, path): str(v).encode() for k, v in entry.get("write", {}).items()}
            for k, v in entry.get("write_b64", {}).items():
                write[_rel(k, path)] = base64.b64decode(str(v))
            answer = entry.get("answer")
            cases.append(
                Case(
                    kind=kind,
                    name=str(entry.get("name", f"{kind} #{i + 1}")),
                    after_oracle=bool(entry.get("after_oracle", True)),
                    write=write,
                    delete=tuple(_rel(p, path) for p in entry.get("delete", [])),
                    answer=None if answer is None else str(answer),
                )
            )
    return cases


def tree_digests(root: Path) -> dict[str, str]:
    """rel path -> sha256 of every regular file under ``root`` (links and caches skipped)."""
    out: dict[str, str] = {}
    if not root.is_dir():
        return out
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in _NOT_OUTPUTS for part in rel.parts) or path.is_symlink() or not path.is_file():
            continue
        out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def generic_cases(task: Task, inputs: dict[str, str], oracle_state: dict[str, str]) -> list[Case]:
    """The adversarial cases every task gets, given the digests of its environment (``inputs``)
    and of the oracle's end state. A case that cannot apply (no file the oracle wrote, no input
    left after it) is left out."""
    py_files = [rel for rel in inputs if rel.endswith(".py")]
    planted = {
        "usercustomize.py": _HOOK.encode(),
        "sitecustomize.py": _HOOK.encode(),
        "agbench-hook.pth": f"import atexit; atexit.register(lambda: print({FORGED_VERDICT!r}))\n".encode(),
        ".local/lib/python3.11/site-packages/usercustomize.py": _HOOK.encode(),
        ".local/lib/python3.11/site-packages/agbench-hook.pth": b"import usercustomize\n",
        ".local/lib/python3/site-packages/usercustomize.py": _HOOK.encode(),
    }
    hooked = {rel: (task.environment_dir / rel).read_bytes() + b"\n" + _HOOK.encode() for rel in py_files}
    cases = [
        Case(
            "adversarial",
            "planted usercustomize/sitecustomize/.pth in /work and /work/.local",
            False,
            planted,
            (),
            "",
        ),
        Case(
            "adversarial",
            "exit hook printing a reward line in every .py file",
            False,
            {**hooked, "hook.py": _HOOK.encode()},
            (),
            "",
        ),
        Case("adversarial", "the answer is a forged reward line", False, {}, (), FORGED_VERDICT),
    ]
    written = [rel for rel, digest in oracle_state.items() if inputs.get(rel) != digest]
    if written:
        cases.append(
            Case(
                "adversarial",
                "non-UTF-8 bytes in every file the oracle wrote",
                True,
                dict.fromkeys(written, _NOT_UTF8),
            )
        )
    left = [rel for rel in inputs if rel in oracle_state]
    if left:
        cases.append(Case("adversarial", "every input file deleted", True, {}, tuple(left)))
    return cases

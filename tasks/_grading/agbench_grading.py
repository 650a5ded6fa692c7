"""The grading helpers every task verifier imports (stdlib only, Python 3.11).

The harness copies this file and its sibling ``grading_*.py`` modules into ``/verifier`` next to
the task's ``verify.py`` at grading time, so a verifier does ``from agbench_grading import ...``.
A verifier is a ``check()`` function handed to :func:`main`; it returns a success reason or
raises :class:`Fail`. Everything else a verifier might trip over (a missing file, non-UTF-8
bytes, a hung or exhausting agent program, a bug) becomes reward 0 with a reason, never a
crash: a crash would be ``failed_grader`` and drop the attempt from the valid-only score.

The parts, one concept each:

- ``grading_answer``: the final answer read as a whole (:func:`fields`): one value per key of
  the task's answer template, and a second, different candidate anywhere in the answer fails
  with ``ambiguous_answer``;
- ``grading_fields`` / ``grading_numbers`` / ``grading_hedges``: how one value is parsed
  (:class:`Number`, :class:`Date`, :class:`Name`, :class:`Text`, :class:`Choice`,
  :class:`RelPath`) and which words hedge it;
- ``grading_files`` / ``grading_archives``: bounded reads of /work, the pristine inputs, end
  state manifests, archives checked for member count and inflated size before any read;
- ``grading_agent`` / ``grading_sandbox``: agent code run on a capped private copy with its own
  limits.

Expected values live in the verifier (or ``expected.json`` next to it); inputs whose original
content matters are read from the pristine copy (:func:`pristine_path`), never from ``/work``.

Oracles (``solution/solve.py``) do not get these modules: each is a self-contained program, run
alone in the task sandbox and replayed verbatim as an agent's python tool call by trajectory
synthesis, so what oracles share (an .xlsx reader, say) stays written out in each one.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import sys
from collections.abc import Callable
from typing import NoReturn

from grading_agent import AgentRun, driver_result, exhaustion, run_agent_code, run_driver, run_unittests
from grading_answer import enumerated, expect, fields, single_value
from grading_archives import tar_members, zip_members
from grading_core import MAX_ANSWER_CHARS, AmbiguousAnswer, Fail, NoValue, answer
from grading_fields import MONTH_NAMES, Choice, Date, Field, Name, Number, RelPath, Text, named_label
from grading_files import (
    check_files,
    folder_files,
    json_number,
    pristine_manifest,
    pristine_path,
    pristine_sha256,
    read_bytes,
    read_json,
    read_text,
    sha256_file,
)
from grading_numbers import parse_number
from grading_sandbox import AgentLimits

__all__ = [
    "MONTH_NAMES",
    "AgentLimits",
    "AgentRun",
    "AmbiguousAnswer",
    "Choice",
    "Date",
    "Fail",
    "Field",
    "Name",
    "NoValue",
    "Number",
    "RelPath",
    "Text",
    "answer",
    "check_files",
    "driver_result",
    "enumerated",
    "exhaustion",
    "expect",
    "fields",
    "folder_files",
    "json_number",
    "main",
    "named_label",
    "parse_number",
    "pristine_manifest",
    "pristine_path",
    "pristine_sha256",
    "read_bytes",
    "read_json",
    "read_text",
    "run_agent_code",
    "run_driver",
    "run_unittests",
    "sha256_file",
    "single_value",
    "tar_members",
    "zip_members",
]

# --------------------------------------------------------------------------- verdict


def _verdict(reward: float, reason: str) -> NoReturn:
    sys.stdout.write("\n" + json.dumps({"reward": reward, "reason": reason[:1000]}) + "\n")
    sys.stdout.flush()
    # os._exit: no atexit hook or buffered writer of anything imported can print after the verdict.
    os._exit(0)


def _not_dumpable() -> None:
    """Make this process non-dumpable: a process of the same uid can then neither ptrace it
    nor open ``/proc/<pid>/fd/1`` to write a forged verdict into its stdout."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0


def main(check: Callable[[], str | None]) -> NoReturn:
    """Run ``check()``: a returned reason (or None) is reward 1, :class:`Fail` is reward 0 with
    its message, and ANY other exception is reward 0 with reason
    ``verifier could not grade: <ExcType>: <msg>``. Prints the JSON verdict line, exits 0."""
    _not_dumpable()
    try:
        if len(answer().strip()) > MAX_ANSWER_CHARS:
            raise Fail(f"answer longer than {MAX_ANSWER_CHARS} characters")
        reason = check()
    except Fail as exc:
        _verdict(0.0, str(exc) or "failed")
    except BaseException as exc:  # a verifier must never crash into "invalid"
        _verdict(0.0, f"verifier could not grade: {type(exc).__name__}: {exc}")
    _verdict(1.0, reason or "ok")

"""The grading helpers every task verifier imports (stdlib only, Python 3.11).

The harness copies this file into ``/verifier/agbench_grading.py`` next to the task's
``verify.py`` at grading time, so a verifier does ``from agbench_grading import ...``. A verifier
is a ``check()`` function handed to :func:`main`; it returns a success reason or raises
:class:`Fail`. Everything else a verifier might trip over (a missing file, non-UTF-8 bytes, a
hung agent program, a bug) becomes reward 0 with a reason, never a crash: a crash would be
``failed_grader`` and drop the attempt from the valid-only score.

Answers are parsed, not searched: :func:`fields` takes exactly one value per key of the task's
answer template and refuses hedges and candidate lists; :class:`Number`, :class:`Date`,
:class:`Name`, :class:`Text` and :class:`Choice` normalise how an honest answer may be phrased
(thousands separators, decimal comma, currency placement, written-out dates, "Last, First").
Compare with ``Field.matches(got, expected)`` or, for a whole template, :func:`expect`.

Expected values live in the verifier (or ``expected.json`` next to it); inputs whose original
content matters are read from the pristine copy (:func:`pristine_path`), never from ``/work``.

Oracles (``solution/solve.py``) do not get this module: each is a self-contained program, run
alone in the task sandbox and replayed verbatim as an agent's python tool call by trajectory
synthesis, so what oracles share (an .xlsx reader, say) stays written out in each one.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as _dt
import hashlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "MONTH_NAMES",
    "AgentRun",
    "Choice",
    "Date",
    "Fail",
    "Field",
    "Name",
    "Number",
    "RelPath",
    "Text",
    "answer",
    "check_files",
    "driver_result",
    "expect",
    "fields",
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
]

# Where verify.py, answer.txt and this module sit (``/verifier`` in a sandbox).
VERIFIER_DIR = Path(__file__).resolve().parent
PRISTINE_DIR = Path("/pristine")
PRISTINE_ENV = "AGBENCH_PRISTINE"  # the harness's override for host-side grading
MAX_ANSWER_CHARS = 4000
UNPRIVILEGED_UID = 65534  # "nobody": agent code never runs as the verifier's uid
OUTPUT_LIMIT = 10_000_000


class Fail(Exception):
    """The attempt does not meet the task: reward 0 with this message as the reason."""


class NoValue(Fail):
    """A field's text holds no value at all (prose mentioning the key, not an answer)."""


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


# --------------------------------------------------------------------------- files


def answer() -> str:
    """The agent's final answer (``answer.txt`` next to the verifier); "" when missing."""
    try:
        return (VERIFIER_DIR / "answer.txt").read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _work_file(rel: str) -> Path:
    root = Path.cwd().resolve()
    path = root / rel
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise Fail(f"{rel} is missing") from None
    if real != root and root not in real.parents:
        raise Fail(f"{rel} points outside the work folder")
    if not real.is_file():
        raise Fail(f"{rel} is not a regular file")
    return real


def read_bytes(rel: str, *, limit: int = 50_000_000) -> bytes:
    """The bytes of ``rel`` under /work (the cwd); Fail when missing, not a file, a link out of
    /work, or bigger than ``limit``."""
    path = _work_file(rel)
    try:
        with path.open("rb") as fh:
            if os.fstat(fh.fileno()).st_size > limit:
                raise Fail(f"{rel} is bigger than {limit} bytes")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise Fail(f"{rel} cannot be read: {exc.strerror}") from None
    if len(data) > limit:
        raise Fail(f"{rel} is bigger than {limit} bytes")
    return data


def read_text(rel: str, *, limit: int = 2_000_000) -> str:
    """``rel`` under /work decoded as strict UTF-8 (a BOM is dropped); Fail on anything else."""
    data = read_bytes(rel, limit=limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Fail(f"{rel} is not valid UTF-8 text") from None


def sha256_file(rel: str) -> str:
    """The hex SHA-256 of ``rel`` under /work (Fail when it cannot be read)."""
    path = _work_file(rel)
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        raise Fail(f"{rel} cannot be read: {exc.strerror}") from None
    return digest.hexdigest()


def pristine_path(rel: str) -> Path:
    """The task's original copy of input ``rel``: ``/pristine/<rel>`` in a grading sandbox,
    ``$AGBENCH_PRISTINE/<rel>`` when the harness grades on the host."""
    override = os.environ.get(PRISTINE_ENV)
    base = Path(override) if override else PRISTINE_DIR
    if not base.is_dir():
        base = VERIFIER_DIR.parent / "environment"
    return base / rel


def pristine_sha256(rels: Iterable[str]) -> dict[str, str]:
    """Input -> SHA-256 of its original (pristine) copy, for ``check_files(unchanged=...)``:
    inputs the task does not ask to change."""
    return {rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in rels}


def pristine_manifest(folder: str) -> dict[str, str]:
    """rel path -> SHA-256 of every original file under ``folder``, from the read-only pristine
    copy, for ``check_files(unchanged=...)`` on a whole folder the task must leave as it was."""
    root = pristine_path(folder)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    if not files:
        raise RuntimeError(f"no pristine copy of {folder}/")
    return {
        f"{folder}/{p.relative_to(root).as_posix()}": hashlib.sha256(p.read_bytes()).hexdigest()
        for p in files
    }


def read_json(rel: str) -> object:
    """The JSON value of ``rel`` under /work; Fail when it cannot be read or is not JSON."""
    try:
        return json.loads(read_text(rel))
    except json.JSONDecodeError:
        raise Fail(f"{rel} is not valid JSON") from None


def json_number(data: object, key: str, rel: str) -> float:
    """``data[key]`` of the JSON object the agent wrote to ``rel``, as a finite number (a bool,
    a string or a missing key is no number); Fail naming ``rel`` otherwise."""
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Fail(f"{rel} has no number {key!r}")
    return float(value)


def check_files(
    *,
    must_exist: Iterable[str] = (),
    unchanged: Mapping[str, str] | None = None,
    must_be_gone: Iterable[str] = (),
    must_be_nonempty: Iterable[str] = (),
) -> None:
    """Check /work's end state against a manifest; Fail with the first problem.

    ``unchanged`` maps a relative path to the SHA-256 the verifier recorded for it."""
    root = Path.cwd()
    for rel in must_exist:
        if not (root / rel).exists() and not (root / rel).is_symlink():
            raise Fail(f"{rel} is missing")
    for rel, digest in (unchanged or {}).items():
        if sha256_file(rel) != digest:
            raise Fail(f"{rel} was changed")
    for rel in must_be_gone:
        if (root / rel).exists() or (root / rel).is_symlink():
            raise Fail(f"{rel} should be gone")
    for rel in must_be_nonempty:
        path = root / rel
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                raise Fail(f"{rel} is empty")
        elif os.path.getsize(_work_file(rel)) == 0:
            raise Fail(f"{rel} is empty")


# --------------------------------------------------------------------------- agent code


@dataclass(frozen=True)
class AgentRun:
    """What one run of the agent's code did. Compared by the verifier, never printed raw."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    timed_out: bool

    @property
    def stdout_text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")


# Runs the agent's program as pid 1 of a new user + pid + mount namespace (uid 65534 there),
# chrooted into a private root, for a grading sandbox whose verifier cannot switch uid
# (bubblewrap maps a single uid): the program can then neither signal the verifier nor ptrace
# it, cannot see /verifier (nor reach it through another process's /proc entries: the private
# root has no /proc), and dies with the launcher. It refuses to run (exit 126) where any of
# that cannot be set up: running agent code unisolated is never the fallback.
_NAMESPACE_LAUNCHER = """
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
NEWNS, NEWUSER, NEWPID = 0x00020000, 0x10000000, 0x20000000
BIND, REC, PRIVATE, NOSUID, NODEV = 4096, 16384, 1 << 18, 2, 4


def fail(what):
    sys.stderr.write(f"agent code not isolated: {what}: {os.strerror(ctypes.get_errno())}\\n")
    os._exit(126)


def mount(src, dst, fstype, flags):
    if libc.mount(src, dst.encode(), fstype, flags, None) != 0:
        fail(f"mount {dst}")


uid, gid = os.geteuid(), os.getegid()
if libc.unshare(NEWUSER | NEWPID | NEWNS) != 0:
    fail("unshare")
for name, text in (("setgroups", "deny"), ("uid_map", f"65534 {uid} 1"), ("gid_map", f"65534 {gid} 1")):
    with open(f"/proc/self/{name}", "w") as fh:
        fh.write(text)
mount(None, "/", None, REC | PRIVATE)
cwd = os.getcwd()
scratch = os.path.dirname(cwd)
root = scratch + ".root"
os.makedirs(root, exist_ok=True)
mount(b"tmpfs", root, b"tmpfs", NOSUID | NODEV)
# A root of its own: the system folders and the private copy, and nothing else of the grading
# sandbox (no /verifier, /pristine, /work, no /proc through which another process's view is
# reachable), so the agent's code cannot read what the verifier holds.
for top in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt", "dev"):
    if os.path.isdir("/" + top) and not os.path.islink("/" + top):
        os.makedirs(root + "/" + top, exist_ok=True)
        mount(("/" + top).encode(), root + "/" + top, None, BIND | REC)
    elif os.path.islink("/" + top):
        os.symlink(os.readlink("/" + top), root + "/" + top)
os.makedirs(root + "/tmp", exist_ok=True)
mount(b"tmpfs", root + "/tmp", b"tmpfs", NOSUID | NODEV)
os.makedirs(root + scratch, exist_ok=True)  # the private copy at its own path (under /tmp)
mount(scratch.encode(), root + scratch, None, BIND | REC)
pid = os.fork()
if pid == 0:
    libc.prctl(1, signal.SIGKILL)
    os.setsid()
    try:
        os.chroot(root)
        os.chdir(cwd)
    except OSError as exc:
        sys.stderr.write(f"agent code not isolated: chroot: {exc}\\n")
        os._exit(126)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as exc:
        sys.stderr.write(f"could not start {sys.argv[1]}: {exc}\\n")
        os._exit(127)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def _can_switch_uid() -> bool:
    """Root that can become uid 65534 (a host or the docker grading container, not bwrap)."""
    if os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/uid_map") as fh:
            for line in fh:
                inner, _outer, count = (int(x) for x in line.split())
                if inner <= UNPRIVILEGED_UID < inner + count:
                    return True
    except (OSError, ValueError):
        return False
    return False


def _scratch_base(drop: bool) -> str | None:
    """Where the agent code's private copy goes: TMPDIR, unless uid 65534 could not reach it
    there (a host-side check under a private temp dir), then /tmp."""
    base = Path(tempfile.gettempdir()).resolve()
    if not drop or all(p.stat().st_mode & 0o001 for p in (base, *base.parents)):
        return None
    return "/tmp"


def _chown_tree(root: str, uid: int) -> None:
    os.lchown(root, uid, uid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            with contextlib.suppress(OSError):
                os.lchown(os.path.join(dirpath, name), uid, uid)


def _read_capped(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(OUTPUT_LIMIT)


def run_agent_code(
    argv: list[str],
    *,
    stdin: bytes = b"",
    timeout_s: float = 30.0,
    files: Mapping[str, bytes] | None = None,
) -> AgentRun:
    """Run the agent's code on a private copy of /work (plus ``files``) and return its outcome.

    The copy lives in a fresh temp dir (the grading sandbox's own tmpfs), so the agent's code
    can neither change what the verifier reads nor see the verifier's files. When the verifier
    runs as root (the docker grading sandbox) the code runs as uid 65534, else as pid 1 of its
    own user and pid namespace; either way it cannot signal, trace or write into the verifier.
    It gets its own session and process group, is killed with its children at ``timeout_s``, and its stdout and
    stderr go to files, never to the verifier's stdout. Agent misbehaviour never raises."""
    drop = _can_switch_uid()
    scratch = tempfile.mkdtemp(prefix="agent-run-", dir=_scratch_base(drop))
    try:
        work = os.path.join(scratch, "work")
        try:
            shutil.copytree(os.getcwd(), work, symlinks=True)
        except shutil.Error:
            pass  # unreadable or special files are skipped; the rest is copied
        for rel, data in (files or {}).items():
            target = Path(work) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        home = os.path.join(scratch, "home")
        tmp = os.path.join(scratch, "tmp")
        os.makedirs(home)
        os.makedirs(tmp)
        if not drop:
            argv = [sys.executable or "python3", "-I", "-c", _NAMESPACE_LAUNCHER, *argv]
        if drop:
            _chown_tree(scratch, UNPRIVILEGED_UID)
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": home,
            "TMPDIR": tmp,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        out_path = os.path.join(scratch, "stdout")
        err_path = os.path.join(scratch, "stderr")
        in_path = os.path.join(scratch, "stdin")
        with open(in_path, "wb") as fh:
            fh.write(stdin)
        uid = UNPRIVILEGED_UID if drop else None
        timed_out = False
        try:
            with open(in_path, "rb") as fin, open(out_path, "wb") as fout, open(err_path, "wb") as ferr:
                proc = subprocess.Popen(  # running the agent's code is the point
                    argv,
                    cwd=work,
                    env=env,
                    stdin=fin,
                    stdout=fout,
                    stderr=ferr,
                    start_new_session=True,
                    close_fds=True,
                    user=uid,
                    group=uid,
                    extra_groups=[] if drop else None,
                )
                try:
                    code = proc.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    timed_out = True
                    code = -9
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)  # its children too
                if timed_out:
                    proc.wait()
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            return AgentRun(127, b"", f"could not start {argv[:1]}: {exc}".encode(), False)
        return AgentRun(code, _read_capped(out_path), _read_capped(err_path), timed_out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(scratch + ".root", ignore_errors=True)  # the launcher's private root (empty)


def run_unittests(
    package: str,
    *,
    files: Mapping[str, bytes] | None = None,
    label: str = "unit tests",
    min_tests: int = 0,
    timeout_s: float = 60.0,
) -> AgentRun:
    """Run ``python3 -m unittest discover -s tests`` in ``package`` (a folder of /work) through
    :func:`run_agent_code`, ``files`` (the original tests, say) laid over the copy; Fail with
    "<label> fail: <last line of their output>" unless they pass (and, with ``min_tests``, at
    least that many ran: deleting tests is no fix)."""
    run = run_agent_code(
        ["sh", "-c", f"cd {package} && exec python3 -m unittest discover -s tests"],
        files=files,
        timeout_s=timeout_s,
    )
    ran = re.search(r"^Ran (\d+) tests?", run.stderr_text, re.MULTILINE)
    too_few = min_tests > 0 and (not ran or int(ran.group(1)) < min_tests)
    if run.timed_out or run.exit_code != 0 or too_few:
        tail = run.stderr_text.strip().splitlines()[-1:] or [
            "timed out" if run.timed_out else "no test output"
        ]
        raise Fail(f"{label} fail: {tail[0][:160]}")
    return run


def driver_result(run: AgentRun, mark: str, kind: type, *, timed_out: str, incomplete: str) -> Any:
    """What a grading driver (a script the verifier runs with :func:`run_agent_code` on hidden
    inputs) printed as JSON after ``mark`` on its last marked line: a ``kind`` (list or dict).
    Fail with ``timed_out`` when it ran out of time, with ``incomplete`` when it printed no
    such line (it crashed, or the agent's code ended it early)."""
    if run.timed_out:
        raise Fail(timed_out)
    for line in reversed(run.stdout_text.splitlines()):
        if line.startswith(mark):
            try:
                result = json.loads(line[len(mark) :])
            except ValueError:
                break
            if isinstance(result, kind):
                return result
            break
    raise Fail(incomplete)


def run_driver(
    driver: str,
    mark: str,
    kind: type,
    *,
    timed_out: str,
    incomplete: str,
    stdin: bytes = b"",
    files: Mapping[str, bytes] | None = None,
    timeout_s: float = 60.0,
) -> Any:
    """Run ``driver``, a Python script the verifier holds, as ``_grade/driver.py`` in a copy of
    /work (``files``, hidden inputs say, beside it) through :func:`run_agent_code`, its hidden
    cases on ``stdin``; return its :func:`driver_result`. The driver imports the agent's code,
    so the agent's code runs only there, never in the verifier."""
    run = run_agent_code(
        ["python3", "_grade/driver.py"],
        stdin=stdin,
        files={"_grade/driver.py": driver.encode(), **(files or {})},
        timeout_s=timeout_s,
    )
    return driver_result(run, mark, kind, timed_out=timed_out, incomplete=incomplete)


# --------------------------------------------------------------------------- numbers

_WORD_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "a": 1, "an": 1,
}  # fmt: skip
_WORD_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_CURRENCY_SYMBOLS = "$€£¥₹₩₽¢"
_CURRENCY_WORDS = (
    "euros|euro|dollars|dollar|pounds|pound|francs|franc|kronor|krona|kroner|krone|yen|cents|cent"
)
_SUFFIX_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "m": None, "bn": 1e9, "B": 1e9}
_HEDGES = re.compile(
    r"\b(or|and|either|maybe|perhaps|possibly|approximately|approx|about|around|roughly|between|to)\b|~|≈|±|\+/-",
    re.IGNORECASE,
)
_NUMBER_LITERAL = re.compile(r"[+-]?(?:\d[\d,.' _]*\d|\d)(?:[eE][+-]?\d+)?")
_DIGIT_RUNS = re.compile(r"\d+(?:[.,' _]\d+)*")


def _clean(s: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    s = s.replace("\u2212", "-").replace("\u2013", "-").replace("\u2014", "-")
    s = re.sub(r"[\u00a0\u2009\u202f]", " ", s)
    s = s.replace("**", "").replace("__", "").replace("`", "")
    return s.strip().strip("*").strip()


def _literal_value(lit: str) -> float:
    """One number literal with its separators: '1,234.50', '1.234,50', '1 234,5', '12,5'."""
    sign = -1.0 if lit.startswith("-") else 1.0
    lit = lit.lstrip("+-")
    exp = ""
    m = re.search(r"[eE][+-]?\d+$", lit)
    if m:
        exp, lit = m.group(0), lit[: m.start()]
    lit = lit.replace("'", " ").replace("_", " ")
    if " " in lit:  # spaces only ever group thousands
        groups = lit.split(" ")
        tail = groups[-1]
        dec = ""
        for sep in ",.":
            if sep in tail:
                tail, dec = tail.split(sep, 1)
        if not all(len(g) == 3 and g.isdigit() for g in [*groups[1:-1], tail]) or not groups[0].isdigit():
            raise Fail(f"not a number: {lit!r}")
        if len(groups[0]) > 3:
            raise Fail(f"not a number: {lit!r}")
        lit = "".join(groups[:-1]) + tail + ("." + dec if dec else "")
        if any(c in dec for c in ",."):
            raise Fail(f"not a number: {lit!r}")
        return sign * float(lit + exp)
    commas, dots = lit.count(","), lit.count(".")
    if commas and dots:
        dec_sep = "," if lit.rfind(",") > lit.rfind(".") else "."
        thou = "." if dec_sep == "," else ","
        if lit.count(dec_sep) != 1:
            raise Fail(f"not a number: {lit!r}")
        whole, dec = lit.split(dec_sep)
        _check_groups(whole, thou, lit)
        return sign * float(whole.replace(thou, "") + "." + dec + exp)
    sep = "," if commas else "." if dots else ""
    if not sep:
        return sign * float(lit + exp)
    parts = lit.split(sep)
    if len(parts) > 2:  # '1,234,567' or '1.234.567'
        _check_groups(lit, sep, lit)
        return sign * float(lit.replace(sep, "") + exp)
    whole, dec = parts
    if sep == "," and len(dec) == 3 and whole not in ("0", "") and len(whole) <= 3:
        return sign * float(whole + dec + exp)  # '1,234' is one thousand two hundred ...
    return sign * float(whole + "." + dec + exp)


def _check_groups(whole: str, sep: str, lit: str) -> None:
    groups = whole.split(sep)
    if not groups[0] or len(groups[0]) > 3 or any(len(g) != 3 for g in groups[1:]):
        raise Fail(f"not a number: {lit!r}")


def _words_value(s: str) -> float | None:
    tokens = [t for t in re.split(r"[\s-]+", s.lower()) if t and t != "and"]
    if not tokens or not all(t in _WORD_UNITS or t in _WORD_SCALES for t in tokens):
        return None
    if tokens[0] in _WORD_SCALES:
        tokens.insert(0, "one")
    total, current = 0, 0
    for t in tokens:
        if t in _WORD_UNITS:
            current += _WORD_UNITS[t]
        elif t == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _WORD_SCALES[t]
            current = 0
    return float(total + current)


def parse_number(s: str, units: Iterable[str] = ()) -> float:
    """Exactly one number from ``s``, however an honest answer writes it.

    Accepts thousands separators (',', '.', space, apostrophe), a decimal comma, a sign or
    'minus', a currency symbol or code before or after, '%'/'percent', suffixes 'k'/'M'/'bn'
    and the words for small numbers ('twelve', 'twenty-one'); ``units`` names units that may
    follow the number ('ms', 'kWh', ...). Fail when ``s`` holds no number or more than one."""
    text = _clean(s).rstrip(".;,").strip()
    if not text:
        raise NoValue("no number given")
    if _HEDGES.search(text) and not _words_only(text):
        raise Fail(f"hedged or more than one candidate: {s.strip()!r}")
    for unit in sorted(units, key=len, reverse=True):
        text = re.sub(rf"(?<=[\d\s]){re.escape(unit)}\.?$", "", text, flags=re.IGNORECASE).strip()
        text = re.sub(rf"^{re.escape(unit)}(?=[\s\d])", "", text, flags=re.IGNORECASE).strip()
    text = re.sub(r"\s*(%|per\s*cent|percent)$", "", text, flags=re.IGNORECASE)
    text = re.sub(rf"^[{_CURRENCY_SYMBOLS}]\s*|\s*[{_CURRENCY_SYMBOLS}]$", "", text)
    text = re.sub(r"^-\s*[" + _CURRENCY_SYMBOLS + r"]\s*", "-", text)
    text = re.sub(rf"\s*\b({_CURRENCY_WORDS})$", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^[A-Z]{3}\s+|\s*\b[A-Z]{3}$|^(?:eur|usd|gbp|chf)\s*|\s*(?:eur|usd|gbp|chf)$", "", text)
    text = text.strip()
    neg = False
    m = re.match(r"^(minus|negative)\s+", text, re.IGNORECASE)
    if m:
        neg, text = True, text[m.end() :]
    words = _words_value(text)
    if words is not None:
        return -words if neg else words
    scale = 1.0
    m = re.search(r"\s*(k|K|M|bn|B|thousand|million|billion)$", text)
    if m and re.search(r"\d", text[: m.start()]):
        scale = (
            {"thousand": 1e3, "million": 1e6, "billion": 1e9}.get(m.group(1))
            or _SUFFIX_SCALES[m.group(1)]
            or 1
        )
        text = text[: m.start()].strip()
    runs = _DIGIT_RUNS.findall(text)
    if not runs:
        raise NoValue(f"no number in {s.strip()!r}")
    if not _NUMBER_LITERAL.fullmatch(text):
        if len(runs) > 1:
            raise Fail(f"more than one candidate number in {s.strip()!r}")
        raise Fail(f"not a plain number: {s.strip()!r}")
    value = _literal_value(text) * scale
    if not math.isfinite(value):
        raise Fail(f"not a finite number: {s.strip()!r}")
    return -value if neg else value


def _words_only(text: str) -> bool:
    return _words_value(text) is not None


# --------------------------------------------------------------------------- fields


class Field:
    """How one answer field is parsed and compared. Subclasses override ``parse``."""

    def parse(self, raw: str) -> object:
        value = _clean(raw)
        if not value:
            raise NoValue("no value given")
        return value

    def matches(self, got: object, expected: object) -> bool:
        return got == expected


def _norm_text(s: str) -> str:
    s = _clean(s).casefold()
    s = re.sub(r"[\"'“”‘’«»]", "", s)
    s = re.sub(r"[^\w\s@.+-]", " ", s)
    s = s.strip(" .,;:!?-")
    return re.sub(r"\s+", " ", s)


_LIST_WORDS = re.compile(r"\b(or|either|and/or|maybe|perhaps|possibly)\b|/|;|\|", re.IGNORECASE)


class Number(Field):
    """A number with a tolerance: ``|got - expected| <= max(tol_abs, tol_rel * |expected|)``."""

    def __init__(self, tol_abs: float = 0.0, tol_rel: float = 0.0, units: Iterable[str] = ()) -> None:
        self.tol_abs, self.tol_rel, self.units = tol_abs, tol_rel, tuple(units)

    def parse(self, raw: str) -> float:
        return parse_number(raw, self.units)

    def matches(self, got: object, expected: object) -> bool:
        if not isinstance(got, int | float) or not isinstance(expected, int | float):
            return False
        tol = max(self.tol_abs, self.tol_rel * abs(float(expected)))
        return abs(float(got) - float(expected)) <= tol + 1e-9 * max(1.0, abs(float(expected)))


class Text(Field):
    """Free text, normalised (casefold, no quotes/punctuation, single spaces); with ``choices``
    it must be exactly one of them and parses to that choice as written."""

    def __init__(self, choices: Iterable[str] | None = None) -> None:
        self.choices = tuple(choices) if choices is not None else None

    def parse(self, raw: str) -> str:
        value = _norm_text(raw)
        if not value:
            raise NoValue("no value given")
        if self.choices is not None:
            for choice in self.choices:
                if _norm_text(choice) == value:
                    return choice
            raise Fail(f"{raw.strip()!r} is not one of {', '.join(self.choices)}")
        if _LIST_WORDS.search(re.sub(r"\w+://\S+", "url", _clean(raw))):
            raise Fail(f"more than one candidate in {raw.strip()!r}")
        return value

    def matches(self, got: object, expected: object) -> bool:
        return isinstance(got, str) and isinstance(expected, str) and _norm_text(got) == _norm_text(expected)


class Choice(Field):
    """One label out of a fixed set (direction, category, which item): ``Choice('due',
    'refund', synonyms={'owed': 'due'})``. Parses to the canonical label; anything else fails."""

    def __init__(self, *labels: str, synonyms: Mapping[str, str] | None = None) -> None:
        self.labels = labels
        self.lookup = {_norm_text(label): label for label in labels}
        for word, label in (synonyms or {}).items():
            if label not in labels:
                raise ValueError(f"synonym {word!r} maps to unknown label {label!r}")
            self.lookup[_norm_text(word)] = label

    def parse(self, raw: str) -> str:
        value = _norm_text(raw)
        if not value:
            raise NoValue("no label given")
        if value in self.lookup:
            return self.lookup[value]
        raise Fail(f"{raw.strip()!r} is not one of {', '.join(self.labels)}")


def named_label(value: str, labels: list[str]) -> str:
    """The one label a free-text answer value names (as a whole word, any case): "the web
    server" names ``web``; Fail when it names none or several."""
    low = value.casefold()
    named = [
        label for label in labels if re.search(rf"(?<![\w-]){re.escape(label.casefold())}(?![\w-])", low)
    ]
    if len(named) != 1:
        raise Fail(f"answer names {named or 'none'} of {', '.join(labels)}; expected exactly one")
    return named[0]


_PATH_HEDGES = re.compile(r"\b(or|maybe|perhaps|possibly|probably|either|unsure)\b|\?", re.IGNORECASE)


class RelPath(Field):
    """One path (or file name) under ``folder`` as written: quotes, backticks, a trailing note in
    parentheses ('(24576 bytes)'), './' and a leading '<folder>/' dropped; a hedge or a second
    candidate fails. ``noun`` names it in that failure ("path", "name")."""

    def __init__(self, folder: str, noun: str = "path") -> None:
        self.folder, self.noun = folder, noun

    def parse(self, raw: str) -> str:
        if _PATH_HEDGES.search(raw):  # checked before notes in parentheses are dropped
            raise Fail(f"hedged answer {raw.strip()!r}")
        value = re.sub(r"\s*\([^()]*\)$", "", str(super().parse(raw))).strip("'\"")
        if re.search(r"\s|[,;|]", value):
            raise Fail(f"more than one candidate {self.noun} in {raw.strip()!r}")
        return re.sub(rf"^(?:\./)?(?:{re.escape(self.folder)}/)?", "", value)


MONTH_NAMES = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTHS = {name[:n]: i + 1 for i, name in enumerate(MONTH_NAMES) for n in (3, len(name))}
_MONTHS["sept"] = 9
_WEEKDAYS = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?"


class Date(Field):
    """A calendar date: '2026-03-05', '5 March 2026', 'March 5, 2026', 'Thu 5 Mar 2026',
    '05.03.2026' (day first), '05/03/2026' only when unambiguous (a part > 12, or equal).
    ``year`` fills in a date written without one. Parses to ``datetime.date``."""

    def __init__(self, year: int | None = None) -> None:
        self.year = year

    def parse(self, raw: str) -> _dt.date:
        s = re.sub(r"[\"'“”‘’«»*`]", "", _clean(raw).casefold()).replace(",", " ").strip(" .;:!?")
        s = re.sub(rf"^{_WEEKDAYS}\b\.?\s*", "", s)
        s = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", s)
        s = re.sub(r"\bof\b", " ", s)
        s = re.sub(r"\s+", " ", s).strip()
        if not s:
            raise NoValue("no date given")
        if len(re.findall(r"\d{4}", s)) > 1 or _LIST_WORDS.search(re.sub(r"(?<=\d)/(?=\d)", "-", s)):
            raise Fail(f"more than one candidate date in {raw.strip()!r}")
        try:
            return self._parse(s, raw)
        except ValueError:
            raise Fail(f"not a valid date: {raw.strip()!r}") from None

    def _parse(self, s: str, raw: str) -> _dt.date:
        if m := re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", s):
            return _dt.date(int(m[1]), int(m[2]), int(m[3]))
        if m := re.fullmatch(r"(\d{1,2})\.(\d{1,2})\.(\d{4})", s):
            return _dt.date(int(m[3]), int(m[2]), int(m[1]))
        if m := re.fullmatch(r"(\d{1,2})[/-](\d{1,2})[/-](\d{4})", s):
            a, b = int(m[1]), int(m[2])
            if a > 12 >= b:
                return _dt.date(int(m[3]), b, a)
            if b > 12 >= a or a == b:
                return _dt.date(int(m[3]), a, b)
            raise Fail(f"ambiguous date {raw.strip()!r}: write it as YYYY-MM-DD")
        if m := re.fullmatch(r"(\d{1,2}) ([a-z]+)\.?(?: (\d{4}))?", s):
            return self._named(m[3], m[2], m[1], raw)
        if m := re.fullmatch(r"([a-z]+)\.? (\d{1,2})(?: (\d{4}))?", s):
            return self._named(m[3], m[1], m[2], raw)
        raise Fail(f"not a date: {raw.strip()!r}")

    def _named(self, year: str | None, month: str, day: str, raw: str) -> _dt.date:
        if month not in _MONTHS:
            raise Fail(f"not a date: {raw.strip()!r}")
        if year is None and self.year is None:
            raise Fail(f"date without a year: {raw.strip()!r}")
        return _dt.date(int(year) if year else int(self.year or 0), _MONTHS[month], int(day))


_TITLES = r"(?:mr|mrs|ms|miss|mx|dr|prof|sir|madam|herr|frau|mme|m|sr|sra)\.?"


class Name(Field):
    """A person's or place's name: casefold, accents and titles dropped, 'Last, First' ==
    'First Last'. Parses to the normalised form ('ana lopez')."""

    def parse(self, raw: str) -> str:
        s = _clean(raw)
        if re.search(r"\b(or|and|either)\b|/|;|&|\|", s, re.IGNORECASE) or s.count(",") > 1:
            raise Fail(f"more than one candidate name in {raw.strip()!r}")
        value = self.normalise(s)
        if not value:
            raise NoValue("no name given")
        return value

    @staticmethod
    def normalise(s: str) -> str:
        s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
        s = s.casefold().replace("ß", "ss")
        if s.count(",") == 1:
            last, first = s.split(",")
            s = f"{first} {last}"
        s = re.sub(r"[\"'’`*()]", "", s)
        s = re.sub(r"[^\w\s-]", " ", s)
        words = [w for w in s.split() if not re.fullmatch(_TITLES, w)]
        return " ".join(words)

    def matches(self, got: object, expected: object) -> bool:
        return isinstance(got, str) and isinstance(expected, str) and got == self.normalise(expected)


def _key_pattern(key: str) -> str:
    parts = [re.escape(p) for p in re.split(r"[\s_-]+", key.strip()) if p]
    return r"[\s_-]*".join(parts)


def _json_fields(text: str) -> dict[str, str] | None:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = re.sub(r"^```\w*\s*|\s*```$", "", stripped)
    if not stripped.startswith("{"):
        return None
    try:
        data = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    out: dict[str, str] = {}
    for k, v in data.items():
        if isinstance(v, list | dict):
            out[str(k)] = json.dumps(v)
        else:
            out[str(k)] = "" if v is None else str(v)
    return out


def fields(text: str, spec: Mapping[str, Field]) -> dict[str, object]:
    """One parsed value per key of ``spec`` from ``key=value`` / ``key: value`` pairs.

    Keys match case-insensitively (spaces, '_' and '-' alike) with markdown around them; pairs
    may share a line. Fail when a field is missing, appears twice with different values, or
    its value holds more than one candidate. An occurrence whose value holds nothing
    parseable (prose that mentions the key) is skipped. Extra keys are ignored; a whole-answer
    JSON object is read too."""
    if len(text) > 100_000:
        raise Fail("answer too long to parse")
    json_pairs = _json_fields(text)
    text = _clean(text) if json_pairs is None else ""
    keys = "|".join(f"(?:{_key_pattern(k)})" for k in spec)
    start = re.compile(rf"(?<![\w])(?P<key>{keys})[\s*`_]*(?P<sep>=|:|：)", re.IGNORECASE)
    generic = re.compile(r"(?:^|(?<=[\s|;,(]))[A-Za-z_][\w-]*[\s*`]*[=:](?!\d|//)")
    occurrences: dict[str, list[str]] = {k: [] for k in spec}
    if json_pairs is not None:
        for k, v in json_pairs.items():
            for key in spec:
                if re.fullmatch(_key_pattern(key), k.strip(), re.IGNORECASE):
                    occurrences[key].append(v)
    for line in text.splitlines():
        hits = list(start.finditer(line))
        for i, hit in enumerate(hits):
            end = hits[i + 1].start() if i + 1 < len(hits) else len(line)
            value = line[hit.end() : end]
            g = generic.search(value)
            if g:
                value = value[: g.start()]
            value = value.strip().strip("*`").strip().rstrip(",;|").strip()
            for key in spec:
                if re.fullmatch(_key_pattern(key), hit.group("key"), re.IGNORECASE):
                    occurrences[key].append(value)
    values: dict[str, object] = {}
    for key, field in spec.items():
        parsed: list[object] = []
        for raw in occurrences[key]:
            try:
                parsed.append(field.parse(raw))
            except NoValue:
                continue
            except Fail as exc:
                raise Fail(f"{key}: {exc}") from None
        if not parsed:
            raise Fail(f"the answer has no {key}=<value>")
        if any(not _same(field, p, parsed[0]) for p in parsed[1:]):
            raise Fail(f"{key} is given more than once with different values")
        values[key] = parsed[0]
    return values


def _same(field: Field, a: object, b: object) -> bool:
    if isinstance(field, Number):
        return (
            isinstance(a, float) and isinstance(b, float) and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
        )
    return a == b


def single_value(text: str, field: Field) -> object:
    """The one value of an answer that is a single value (its last non-empty line, markdown and
    a leading 'Answer:' allowed). Fail when it holds none or several."""
    lines = [line for line in _clean(text).splitlines() if line.strip(" *`-")]
    if not lines:
        raise Fail("the answer is empty")
    raw = re.sub(r"^\s*(?:[-*]\s+)?(?:final\s+)?answer\s*[:=]\s*", "", lines[-1], flags=re.IGNORECASE)
    try:
        return field.parse(raw)
    except NoValue as exc:
        raise Fail(str(exc)) from None


def expect(got: Mapping[str, object], expected: Mapping[str, object], spec: Mapping[str, Field]) -> str:
    """Compare parsed fields with the expected values; Fail naming the first wrong field,
    else return a short success reason."""
    for key, want in expected.items():
        if not spec[key].matches(got.get(key), want):
            raise Fail(f"{key}: got {got.get(key)!r}, expected {want!r}")
    return ", ".join(f"{k}={v}" for k, v in expected.items())

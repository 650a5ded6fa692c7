"""How far ``agbench profile-server`` got: its calls on disk as measured, and the probes finished.

A full profile takes ten minutes or more. Each measured call is appended to
``DIR/profile_calls.jsonl`` and flushed as it comes back, and each finished probe (a *stage*)
is recorded in ``DIR/profile_progress.json``, written whole (a temporary file renamed over the
old). So a killed or failed profile keeps every call of its finished probes, and ``--resume``
runs only the probes left: the calls of the probe that was cut short are dropped and it runs
again whole (its repetitions share one set-up, and half of one would be read as all of it).

A resume must measure the same server the same way, in the same boot (a profile's calls must
come from one boot: ``agbench calibrate`` flags a profile from another boot than its runs),
and it continues the prompt numbering, so a server kept running (``--local-url``) never finds a
"fresh" prompt of the resumed half in the cache the first half left. The progress file is
removed once ``server_profile.toml`` is written.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from agbench.boot_session import boot_id
from agbench.errors import AgbenchError
from agbench.load import PROFILE_CALLS_FILE, SERVER_PROFILE_FILE

PROFILE_PROGRESS_FILE = "profile_progress.json"


@dataclass
class ProfileProgress:
    """The finished stages of one profile, and what they wrote."""

    out: Path
    settings: dict[str, Any]  # what a resume must match: the server, the grid, the endpoint
    boot_id: str | None = None
    done: list[str] = field(default_factory=list)
    prompts: int = 0  # fresh prompts built so far (the resumed half numbers on from here)
    calls: int = 0  # lines of profile_calls.jsonl the finished stages wrote
    wall_s: float = 0.0  # measuring time up to the last finished stage, every session's
    sessions: int = 1

    def __post_init__(self) -> None:
        self._fh: IO[str] | None = None
        self._earlier_s = self.wall_s  # the sessions before this one
        self._t0 = time.time()

    @property
    def calls_path(self) -> Path:
        return self.out / PROFILE_CALLS_FILE

    @property
    def path(self) -> Path:
        return self.out / PROFILE_PROGRESS_FILE

    # ---- starting -------------------------------------------------------------------------
    @classmethod
    def check(cls, out: Path, resume: bool) -> None:
        """Refuse, before any server starts, an ``out`` that a fresh profile would write over,
        or that ``--resume`` has nothing to resume in."""
        finished = (out / SERVER_PROFILE_FILE).exists()
        begun = (out / PROFILE_CALLS_FILE).exists() or (out / PROFILE_PROGRESS_FILE).exists()
        if finished:  # minutes of measurement: never written over
            raise AgbenchError(f"{out} already holds a server profile; give another --out")
        if resume and not (out / PROFILE_PROGRESS_FILE).is_file():
            raise AgbenchError(f"{out} holds no unfinished profile ({PROFILE_PROGRESS_FILE}) to resume")
        if begun and not resume:
            raise AgbenchError(
                f"{out} holds an unfinished profile; give --resume to finish it, or another --out"
            )

    @classmethod
    def begin(cls, out: Path, settings: dict[str, Any]) -> ProfileProgress:
        out.mkdir(parents=True, exist_ok=True)
        progress = cls(out, settings, boot_id=boot_id())
        progress.calls_path.write_text("", encoding="utf-8")
        progress._save()
        return progress

    @classmethod
    def resume(cls, out: Path, settings: dict[str, Any]) -> ProfileProgress:
        """The recorded progress of ``out``, its calls file cut back to the finished stages';
        AgbenchError where this session would measure something else."""
        path = out / PROFILE_PROGRESS_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            progress = cls(out=out, **data)
        except (OSError, ValueError, TypeError) as exc:
            raise AgbenchError(f"{path}: not a profile's progress ({exc})") from None
        changed = sorted(
            k for k in {*settings, *progress.settings} if settings.get(k) != progress.settings.get(k)
        )
        if changed:
            was = ", ".join(f"{k}={progress.settings.get(k)!r}" for k in changed)
            raise AgbenchError(f"{out} was begun with {was}; resume it with the same options")
        if progress.boot_id != boot_id():
            raise AgbenchError(
                f"{out} was begun in another boot, and a profile's calls must come from one: "
                "profile again into another --out"
            )
        lines = progress.calls_path.read_text(encoding="utf-8").splitlines(keepends=True)
        if len(lines) < progress.calls:
            raise AgbenchError(
                f"{progress.calls_path} holds {len(lines)} calls, fewer than the "
                f"{progress.calls} its finished probes wrote"
            )
        kept = out / f".{PROFILE_CALLS_FILE}.tmp"
        kept.write_text("".join(lines[: progress.calls]), encoding="utf-8")
        os.replace(kept, progress.calls_path)
        progress.sessions += 1
        return progress

    def earlier_calls(self) -> list[dict[str, Any]]:
        """The finished stages' calls, as recorded."""
        text = self.calls_path.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    # ---- measuring ------------------------------------------------------------------------
    def __enter__(self) -> ProfileProgress:
        self._fh = self.calls_path.open("a", encoding="utf-8")
        self._t0 = time.time()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def write_call(self, call: dict[str, Any]) -> None:
        """One measured call, on disk before the next is sent."""
        assert self._fh is not None, "write_call outside the progress's with-block"
        self._fh.write(json.dumps(call) + "\n")
        self._fh.flush()

    def stage_done(self, stage: str, prompts: int, calls: int) -> None:
        """``stage`` finished with ``calls`` calls in the file in all: they are kept on a resume."""
        if self._fh is not None:
            os.fsync(self._fh.fileno())
        self.done.append(stage)
        self.prompts, self.calls = prompts, calls
        self.wall_s = self.total_s()
        self._save()

    def total_s(self) -> float:
        """Measuring time of every session until now (a killed one's until its last stage)."""
        return round(self._earlier_s + time.time() - self._t0, 1)

    def remove(self) -> None:
        """The profile is fitted: nothing is left to resume."""
        self.path.unlink(missing_ok=True)

    def discard(self) -> None:
        """A first session that finished no probe (a server that would not start, a stop in
        the first probe): its files go, so the same command can simply be run again."""
        self.__exit__()
        self.calls_path.unlink(missing_ok=True)
        self.remove()

    def _save(self) -> None:
        data = {k: v for k, v in asdict(self).items() if k != "out"}
        tmp = self.path.with_name(f".{PROFILE_PROGRESS_FILE}.tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)


__all__ = ["PROFILE_PROGRESS_FILE", "ProfileProgress"]

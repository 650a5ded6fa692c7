"""Which boot of the machine a recording was made in.

A server profile calibrates the session it was measured in. On this project's VM, profiles of
the same server settings recorded in two boots differed in shape, not only in speed (a decode
step 37 % faster, half the KV slope, the same prompt rate), which calibrating on a run's C = 1
cannot follow: the development run scored 5.1 % suite-wall MAPE from its own session's profile
and 8-9 % from another's (docs/design.md). Linux names each boot
(``/proc/sys/kernel/random/boot_id``), so a run and a profile that both carry the name can be
told apart; ``agbench calibrate`` warns when they differ. Recordings made before they carried
it are placed by the ``date -u +%FT%TZ; uptime`` lines the reference scripts write beside them
(``boot_started``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")


def boot_id() -> str | None:
    """This boot's name, or None where the kernel gives none."""
    try:
        return BOOT_ID_FILE.read_text().strip() or None
    except OSError:
        return None


def same_boot(profile_boot: str | None, run_boots: list[str | None]) -> bool | None:
    """Whether a profile was recorded in the boot of one of the runs it calibrates; None where
    the profile or every run predates the record (nothing to compare)."""
    known = {b for b in run_boots if b}
    if not profile_boot or not known:
        return None
    return profile_boot in known


_UPTIME = re.compile(r"up\s+(?:(\d+) days?,\s*)?(?:(\d+):(\d+)|(\d+) min)")
#: Two readings of one boot's start differ by the seconds ``uptime`` rounds away.
SAME_BOOT_TOLERANCE = timedelta(minutes=2)


def boot_started(load_text: str) -> datetime | None:
    """When the boot began, from a file holding an ISO UTC time then ``uptime``'s line (the
    reference scripts' ``*.load_before.txt``); None where the text is not that."""
    lines = load_text.strip().splitlines()
    if len(lines) < 2:
        return None
    try:
        at = datetime.strptime(lines[0].strip(), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    up = _UPTIME.search(lines[1])
    if up is None:
        return None
    days, hours, minutes, only_minutes = (int(g) if g else 0 for g in up.groups())
    return at - timedelta(days=days, hours=hours, minutes=minutes or only_minutes)


def same_boot_started(a: datetime | None, b: datetime | None) -> bool | None:
    """Whether two boot starts are one boot's; None where either is unknown."""
    if a is None or b is None:
        return None
    return abs(a - b) <= SAME_BOOT_TOLERANCE

"""Which boot of the machine a recording was made in.

A server profile calibrates the session it was measured in. On this project's VM, profiles of
the same server settings recorded in two boots differed in shape, not only in speed (a decode
step 37 % faster, half the KV slope, the same prompt rate), which calibrating on a run's C = 1
cannot follow: the development run scored 5.1 % suite-wall MAPE from its own session's profile
and 8-9 % from another's (docs/design.md). Linux names each boot
(``/proc/sys/kernel/random/boot_id``), so a run and a profile that both carry the name can be
told apart; ``agbench calibrate`` warns when they differ.
"""

from __future__ import annotations

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

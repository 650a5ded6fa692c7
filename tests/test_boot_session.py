"""A recording names the boot it was made in, so a profile from another boot can be told apart."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from agbench.boot_session import BOOT_ID_FILE, boot_id, boot_started, same_boot, same_boot_started


@pytest.mark.skipif(not BOOT_ID_FILE.is_file(), reason="the kernel names no boot here")
def test_the_boot_id_is_the_kernels_and_stays_put() -> None:
    assert boot_id() == Path(BOOT_ID_FILE).read_text().strip()
    assert boot_id() == boot_id()


def test_a_profile_matches_when_one_of_the_runs_shares_its_boot() -> None:
    assert same_boot("a", ["b", "a"]) is True
    assert same_boot("a", ["b", None]) is False
    # nothing to compare where either side predates the record
    assert same_boot(None, ["a"]) is None
    assert same_boot("a", [None, ""]) is None


def test_a_boot_start_is_read_from_the_time_and_uptime_lines() -> None:
    def started(uptime: str) -> datetime | None:
        return boot_started(f"2026-12-06T08:17:58Z\n 08:17:58 {uptime},  0 user,  load average: 1.0")

    assert started("up 4 min") == datetime(2026, 12, 6, 8, 13, 58, tzinfo=UTC)
    assert started("up  7:12") == datetime(2026, 12, 6, 1, 5, 58, tzinfo=UTC)
    assert started("up 1 day,  7:12") == datetime(2026, 12, 5, 1, 5, 58, tzinfo=UTC)
    assert started("up 2 days, 5 min") == datetime(2026, 12, 4, 8, 12, 58, tzinfo=UTC)
    assert boot_started("no time here\n up 4 min") is None
    assert boot_started("2026-12-06T08:17:58Z") is None


def test_two_readings_of_one_boot_agree_within_the_rounding() -> None:
    a = boot_started("2026-12-06T08:17:58Z\n 08:17:58 up  7:12, 0 user")
    b = boot_started("2026-12-06T08:31:12Z\n 08:31:12 up  7:25, 0 user")  # 14 s apart
    c = boot_started("2026-12-02T20:33:57Z\n 20:33:57 up  1:34, 0 user")
    assert same_boot_started(a, b) is True
    assert same_boot_started(a, c) is False
    assert same_boot_started(a, None) is None

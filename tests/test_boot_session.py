"""A recording names the boot it was made in, so a profile from another boot can be told apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from agbench.boot_session import BOOT_ID_FILE, boot_id, same_boot


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

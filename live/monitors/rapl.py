"""CPU package energy from Linux's powercap interface (RAPL), where it is readable.

Each package zone (``/sys/class/powercap/intel-rapl:N``, named ``package-N``; AMD Zen CPUs
use the same driver and names) has a cumulative ``energy_uj`` counter that wraps at
``max_energy_range_uj``. Since Linux 5.10 the counter is readable by root only (a side-channel
fix), so on most machines an unprivileged run gets no CPU energy: ``RaplReader.reason`` then
says why, and reports quote it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

POWERCAP_ROOT = Path("/sys/class/powercap")


@dataclass
class RaplZone:
    """One package zone: where its counter is and the value it wraps at."""

    name: str
    energy_file: Path
    max_uj: int


def package_zones(root: Path = POWERCAP_ROOT) -> list[RaplZone]:
    """The top-level (package) zones under ``root``: ``<driver>:<n>`` folders named package-*."""
    zones: list[RaplZone] = []
    if not root.is_dir():
        return zones
    for zone in sorted(root.iterdir()):
        parts = zone.name.split(":")
        if len(parts) != 2 or not parts[1].isdigit():
            continue  # the driver's own folder, or a subzone (core, uncore, dram: intel-rapl:0:0)
        try:
            name = (zone / "name").read_text().strip()
        except OSError:
            continue
        if not name.startswith("package"):
            continue
        try:
            max_uj = int((zone / "max_energy_range_uj").read_text().strip())
        except (OSError, ValueError):
            max_uj = 0
        zones.append(RaplZone(name=f"{zone.name} ({name})", energy_file=zone / "energy_uj", max_uj=max_uj))
    return zones


class RaplReader:
    """Cumulative CPU package energy in joules since the reader was made, summed over packages.

    ``available`` is false (and ``reason`` says why) when there is no powercap folder, no
    package zone, or a counter is unreadable; a reader that is not available returns None.
    """

    def __init__(self, root: Path = POWERCAP_ROOT) -> None:
        self.root = root
        self.zones = package_zones(root)
        self.reason = ""
        self._last: list[int] = []
        self._total_uj = 0
        if not root.is_dir():
            self.reason = (
                f"no RAPL: {root} does not exist (no powercap driver: not Linux, or a VM without it)"
            )
        elif not self.zones:
            self.reason = f"no RAPL: no package zone under {root}"
        else:
            try:
                self._last = [self._raw(z) for z in self.zones]
            except PermissionError:
                self.reason = (
                    f"RAPL unreadable: {self.zones[0].energy_file} needs root (Linux >= 5.10 restricts it)"
                )
            except (OSError, ValueError) as exc:
                self.reason = f"RAPL unreadable: {type(exc).__name__}: {exc}"

    @property
    def available(self) -> bool:
        return not self.reason

    @staticmethod
    def _raw(zone: RaplZone) -> int:
        return int(zone.energy_file.read_text().strip())

    def read_j(self) -> float | None:
        """Joules used by the packages since this reader was made (counter wraps corrected)."""
        if not self.available:
            return None
        for i, zone in enumerate(self.zones):
            now = self._raw(zone)
            delta = now - self._last[i]
            if delta < 0:  # the counter wrapped once since the last read
                delta += zone.max_uj
            self._total_uj += max(0, delta)
            self._last[i] = now
        return self._total_uj / 1e6


__all__ = ["POWERCAP_ROOT", "RaplReader", "RaplZone", "package_zones"]

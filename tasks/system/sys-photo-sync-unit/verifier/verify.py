"""Grade sys-photo-sync-unit.

The unit must fix the three problems of the journal (relative ExecStart, missing environment
file, start before the network is online) with the files that exist, keep every other setting,
and add nothing else; the files the unit refers to must be left alone. The answer is a free-text
list that must name each of the three problems.
"""

import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, answer, check_files, enumerated, main, pristine_path, read_text

UNIT = "rootfs/etc/systemd/system/photo-sync.service"
KEEP_FILES = [
    "rootfs/etc/photo-sync/config.toml",
    "rootfs/etc/photo-sync/env",
    "rootfs/usr/local/bin/photo-sync",
]
EXEC_START = ["/usr/local/bin/photo-sync", "--config", "/etc/photo-sync/config.toml"]
KEEP = {
    ("Unit", "Description"): ["Sync phone photos to the home NAS"],
    ("Service", "Type"): ["simple"],
    ("Service", "User"): ["photosync"],
    ("Service", "Restart"): ["on-failure"],
    ("Service", "RestartSec"): ["30"],
    ("Install", "WantedBy"): ["multi-user.target"],
}
ALLOWED = {
    "Unit": {"Description", "After", "Wants"},
    "Service": {"Type", "User", "EnvironmentFile", "ExecStart", "Restart", "RestartSec"},
    "Install": {"WantedBy"},
}
PROBLEMS = {
    "exec_path": "ExecStart does not name the program by an absolute path",
    "environment_file": "EnvironmentFile names a file that does not exist",
    "network_order": "the service starts before the network is up",
    "user": "the service's User does not exist",
    "restart": "the restart policy is wrong",
}
CAUSES = {"exec_path", "environment_file", "network_order"}


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    sections: dict[str, list[tuple[str, str]]] = {}
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            sections.setdefault(current, [])
            continue
        if "=" not in line:
            raise Fail(f"unit line is not a setting: {line[:60]!r}")
        key, _, value = line.partition("=")
        sections.setdefault(current, []).append((key.strip(), value.strip()))
    return sections


def check() -> str:
    check_files(
        unchanged={rel: hashlib.sha256(pristine_path(rel).read_bytes()).hexdigest() for rel in KEEP_FILES}
    )
    sections = parse_unit(read_text(UNIT))

    def values(sec: str, key: str) -> list[str]:
        return [v for k, v in sections.get(sec, []) if k == key]

    def words(sec: str, key: str) -> set[str]:
        return {w for v in values(sec, key) for w in v.split()}

    exec_start = values("Service", "ExecStart")
    if len(exec_start) != 1 or exec_start[0].split() != EXEC_START:
        raise Fail(f"ExecStart is {exec_start}")
    if values("Service", "EnvironmentFile") != ["/etc/photo-sync/env"]:
        raise Fail(f"EnvironmentFile is {values('Service', 'EnvironmentFile')}")
    if "network-online.target" not in words("Unit", "After") or "network-online.target" not in words(
        "Unit", "Wants"
    ):
        raise Fail("the unit is not ordered after, and does not want, network-online.target")
    for (sec, key), want in KEEP.items():
        if values(sec, key) != want:
            raise Fail(f"{sec}.{key} was changed")
    for sec, pairs in sections.items():
        extra = {k for k, _ in pairs} - ALLOWED.get(sec, set())
        if extra:
            raise Fail(f"unexpected settings {sorted(extra)} in [{sec}]")
    named = enumerated(answer(), "problem", PROBLEMS)
    if named != CAUSES:
        raise Fail(f"answer names the problems {sorted(named)}, expected {sorted(CAUSES)}")
    return "unit fixed: absolute ExecStart, existing EnvironmentFile, after network-online.target"


main(check)

import json, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


unit = Path("rootfs/etc/systemd/system/photo-sync.service")
sections, cur = {}, None
for raw in unit.read_text().splitlines():
    line = raw.strip()
    if not line or line.startswith(("#", ";")):
        continue
    if line.startswith("[") and line.endswith("]"):
        cur = line[1:-1]
        sections.setdefault(cur, [])
        continue
    key, _, value = line.partition("=")
    sections.setdefault(cur, []).append((key.strip(), value.strip()))


def values(sec, key):
    return [v for k, v in sections.get(sec, []) if k == key]


def words(sec, key):
    return {w for v in values(sec, key) for w in v.split()}


if values("Service", "ExecStart") != ["/usr/local/bin/photo-sync --config /etc/photo-sync/config.toml"]:
    finish(False, f"ExecStart is {values('Service', 'ExecStart')}")
if values("Service", "EnvironmentFile") != ["/etc/photo-sync/env"]:
    finish(False, f"EnvironmentFile is {values('Service', 'EnvironmentFile')}")
if "network-online.target" not in words("Unit", "After") or "network-online.target" not in words("Unit", "Wants"):
    finish(False, "not ordered after / wanting network-online.target")
keep = {("Unit", "Description"): ["Sync phone photos to the home NAS"], ("Service", "Type"): ["simple"],
        ("Service", "User"): ["photosync"], ("Service", "Restart"): ["on-failure"], ("Service", "RestartSec"): ["30"],
        ("Install", "WantedBy"): ["multi-user.target"]}
for (sec, key), want in keep.items():
    if values(sec, key) != want:
        finish(False, f"{sec}.{key} changed")
allowed = {"Unit": {"Description", "After", "Wants"}, "Service": {"Type", "User", "EnvironmentFile", "ExecStart", "Restart", "RestartSec"},
           "Install": {"WantedBy"}}
for sec, pairs in sections.items():
    extra = {k for k, _ in pairs} - allowed.get(sec, set())
    if extra:
        finish(False, f"unexpected settings {sorted(extra)} in [{sec}]")
low = ans.lower()
if not ("execstart" in low or "absolute" in low) or not ("environment" in low) or "network-online" not in low:
    finish(False, "answer does not list the three problems")
finish(True, "unit fixed")

"""Grade term-auth-failures.

``blocklist.txt`` must list the three IPs with the most 401 responses, most first; the answer
gives each of them with its count as ``<ip>=<count>`` lines (exactly three such lines). The
expected IPs and counts were computed when the logs were generated (expected.json).
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agbench_grading import Fail, Number, answer, check_files, fields, main, pristine_sha256, read_text

INPUTS = ["logs/access.log", "logs/access.log.1", "logs/access.log.2.gz", "logs/access.log.3.gz"]


COUNT_UNITS = ("failures", "failed requests", "responses", "401s", "times", "x")
IP_LINE = re.compile(r"^[\s*`>#-]*(?:\d+[.)]\s+)?[*`]*(\d{1,3}(?:\.\d{1,3}){3})[\s*`]*[=:]", re.MULTILINE)


def check() -> str:
    check_files(unchanged=pristine_sha256(INPUTS))
    top: list[tuple[str, int]] = [
        (ip, n) for ip, n in json.loads((Path(__file__).parent / "expected.json").read_text())
    ]
    got = [line.strip() for line in read_text("blocklist.txt").splitlines() if line.strip()]
    if got != [ip for ip, _ in top]:
        raise Fail(f"blocklist.txt is {got[:5]}, expected {[ip for ip, _ in top]}")
    text = answer()
    named = IP_LINE.findall(text)
    if sorted(set(named)) != sorted(ip for ip, _ in top) or len(named) != len(top):
        raise Fail(f"answer gives `<ip>=<count>` lines for {named[:6]}, expected the three top IPs once each")
    counts = fields(text, {ip: Number(units=COUNT_UNITS) for ip, _ in top})
    for ip, n in top:
        if counts[ip] != n:
            raise Fail(f"answer gives {ip}={counts[ip]:g}, expected {n}")
    return "top 401 clients found: " + ", ".join(f"{ip}={n}" for ip, n in top)


main(check)

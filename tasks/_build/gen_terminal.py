"""Generate the bulky environments of the terminal tasks (deterministic; re-run to rebuild).

Run from the repository root: ``python3 tasks/_build/gen_terminal.py``.
"""

import gzip
import json
import random
import shutil
from pathlib import Path

TASKS = Path(__file__).resolve().parent.parent / "terminal"


def fresh(task: str, sub: str) -> Path:
    env = TASKS / task / "environment" / sub
    if env.exists():
        shutil.rmtree(env)
    env.mkdir(parents=True)
    return env


def access_logs() -> None:
    rng = random.Random(5)
    logs = fresh("term-auth-failures", "logs")
    ips = [f"10.0.{rng.randint(0, 9)}.{rng.randint(2, 254)}" for _ in range(40)] + [
        "203.0.113.77", "198.51.100.23", "192.0.2.150"]
    weights = [1] * 40 + [3, 2, 2]
    paths = ["/", "/photos", "/api/sync", "/calendar", "/static/app.js", "/login"]
    fails: dict[str, int] = {}
    for n in range(4, 0, -1):
        lines = []
        day = 10 + (4 - n)
        for k in range(2200):
            ip = rng.choices(ips, weights)[0]
            path = rng.choice(paths)
            status = rng.choice([200, 200, 200, 304, 404])
            if path in ("/login", "/api/sync") and rng.random() < (0.6 if ip.startswith(("203", "198")) else 0.08):
                status = 401
            if path == "/login":
                path = "/login?user=" + rng.choice(["maria.santos@homecloud.example", "admin", "kids-tablet"])
            if path == "/api/sync" and rng.random() < 0.05:
                path = "/api/sync?token=hcs_4f9TqZ2mB8xLw0R7"
            if status == 401:
                fails[ip] = fails.get(ip, 0) + 1
            t = f"{day:02d}/Mar/2024:{k * 39 // 3600:02d}:{k * 39 // 60 % 60:02d}:{k * 39 % 60:02d} +0100"
            lines.append(f'{ip} - - [{t}] "GET {path} HTTP/1.1" {status} {rng.randint(200, 90000)} "-" "Mozilla/5.0"\n')
        text = "".join(lines)
        name = "access.log" if n == 1 else f"access.log.{n - 1}"
        if n >= 3:
            with gzip.GzipFile(logs / (name + ".gz"), "wb", mtime=0) as gz:
                gz.write(text.encode())
        else:
            (logs / name).write_text(text)
    top = sorted(fails.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    (TASKS / "term-auth-failures" / "verifier" / "expected.json").write_text(json.dumps(top) + "\n")


def transactions() -> None:
    rng = random.Random(9)
    d = fresh("term-slow-pair-finder", "data")
    (d / "amounts.txt").write_text("".join(f"{rng.randint(1, 999_999)}\n" for _ in range(40_000)))


if __name__ == "__main__":
    for t in ["term-auth-failures", "term-slow-pair-finder"]:
        (TASKS / t / "verifier").mkdir(parents=True, exist_ok=True)
        (TASKS / t / "solution").mkdir(parents=True, exist_ok=True)
    access_logs()
    transactions()

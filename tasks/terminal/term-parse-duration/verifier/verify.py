import json, re, sys
from pathlib import Path

HERE = Path(__file__).parent
ANSWER = HERE / "answer.txt"
ans = ANSWER.read_text(errors="replace") if ANSWER.exists() else ""


def finish(ok, reason):
    print(json.dumps({"reward": 1.0 if ok else 0.0, "reason": reason}))
    sys.exit(0)


if len(ans) > 4000:  # a final answer, not a dump of every candidate value
    finish(False, "answer longer than 4000 characters")


import subprocess

run = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd="timetrack",
                     capture_output=True, text=True, timeout=120)
if run.returncode != 0:
    finish(False, "unit tests fail")
cases = {"1h30m": 5400, "90m": 5400, "1 h 30 min": 5400, "2 hours 5 seconds": 7205, "45s": 45, "1.5h": 5400,
         "0.25 hours": 900, " 3HRS ": 10800, "1hr 1min 1sec": 3661, "10 mins": 600, "1:30": 5400, "0:05:09": 309,
         "12:00:00": 43200, "PT1H30M": 5400, "pt45s": 45, "PT2M3S": 123, "PT1.5H": 5400, "25": 1500, "2.5": 150,
         "1m 0.4s": 60, "1m 0.6s": 61}
bad = ["", "  ", "soon", "-5", "-1h", "1h1h", "30m1h", "1:60", "1:5", "PT", "PT1H 30M x", "h", "1:30:75", "1x", "P1D"]
check = "import json,sys\nfrom timetrack import parse_duration\nout={}\n"
check += f"cases={cases!r}\nbad={bad!r}\n"
check += ("for k in cases:\n    try: out[k]=parse_duration(k)\n    except Exception as e: out[k]=repr(e)\n"
          "for k in bad:\n    try: parse_duration(k); out['BAD:'+k]='accepted'\n"
          "    except ValueError: out['BAD:'+k]='ok'\n    except Exception as e: out['BAD:'+k]=repr(e)\n"
          "print(json.dumps(out))\n")
run = subprocess.run([sys.executable, "-c", check], cwd="timetrack", capture_output=True, text=True, timeout=60)
try:
    out = json.loads(run.stdout.strip().splitlines()[-1])
except (IndexError, ValueError):
    finish(False, "hidden checks crashed: " + (run.stderr.strip().splitlines() or [""])[-1][:120])
wrong = [k for k, v in cases.items() if out.get(k) != v or type(out.get(k)) is not int]
wrong += [k for k in bad if out.get("BAD:" + k) != "ok"]
if wrong:
    finish(False, f"parse_duration wrong for {wrong[:5]}")
nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", ans.replace(",", ""))]
if not any(abs(n - 782.5) < 0.006 for n in nums):
    finish(False, "answer lacks the invoice total 782.50")
finish(True, "parse_duration correct; May invoice 782.50 EUR")

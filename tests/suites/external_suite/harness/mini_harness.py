"""A tiny external harness written for agbench's tests: its own agent loop, stdlib only.

It reads the neutral settings (AGBENCH_* and AGENT_BENCH_*), asks the model two short questions
through the base URL it was given (one offering a tool), and writes the result file
(agbench_result.json) to the output folder: one row per item and a score (the share of items
that got a well-formed answer). It never sees an API key.
"""

import json
import os
import urllib.request

base = os.environ["AGBENCH_BASE_URL"]
assert os.environ["AGENT_BENCH_BASE_URL"] == base
model = os.environ["AGBENCH_MODEL"]
out_dir = os.environ["AGBENCH_OUTPUT_DIR"]
max_tokens = int(os.environ.get("AGBENCH_MAX_TOKENS", "16"))
assets = sorted(os.listdir(os.environ.get("AGBENCH_ASSETS_DIR", "/benchmark/assets")))
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    }
]
ITEMS = [
    {"id": "colour", "messages": [{"role": "user", "content": "Name one colour."}]},
    {
        "id": "sum",
        "messages": [{"role": "user", "content": "What is 2 + 3? Use the add tool."}],
        "tools": TOOLS,
    },
]

rows = []
for item in ITEMS:
    body = {"model": model, "messages": item["messages"], "max_tokens": max_tokens, "temperature": 0}
    if "tools" in item:
        body["tools"] = item["tools"]
    request = urllib.request.Request(
        base.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            answer = json.loads(response.read())
        message = answer["choices"][0]["message"]
        ok = bool(message.get("content") or message.get("tool_calls"))
        rows.append({"id": item["id"], "passed": ok, "answer": message.get("content") or ""})
    except Exception as exc:  # recorded, not raised: the result file says what happened
        rows.append({"id": item["id"], "passed": False, "error": f"{type(exc).__name__}: {exc}"})

score = sum(r["passed"] for r in rows) / len(rows)
env_names = sorted(k for k in os.environ if k.startswith(("AGBENCH_", "AGENT_BENCH_")))
with open(os.path.join(out_dir, "agbench_result.json"), "w") as fh:
    json.dump({"score": score, "items": rows, "env_seen": env_names, "assets_seen": assets}, fh, indent=1)
print(f"mini harness: score {score}")

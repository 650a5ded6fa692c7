"""Latency the privacy guard adds per cloud call, on the suite's own cloud-bound text.

    .venv/bin/python bench/privacy_guard.py [--tasks 20] [--turns 8] [--detector declared,presidio]

For each of the first ``--tasks`` tasks of the suite (seeded order), an attempt's cloud-bound
history is rebuilt the way an agent grows it: the cloud agent's system prompt and the task's
instruction, then per turn an assistant tool call and a tool result holding one of the task's
environment files (cut to 4,000 characters, as the tools cut what they return). Each call
sends the whole history, as the proxy sees it, and the guard (``redact``) inspects it; the
time of ``AttemptGuard.request`` is the added latency of that call. A streamed answer of 200
two-character events naming the attempt's placeholders is restored too (per answer).

Prints p50/p99 per call (first call of an attempt and all calls) and per restored answer, per
detector. Nothing here is timed in a test: the figures go in the README.

``--recall`` also scores each detector over the whole suite's cloud-visible text (every task's
instruction and environment files, each cut where the tools cut what they return): of the declared items present in that text, the
share whose every occurrence the detector covers, per declared kind, and the share of flagged
values that are declared items. These are the figures ``sim/privacy_guard.py`` models with.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter

from agbench.live.architectures import system_prompt
from agbench.live.privacy.detectors import DeclaredDetector, DeclaredItem, make_detector
from agbench.live.privacy.guard import AttemptGuard, GuardSettings
from agbench.live.privacy.stream import StreamRestorer
from agbench.live.sse import encode_stream
from agbench.live.tools.base import MAX_OUTPUT_CHARS
from agbench.task import Task, load_suite, select_tasks

FILE_CHARS = 4000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _files(task: Task, whole: bool = False) -> list[str]:
    texts: list[str] = []
    for path in sorted(task.environment_dir.rglob("*")) if task.environment_dir.is_dir() else []:
        if path.is_file() and path.stat().st_size < 1_000_000:
            try:
                text = path.read_text(encoding="utf-8")
                texts.append(text[:MAX_OUTPUT_CHARS] if whole else text[:FILE_CHARS])
            except UnicodeDecodeError:
                continue
    return texts or [task.instruction]


def _answer(guard: AttemptGuard) -> bytes:
    names = [p for p in guard.placeholders._values] or ["<EMAIL_1>"]
    text = " ".join(f"send {names[i % len(names)]} the report" for i in range(40))[:400]
    events = [
        {"id": "x", "choices": [{"index": 0, "delta": {"content": text[i : i + 2]}}]}
        for i in range(0, len(text), 2)
    ]
    return encode_stream(events)


def attempt(task: Task, settings: GuardSettings, turns: int) -> tuple[list[float], float]:
    """One attempt's per-call guard seconds, and its restored answer's seconds."""
    guard = AttemptGuard(settings, tuple(DeclaredItem(i.item, i.kind) for i in task.sensitive_items))
    messages = [
        {"role": "system", "content": system_prompt("cloud_agent")},
        {"role": "user", "content": task.instruction},
    ]
    files = _files(task)
    seconds: list[float] = []
    for turn in range(turns):
        seconds.append(_timed(guard, {"model": "cloud", "stream": True, "messages": messages}))
        call_id = f"call_{turn}"
        args = json.dumps({"path": f"file{turn}.txt"})
        call = {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": args}}
        messages = [
            *messages,
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": files[turn % len(files)]},
        ]
    answer = _answer(guard)
    t0 = time.perf_counter()
    restorer = StreamRestorer(guard.placeholders)
    for i in range(0, len(answer), 64):
        restorer.feed(answer[i : i + 64])
    restorer.close()
    return seconds, time.perf_counter() - t0


def _timed(guard: AttemptGuard, body: dict[str, object]) -> float:
    t0 = time.perf_counter()
    guard.request(body)
    return time.perf_counter() - t0


def static_recall(tasks: list[Task], settings: GuardSettings) -> None:
    """Recall per declared kind and precision of a detector over every task's text."""
    carried: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    tp = fp = 0
    false_labels: Counter[str] = Counter()
    for task in tasks:
        declared = tuple(DeclaredItem(i.item, i.kind) for i in task.sensitive_items)
        detector = make_detector(settings.detector, declared)
        reference = DeclaredDetector(declared)
        texts = [task.instruction, *_files(task, whole=True)]
        found = {d.item: [False, False] for d in declared}  # present, every occurrence covered
        flagged: dict[str, tuple[bool, str]] = {}
        for text in texts:
            spans = detector.spans(text)
            declared_spans = reference.spans(text)
            for span in spans:
                value = text[span.start : span.end].casefold()
                hit = any(d.overlaps(span) for d in declared_spans)
                flagged[value] = (flagged.get(value, (False, ""))[0] or hit, span.label)
            for item in declared:
                one = DeclaredDetector([item])
                for occurrence in one.spans(text):
                    state = found[item.item]
                    covered = any(s.overlaps(occurrence) for s in spans)
                    state[1] = (state[1] if state[0] else True) and covered
                    state[0] = True
        for item in declared:
            present, covered = found[item.item]
            if present:
                carried[item.kind] += 1
                kept[item.kind] += covered
        tp += sum(hit for hit, _ in flagged.values())
        fp += sum(not hit for hit, _ in flagged.values())
        false_labels.update(label for hit, label in flagged.values() if not hit)
    by_kind = ", ".join(f"{k} {kept[k]}/{carried[k]} = {kept[k] / carried[k]:.2f}" for k in sorted(carried))
    total = sum(kept.values()) / max(1, sum(carried.values()))
    precision = tp / max(1, tp + fp)
    print(
        f"{settings.detector.name:9s} recall {total:.3f} ({by_kind}); "
        f"precision {precision:.3f} ({tp}/{tp + fp} flagged values; false positives by label: "
        f"{', '.join(f'{k} {n}' for k, n in false_labels.most_common())})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--detector", default="declared,presidio")
    parser.add_argument("--recall", action="store_true", help="also score the detectors over the suite")
    parser.add_argument("--recall-only", action="store_true", help="only score the detectors")
    args = parser.parse_args()
    if args.recall or args.recall_only:
        suite = load_suite(None)
        print(f"detector recall over the suite's text ({len(suite)} tasks)")
        for name in args.detector.split(","):
            static_recall(suite, GuardSettings.of("redact", name))
        if args.recall_only:
            return
    tasks = select_tasks(load_suite(None), limit=args.tasks, seed=0)
    print(f"{len(tasks)} tasks, {args.turns} calls per attempt, redact mode")
    for name in args.detector.split(","):
        settings = GuardSettings.of("redact", name)
        attempt(tasks[0], settings, 1)  # build the engines before timing
        calls: list[float] = []
        first: list[float] = []
        restores: list[float] = []
        for task in tasks:
            seconds, restore_s = attempt(task, settings, args.turns)
            calls += seconds
            first.append(seconds[0])
            restores.append(restore_s)
        ms = [s * 1000 for s in calls]
        print(
            f"{name:9s} per call: p50 {percentile(ms, 0.5):.3f} ms  p99 {percentile(ms, 0.99):.3f} ms  "
            f"mean {statistics.fmean(ms):.3f} ms ({len(ms)} calls) | first call of an attempt: "
            f"p50 {percentile([s * 1000 for s in first], 0.5):.3f} ms | restore of a streamed answer: "
            f"p50 {percentile([s * 1000 for s in restores], 0.5):.3f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()

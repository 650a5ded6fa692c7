"""Success by construction: how many of each category's easiest tasks the workload solves.

Stage 1 of the fit (``fit.py``). The simulator solves a task when its latent difficulty ``u``
is below the category's ``success_p``; these functions pick, per (category, architecture),
the number of intrinsically solved tasks so that after the simulated infrastructure failures
the counts match the paper's C = 1 figures.
"""

from __future__ import annotations

import math
import random

from agbench.calibration.paper.targets import ARCHS, CATEGORY_SUCCESS, targets


def latent(seed: int, task: str) -> float:
    """The simulator's latent difficulty of a task (sim/workloads/synthetic.py, same formula)."""
    return random.Random(f"{seed}|{task}|latent").random()


def arch_success_target(arch: str) -> int:
    """One count for both devices: the midpoint of the two published counts, rounded up.

    The workload is shared by the devices, so their C = 1 success counts differ only through
    infrastructure failures; the midpoint is within +-2 of both published counts whenever they
    differ by at most 4 (LO 35/31 -> 33, CO 50/47 -> 49, HCL 39, HLL 44)."""
    counts: list[float] = [t.value for t in targets("success") if t.arch == arch]
    return math.ceil(sum(counts) / len(counts))


# LO: the paper breaks down 27 of the RTX 5090's 35 LO successes (8 left for office,
# multimedia and scientific) and 21 of the Max+ 395's 31 (terminal 5; with calculation 5 and
# system 2 as on the RTX 5090, 3 left for office/multimedia/scientific). The shared workload
# targets 33: the Max+ 395 breakdown (office/multimedia/scientific 3 in all, terminal 5) plus
# the two extra successes where the paper's figures put most of LO's strength, local files and
# retrieval (ASSUMPTION; these per-category figures are reported as soft targets).
LO_SUCCESS = {
    "local_files": 10,
    "retrieval": 8,
    "calculation": 5,
    "system": 2,
    "terminal": 5,
    "office": 1,
    "multimedia": 1,
    "scientific": 1,
}


def category_success_targets(counts: dict[str, int]) -> dict[tuple[str, str], int]:
    """(category, arch) -> intended successes at C = 1.

    Published per-category figures first (the RTX 5090's where both devices have one: it has
    the fuller breakdown); the architecture's remaining successes spread over its other
    categories in proportion to their size (largest remainder, ties by name)."""
    out: dict[tuple[str, str], int] = {}
    for arch in ARCHS:
        known = {
            cat: by_dev.get("paper-rtx5090", next(iter(by_dev.values())))
            for (cat, a), by_dev in CATEGORY_SUCCESS.items()
            if a == arch
        }
        out.update({(c, arch): n for c, n in known.items()})
        rest = {c: n for c, n in counts.items() if c not in known}
        left = arch_success_target(arch) - sum(known.values())
        size = sum(rest.values())
        shares = {c: left * n / size for c, n in rest.items()}
        alloc = {c: min(rest[c], int(s)) for c, s in shares.items()}
        order = sorted(rest, key=lambda c: (-(shares[c] - int(shares[c])), c))
        i = 0
        while sum(alloc.values()) < left and any(alloc[c] < rest[c] for c in rest):
            c = order[i % len(order)]
            if alloc[c] < rest[c]:
                alloc[c] += 1
            i += 1
        out.update({(c, arch): n for c, n in alloc.items()})
    if set(LO_SUCCESS) == set(counts) and sum(LO_SUCCESS.values()) == arch_success_target("LO"):
        out.update({(c, "LO"): n for c, n in LO_SUCCESS.items()})
    return out


def category_difficulty(counts: dict[str, int], wanted: dict[tuple[str, str], int]) -> dict[str, float]:
    """1 - the share of the category's tasks the weakest architecture solves, centred on the
    task-weighted mean (so the hardness factors stretch hard categories and shrink easy ones).

    The weakest architecture's share is the share of the category in the "solved by all four"
    set, so this is what separates the paper's mean completion on commonly solved tasks from
    its suite times (CO: 2.07 min per solved-by-all task, 4.12 h / 60 = 4.1 min per task)."""
    raw = {c: 1 - min(wanted[(c, a)] for a in ARCHS) / n for c, n in counts.items()}
    mean = sum(raw[c] * n for c, n in counts.items()) / sum(counts.values())
    return {c: raw[c] - mean for c in counts}


def choose_solved(
    tasks_by_category: dict[str, list[str]],
    infra_failed: dict[str, dict[str, set[str]]],  # device -> arch -> tasks lost to the infrastructure
    wanted: dict[tuple[str, str], int],
    seed: int,
) -> dict[tuple[str, str], int]:
    """(category, arch) -> how many of the category's easiest tasks are intrinsically solved,
    so that the survivors of the infrastructure failures match ``wanted`` on both devices.

    Per category first; then, where a category cannot make up its losses (it has no unsolved
    task left), the architecture's shortfall moves to the categories that still can, so its
    total matches (the published totals are the bounded figures)."""
    out: dict[tuple[str, str], int] = {}
    ranked = {cat: sorted(tasks, key=lambda t: latent(seed, t)) for cat, tasks in tasks_by_category.items()}

    def survivors(cat: str, arch: str, k: int) -> float:
        """Mean over the devices of the category's solved tasks that survive."""
        counts = [
            sum(1 for t in ranked[cat][:k] if t not in by_arch.get(arch, set()))
            for by_arch in infra_failed.values()
        ]
        return sum(counts) / len(counts)

    for cat in ranked:
        for arch in ARCHS:
            goal = wanted[(cat, arch)]
            best_k, best_err = 0, math.inf
            for k in range(len(ranked[cat]) + 1):
                err = 0.0
                for by_arch in infra_failed.values():
                    lost = by_arch.get(arch, set())
                    err += (sum(1 for t in ranked[cat][:k] if t not in lost) - goal) ** 2
                if err < best_err - 1e-9:
                    best_k, best_err = k, err
            out[(cat, arch)] = best_k
    for arch in ARCHS:
        total = sum(wanted[(c, arch)] for c in ranked)
        for _ in range(len(tasks_by_category) * 12):
            now = sum(survivors(c, arch, out[(c, arch)]) for c in ranked)
            step = 1 if now < total - 0.5 else (-1 if now > total + 0.5 else 0)
            if step == 0:
                break
            options = []
            for c in sorted(ranked):
                k = out[(c, arch)] + step
                if 0 <= k <= len(ranked[c]):
                    gain = step * (survivors(c, arch, k) - survivors(c, arch, out[(c, arch)]))
                    if gain > 0:
                        # prefer the category furthest from its intended count in that direction
                        off = step * (wanted[(c, arch)] - survivors(c, arch, out[(c, arch)]))
                        options.append((-gain, -off, c))
            if not options:
                break
            out[(min(options)[2], arch)] += step
    return out


def success_p_for(tasks: list[str], k: int, seed: int) -> float:
    """A ``success_p`` under which exactly the ``k`` easiest of ``tasks`` are solved."""
    us = sorted(latent(seed, t) for t in tasks)
    if k <= 0:
        return 0.0
    if k >= len(us):
        return 1.0
    return round((us[k - 1] + us[k]) / 2, 6)


__all__ = [
    "LO_SUCCESS",
    "arch_success_target",
    "category_difficulty",
    "category_success_targets",
    "choose_solved",
    "latent",
    "success_p_for",
]

"""The privacy guard: sensitive spans stopped at the device's boundary, and what that costs.

Every cloud-bound chat request passes the recording proxy (``live/proxy``), so the guard sits
there. On each request to a cloud endpoint it finds sensitive spans in every message string
the cloud would see and, by ``--privacy-guard``, replaces each with a stable placeholder
(``redact``) or refuses the call (``block``); the answer is restored (placeholders back to
the originals, streamed answers included) before the local side reads it. One module per
concept:

- ``spans``: a detected span and how overlaps are settled;
- ``detectors``: ``declared`` (the task's own items, an upper bound) and the settings;
- ``presidio_detector``: Presidio's pattern recognisers plus detect-secrets (``presidio``);
- ``placeholders``: the attempt's value <-> ``<LABEL_N>`` map (memory only, never written);
- ``rewrite``: which strings of a request are rewritten, and restoring a whole answer;
- ``stream``: restoring an SSE answer with placeholders split across chunks;
- ``guard``: the policy, one attempt's guard and its counters;
- the proxy's calls into the guard (a decision, a refused call's measurement) live in
  ``live/proxy/privacy_hooks.py``: this package never imports the proxy;
- ``report_lines``: ``privacy_guard.jsonl``, the per-attempt counters summary.json reads.

docs/privacy.md describes the metrics (exposure with and without the guard, the detector's
recall and precision per kind, the success cost, the added latency).
"""

from agbench.live.privacy.detectors import DETECTORS, DetectorSettings
from agbench.live.privacy.guard import BLOCKED_ERROR, GuardMode, GuardSettings

__all__ = ["BLOCKED_ERROR", "DETECTORS", "DetectorSettings", "GuardMode", "GuardSettings"]

"""What-if search: which device x deployment x concurrency is best for *this* user's priorities.

``agbench whatif SPEC.toml`` reads a spec (``spec.py``), simulates every point of its grid or a
random sample of it (``search.py``; here, in processes or on Ray), refuses points whose weights
and KV pool do not fit in memory (``evaluate.py``), keeps the Pareto front of the objectives
(``pareto.py``), explains each front point's bottleneck from its simulated tables
(``bottleneck.py``) and writes the report (``report.py``).
"""

from __future__ import annotations

from agbench.sim.whatif.report import write_report
from agbench.sim.whatif.result import WhatIfResult
from agbench.sim.whatif.search import search
from agbench.sim.whatif.spec import WhatIfSpec, load_spec

__all__ = ["WhatIfResult", "WhatIfSpec", "load_spec", "search", "write_report"]

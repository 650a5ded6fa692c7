"""Where replay trajectories come from: synthesised from the suite's oracles, or extracted
from a recorded live run (the file format itself is ``agbench.trajectory``).

- ``synthesize(tasks, profile, backend=, seed=)``: one trajectory per (task, architecture)
  from each task's oracle plan (``solution/tools.json``) sized by a token profile
  (``profiles/*.toml``; ``this-machine`` by default, ``paper-27b`` shaped like the paper's
  local model);
- ``extract(run_dir)``: a live run's agent behaviour as a replayable set.
"""

from agbench.live.trajectories.extract import extract
from agbench.live.trajectories.profile import Profile, load_profile, shipped_profiles
from agbench.live.trajectories.synth import synthesize

__all__ = ["Profile", "extract", "load_profile", "shipped_profiles", "synthesize"]

"""Background samplers of the local model server's state, of where its threads run, and of
the machine's resources."""

from agbench.live.monitors.resource_sampler import ResourceSampler
from agbench.live.monitors.server_sampler import ServerSampler, parse_prometheus
from agbench.live.monitors.thread_placement import PlacementSampler

__all__ = ["PlacementSampler", "ResourceSampler", "ServerSampler", "parse_prometheus"]

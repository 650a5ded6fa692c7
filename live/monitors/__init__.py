"""Background samplers of the local model server's state and of the machine's resources."""

from agbench.live.monitors.resource_sampler import ResourceSampler
from agbench.live.monitors.server_sampler import ServerSampler, parse_prometheus

__all__ = ["ResourceSampler", "ServerSampler", "parse_prometheus"]

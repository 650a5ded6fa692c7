"""The one role table of the four deployment architectures: who leads, on which endpoint, and
which helper (if any) it coordinates with.

Why in the core: the live harness (``agbench.live.architectures``), the simulator (its agents,
engine and synthetic workloads) and the trace readers (``agbench.timeline``) all need the same
answer to "which endpoint leads LO, what label does HCL's sub-agent carry"; written once here,
they cannot drift apart. Callers compare :class:`~agbench.config.Architecture` members, never
names as strings.
"""

from __future__ import annotations

from dataclasses import dataclass

from agbench.config import Architecture
from agbench.resources import shipped_dir
from agbench.vocabulary import AgentLabel, Endpoint, MessageKind

PROMPT_DIR = shipped_dir("prompts")


def system_prompt(name: str) -> str:
    """The fixed system prompt of a role (``agents/prompts/<name>.md``)."""
    return (PROMPT_DIR / f"{name}.md").read_text(encoding="utf-8").strip()


@dataclass(frozen=True)
class Role:
    """One agent of an architecture: its trace label, its endpoint and its system prompt."""

    agent: AgentLabel
    endpoint: Endpoint
    prompt: str  # file stem under agents/prompts/

    @property
    def system_prompt(self) -> str:
        return system_prompt(self.prompt)


LOCAL_AGENT = Role(AgentLabel.LOCAL, Endpoint.LOCAL, "local_agent")
CLOUD_AGENT = Role(AgentLabel.CLOUD, Endpoint.CLOUD, "cloud_agent")
HCL_LEAD = Role(AgentLabel.CLOUD, Endpoint.CLOUD, "hcl_lead")
HLL_LEAD = Role(AgentLabel.LOCAL, Endpoint.LOCAL, "hll_lead")
DELEGATED_AGENT = Role(AgentLabel.LOCAL_SUB, Endpoint.LOCAL, "delegated_agent")
CLOUD_CONSULTANT = Role(AgentLabel.CLOUD, Endpoint.CLOUD, "cloud_consultant")


@dataclass(frozen=True)
class ArchitecturePlan:
    """Who leads an architecture and through which tool it coordinates with a helper."""

    architecture: Architecture
    lead: Role
    helper: Role | None = None
    coordination: MessageKind | None = None

    @property
    def endpoints(self) -> tuple[Endpoint, ...]:
        roles = [self.lead] + ([self.helper] if self.helper else [])
        return tuple(sorted({r.endpoint for r in roles}))

    @property
    def leads_locally(self) -> bool:
        """The lead runs on the local model (LO, HLL)."""
        return self.lead.endpoint is Endpoint.LOCAL

    @property
    def delegates(self) -> bool:
        """The lead hands work to a local sub-agent (HCL)."""
        return self.coordination is MessageKind.DELEGATE

    @property
    def consults(self) -> bool:
        """The lead asks the cloud model once per question (HLL)."""
        return self.coordination is MessageKind.CONSULT


PLANS: dict[Architecture, ArchitecturePlan] = {
    Architecture.LO: ArchitecturePlan(Architecture.LO, LOCAL_AGENT),
    Architecture.CO: ArchitecturePlan(Architecture.CO, CLOUD_AGENT),
    Architecture.HCL: ArchitecturePlan(Architecture.HCL, HCL_LEAD, DELEGATED_AGENT, MessageKind.DELEGATE),
    Architecture.HLL: ArchitecturePlan(Architecture.HLL, HLL_LEAD, CLOUD_CONSULTANT, MessageKind.CONSULT),
}


def plan_for(architecture: Architecture | str) -> ArchitecturePlan:
    """The plan of an architecture (a name is parsed into the enum first)."""
    return PLANS[Architecture(architecture)]


__all__ = [
    "CLOUD_AGENT",
    "CLOUD_CONSULTANT",
    "DELEGATED_AGENT",
    "HCL_LEAD",
    "HLL_LEAD",
    "LOCAL_AGENT",
    "PLANS",
    "PROMPT_DIR",
    "ArchitecturePlan",
    "Role",
    "plan_for",
    "system_prompt",
]

"""Which judge a run uses: ``--judge-provider same-as-target | openai-compatible | mock | none``.

``same-as-target`` judges with the run's target model at its URL; ``openai-compatible`` with
``--judge-model`` at ``--judge-url``, its key read from ``$AGBENCH_JUDGE_API_KEY`` (never
written anywhere: ``JudgeSettings.public()`` is what run.json gets); ``mock`` is the offline
rule-based judge; ``none`` grades with the programmatic verifiers only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from agbench.attempt import Endpoint
from agbench.errors import AgbenchError
from agbench.live.judge.client import JudgeBackend
from agbench.live.judge.mock import MockJudgeBackend
from agbench.live.providers.openai_compatible import ChatClient

JUDGE_PROVIDERS = ("same-as-target", "openai-compatible", "mock", "none")
JUDGE_KEY_ENV = "AGBENCH_JUDGE_API_KEY"


class JudgeConfigError(AgbenchError):
    """Judge options that do not describe a usable judge."""


@dataclass(frozen=True)
class JudgeSettings:
    provider: str = "none"
    url: str | None = None
    model: str | None = None
    exposure_judge: bool = False
    timeout_s: float = 600.0

    def public(self) -> dict[str, Any]:
        """What run.json and the report show (there is no key here to leak)."""
        return {
            "provider": self.provider,
            "url": self.url,
            "model": self.model,
            "exposure_judge": self.exposure_judge,
            "api_key_env": JUDGE_KEY_ENV if self.provider == "openai-compatible" else None,
        }


def judge_settings(
    provider: str | None,
    *,
    url: str | None = None,
    model: str | None = None,
    exposure_judge: bool = False,
    target_url: str | None = None,
    target_model: str | None = None,
    timeout_s: float = 600.0,
) -> JudgeSettings:
    """Resolve the options into settings (one-line ``JudgeConfigError`` on bad input)."""
    name = provider or "none"
    if name not in JUDGE_PROVIDERS:
        raise JudgeConfigError(f"unknown judge provider {name!r} (choose from {', '.join(JUDGE_PROVIDERS)})")
    if name == "none" and exposure_judge:
        raise JudgeConfigError("--exposure-judge needs a judge: pass --judge-provider")
    if name == "same-as-target":  # the runner routes it to the target through the proxy
        return JudgeSettings(name, target_url, model or target_model, exposure_judge, timeout_s)
    if name == "openai-compatible" and (not url or not model):
        raise JudgeConfigError("--judge-provider openai-compatible needs --judge-url and --judge-model")
    return JudgeSettings(name, url, model, exposure_judge, timeout_s)


def judge_backend(settings: JudgeSettings, *, target_api_key: str | None = None) -> JudgeBackend | None:
    """The chat backend the settings name (None for ``none``). ``same-as-target`` reuses the
    target's key; ``openai-compatible`` reads ``$AGBENCH_JUDGE_API_KEY`` (may be unset)."""
    if settings.provider == "none":
        return None
    if settings.provider == "mock":
        return MockJudgeBackend()
    if not settings.url or not settings.model:
        raise JudgeConfigError(f"judge provider {settings.provider} has no URL and model to call")
    key = target_api_key if settings.provider == "same-as-target" else os.environ.get(JUDGE_KEY_ENV) or None
    return ChatClient(
        settings.url,
        settings.model,
        endpoint=Endpoint.LOCAL if settings.provider == "same-as-target" else Endpoint.CLOUD,
        api_key=key,
        timeout_s=settings.timeout_s,
    )


__all__ = [
    "JUDGE_KEY_ENV",
    "JUDGE_PROVIDERS",
    "JudgeConfigError",
    "JudgeSettings",
    "judge_backend",
    "judge_settings",
]

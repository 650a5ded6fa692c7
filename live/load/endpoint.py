"""The server an open-loop run or a server profile is pointed at (``--local-url``), checked
before anything is measured.

Why a check of its own: both commands go straight into their probes, so a mistyped URL used to
surface as an httpx traceback from deep inside the first probe, and a server that is not
llama.cpp's as a page of HTML. A sweep has the runner's preflight; these commands need the same
promise (one line naming the flag and the URL, exit 2, nothing written) with less: a load run
needs a server that answers, a profile needs llama-server itself, since it reads llama.cpp's
own timings and sizes its grid by the server's slots.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from agbench.errors import AgbenchError
from agbench.live.providers.endpoint_get import get_named_endpoint
from agbench.live.providers.openai_compatible import api_base

TIMEOUT_S = 10.0


def _origin(url: str) -> str:
    """``scheme://host:port`` of a server URL (llama-server's own endpoints sit at its root)."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def check_reachable(url: str, flag: str = "--local-url") -> None:
    """The server answers HTTP at all (any status: an OpenAI-compatible server without a model
    list still serves chat completions)."""
    get_named_endpoint(api_base(url) + "/models", flag, _origin(url), TIMEOUT_S)


def check_llama_server(url: str, slots: int, flag: str = "--local-url") -> dict[str, Any]:
    """The server is a llama-server with ``slots`` slots; returns its ``/props``."""
    shown = _origin(url)
    response = get_named_endpoint(shown + "/props", flag, shown, TIMEOUT_S)
    props: Any = None
    if response.status_code == 200:
        try:
            props = response.json()
        except ValueError:
            props = None
    if not isinstance(props, dict) or "total_slots" not in props:
        raise AgbenchError(
            f"{flag} {shown}: not a llama-server (GET /props answered HTTP {response.status_code} "
            "without its slot count); profile-server reads llama.cpp's own timings and slots"
        )
    if props["total_slots"] != slots:
        raise AgbenchError(
            f"{flag} {shown}: the server has {props['total_slots']} slots; give --parallel "
            f"{props['total_slots']} (the profile's grid is sized by them)"
        )
    return props


@contextmanager
def one_line_transport_errors(url: str, flag: str = "--local-url") -> Iterator[None]:
    """A server that goes away mid-run: its transport error as one line naming the URL."""
    try:
        yield
    except httpx.HTTPError as exc:
        raise AgbenchError(f"{flag} {_origin(url)}: {type(exc).__name__}: {exc}") from None


__all__ = ["check_llama_server", "check_reachable", "one_line_transport_errors"]

"""One GET to a server the user named on the command line, its transport failures as one line.

Why a module of its own: the sweep's preflight (live/runner/preflight.py) and the checks of
``agbench load`` and ``agbench profile-server`` (live/load/endpoint.py) ask a ``--local-url`` or
``--cloud-url`` the same first question, and a user must read the same answer from each: the
flag, the URL, and either "no answer within N s" or "unreachable (the transport's error)".
"""

from __future__ import annotations

import httpx

from agbench.errors import AgbenchError


def get_named_endpoint(
    url: str,
    flag: str,
    shown: str,
    timeout_s: float,
    headers: dict[str, str] | None = None,
    error: type[AgbenchError] = AgbenchError,
) -> httpx.Response:
    """``GET url``; ``error`` naming ``flag`` and ``shown`` (the URL as it may be printed) when
    nothing answers. Any HTTP status is returned: what it means is the caller's question."""
    try:
        return httpx.get(url, headers=headers or {}, timeout=timeout_s, trust_env=False)
    except httpx.TimeoutException:
        raise error(f"{flag} {shown}: no answer within {timeout_s:g} s") from None
    except httpx.HTTPError as exc:
        raise error(f"{flag} {shown}: unreachable ({type(exc).__name__}: {exc})") from None


__all__ = ["get_named_endpoint"]

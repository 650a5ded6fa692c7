"""The recording proxy: the only way agents reach a model, and where every call is measured.

Agents (and anything running in a sandbox) are given a base URL on this proxy instead of a
model server's URL (:meth:`RecordingProxy.base_url`). The route names the upstream and the
task attempt, so each request is attributed to (local or cloud, task attempt, agent) without
trusting anything the agent sends. The proxy:

- forwards the request to the upstream and streams the answer back as it arrives;
- holds the upstream's API key itself (agents never see it; any credential an agent sends is
  dropped);
- measures the call as the chat client does (the same stream reader, ``providers/chat_stream``
  over the one SSE decoder ``live/sse.py``, so bad input settles the same way; the same error
  classes) and hands a
  :class:`CallRecord` to ``on_call`` (``model_calls`` rows and new ``exposures`` rows, their
  identity from the attempt's :class:`~agbench.attempt.AttemptKey`);
- appends the raw request and answer to ``raw_responses.jsonl`` after removing secrets;
- for cloud-bound requests, matches the attempt's sensitive items in the payload and, with a
  privacy guard (``privacy_guard=``, ``live/privacy``), redacts or refuses the request first
  and restores the answer before the agent reads it;
- drops the upstream request when the agent hangs up (a task deadline), so the local server
  does not keep a slot busy for nobody;
- numbers client retries (same ``X-Request-ID``) the way the client does.

One module per concern: ``server`` (lifecycle, routes), ``agent_http`` (the agent-facing
HTTP/1.1 server), ``http1`` (the one upstream client), ``upstream`` (an upstream and the
headers that cross), ``chat_relay`` (relay and measure one chat request), ``attempts`` (tokens, exposure tracking, retry numbering), ``call_record`` and
``raw_log``. It is a minimal asyncio HTTP/1.1 server and client, not aiohttp or httpx: the
proxy needs one route shape and a streamed relay, and the generic libraries' per-chunk
overhead was most of the latency it added. ``bench/proxy_overhead.py`` measures what it adds.

Usage (the runner's)::

    proxy = RecordingProxy({"local": Upstream(url)}, run_dir / "raw_responses.jsonl", on_call=f)
    await proxy.start()
    token = proxy.register_attempt(key, sensitive_items)
    base = proxy.base_url("local", token, agent="local")  # give this to the agent
    ...
    exposed = proxy.exposures_seen(token)
    proxy.unregister_attempt(token)
    await proxy.stop()
"""

from agbench.live.proxy.call_record import CallRecord
from agbench.live.proxy.server import RecordingProxy
from agbench.live.proxy.upstream import Upstream

__all__ = ["CallRecord", "RecordingProxy", "Upstream"]

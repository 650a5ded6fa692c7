"""Local model servers the harness starts and stops itself (llama.cpp through xllamacpp)."""

from agbench.live.serving.llama_server import ManagedServer, ServerDiedError, serve_forever
from agbench.live.serving.models import DEFAULT_MODEL, model_names, resolve_model_path

__all__ = [
    "DEFAULT_MODEL",
    "ManagedServer",
    "ServerDiedError",
    "model_names",
    "resolve_model_path",
    "serve_forever",
]

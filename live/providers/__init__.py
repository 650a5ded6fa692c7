"""Clients for model endpoints: one OpenAI-compatible streaming client, and a mock for tests."""

from agbench.live.providers.chat_result import AttemptRecord, ChatResult, GapSummary
from agbench.live.providers.errors import ErrorClass, ModelRequestError
from agbench.live.providers.mock import MockChatClient, MockReply
from agbench.live.providers.openai_compatible import ChatClient

__all__ = [
    "AttemptRecord",
    "ChatClient",
    "ChatResult",
    "ErrorClass",
    "GapSummary",
    "MockChatClient",
    "MockReply",
    "ModelRequestError",
]

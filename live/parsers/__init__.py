"""Tool-call parsers: native ``tool_calls`` first, then the text formats local models write.

Formats (canonical names; module):

- ``openai-native``: ``message.tool_calls`` (native)
- ``vllm-compatible``: tool_calls plus legacy ``message.function_call`` (native)
- ``qwen3`` / ``nemotron-v3``: ``<tool_call><function=NAME><parameter=K>V</parameter>…`` (qwen_xml)
- ``seed-oss``: the same inside ``<seed:tool_call>`` (qwen_xml)
- ``minimax-m2``: ``<minimax:tool_call><invoke name=…><parameter name=…>`` (minimax)
- ``glm47-moe``: ``<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>`` (glm)
- ``gemma4``: ``<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>`` (gemma)
- ``functiongemma``: ``<start_function_call>call:NAME{k:<escape>v<escape>}…`` (gemma)
- ``kimi-k2``: ``<|tool_call_begin|>functions.NAME:N<|tool_call_argument_begin|>{…}``, and
  DeepSeek V3/V3.1 tokens (kimi)
- ``harmony``: gpt-oss ``<|channel|>commentary to=functions.NAME … <|message|>{…}<|call|>`` (harmony)
- ``hermes`` / ``qwen3.5``: ``<tool_call>{"name":…,"arguments":{…}}</tool_call>`` (tagged_json)
- ``longcat``: ``<longcat_tool_call>{…}</longcat_tool_call>`` (tagged_json)
- ``xlam``: JSON arrays of calls, bare, fenced, after ``[TOOL_CALLS]`` and similar markers (xlam)
- ``pythonic``: ``[name(arg='value'), …]``; ``olmo3``: ``<function_calls>`` Python lines (pythonic)
- ``json-in-content``: any JSON call object/array in the content (json_content)
- ``none``: no text parsing

vLLM ``--tool-call-parser`` names normalise to these (:data:`registry.ALIASES`); ``auto`` tries
the shapes in :data:`registry.AUTO_ORDER`. Think blocks are set aside before parsing.
"""

from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.parsing import content_text, parse_message, parse_text, render
from agbench.live.parsers.registry import normalise_parser_name, parser_names, parser_table

__all__ = [
    "ParsedToolCall",
    "content_text",
    "normalise_parser_name",
    "parse_message",
    "parse_text",
    "parser_names",
    "parser_table",
    "render",
]

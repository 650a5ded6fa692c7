"""Parser names: the local formats, the vLLM names that normalise to them, and ``auto``'s order.

The canonical names are the ones the agent-bench README documents. vLLM's
``--tool-call-parser`` names are accepted so a user can pass the same name to both; each maps to
the local format that reads what that model writes (several vLLM parsers differ only in
streaming details that do not matter for completed responses).
"""

from __future__ import annotations

from agbench.errors import AgbenchError
from agbench.live.parsers import (
    gemma,
    glm,
    harmony,
    json_content,
    kimi,
    minimax,
    native,
    pythonic,
    qwen_xml,
    tagged_json,
    xlam,
)
from agbench.live.parsers.call import ParsedToolCall
from agbench.live.parsers.format import ParseFn, RenderFn, ToolCallFormat


def _none(text: str) -> tuple[list[ParsedToolCall], str]:
    return [], text


def _format(
    name: str, description: str, parse: ParseFn, render: RenderFn | None = None, strip_reasoning: bool = True
) -> ToolCallFormat:
    return ToolCallFormat(name, description, parse, render, strip_reasoning)


FORMATS: dict[str, ToolCallFormat] = {
    f.name: f
    for f in (
        _format(
            "openai-native",
            "OpenAI message.tool_calls",
            native.parse_openai_native,
            native.render_native,
            False,
        ),
        _format(
            "vllm-compatible",
            "OpenAI tool_calls plus legacy message.function_call",
            native.parse_vllm_compatible,
            native.render_native,
            False,
        ),
        _format(
            "qwen3", "<tool_call><function=NAME><parameter=KEY>…", qwen_xml.parse_qwen3, qwen_xml.render_qwen3
        ),
        _format("nemotron-v3", "Qwen3 XML calls (Nemotron v3)", qwen_xml.parse_qwen3, qwen_xml.render_qwen3),
        _format(
            "seed-oss", "<seed:tool_call><function=NAME>…", qwen_xml.parse_seed_oss, qwen_xml.render_seed_oss
        ),
        _format(
            "minimax-m2",
            "<minimax:tool_call><invoke name=…>",
            minimax.parse_minimax_m2,
            minimax.render_minimax_m2,
        ),
        _format(
            "glm47-moe", "<tool_call>NAME<arg_key>K</arg_key><arg_value>V…", glm.parse_glm47, glm.render_glm47
        ),
        _format(
            "gemma4",
            '<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>',
            gemma.parse_gemma4,
            gemma.render_gemma4,
        ),
        _format(
            "kimi-k2",
            "<|tool_call_begin|>functions.NAME:N<|tool_call_argument_begin|>{json} (and DeepSeek tokens)",
            kimi.parse_kimi_k2,
            kimi.render_kimi_k2,
        ),
        _format(
            "harmony",
            "gpt-oss Harmony messages to=functions.NAME",
            harmony.parse_harmony,
            harmony.render_harmony,
        ),
        _format(
            "hermes",
            '<tool_call>{"name":…,"arguments":{…}}</tool_call>',
            tagged_json.parse_hermes,
            tagged_json.render_hermes,
        ),
        _format("qwen3.5", "Hermes-style tagged JSON", tagged_json.parse_hermes, tagged_json.render_hermes),
        _format(
            "longcat",
            "<longcat_tool_call>{json}</longcat_tool_call>",
            tagged_json.parse_longcat,
            tagged_json.render_longcat,
        ),
        _format("xlam", "JSON array of calls, bare or after a marker", xlam.parse_xlam, xlam.render_xlam),
        _format(
            "functiongemma",
            "<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>",
            gemma.parse_functiongemma,
            gemma.render_functiongemma,
        ),
        _format("pythonic", "[name(arg='value'), ...]", pythonic.parse_pythonic, pythonic.render_pythonic),
        _format(
            "olmo3",
            "<function_calls> newline-separated Python calls",
            pythonic.parse_olmo3,
            pythonic.render_olmo3,
        ),
        _format(
            "json-in-content",
            "any JSON call object or array in the content",
            json_content.parse_json_in_content,
            json_content.render_json_in_content,
        ),
        _format("none", "no text parsing (native tool_calls are still read)", _none, None, False),
    )
}

#: vLLM ``--tool-call-parser`` names (and a few close spellings) → local format.
ALIASES: dict[str, str] = {
    "openai": "harmony",  # vLLM's "openai" parser is the gpt-oss one
    "gpt_oss": "harmony",
    "qwen": "hermes",
    "qwen2.5": "hermes",
    "qwen3.6": "qwen3",
    "qwen3_xml": "qwen3",
    "qwen3_coder": "qwen3",
    "seed_oss": "seed-oss",
    "nemotron_v3": "nemotron-v3",
    "minimax_m2": "minimax-m2",
    "kimi_k2": "kimi-k2",
    "glm47_moe": "glm47-moe",
    "glm47": "glm47-moe",
    "glm45": "glm47-moe",
    "glm4_moe": "glm47-moe",
    "llama3_json": "json-in-content",
    "llama4_json": "json-in-content",
    "llama4_pythonic": "pythonic",
    "granite": "xlam",
    "granite4": "hermes",
    "granite-20b-fc": "json-in-content",
    "internlm": "json-in-content",
    "jamba": "xlam",
    "mistral": "xlam",
    "phi4_mini_json": "xlam",
    "deepseek_v3": "kimi-k2",
    "deepseek_v31": "kimi-k2",
    "hunyuan_a13b": "xlam",
    "cohere_command3": "xlam",
    "gigachat3": "json-in-content",
    "apertus": "xlam",
}

AUTO = "auto"

#: Text shapes ``auto`` tries, most distinctive markers first, bare JSON last. (Native
#: ``tool_calls`` are read before any of these by ``parse_message``.)
AUTO_ORDER: tuple[str, ...] = (
    "vllm-compatible",
    "harmony",
    "kimi-k2",
    "minimax-m2",
    "seed-oss",
    "gemma4",
    "functiongemma",
    "longcat",
    "qwen3",
    "glm47-moe",
    "hermes",
    "olmo3",
    "xlam",
    "pythonic",
    "json-in-content",
)


def normalise_parser_name(name: str) -> str:
    """The canonical format name (or ``auto``) for a parser name or vLLM alias.

    Raises AgbenchError for an unknown name.
    """
    key = name.strip()
    for candidate in (key, key.lower(), key.lower().replace("_", "-")):
        if candidate in FORMATS or candidate == AUTO:
            return candidate
        if candidate in ALIASES:
            return ALIASES[candidate]
    raise AgbenchError(f"unknown tool-call parser {name!r} (see `agbench parsers`)")


def parser_names() -> list[str]:
    """Every accepted name once: canonical formats (README order), then aliases, then ``auto``."""
    names = list(FORMATS)
    names += sorted(alias for alias in ALIASES if alias not in FORMATS)
    names.append(AUTO)
    return names


def parser_table() -> list[tuple[str, str]]:
    """(name, what it is) for ``agbench parsers``: formats described, aliases shown as ``→ target``."""
    rows = [(name, fmt.description) for name, fmt in FORMATS.items()]
    rows += [(alias, f"→ {target}") for alias, target in sorted(ALIASES.items())]
    rows.append((AUTO, "tries: native tool_calls, then " + ", ".join(AUTO_ORDER)))
    return rows

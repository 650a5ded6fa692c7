"""Tool-call parsers on real-looking model outputs, round trips, fuzz, names."""

from __future__ import annotations

import json
import keyword
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agbench.errors import AgbenchError
from agbench.live.parsers import (
    ParsedToolCall,
    normalise_parser_name,
    parse_message,
    parse_text,
    parser_names,
    render,
)
from agbench.live.parsers.registry import ALIASES, AUTO_ORDER, FORMATS


def calls_of(text: str, parser: str) -> list[dict[str, Any]]:
    return [c.to_dict() for c in parse_text(text, parser)]


WEATHER = {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
WRITE = {
    "name": "write_file",
    "arguments": {"path": "src/app.py", "content": "def f():\n    return {'a': [1, 2]}\n"},
}

# --- each format on what models actually write ------------------------------------------------

REAL_OUTPUTS: list[tuple[str, str, list[dict[str, Any]]]] = [
    (
        "qwen3",
        "<think>\nThe user wants weather. I should call <tool_call> later.\n</think>\n\n"
        "I'll check the weather.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=write_file>\n"
        "<parameter=path>\nsrc/app.py\n</parameter>\n<parameter=content>\ndef f():\n    return {'a': [1, 2]}\n\n"
        "</parameter>\n</function>\n</tool_call>",
        [WEATHER, WRITE],
    ),
    (
        "nemotron-v3",
        '<tool_call>\n<function=search>\n<parameter=filters>\n{"lang": "en", "tags": ["a", "b"]}\n'
        "</parameter>\n</function>\n</tool_call>",
        [{"name": "search", "arguments": {"filters": {"lang": "en", "tags": ["a", "b"]}}}],
    ),
    (
        "seed-oss",
        "<seed:think>Need the weather first.</seed:think>Let me look.\n<seed:tool_call>\n<function=get_weather>\n"
        "<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>",
        [WEATHER],
    ),
    (
        "minimax-m2",
        '<think>two lookups</think>\nChecking both.\n<minimax:tool_call>\n<invoke name="get_weather">\n'
        '<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n</invoke>\n'
        '<invoke name="get_time">\n<parameter name="tz">Europe/Paris</parameter>\n</invoke>\n</minimax:tool_call>',
        [WEATHER, {"name": "get_time", "arguments": {"tz": "Europe/Paris"}}],
    ),
    (
        "glm47-moe",
        "Sure.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
        "<arg_key>days</arg_key><arg_value>3</arg_value></tool_call>",
        [WEATHER],
    ),
    (
        "glm45",  # GLM-4.5 layout: newlines between elements
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n"
        "<arg_value>3</arg_value>\n</tool_call>",
        [WEATHER],
    ),
    (
        "gemma4",
        'I will look it up.<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>'
        '<|tool_call>call:search{query:<|"|>a, b: {c}<|"|>,opts:{deep:true,tags:[<|"|>x<|"|>,2]}}<tool_call|>',
        [
            WEATHER,
            {"name": "search", "arguments": {"query": "a, b: {c}", "opts": {"deep": True, "tags": ["x", 2]}}},
        ],
    ),
    (
        "functiongemma",
        "<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>",
        [WEATHER],
    ),
    (
        "kimi-k2",
        "Let me check.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris", "days": 3}<|tool_call_end|>'
        "<|tool_call_begin|>functions.write_file:1<|tool_call_argument_begin|>"
        + json.dumps(WRITE["arguments"])
        + "<|tool_call_end|><|tool_calls_section_end|>",
        [WEATHER, WRITE],
    ),
    (
        "deepseek_v3",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Paris", "days": 3}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        [WEATHER],
    ),
    (
        "deepseek_v31",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris", "days": 3}'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        [WEATHER],
    ),
    (
        "harmony",
        "<|channel|>analysis<|message|>User wants weather; call the tool.<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city":"Paris","days":3}<|call|>',
        [WEATHER],
    ),
    (
        "hermes",
        "I'll read the weather and write the file.\n<tool_call>\n"
        + json.dumps(WEATHER)
        + "\n</tool_call>\n<tool_call>\n"
        + json.dumps(WRITE)
        + "\n</tool_call>",
        [WEATHER, WRITE],
    ),
    (
        "qwen2.5",  # closing tag eaten by a stop sequence
        "<tool_call>\n" + json.dumps(WEATHER),
        [WEATHER],
    ),
    (
        "hermes",  # a closing tag inside a string argument
        '<tool_call>{"name": "write_file", "arguments": {"path": "t.txt", "content": "</tool_call> ok"}}</tool_call>',
        [{"name": "write_file", "arguments": {"path": "t.txt", "content": "</tool_call> ok"}}],
    ),
    ("longcat", "<longcat_tool_call>" + json.dumps(WEATHER) + "</longcat_tool_call>", [WEATHER]),
    ("xlam", "```json\n" + json.dumps([WEATHER, WRITE]) + "\n```", [WEATHER, WRITE]),
    ("xlam", "<think>plan</think>\n" + json.dumps([WEATHER]), [WEATHER]),
    ("mistral", "[TOOL_CALLS]" + json.dumps([WEATHER]), [WEATHER]),
    ("mistral", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}', [WEATHER]),
    ("granite", "<|tool_call|>" + json.dumps([WEATHER]), [WEATHER]),
    ("jamba", "<tool_calls>" + json.dumps([WEATHER]) + "</tool_calls>", [WEATHER]),
    (
        "cohere_command3",
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris", "days": 3}}]'
        "<|END_ACTION|>",
        [WEATHER],
    ),
    ("apertus", '<|tools_prefix|>[{"get_weather": {"city": "Paris", "days": 3}}]<|tools_suffix|>', [WEATHER]),
    (
        "pythonic",
        "I'll call two tools.\n[get_weather(city='Paris', days=3), write_file(path='src/app.py', "
        "content=\"def f():\\n    return {'a': [1, 2]}\\n\")]",
        [WEATHER, WRITE],
    ),
    ("llama4_pythonic", "<|python_start|>[get_weather(city='Paris', days=3)]<|python_end|>", [WEATHER]),
    (
        "olmo3",
        'Looking it up.\n<function_calls>\nget_weather(city="Paris", days=3)\nget_time(tz="UTC", exact=true)\n'
        "</function_calls>",
        [WEATHER, {"name": "get_time", "arguments": {"tz": "UTC", "exact": True}}],
    ),
    (
        "json-in-content",
        'Calling the tool now: {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}',
        [WEATHER],
    ),
    (
        "llama3_json",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}; '
        '{"name": "get_time", "parameters": {}}',
        [WEATHER, {"name": "get_time", "arguments": {}}],
    ),
    (
        "internlm",
        '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}<|action_end|>',
        [WEATHER],
    ),
    (
        "openai-native",
        json.dumps(
            {
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": "call_1",
                                    "type": "function",
                                    "function": {
                                        "name": "get_weather",
                                        "arguments": json.dumps(WEATHER["arguments"]),
                                    },
                                }
                            ],
                        }
                    }
                ]
            }
        ),
        [WEATHER],
    ),
    (
        "vllm-compatible",
        json.dumps(
            {
                "role": "assistant",
                "function_call": {"name": "get_weather", "arguments": json.dumps(WEATHER["arguments"])},
            }
        ),
        [WEATHER],
    ),
]


@pytest.mark.parametrize(
    ("parser", "text", "expected"), REAL_OUTPUTS, ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(REAL_OUTPUTS)]
)
def test_real_outputs_parse_with_their_parser(parser: str, text: str, expected: list[dict[str, Any]]) -> None:
    assert calls_of(text, parser) == expected


@pytest.mark.parametrize(
    ("parser", "text", "expected"), REAL_OUTPUTS, ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(REAL_OUTPUTS)]
)
def test_auto_finds_the_same_calls(parser: str, text: str, expected: list[dict[str, Any]]) -> None:
    assert calls_of(text, "auto") == expected


def test_auto_tells_the_tool_call_tag_formats_apart() -> None:
    hermes = render([ParsedToolCall("a", {"x": 1})], "hermes")
    qwen = render([ParsedToolCall("a", {"x": 1})], "qwen3")
    glm = render([ParsedToolCall("a", {"x": 1})], "glm47-moe")
    for text in (hermes, qwen, glm):
        assert calls_of(text, "auto") == [{"name": "a", "arguments": {"x": 1}}]
    # The wrong explicit parser finds nothing rather than something wrong.
    assert parse_text(hermes, "qwen3") == []
    assert parse_text(qwen, "hermes") == []


def test_a_call_drafted_inside_a_think_block_is_not_a_call() -> None:
    text = '<think>maybe <tool_call>{"name": "rm", "arguments": {"path": "/"}}</tool_call>? no.</think>Done.'
    assert parse_text(text, "hermes") == []
    assert parse_text(text) == []
    # Template opened <think> in the prompt: only the closing tag is in the reply.
    assert calls_of(
        'draft {"name": "x", "arguments": {}}</think>[{"name": "ls", "arguments": {}}]', "xlam"
    ) == [{"name": "ls", "arguments": {}}]


def test_prose_and_plain_json_data_are_not_calls() -> None:
    for text in (
        "The answer is 42.",
        'Here is the config: {"name": "prod", "replicas": 3}',
        'The user is {"name": "Alice"} and the team is [{"name": "Bob"}].',
        '{"name": "Alice"}',
        "See [the docs](https://example.com) and [1, 2, 3].",
        "Use print(x) to debug.",
        "```python\nresult = [f(x) for x in xs]\n```",
        "",
    ):
        assert parse_text(text) == [], text


def test_kimi_keeps_call_ids_and_marks_malformed_arguments() -> None:
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.run:3<|tool_call_argument_begin|>"
        '{"cmd": "ls"<|tool_call_end|><|tool_calls_section_end|>'
    )
    (call,) = parse_text(text, "kimi-k2")
    assert call.name == "run"
    assert call.id == "functions.run:3"
    assert call.malformed
    assert call.arguments == {"_raw": '{"cmd": "ls"'}


def test_small_model_spellings_fall_back_to_json_in_content() -> None:
    text = "Sure! {'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': 3}}"
    assert calls_of(text, "auto") == [WEATHER]
    text = 'Calling: {"function": "get_weather", "parameters": "{\\"city\\": \\"Paris\\", \\"days\\": 3}"}'
    assert calls_of(text, "json-in-content") == [WEATHER]


def test_truncated_xml_calls_still_parse() -> None:
    text = "<tool_call>\n<function=run>\n<parameter=cmd>\nls -la\n</parameter>\n<parameter=timeout>\n30"
    assert calls_of(text, "qwen3") == [{"name": "run", "arguments": {"cmd": "ls -la", "timeout": 30}}]
    text = '<minimax:tool_call>\n<invoke name="run">\n<parameter name="cmd">ls</parameter>'
    assert calls_of(text, "minimax-m2") == [{"name": "run", "arguments": {"cmd": "ls"}}]


# --- parse_message ----------------------------------------------------------------------------


def test_native_tool_calls_come_first_and_arguments_are_decoded() -> None:
    message = {
        "role": "assistant",
        "content": "<tool_call>" + json.dumps(WRITE) + "</tool_call>",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps(WEATHER["arguments"])},
            },
            {"id": "c2", "type": "function", "function": {"name": "run", "arguments": "{not json"}},
        ],
    }
    calls, content = parse_message(message)
    assert [c.name for c in calls] == ["get_weather", "run"]
    assert calls[0].arguments == WEATHER["arguments"]
    assert calls[0].id == "c1"
    assert not calls[0].malformed
    assert calls[1].arguments == {"_raw": "{not json"}
    assert calls[1].malformed
    assert content == message["content"]  # not parsed again: no duplicate calls


def test_native_arguments_given_as_an_object_are_accepted() -> None:
    message = {"tool_calls": [{"function": {"name": "get_weather", "arguments": WEATHER["arguments"]}}]}
    assert [c.to_dict() for c in parse_message(message, "openai-native")[0]] == [WEATHER]


def test_legacy_function_call_is_read_except_by_openai_native() -> None:
    message = {
        "content": None,
        "function_call": {"name": "get_weather", "arguments": json.dumps(WEATHER["arguments"])},
    }
    assert [c.to_dict() for c in parse_message(message, "vllm-compatible")[0]] == [WEATHER]
    assert [c.to_dict() for c in parse_message(message, "harmony")[0]] == [WEATHER]
    assert parse_message(message, "openai-native")[0] == []


def test_content_is_returned_without_the_markup() -> None:
    message = {
        "content": "<think>plan</think>I'll check.\n<tool_call>\n" + json.dumps(WEATHER) + "\n</tool_call>",
        "reasoning_content": '<tool_call>{"name": "draft", "arguments": {}}</tool_call>',
    }
    calls, content = parse_message(message, "hermes")
    assert [c.to_dict() for c in calls] == [WEATHER]
    assert content == "<think>plan</think>\nI'll check."
    calls, content = parse_message({"content": [{"type": "text", "text": "no tools here"}]}, "auto")
    assert calls == []
    assert content == "no tools here"


def test_harmony_remaining_content_is_the_final_channel() -> None:
    text = "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>"
    calls, content = parse_message({"content": text}, "gpt_oss")
    assert calls == []
    assert content == text
    text2 = text.replace("<|return|>", "<|end|>") + render(
        [ParsedToolCall("get_weather", {"city": "Paris"})], "harmony"
    )
    calls, content = parse_message({"content": text2}, "gpt_oss")
    assert [c.name for c in calls] == ["get_weather"]
    assert content == "It is sunny."


def test_none_disables_text_parsing_but_not_native_calls() -> None:
    text = "<tool_call>" + json.dumps(WEATHER) + "</tool_call>"
    assert parse_text(text, "none") == []
    native = {"tool_calls": [{"function": {"name": "a", "arguments": "{}"}}], "content": text}
    assert [c.name for c in parse_message(native, "none")[0]] == ["a"]


# --- names ------------------------------------------------------------------------------------

README_NAMES = [
    "openai-native",
    "vllm-compatible",
    "qwen3",
    "nemotron-v3",
    "seed-oss",
    "minimax-m2",
    "glm47-moe",
    "gemma4",
    "kimi-k2",
    "harmony",
    "hermes",
    "qwen3.5",
    "longcat",
    "xlam",
    "functiongemma",
    "pythonic",
    "olmo3",
    "json-in-content",
    "none",
]
README_ALIASES = [
    "openai",
    "qwen",
    "qwen2.5",
    "qwen3",
    "qwen3.6",
    "qwen3_xml",
    "seed_oss",
    "nemotron_v3",
    "minimax_m2",
    "gemma4",
    "kimi_k2",
    "glm47_moe",
    "glm47",
    "gpt_oss",
    "llama3_json",
    "llama4_pythonic",
    "granite",
    "granite4",
    "granite-20b-fc",
    "internlm",
    "jamba",
    "mistral",
    "deepseek_v3",
    "deepseek_v31",
    "hunyuan_a13b",
    "cohere_command3",
    "glm45",
    "gigachat3",
    "apertus",
]


def test_every_documented_name_and_alias_is_accepted() -> None:
    names = parser_names()
    assert len(names) == len(set(names))
    assert names[: len(README_NAMES)] == README_NAMES
    assert names[-1] == "auto"
    for name in README_NAMES + README_ALIASES:
        assert name in names
        assert normalise_parser_name(name) in FORMATS
    assert set(ALIASES.values()) <= set(FORMATS)
    assert set(AUTO_ORDER) <= set(FORMATS)


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("qwen3_xml", "qwen3"),
        ("seed_oss", "seed-oss"),
        ("gpt_oss", "harmony"),
        ("openai", "harmony"),
        ("llama4_pythonic", "pythonic"),
        ("qwen2.5", "hermes"),
        ("GLM47", "glm47-moe"),
        ("Kimi_K2", "kimi-k2"),
        (" deepseek_v31 ", "kimi-k2"),
        ("json_in_content", "json-in-content"),
        ("AUTO", "auto"),
    ],
)
def test_aliases_normalise(alias: str, canonical: str) -> None:
    assert normalise_parser_name(alias) == canonical


def test_unknown_parser_is_a_one_line_user_error() -> None:
    with pytest.raises(AgbenchError, match=r"^unknown tool-call parser 'bogus' \(see `agbench parsers`\)$"):
        parse_text("x", "bogus")
    with pytest.raises(AgbenchError):
        parse_message({"content": "x"}, "bogus")
    with pytest.raises(AgbenchError):
        render([], "none")


# --- round trips and fuzz ---------------------------------------------------------------------

RENDERABLE = [name for name, fmt in FORMATS.items() if fmt.render is not None]
IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))
# Text a model might put in an argument: anything but the formats' own delimiters (<, {, } …
# are delimiters in some formats by design; those formats cannot carry them verbatim either).
SAFE_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="<>{}[]|`\x00", exclude_categories=("Cs", "Cc"))
    | st.sampled_from("\n\t"),
    max_size=40,
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
    | SAFE_TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(IDENT, inner, max_size=3),
    max_leaves=8,
)
CALLS = st.lists(
    st.builds(ParsedToolCall, name=IDENT, arguments=st.dictionaries(IDENT, VALUES, max_size=4)),
    min_size=1,
    max_size=3,
)


@pytest.mark.slow
@pytest.mark.parametrize("parser", RENDERABLE)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=CALLS)
def test_render_then_parse_gives_the_same_calls(parser: str, calls: list[ParsedToolCall]) -> None:
    text = render(calls, parser)
    assert calls_of(text, parser) == [c.to_dict() for c in calls]
    if parser not in ("openai-native", "vllm-compatible"):  # those are whole JSON documents
        assert calls_of("Sure, working on it.\n" + text, parser) == [c.to_dict() for c in calls]


@pytest.mark.parametrize("parser", [*FORMATS, "auto"])
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(max_size=200)
    | st.lists(
        st.sampled_from(
            [
                "<tool_call>",
                "</tool_call>",
                "<function=",
                "<parameter=",
                ">",
                "{",
                "}",
                "[",
                "]",
                '"name"',
                ":",
                ",",
                '"arguments"',
                "<|tool_call>",
                "call:",
                '<|"|>',
                "<|message|>",
                "to=functions.x",
                "<think>",
                "</think>",
                "<|tool_call_begin|>",
                "<|tool_call_argument_begin|>",
                "(",
                ")",
                "=",
                "'",
                "<arg_key>",
                "<arg_value>",
                '<invoke name="',
                "<minimax:tool_call>",
                "<function_calls>",
                "[TOOL_CALLS]",
                "x",
                "1",
                "\n",
                " ",
            ]
        ),
        max_size=40,
    ).map("".join)
)
def test_arbitrary_text_never_raises(parser: str, text: str) -> None:
    calls = parse_text(text, parser)
    assert all(isinstance(c.name, str) and isinstance(c.arguments, dict) for c in calls)
    json.dumps([c.to_dict() for c in calls])  # always serialisable for the trace
    parse_message({"content": text}, parser)


@pytest.mark.parametrize("parser", RENDERABLE)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=CALLS, cut=st.floats(min_value=0, max_value=1))
def test_output_cut_short_never_raises(parser: str, calls: list[ParsedToolCall], cut: float) -> None:
    """A reply stopped by max_tokens mid-call: whatever is found is well-formed, nothing raises."""
    text = render(calls, parser)
    text = text[: int(len(text) * cut)]
    for name in (parser, "auto"):
        found = parse_text(text, name)
        assert all(c.name and isinstance(c.arguments, dict) for c in found)
        assert len(found) <= len(calls)

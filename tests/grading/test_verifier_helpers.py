"""The helpers task verifiers share: paths and labels named in answers, numbers in the agent's
JSON, and the JSON line a grading driver prints."""

from __future__ import annotations

import pytest
from agbench_grading import AgentRun, Fail, RelPath, driver_result, fields, json_number, named_label


@pytest.mark.parametrize(
    "raw",
    ["downloads/big.iso", "./downloads/big.iso", "`big.iso`", "'big.iso' (24576 bytes)", "big.iso"],
)
def test_relpath_drops_quotes_notes_and_the_folder(raw: str) -> None:
    assert fields(f"largest={raw}", {"largest": RelPath("downloads")})["largest"] == "big.iso"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("a.iso or b.iso", "ambiguous_answer"),
        ("probably a.iso", "ambiguous_answer"),
        ("a.iso, b.iso", "more than one candidate name"),
    ],
)
def test_relpath_refuses_hedges_and_lists(raw: str, message: str) -> None:
    with pytest.raises(Fail, match=message):
        fields(f"oldest={raw}", {"oldest": RelPath("scans", "name")})


def test_named_label_finds_one_whole_word() -> None:
    labels = ["web", "mail", "web-proxy"]
    assert named_label("the Web server", labels) == "web"
    assert named_label("web-proxy", labels) == "web-proxy"
    with pytest.raises(Fail, match="expected exactly one"):
        named_label("web and mail", labels)
    with pytest.raises(Fail, match="none"):
        named_label("webmail", labels)


def test_json_number_takes_finite_numbers_only() -> None:
    data = {"a": 2, "b": 1.5, "c": True, "d": "3", "e": float("nan")}
    assert json_number(data, "a", "x.json") == 2.0
    assert json_number(data, "b", "x.json") == 1.5
    for key in ("c", "d", "e", "missing"):
        with pytest.raises(Fail, match=f"x.json has no number '{key}'"):
            json_number(data, key, "x.json")
    with pytest.raises(Fail):
        json_number([1, 2], "a", "x.json")


def run_printing(stdout: str, timed_out: bool = False) -> AgentRun:
    return AgentRun(exit_code=0, stdout=stdout.encode(), stderr=b"", timed_out=timed_out)


def test_driver_result_reads_the_last_marked_line_of_the_right_kind() -> None:
    def result(stdout: str, kind: type, timed_out: bool = False) -> object:
        return driver_result(
            run_printing(stdout, timed_out), "@@M@@", kind, timed_out="too slow", incomplete="no end"
        )

    assert result("noise\n@@M@@[1]\n@@M@@[1, 2]\n", list) == [1, 2]
    assert result('@@M@@{"a": 1}', dict) == {"a": 1}
    for stdout, kind in [("@@M@@[1]", dict), ("@@M@@{not json", dict), ("[1]", list), ("", list)]:
        with pytest.raises(Fail, match="no end"):
            result(stdout, kind)
    with pytest.raises(Fail, match="too slow"):
        result("@@M@@[1]", list, timed_out=True)

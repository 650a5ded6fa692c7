"""Every ``agbench ...`` command the docs show is one the CLI accepts.

Commands are taken from README.md and docs/*.md: lines of fenced code blocks and inline code
spans that start with ``agbench``. Each resolves to a command (unknown subcommand: failure),
``--help`` on it exits 0, and every option it names is one that command declares. Placeholders
(``RUN_DIR...``, ``[...]``, ``|`` alternatives, ``# comments``) are understood, not run.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from agbench.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```.*?$(.*?)^```", re.S | re.M)
_SPAN = re.compile(r"`(agbench [^`]+)`")
_OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def shown_commands() -> list[tuple[str, str]]:
    """(where, command line) for every agbench command the docs show."""
    out: list[tuple[str, str]] = []
    for path in DOC_FILES:
        text = path.read_text(encoding="utf-8")
        lines = [line for block in _FENCE.findall(text) for line in block.splitlines()]
        lines += _SPAN.findall(_FENCE.sub("", text))
        for line in lines:
            for part in re.split(r"&&|;|\|\s*(?=agbench )", line):
                part = part.strip().removeprefix("$ ").strip()
                if part.startswith("agbench ") or part == "agbench":
                    out.append((path.name, part))
    return sorted(set(out))


def _resolve(words: list[str]) -> tuple[list[str], click.Command, list[click.Command]]:
    """The subcommand path named by the leading words, its command and the groups above it."""
    path: list[str] = []
    command: click.Command = main
    chain: list[click.Command] = []
    ctx = click.Context(main)
    for word in words:
        if not isinstance(command, click.Group) or word.startswith("-") or "..." in word:
            break  # options, arguments and placeholders ("agbench ...") end the command path
        alternatives = word.split("|")  # `paper fit|check|predict`: every one must exist
        subs = [command.get_command(ctx, w) for w in alternatives]
        if len(alternatives) > 1 and all(subs):
            for alternative in alternatives[1:]:
                assert CliRunner().invoke(main, [*path, alternative, "--help"]).exit_code == 0
            word = alternatives[0]
        sub = command.get_command(ctx, word)
        if sub is None:
            if command.invoke_without_command:  # a group that also runs by itself (sim)
                break
            raise AssertionError(f"unknown command: agbench {' '.join([*path, word])}")
        chain.append(command)
        path.append(word)
        command = sub
    return path, command, chain


def _declared(commands: list[click.Command]) -> set[str]:
    names = {"--help", "-h"}
    for command in commands:
        for param in command.params:
            names.update(getattr(param, "opts", []))
            names.update(getattr(param, "secondary_opts", []))
    return names


def _words(line: str) -> list[str]:
    line = line.split(" #", 1)[0]
    line = re.split(r"\s<\s|\s>\s", line)[0]
    return line.split()[1:]


COMMANDS = shown_commands()


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) > 30
    assert any(line.startswith("agbench sim") for _, line in COMMANDS)


@pytest.mark.parametrize(("where", "line"), COMMANDS)
def test_shown_command_is_accepted(where: str, line: str) -> None:
    words = _words(line)
    path, command, chain = _resolve(words)
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, f"{where}: `{line}`: --help failed: {result.output}"
    rest = " ".join(words[len(path) :])
    declared = _declared([*chain[1:], command]) if path else _declared([main])
    unknown = [opt for opt in _OPTION.findall(rest) if opt not in declared]
    assert not unknown, f"{where}: `{line}`: agbench {' '.join(path)} has no option {', '.join(unknown)}"


def test_the_check_catches_what_the_cli_rejects() -> None:
    with pytest.raises(AssertionError, match="unknown command"):
        test_shown_command_is_accepted("x.md", "agbench simulate --scenario X")
    with pytest.raises(AssertionError, match="has no option --explainn"):
        test_shown_command_is_accepted("x.md", "agbench sim --scenario X --explainn")
    with pytest.raises(AssertionError, match="has no option --parallel"):
        test_shown_command_is_accepted("x.md", "agbench run --arch LO --parallel 2")

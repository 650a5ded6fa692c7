"""The managed server's ``--local-*`` options mean one thing in every command that starts a
server (agbench/cli/server_options.py): the same help and range everywhere; only the
defaults differ, and ``serve``/``load`` also take the contract's short spellings."""

from __future__ import annotations

import click
from click.testing import CliRunner

from agbench.cli import main

NAMES = ("--local-parallel", "--local-ctx", "--local-kv-unified", "--local-threads")


def local_options(command: str) -> dict[str, click.Option]:
    cmd = main.get_command(click.Context(main), command)
    assert cmd is not None
    found = {o: p for p in cmd.params if isinstance(p, click.Option) for o in p.opts if o in NAMES}
    assert sorted(found) == sorted(NAMES), command
    return found


def test_one_meaning_in_every_command_and_each_commands_defaults() -> None:
    commands = {c: local_options(c) for c in ("run", "sweep", "serve", "load")}
    for name in NAMES:
        shapes = {
            (o.help, type(o.type).__name__, getattr(o.type, "min", None))
            for o in (c[name] for c in commands.values())
        }
        assert len(shapes) == 1 + (name == "--local-parallel"), (name, shapes)  # run's says who sizes it
    defaults = {c: tuple(o[n].get_default(click.Context(main)) for n in NAMES) for c, o in commands.items()}
    assert defaults == {
        "run": (None, None, False, None),
        "sweep": (None, None, False, None),
        "serve": (1, 4096, False, 2),
        "load": (4, 8192, False, 2),
    }
    assert commands["serve"]["--local-ctx"].opts == ["--local-ctx", "--ctx"]
    assert commands["run"]["--local-ctx"].opts == ["--local-ctx"]


def test_the_short_spelling_is_the_same_option() -> None:
    runner = CliRunner()
    for args in (["serve", "--ctx", "32"], ["serve", "--local-ctx", "32"], ["load", "--parallel", "0"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 2, result.output
        assert "is not in the range" in result.output

"""The managed server's ``--local-*`` options mean one thing in every command that starts a
server (agbench/cli/server_options.py): the same help and range everywhere; only the
defaults differ, and ``serve``/``load`` also take the contract's short spellings."""

from __future__ import annotations

import click
from click.testing import CliRunner

from agbench.cli import main

NAMES = ("--local-parallel", "--local-ctx", "--local-kv-unified", "--local-threads", "--local-cpu-strict")


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
        "run": (None, None, False, None, False),
        "sweep": (None, None, False, None, False),
        "serve": (1, 4096, False, 2, False),
        "load": (4, 8192, False, 2, False),
    }
    assert commands["serve"]["--local-ctx"].opts == ["--local-ctx", "--ctx"]
    assert commands["run"]["--local-ctx"].opts == ["--local-ctx"]


def test_the_short_spelling_is_the_same_option() -> None:
    runner = CliRunner()
    for args in (["serve", "--ctx", "32"], ["serve", "--local-ctx", "32"], ["load", "--parallel", "0"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 2, result.output
        assert "is not in the range" in result.output


def test_cpu_strict_reaches_both_managed_servers_and_llama_cpp() -> None:
    """``--local-cpu-strict`` pins the local server and the cloud stand-in alike, as llama.cpp's
    ``--cpu-strict 1`` over every core this process may use; left off, neither is pinned."""
    import os

    from agbench.live.runner.options import SweepOptions, local_server_settings, standin_server_settings
    from agbench.live.serving.server_process import build_params

    for strict in (False, True):
        options = SweepOptions(local_cpu_strict=strict, local_threads=2)
        for settings in (local_server_settings(options, 2), standin_server_settings(options, 2)):
            assert settings.cpu_strict is strict
            params = build_params(settings.to_dict(), "model.gguf", 8080, "m", None)
            for cpu in (params.cpuparams, params.cpuparams_batch):
                assert cpu.strict_cpu is strict
                assert cpu.mask_valid is strict
                pinned = {i for i, on in enumerate(cpu.cpumask) if on}
                assert pinned == (os.sched_getaffinity(0) if strict else set())


def test_the_runner_warns_only_where_unpinned_threads_overfill_the_cores() -> None:
    from agbench.config import ServerSettings
    from agbench.live.runner.endpoints import threads_unpinned_beyond_cores

    two, pinned = ServerSettings(threads=2), ServerSettings(threads=2, cpu_strict=True)
    assert threads_unpinned_beyond_cores([two, two], cores=2)
    assert threads_unpinned_beyond_cores([two, pinned], cores=2)  # one of them left to the kernel
    assert not threads_unpinned_beyond_cores([pinned, pinned], cores=2)
    assert not threads_unpinned_beyond_cores([two, two], cores=4)  # room for every thread
    assert not threads_unpinned_beyond_cores([ServerSettings(threads=1)] * 2, cores=2)

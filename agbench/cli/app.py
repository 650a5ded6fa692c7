"""The ``agbench`` command group and the rule every command follows: user errors
(``AgbenchError``, a ``ValueError`` from option parsing) print ``agbench: error: ...`` on one
line and exit 2, never a traceback; Ctrl-C exits 130.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from agbench.errors import AgbenchError
from agbench.extras import missing_extra_message

F = TypeVar("F", bound=Callable[..., Any])


def one_line_errors(func: F) -> F:
    """Turn user-facing errors into ``agbench: error: ...`` and exit 2, never a traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AgbenchError as exc:
            click.echo(f"agbench: error: {exc}", err=True)
            sys.exit(2)
        except ValueError as exc:
            click.echo(f"agbench: error: {exc}", err=True)
            sys.exit(2)
        except OSError as exc:  # a path that is a folder, a full disk, no permission: the OS's own words
            click.echo(f"agbench: error: {exc}", err=True)
            sys.exit(2)
        except ModuleNotFoundError as exc:  # an optional part that is not installed
            message = missing_extra_message(exc)
            if message is None:
                raise
            click.echo(f"agbench: error: {message}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("agbench: interrupted", err=True)
            sys.exit(130)

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agbench")
def main() -> None:
    """Benchmark and simulate agentic AI on personal AI devices."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    # Every monitor poll is an HTTP request; httpx would log each one at INFO.
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

"""The HTML reports' templates: Jinja2 with autoescape, loaded from the installed package.

Why templates: the pages were f-strings that escaped each value by hand, so one forgotten
``html.escape`` let a task name, an answer or a run label write markup into the page. Here
every value a template prints is escaped unless the code marks it :class:`~markupsafe.Markup`,
and only markup agbench itself drew is so marked (matplotlib's SVG figures, the timeline SVG,
a section rendered by another template). Undefined names fail (``StrictUndefined``) instead of
printing nothing, so a renamed context key cannot silently empty a table.

The templates ship as package data, found through agbench.resources (importlib.resources),
so an installed wheel renders from any directory; the what-if page's template ships with the
simulator (``whatif-templates``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from agbench.resources import shipped_dir

#: The shipped folder (agbench.resources.SHIPPED) of the core report pages' templates.
REPORT_TEMPLATES = "report-templates"


@cache
def environment(shipped: str = REPORT_TEMPLATES) -> Environment:
    """One environment per template folder (templates are compiled once per process)."""
    return Environment(
        loader=FileSystemLoader(shipped_dir(shipped)),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render_template(name: str, /, shipped: str = REPORT_TEMPLATES, **context: Any) -> str:
    """The text of template ``name`` rendered with ``context`` (values escaped, Markup kept)."""
    return environment(shipped).get_template(name).render(**context)


def render_markup(name: str, /, shipped: str = REPORT_TEMPLATES, **context: Any) -> Markup:
    """A rendered fragment, marked safe so that the page it goes into does not escape it again."""
    return Markup(render_template(name, shipped, **context))


def svg(text: str | None) -> Markup | None:
    """A figure agbench drew itself (matplotlib or the timeline), inserted as markup."""
    return None if text is None else Markup(text)


__all__ = ["REPORT_TEMPLATES", "environment", "render_markup", "render_template", "svg"]

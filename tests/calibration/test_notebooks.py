"""The calibration and what-if notebooks execute headless on the reference dataset and render."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "calibration" / "reference" / "run"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["calibration.ipynb", "whatif.ipynb"])
def test_notebook_executes_and_renders(name: str, tmp_path: Path) -> None:
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    os.environ["AGBENCH_ROOT"] = str(ROOT)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"
    ]
    assert not errors
    images = sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    )
    assert images >= 2, "the plots did not render"
    html, _ = HTMLExporter().from_notebook_node(nb)
    (tmp_path / name.replace(".ipynb", ".html")).write_text(html)
    assert "<html" in html.lower()

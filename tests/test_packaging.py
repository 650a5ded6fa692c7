"""agbench as a user installs it: the wheel, its package list, its data and its extras.

The slow tests build the wheel, install it into a fresh virtual environment outside the
checkout (with no extras, then with ``[live]``) at the versions ``uv.lock`` pins, and run the
README's commands from a temporary folder, so nothing can come from the source tree.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

import pytest

from agbench.extras import missing_extra_message
from agbench.resources import SHIPPED, package_dir, shipped_dir

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SOURCE_ROOTS = ("agbench", "live", "sim", "calibration")


def test_pyproject_lists_every_package() -> None:
    """setuptools installs only the packages named in pyproject.toml; a new sub-package left out
    would be missing from the wheel while the editable install still finds it."""
    setuptools = PYPROJECT["tool"]["setuptools"]
    folder_of = {folder: name for name, folder in setuptools["package-dir"].items()}
    found = {"agbench.tasks"}
    for root in SOURCE_ROOTS:
        for init in (REPO / root).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / root)
            found.add(".".join([folder_of[root], *rel.parts]))
    assert sorted(setuptools["packages"]) == sorted(found)


def test_no_path_is_derived_from_a_source_file() -> None:
    """Shipped data is found through agbench.resources only; a path built from ``__file__``
    works in a checkout and breaks in a wheel laid out differently."""
    offenders = []
    for root in SOURCE_ROOTS:
        for path in (REPO / root).rglob("*.py"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#")[0]
                # agbench/harbor.py writes scripts that use __file__ inside the task's container.
                if re.search(r"Path\(__file__\)|\.__file__\)", code) and "harbor.py" not in path.name:
                    offenders.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert offenders == []


def test_every_shipped_folder_exists_and_is_packaged() -> None:
    for name in SHIPPED:
        assert shipped_dir(name).is_dir(), name


def test_every_shipped_file_is_package_data() -> None:
    """A shipped file (a report template, a scenario, a prompt) that no package-data glob
    matches is read from the checkout by an editable install and missing from the wheel. The
    task suite ships whole through MANIFEST.in's graft instead."""
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]
    unshipped = []
    for entry in SHIPPED.values():
        if entry.package == "agbench.tasks":
            continue
        base = package_dir(entry.package)
        for path in shipped_dir(entry.name).rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".py":
                continue
            rel = path.relative_to(base).as_posix()  # fnmatch's * crosses "/": compare depths too
            if not any(
                fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs.get(entry.package, [])
            ):
                unshipped.append(f"{entry.package}: {rel}")
    assert unshipped == []


def test_missing_optional_module_names_its_extra() -> None:
    exc = ModuleNotFoundError("No module named 'docker'", name="docker.errors")
    assert (
        missing_extra_message(exc) == "this needs the optional module 'docker': pip install 'agbench[live]'"
    )
    assert missing_extra_message(ModuleNotFoundError("x", name="not_an_extra")) is None


def _uv() -> str | None:
    beside = Path(sys.executable).parent / "uv"
    return str(beside) if beside.is_file() else shutil.which("uv")


@dataclass
class InstalledAgbench:
    """agbench installed from its wheel into a fresh venv, and a folder outside the checkout."""

    uv: str
    venv: Path
    cwd: Path

    def pip_install_locked(self, extras: list[str], *targets: str) -> None:
        """Install ``targets`` plus the dependencies of ``extras`` at uv.lock's versions."""
        reqs = self.cwd / f"requirements-{'-'.join(extras) or 'base'}.txt"
        export = [self.uv, "export", "--frozen", "--no-hashes", "--no-emit-project", "--no-header", "-q"]
        export += [arg for extra in extras for arg in ("--extra", extra)]
        subprocess.run([*export, "-o", str(reqs)], cwd=REPO, check=True)
        install = [self.uv, "pip", "install", "-q", "--python", str(self.venv / "bin" / "python")]
        subprocess.run([*install, "-r", str(reqs), *targets], check=True)

    def agbench(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGBENCH_TASKS", "PYTHON"))}
        return subprocess.run(
            [str(self.venv / "bin" / "agbench"), *args],
            cwd=self.cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InstalledAgbench]:
    uv = _uv()
    if uv is None:
        pytest.skip("uv is not installed (make venv installs it)")
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run([uv, "build", "--wheel", "-q", "-o", str(root / "dist"), str(REPO)], check=True)
    (wheel,) = (root / "dist").glob("agbench-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    cwd = root / "elsewhere"
    cwd.mkdir()
    target = InstalledAgbench(uv, venv, cwd)
    target.pip_install_locked([], str(wheel))
    return target


@pytest.mark.slow
def test_base_install_simulates_and_reports(installed: InstalledAgbench) -> None:
    doctor = installed.agbench("doctor")
    assert doctor.returncode == 0, doctor.stderr
    assert str(installed.venv) in doctor.stdout
    assert "MISSING" not in doctor.stdout

    out = installed.cwd / "X"
    sim = installed.agbench(
        "sim", "--scenario", "paper-rtx5090", "--archs", "LO,CO", "--concurrency", "1,8", "--out", str(out)
    )
    assert sim.returncode == 0, sim.stderr
    report = installed.agbench("report", str(out))
    assert report.returncode == 0, report.stderr
    assert (out / "summary.json").is_file()
    assert (out / "summary.html").is_file()

    # A live command on the base install stops with one line naming the extra.
    live = installed.agbench("run", "--provider", "mock", "--limit", "1", "--out", str(installed.cwd / "no"))
    assert live.returncode == 2
    assert live.stderr.strip().endswith("pip install 'agbench[live]'"), live.stderr
    assert "Traceback" not in live.stderr


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
def test_live_extra_runs_tasks_in_bwrap(installed: InstalledAgbench) -> None:
    wheel = next((installed.venv.parent / "dist").glob("agbench-*.whl"))
    installed.pip_install_locked(["live"], f"agbench[live] @ {wheel.as_uri()}")

    listing = installed.agbench("tasks", "list")
    assert listing.returncode == 0, listing.stderr
    assert "calc-income-tax" in listing.stdout

    check = installed.agbench("tasks", "check", "--backend", "bwrap", "calc-income-tax")
    assert check.returncode == 0, check.stdout + check.stderr

    out = installed.cwd / "Y"
    run = installed.agbench(
        "run", "--provider", "mock", "--limit", "2", "--backend", "bwrap", "--out", str(out)
    )
    assert run.returncode == 0, run.stderr
    assert (out / "summary.json").is_file()
    assert (out / "traces").is_dir()


def test_doctor_reports_data_cache_and_optional_parts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from agbench.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("AGBENCH_CACHE", raising=False)
    monkeypatch.delenv("AGBENCH_ASSETS", raising=False)
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    assert f"cache:         {tmp_path / 'xdg' / 'agbench'}" in result.output
    assert f"asset cache:   {tmp_path / 'xdg' / 'agbench' / 'assets'}" in result.output
    assert str(shipped_dir("tasks")) in result.output
    assert "Docker SDK (docker)" in result.output

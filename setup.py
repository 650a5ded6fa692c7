"""Lists the packages under each top-level folder: live/, sim/ and calibration/ install as agbench.*.

pyproject.toml cannot compute a package list, and setuptools needs every subpackage named when
folders are remapped, so this file walks the folders once at build time.
"""

from setuptools import find_packages, setup

ROOTS = {"agbench": "agbench", "agbench.live": "live", "agbench.sim": "sim", "agbench.calibration": "calibration"}

packages = []
for name, folder in ROOTS.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages)

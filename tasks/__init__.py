"""The task suite that ships with agbench, installed as the package ``agbench.tasks``.

It holds data, not code: this file only makes the folder a regular package, so that
``importlib.resources`` finds it alike in a wheel and in an editable install
(see ``agbench/resources.py``).
"""

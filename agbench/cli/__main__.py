"""``python -m agbench.cli``: the same command line as ``agbench``."""

from agbench.cli.app import main

main()

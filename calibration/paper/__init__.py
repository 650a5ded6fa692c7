"""The paper's two devices in the simulator.

``targets``: the paper's concurrency-1 figures as data; ``fit``: tunes the synthetic
workload (and a few documented assumption parameters) so the C = 1 simulation of both devices
reproduces them and writes the scenario files; ``check``: the reproduction table and its
bounds; ``predict``: the C = 1, 2, 4, 8 matrix of both scenarios.
"""

"""The mock model server (``--provider mock``): an offline OpenAI-compatible provider.

Its own package because it sits above the pieces it imitates: it answers agent turns from the
task's oracle plan (trajectories), judge requests with the mock judge's verdict (judge), and
speaks HTTP through the proxy's primitives, so nothing below it imports it.
"""

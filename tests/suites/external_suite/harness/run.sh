#!/bin/sh
# The harness entry point the launcher runs (cwd /harness, read-only).
exec python3 -I /harness/mini_harness.py

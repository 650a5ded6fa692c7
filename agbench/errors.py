"""Errors a user can act on.

The CLI turns an ``AgbenchError`` into a one-line message and a non-zero exit instead of a
traceback; anything else escaping is a bug and keeps its traceback.
"""


class AgbenchError(Exception):
    """A problem with the user's input or environment, reported as one line."""


class SchemaVersionError(AgbenchError):
    """A journal or table written by a newer agbench than this one."""


class RunDirError(AgbenchError):
    """A run directory that is missing, corrupt or has nothing to report."""

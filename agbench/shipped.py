"""Files that ship with agbench and are named on the command line: scenarios, what-if specs,
trajectory profiles.

Each is given either as a path to a TOML file or as the bare name of one that ships in its
folder (``phone`` or ``phone.toml``); a path that exists always wins over a shipped name.
"""

from __future__ import annotations

from pathlib import Path


def find_toml(name_or_path: str | Path, folder: Path) -> Path | None:
    """``name_or_path`` when it is a file, else the shipped ``folder/<name>.toml`` for a bare
    name; None when it is neither (the caller's error lists :func:`shipped_names`)."""
    candidate = Path(name_or_path)
    if candidate.is_file():
        return candidate
    if len(candidate.parts) == 1:
        shipped = folder / f"{candidate.name.removesuffix('.toml')}.toml"
        if shipped.is_file():
            return shipped
    return None


def shipped_names(folder: Path) -> list[str]:
    """The names of the TOML files that ship in ``folder``, sorted."""
    return sorted(p.stem for p in folder.glob("*.toml"))

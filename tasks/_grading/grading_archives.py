"""Archives the agent wrote (.docx, .xlsx, .odt, .zip, .tar.gz), opened with their size known first.

A 1.5 MB .docx can inflate to gigabytes, a .tar.gz to terabytes of zeros. Before any member is
read, the member count and the declared uncompressed sizes are checked against caps, and every
read is bounded again (a zip header may lie; a gzip stream is counted as it inflates), so an
archive bomb is the attempt's failure with a reason, never the grader's exhaustion.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
import zlib
from typing import BinaryIO

from grading_core import Fail
from grading_files import read_bytes

MAX_MEMBERS = 1000
MAX_MEMBER_BYTES = 16_000_000
MAX_TOTAL_BYTES = 64_000_000


def zip_members(
    rel: str,
    *,
    max_members: int = MAX_MEMBERS,
    max_member: int = MAX_MEMBER_BYTES,
    max_total: int = MAX_TOTAL_BYTES,
    data: bytes | None = None,
) -> dict[str, bytes]:
    """Member name -> bytes of the zip archive ``rel`` under /work (or ``data``); Fail when it
    is no zip, holds more than ``max_members`` members, or inflates past the caps."""
    blob = read_bytes(rel) if data is None else data
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as zf:
            infos = zf.infolist()
            if len(infos) > max_members:
                raise Fail(f"{rel} holds {len(infos)} members (at most {max_members} are read)")
            declared = sum(i.file_size for i in infos)
            if declared > max_total or any(i.file_size > max_member for i in infos):
                raise Fail(f"{rel} inflates to {declared} bytes (at most {max_total} are read)")
            out: dict[str, bytes] = {}
            total = 0
            for info in infos:
                if info.filename in out:
                    raise Fail(f"{rel} holds {info.filename!r} twice")
                with zf.open(info) as fh:
                    body = fh.read(max_member + 1)
                total += len(body)
                if len(body) > max_member or total > max_total:
                    raise Fail(f"{rel} inflates past what its headers declare")
                out[info.filename] = body
            return out
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        ValueError,
        OSError,
        NotImplementedError,
    ) as exc:
        raise Fail(f"{rel} is not a valid zip archive ({type(exc).__name__})") from None


class _Capped(io.RawIOBase):
    """A read-only stream that fails once more than ``limit`` bytes came out of it."""

    def __init__(self, inner: BinaryIO, limit: int, rel: str) -> None:
        self.inner, self.limit, self.rel, self.count = inner, limit, rel, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(len(buf))
        self.count += len(data)
        if self.count > self.limit:
            raise Fail(f"{self.rel} inflates past {self.limit} bytes")
        buf[: len(data)] = data
        return len(data)


def tar_members(
    rel: str,
    *,
    compression: str = "gz",
    max_members: int = MAX_MEMBERS,
    max_member: int = MAX_MEMBER_BYTES,
    max_total: int = MAX_TOTAL_BYTES,
) -> list[tuple[tarfile.TarInfo, bytes | None]]:
    """(member, bytes or None for a non-file) of the tar archive ``rel`` under /work, read as a
    stream whose inflated size is counted; Fail past the caps or when it is no such archive."""
    blob = read_bytes(rel)
    raw: BinaryIO = io.BytesIO(blob)
    try:
        if compression == "gz":
            if blob[:2] != b"\x1f\x8b":
                raise Fail(f"{rel} is not gzip-compressed")
            raw = gzip.GzipFile(fileobj=raw)  # type: ignore[assignment]
        stream = io.BufferedReader(_Capped(raw, max_total, rel))
        out: list[tuple[tarfile.TarInfo, bytes | None]] = []
        with tarfile.open(fileobj=stream, mode="r|") as tf:
            for member in tf:
                if len(out) >= max_members:
                    raise Fail(f"{rel} holds more than {max_members} members")
                if member.isfile():
                    if member.size > max_member:
                        raise Fail(f"{rel}: member {member.name!r} is too large")
                    fh = tf.extractfile(member)
                    out.append((member, fh.read(max_member + 1) if fh is not None else b""))
                else:
                    out.append((member, None))
        return out
    except (OSError, EOFError, tarfile.TarError, ValueError, zlib.error) as exc:
        raise Fail(f"{rel} unreadable: {type(exc).__name__}") from None

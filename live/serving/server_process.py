"""The body of the llama-server child process: ``python -m agbench.live.serving.server_process``.

A separate interpreter started with ``subprocess`` (not multiprocessing) so that it never
re-imports the harness's ``__main__`` (scripts, notebooks, stdin and pytest all work) and so
the parent can kill it outright. Protocol: one JSON object of launch options on the command
line; the child answers one JSON line on its original stdout (``{"ready": URL}`` or
``{"error": TEXT}``), sends llama.cpp's own logging to the log file, and exits when its stdin
reaches end of file, which also happens when the parent dies.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from agbench.usable_cores import usable_cores


def build_params(
    settings: dict[str, Any], model_path: str, port: int, alias: str, template: str | None
) -> Any:
    """xllamacpp CommonParams for one server (the flags llama-server would get)."""
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = model_path
    p.model_alias = {alias}
    p.hostnames = ["127.0.0.1"]
    p.port = port
    p.n_ctx = int(settings["n_ctx"])
    p.n_parallel = int(settings["n_parallel"])
    p.kv_unified = bool(settings["kv_unified"])
    p.cpuparams.n_threads = int(settings["threads"])
    p.cpuparams_batch.n_threads = int(settings["threads"])
    p.n_batch = int(settings["batch_size"])
    p.n_ubatch = int(settings["ubatch_size"])
    p.cache_type_k = getattr(xllamacpp.ggml_type, "GGML_TYPE_" + str(settings["cache_type_k"]).upper())
    p.cache_type_v = getattr(xllamacpp.ggml_type, "GGML_TYPE_" + str(settings["cache_type_v"]).upper())
    if settings.get("cpu_strict"):
        for cpu in (p.cpuparams, p.cpuparams_batch):
            pin_threads_to_cores(cpu)
    p.use_jinja = True
    p.cont_batching = True
    p.endpoint_metrics = True
    p.endpoint_slots = True
    p.endpoint_props = True
    if template:
        p.chat_template = template
    return p


def pin_threads_to_cores(cpu: Any) -> None:
    """llama.cpp's ``--cpu-strict 1`` with ``--cpu-mask`` set to the cores this process may run
    on: ggml hands each compute thread the next core of the mask, one each."""
    mask = list(cpu.cpumask)
    for core in usable_cores():
        if core < len(mask):
            mask[core] = True
    cpu.cpumask = mask
    cpu.mask_valid = True
    cpu.strict_cpu = True


def main() -> None:
    options = json.loads(sys.argv[1])
    control = os.fdopen(os.dup(1), "w")
    log_fd = os.open(options["log_path"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    try:
        import xllamacpp

        params = build_params(
            options["settings"], options["model_path"], options["port"], options["alias"], options["template"]
        )
        server = xllamacpp.Server(params)
        address = str(server.listening_address)
    except BaseException as exc:  # any start failure goes back to the parent as one line
        control.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}) + "\n")
        control.flush()
        os._exit(3)
    control.write(json.dumps({"ready": address}) + "\n")
    control.flush()
    sys.stdin.read()  # blocks until the parent closes our stdin or dies
    del server
    os._exit(0)


if __name__ == "__main__":
    main()

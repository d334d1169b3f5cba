"""pytest plugin (``-p verify_everywhere``, its folder on PYTHONPATH): after each in-memory table a test runs, save each
finished seat's record, run ``p2php verify`` on it and log to $VERIFY_LOG every record where verify names a seat that
differs from the seat's own verdict (or names one where the seat named nobody, or nobody where the seat named one
with a code that is not a timing code)."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import p2php.session.memory as memory
from p2php.session import transcript
from p2php.session.records import TIMING_CODES

_run = memory.run_in_memory
LOG = os.environ.get("VERIFY_LOG", "/tmp/verify_everywhere.log")
CURRENT = {"test": ""}


def checked(peers: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return _run(peers, *args, **kwargs)
    finally:
        for p in peers:
            v = getattr(p, "verdict", None)
            if v is None or p.seat is None:
                continue
            try:
                with tempfile.TemporaryDirectory() as d:
                    r = transcript.verify(transcript.save(p, Path(d) / "s.p2php"))
                rv = r.spectator.verdict if r.spectator else None
            except Exception as err:  # noqa: BLE001
                rv, r = None, None
                note = f"verify raised {type(err).__name__}: {err}"
            else:
                note = ""
            seat = (v.culprit, v.code)
            ver = (rv.culprit, rv.code) if rv else None
            timing = {c.value for c in TIMING_CODES}
            differ = ver is None or (ver[0] != seat[0] and not (ver[0] is None and seat[1] in timing))
            if differ:
                with open(LOG, "a") as f:
                    f.write(json.dumps({"test": CURRENT["test"], "seat": p.seat, "seat_named": seat,
                                        "verify_names": ver, "note": note,
                                        "lines": (r.lines[-4:] if r else [])}) + "\n")


memory.run_in_memory = checked


def _wrap_holding() -> None:
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import held_delivery

    inner = held_delivery.run_holding

    def holding(peers: Any, hold: Any, seed: int) -> None:
        def run(peers: Any) -> None:
            inner(peers, hold, seed)
        global _run
        saved, _run = _run, lambda peers, *a, **k: run(peers)
        try:
            checked(peers)
        finally:
            _run = saved

    held_delivery.run_holding = holding


_wrap_holding()


def pytest_runtest_setup(item: Any) -> None:
    CURRENT["test"] = item.nodeid

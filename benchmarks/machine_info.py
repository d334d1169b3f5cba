"""What machine a benchmark ran on (shared by the benchmark scripts)."""

from __future__ import annotations

import os
import platform
from typing import Any


def machine() -> dict[str, Any]:
    """Cores, Python and CPU model, reported beside every number."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
        "cpu": cpu,
    }

"""The mutants of benchmarks/mutation.py on the lines a diff adds or changes (its new side).

    python benchmarks/changed_mutants.py OLD NEW MODULE...   # one "ID    text" line per mutant, as --list prints

Feed the ids to ``mutation.py --rev NEW --only ID ...`` to run just those (run Y of mutation-results.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def changed_lines(old: str, new: str, path: str) -> set[int]:
    out = subprocess.run(["git", "-C", str(ROOT), "diff", "-U0", old, new, "--", path], capture_output=True,
                         text=True, check=True).stdout
    lines: set[int] = set()
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", out, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + count))
    return lines


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    old, new, *modules = argv
    for module in modules:
        lines = changed_lines(old, new, module)
        listing = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "--rev", new, "--module",
                                  module, "--list", "--limit", "0"], capture_output=True, text=True, check=True).stdout
        for row in listing.splitlines():
            if int(row.split()[0].split(":")[1]) in lines:
                print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

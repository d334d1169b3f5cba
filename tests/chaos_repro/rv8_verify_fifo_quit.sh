#!/bin/sh
# The bridge's verify of a path that never answers (a FIFO nobody writes; likewise a hung network mount), then quit
# (or the end of stdin): does the bridge end?
d=$(mktemp -d); mkfifo "$d/record.p2php"
start=$(date +%s)
printf '{"op":"verify","path":"%s"}\n{"op":"quit"}\n' "$d/record.p2php" | timeout 90 "${PY:-.venv/bin/python}" -m p2php.cli bridge
echo "exit status $? after $(( $(date +%s) - start )) s (124: killed by timeout 90)"
rm -r "$d"

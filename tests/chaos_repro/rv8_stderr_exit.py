"""An app that reads a seat command's stdout to its end, then its stderr: what does it get, and when?

Runs a real child process (cli.main, the command's body replaced by one that prints many warnings), stderr a pipe
nobody reads, stdout read. Prints the child's exit status, its time, and what reached stdout."""
import subprocess
import sys
import time

CHILD = r'''
import sys
from p2php import cli, peercli, piped_output
def run(args):
    for i in range(3000):
        print(f"p2php: warning {i}: " + "x" * 60, file=sys.stderr)
    print("verdict: clean", flush=True)
    return 0
peercli.cmd_peer = run
sys.argv = ["p2php", "peer", "toy", "--seat", "0", "--addresses", "127.0.0.1:1,127.0.0.1:2"]
sys.exit(cli.main())  # (as the p2php program calls it)
'''
began = time.monotonic()
p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
out = b""
try:
    out = p.stdout.read()  # stdout to its end, then stderr (the common sequential pattern)
    err = p.stderr.read()
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    rc = "still running after 30 s"
    p.kill()
print("stdout:", out)
print("exit status:", rc, "after %.1f s" % (time.monotonic() - began))
if isinstance(rc, int) and rc < 0:
    print("killed by signal", -rc)
print("stderr bytes the reader finally got:", len(err))
print("stderr tail:", err[-300:])

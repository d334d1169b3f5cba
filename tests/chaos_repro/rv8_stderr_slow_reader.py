"""A seat command whose stderr reader is alive but slower than ERR_DRAIN allows (20 KB/s, a log shipper, a GUI
that appends each line to a widget): lines it would have read are dropped at the exit, the last ones first, with no
notice, and the last line torn. Real child process (cli.main; the command's body prints warnings, then the error
line main itself prints for a P2phpError, the line an app most needs)."""
import subprocess
import sys
import time

CHILD = r'''
import sys
from p2php import cli, peercli
from p2php.errors import P2phpError
def run(args):
    for i in range(4000):
        print(f"p2php: warning {i}: " + "x" * 60, file=sys.stderr)
    raise P2phpError("THE LAST LINE: the table refused this seat")
peercli.cmd_peer = run
sys.argv = ["p2php", "peer", "toy", "--seat", "0", "--addresses", "127.0.0.1:1,127.0.0.1:2"]
sys.exit(cli.main())  # (as the p2php program calls it)
'''
began = time.monotonic()
p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
got = b""
while True:
    chunk = p.stderr.read1(2000)  # a live reader: 2000 bytes every 0.1 s
    if not chunk:
        break
    got += chunk
    time.sleep(0.1)
rc = p.wait()
lines = got.split(b"\n")
print("exit status:", rc, "after %.1f s" % (time.monotonic() - began))
complete = sum(1 for x in lines if x.endswith(b"x" * 60))
print(f"bytes read: {len(got)}; complete warning lines: {complete} of 4000")
print("last line read:", lines[-1][-80:] if lines[-1] else lines[-2][-80:])
print("the error line main printed reached the reader:", b"THE LAST LINE" in got)

"""Homes behind NAT routers on one machine, for tests: Linux network namespaces, veth pairs and nftables.

``public``: the "internet", a bridge holding 203.0.113.1/24 (TEST-NET-3), where a relay runs. Home ``k``
(1, 2, …): a router namespace with a WAN leg 203.0.113.(10+k) on that bridge and a LAN 192.168.k.0/24, NAT
by nftables masquerade, and a host namespace 192.168.k.2 behind it. A ``strict`` home's router forwards
nothing but traffic with the relay, as a NAT that blocks every hole punch. Nothing leaves the machine: the
namespaces have no route to any real interface. Names carry the process id, so parallel runs never meet.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

RELAY_IP = "203.0.113.1"


def unavailable() -> str | None:
    """Why namespaces cannot be used here (None: they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "nft"):
        if shutil.which(tool) is None:
            return f"{tool!r} is not installed (Debian: iproute2, nftables)"
    probe = f"p2phpprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot create a network namespace: {made.stderr.strip()[:200]}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _sh(*argv: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")


def _sh_input(text: str, *argv: str) -> None:
    done = subprocess.run(argv, input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")


class Homes:
    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.public = f"pub{tag}"
        self.names: list[str] = []

    def host(self, k: int) -> str:
        return f"h{k}{self.tag}"

    def _netns(self, name: str) -> None:
        _sh("ip", "netns", "add", name)
        self.names.append(name)
        _sh("ip", "-n", name, "link", "set", "lo", "up")

    def build(self, homes: int, strict: Sequence[int] = ()) -> None:
        pub = self.public
        self._netns(pub)
        _sh("ip", "-n", pub, "link", "add", "br0", "type", "bridge")
        _sh("ip", "-n", pub, "addr", "add", f"{RELAY_IP}/24", "dev", "br0")
        _sh("ip", "-n", pub, "link", "set", "br0", "up")
        for k in range(1, homes + 1):
            router, host = f"r{k}{self.tag}", self.host(k)
            wan, lan = f"w{k}{self.tag}"[:15], f"l{k}{self.tag}"[:15]
            self._netns(router)
            self._netns(host)
            _sh("ip", "link", "add", wan, "netns", router, "type", "veth", "peer", "name", f"p{k}", "netns", pub)
            _sh("ip", "-n", pub, "link", "set", f"p{k}", "master", "br0")
            _sh("ip", "-n", pub, "link", "set", f"p{k}", "up")
            _sh("ip", "-n", router, "addr", "add", f"203.0.113.{10 + k}/24", "dev", wan)
            _sh("ip", "-n", router, "link", "set", wan, "up")
            _sh("ip", "link", "add", lan, "netns", router, "type", "veth", "peer", "name", "eth0", "netns", host)
            _sh("ip", "-n", router, "addr", "add", f"192.168.{k}.1/24", "dev", lan)
            _sh("ip", "-n", router, "link", "set", lan, "up")
            _sh("ip", "-n", host, "addr", "add", f"192.168.{k}.2/24", "dev", "eth0")
            _sh("ip", "-n", host, "link", "set", "eth0", "up")
            _sh("ip", "-n", host, "route", "add", "default", "via", f"192.168.{k}.1")
            _sh("ip", "netns", "exec", router, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            # As home routers do: unsolicited packets from the internet are dropped without an answer (a
            # reset would kill a hole punch's crossing SYN), and the LAN leaves masqueraded.
            rules = ["table ip nat {", "  chain post {", "    type nat hook postrouting priority 100;",
                     f'    oifname "{wan}" masquerade', "  }", "}",
                     "table ip guard {", "  chain input {", "    type filter hook input priority 0;",
                     f'    iifname "{wan}" ct state new drop', "  }", "}"]
            if k in strict:
                rules += ["table ip filter {", "  chain forward_filter {",
                          "    type filter hook forward priority 0; policy drop;",
                          f"    ip daddr {RELAY_IP} accept", f"    ip saddr {RELAY_IP} accept", "  }", "}"]
            _sh_input("\n".join(rules) + "\n", "ip", "netns", "exec", router, "nft", "-f", "-")

    def popen(self, ns: str, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """``argv`` in namespace ``ns``, output unbuffered (communicate() reads the pipe itself later)."""
        return subprocess.Popen(["ip", "netns", "exec", ns, *argv], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, bufsize=0)

    def remove(self) -> None:
        for name in reversed(self.names):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        self.names.clear()


@contextmanager
def homes(count: int, strict: Sequence[int] = ()) -> Iterator[Homes]:
    net = Homes(str(os.getpid()))
    try:
        net.build(count, strict)
        yield net
    finally:
        net.remove()

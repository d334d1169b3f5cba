"""Three friends in three homes behind NAT routers (network namespaces) play by invite code through a relay.

Home 1 hosts, homes 2 and 3 join; home 3's router forwards nothing but traffic with the relay, so its links
must stay relayed. Homes 1 and 2 try DCUtR: their link is hole-punched most of the time (2 runs in 3 here),
otherwise it stays relayed, and the game goes on either way. Every seat is its own process in its own
namespace; nothing leaves the machine. Skipped, saying why, without root, iproute2, nftables or py-libp2p.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytest.importorskip("libp2p", reason="py-libp2p is not installed (pip install 'p2php[internet]'): "
                                     "online tables are not tested here")

from netns import RELAY_IP, homes, unavailable  # noqa: E402

from p2php.net.invite import parse_invite  # noqa: E402

WHY = unavailable()
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"no NAT test: {WHY}")

P2PHP = [sys.executable, "-m", "p2php.cli"]


def _first(proc: subprocess.Popen[bytes], pattern: str, seen: list[str]) -> str:
    assert proc.stdout is not None
    for raw in iter(proc.stdout.readline, b""):
        line = raw.decode()
        seen.append(line)
        if re.search(pattern, line):
            return line.strip()
    raise AssertionError(f"ended before {pattern!r}:\n{''.join(seen)}")


def test_peers_in_three_natted_homes_meet_by_invite_code_and_finish_with_clean_audits() -> None:
    with homes(3, strict=(3,)) as net:
        procs: list[subprocess.Popen[bytes]] = []
        try:
            relay = net.popen(net.public, [*P2PHP, "relay", "--bind", RELAY_IP, "--port", "4001"])
            procs.append(relay)
            address = _first(relay, r"--relay /ip4/", []).split("--relay ", 1)[1]
            host_seen: list[str] = []
            host = net.popen(net.host(1), [*P2PHP, "host", "uno", "--players", "3", "--option", "crypto=fast",
                                           "--option", "rounds=1", "--online", "--relay", address, "--auto"])
            procs.append(host)
            code = _first(host, r"^\s*p2php-", host_seen)
            assert parse_invite(code).relays == (address,)  # its private address is in it too: unroutable here
            joiners = [net.popen(net.host(k), [*P2PHP, "join", code, "--name", f"friend{k}", "--auto"])
                       for k in (2, 3)]
            procs.extend(joiners)
            outs = {}
            for k, proc in zip((2, 3), joiners, strict=True):
                outs[k] = proc.communicate(timeout=180)[0].decode()
                assert proc.returncode == 0, outs[k]
            outs[1] = "".join(host_seen) + host.communicate(timeout=60)[0].decode()
            assert host.returncode == 0, outs[1]
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                proc.wait(10)
    codes = set()
    links = {}
    for k, out in outs.items():
        assert "audit: clean" in out, out
        codes.add(re.search(r"safety code: (\S+)", out).group(1))  # type: ignore[union-attr]
        links[k] = next(x for x in out.splitlines() if x.startswith("links: "))
    assert len(codes) == 1, codes  # one table, the same keys everywhere
    assert "reachability: behind NAT" in outs[1]  # AutoNAT: the relay could not dial the host's home back
    # No link can be direct from the start (the homes have no route to each other); home 3 lets nothing
    # but the relay's traffic through, so its links stay relayed; the others are relayed or hole-punched.
    assert links[3].count("relayed") == 2, links
    for out in links.values():
        assert re.fullmatch(r"links: seat \d \(\w+\) (relayed|hole-punched), seat \d \(\w+\) (relayed|hole-punched)",
                            out), links

"""``p2php join`` without an address, and ``--transcript`` / ``--resume-log`` on ``host`` and ``join``.

(Killing a seat and bringing it back with ``p2php resume`` is tested in test_resume_cli.py.)

Real processes on loopback only: every host binds 127.0.0.1 and every discovery
query goes ``--to 127.0.0.1:PORT``, so no test sends a packet off the machine.
"""

from __future__ import annotations

import socket
from pathlib import Path

from test_lobby_cli import Proc, free_port, host, no_traceback, run

from p2php.session import resume


def udp_port() -> int:
    return free_port(socket.SOCK_DGRAM)


def test_join_finds_the_only_fitting_table_plays_and_saves_transcripts(tmp_path: Path) -> None:
    """Two open tables: a bare join lists both (exit 2); ``--game uno`` picks one, plays it, transcripts verify."""
    uno_port, uno_udp = free_port(), udp_port()
    hp_port, hp_udp = free_port(), udp_port()
    uno = host(uno_port, uno_udp, "uno", "--players", "3", "--bots", "1", "--name", "hana", "--auto",
               "--option", "rounds=1", "--transcript", str(tmp_path / "hana.p2php"),
               "--resume-log", str(tmp_path / "hana.resume"))
    hp = host(hp_port, hp_udp, "hpsha", "--players", "5", "--name", "hugo", "--auto")
    to = ["--to", f"127.0.0.1:{uno_udp}", "--to", f"127.0.0.1:{hp_udp}", "--discover-timeout", "0.5"]
    try:
        several = run("join", *to, "--name", "ann", "--bind", "127.0.0.1")
        assert several.returncode == 2, several.stdout + several.stderr
        assert "2 open tables found; pick one and run: p2php join ADDRESS" in several.stderr
        for game, who, seats, port in (("uno", "hana", "2/3", uno_port), ("hpsha", "hugo", "1/5", hp_port)):
            line = next(x for x in several.stderr.splitlines() if f"127.0.0.1:{port}" in x)
            assert game in line and f"host {who}" in line and seats in line, line
        assert no_traceback(several.stdout, several.stderr)

        ann = Proc("join", *to, "--game", "uno", "--option", "rounds=1", "--name", "ann", "--auto",
                   "--bind", "127.0.0.1", "--transcript", str(tmp_path / "ann.p2php"),
                   "--resume-log", str(tmp_path / "ann.resume"))
        for proc in (ann, uno):
            assert proc.finish() == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
            assert "audit: clean" in proc.stdout and no_traceback(proc.stdout, proc.stderr)
        assert f"Found hana's uno table at 127.0.0.1:{uno_port} (2/3 seated)" in ann.stdout
        assert "ann joined" in uno.stdout
        for name, proc in (("hana", uno), ("ann", ann)):
            path = tmp_path / f"{name}.p2php"
            assert f"transcript saved: {path}" in proc.stdout
            check = run("verify", str(path))
            assert check.returncode == 0 and check.stdout.rstrip().endswith("OK"), check.stdout + check.stderr
        # Each person's own seat kept a resume log that `p2php resume` could restart from (bot, listen address).
        for name, seat in (("hana", 0), ("ann", 2)):
            header, records = resume.read(tmp_path / f"{name}.resume")
            assert (header["seat"], header["name"], header["bot"]) == (seat, name, "heuristic")
            assert header["addresses"][seat][0] == "127.0.0.1" and records
        assert not (tmp_path / "bot1.resume").exists() and len(list(tmp_path.iterdir())) == 4
    finally:
        uno.kill()
        hp.kill()


def test_join_with_no_fitting_table_says_so() -> None:
    nobody = run("join", "--to", f"127.0.0.1:{udp_port()}", "--discover-timeout", "0.3", "--name", "ann")
    assert nobody.returncode == 3, nobody.stdout + nobody.stderr
    assert "no open table found on 127.0.0.1:" in nobody.stderr and "p2php join HOST[:PORT]" in nobody.stderr
    assert no_traceback(nobody.stdout, nobody.stderr)

    port, udp = free_port(), udp_port()
    table = host(port, udp, "uno", "--players", "2", "--name", "hana", "--auto", "--option", "rounds=1")
    try:
        for args in (("--game", "hpsha"), ("--option", "rounds=2"), ("--option", "colour=red")):
            out = run("join", "--to", f"127.0.0.1:{udp}", "--discover-timeout", "0.3", "--name", "ann", *args)
            assert out.returncode == 3, (args, out.stdout, out.stderr)
            assert "found 1 open table(s), but none with a free seat for this p2php matching" in out.stderr, out.stderr
            assert "host hana" in out.stderr and f"127.0.0.1:{port}" in out.stderr
            assert no_traceback(out.stdout, out.stderr)
        both = run("join", f"127.0.0.1:{port}", "--to", f"127.0.0.1:{udp}")
        assert both.returncode == 2 and "either an ADDRESS or --to" in both.stderr
    finally:
        table.kill()

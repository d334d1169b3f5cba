"""One seat of ``chaos_soak.py``'s rematch tables: a game through :mod:`p2php.api`, then its rematch.

    python benchmarks/chaos_seat.py [--slowdisk] GAME SEAT PLAYERS ADDR,ADDR,... OUTDIR SEED [KEY=VALUE ...]

Plays the seat with the game's seeded heuristic bot, saves ``OUTDIR/seatN.g0.p2php``, asks for a
rematch at once and plays it too (``seatN.g1.p2php``). Prints one JSON line per milestone (``started``,
``finished``, ``failed``) and flushes it, so the soak can kill the process at a chosen moment.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import trio

from p2php import api
from p2php.engine.registry import get_game
from p2php.session.handshake import LocalSecrets
from p2php.session.runner import bot_decider

START = time.monotonic()


def _say(**fields: Any) -> None:
    print(json.dumps({**fields, "t": round(time.monotonic() - START, 2)}), flush=True)


async def _play(peer: api.Peer, game_no: int, bot: Any) -> bool:
    """Drive ``peer`` to its end; True when its game finished (a rematch may follow)."""
    async for event in peer.events():
        if isinstance(event, api.Started):
            _say(event="started", game=game_no)
        elif isinstance(event, api.YourTurn):
            await peer.submit(await bot(peer.lockstep))
        elif isinstance(event, api.Finished):
            _say(event="finished", game=game_no, clean=event.clean, culprit=event.culprit, text=event.text())
            return True
        elif isinstance(event, api.Failed):
            _say(event="failed", game=game_no, message=event.message)
            return False
    return False


async def main(argv: list[str]) -> int:
    slowdisk = argv[:1] == ["--slowdisk"]  # chaos_soak's slowdisk: every fsync sleeps, and the game keeps a resume log
    if slowdisk:
        import chaos_slowdisk  # noqa: F401  (patches os.fsync of this process)

        argv = argv[1:]
    game, seat, players, addrs, out, seed, *opts = argv
    addresses = {s: (a.rpartition(":")[0], int(a.rpartition(":")[2])) for s, a in enumerate(addrs.split(","))}
    options: dict[str, Any] = {}
    for pair in opts:
        key, _, value = pair.partition("=")
        options[key] = int(value) if value.isdigit() else value
    bot = bot_decider(get_game(game).make_bot("heuristic", f"chaos-seat:{seed}:{seat}"))
    outdir = Path(out)
    secrets = LocalSecrets(master=random.Random(f"chaos-master:{seed}:{seat}").randbytes(32))
    async with api.start_peer(game, players=int(players), seat=int(seat), addresses=addresses, options=options,
                              name=f"seat{seat}", timeout=5.0, connect_timeout=20.0, secrets=secrets,
                              transcript_path=outdir / f"seat{seat}.g0.p2php",
                              resume_log=outdir / f"seat{seat}.g0.resume" if slowdisk else None) as peer:
        if not await _play(peer, 0, bot):
            return 1
        _say(event="rematch", game=1)
        async with api.rematch_table(peer, transcript_path=outdir / f"seat{seat}.g1.p2php", wait=20.0) as again:
            return 0 if await _play(again, 1, bot) else 1


if __name__ == "__main__":
    sys.exit(trio.run(main, sys.argv[1:]))

"""A player's own TCG deck: its list stays on its own peer, the table sees only its starting Character.

``deckN=own`` + ``characterN`` are public options; the list comes from the player's deck file through
``Game.read_private_deck`` into ``PeerConfig.private_decks``, never into the options or onto the wire.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from p2php.bots import RandomBot
from p2php.engine.contract import OptionError
from p2php.games.tcg.game import GAME
from p2php.session.memory import make_peers, run_in_memory
from p2php.testing.tcg import random_deck_text


def test_a_deck_file_gives_secret_ids_and_only_public_options() -> None:
    text = random_deck_text(7)
    lists, implied = GAME.read_private_deck(text, 0, {})
    assert implied["deck0"] == "own" and implied["format"] == "constructed" and implied["character0"]
    assert set(implied) == {"deck0", "character0", "format"}  # nothing of the list itself
    assert len(lists["deck0"]) == 60
    with pytest.raises(OptionError, match=r"deck:1: unknown card 'Curious Ravne' \(nearest: Curious Raven\)"):
        GAME.read_private_deck("4 Curious Ravne\n", 0, {})
    with pytest.raises(OptionError, match="character0"):
        GAME.new_state(2, {"deck0": "own", "format": "constructed"})


@pytest.mark.parametrize("crypto", ["verified", "fast"])
def test_own_decks_play_through_the_protocol_and_stay_secret(crypto: str) -> None:
    (lists0, opts0), (lists1, opts1) = (GAME.read_private_deck(random_deck_text(s), s, {}) for s in (0, 1))
    options = {**opts0, **opts1, "crypto": crypto}
    peers = make_peers("tcg", 2, options, seed=8, private_decks={0: lists0, 1: lists1})
    assert peers[0].private_decks == lists0 and peers[1].private_decks == lists1
    assert "decklist0" not in str(peers[0].table.hellos) or not peers[0].options["decklist0"]
    run_in_memory(peers, {s: RandomBot(f"8/{s}") for s in (0, 1)})
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    # What each peer ever knew of the other's deck is what was opened in play (drawn cards it was shown, milled
    # or played ones): the rest of the list — the winner's unplayed cards, at least — it never learnt.
    lists = (lists0["deck0"], lists1["deck1"])
    for seat in (0, 1):
        assert f"deck{seat}" not in peers[1 - seat].private_decks, "a peer holds only its own list"
    winner = peers[0].result.winners[0] if peers[0].result else 0
    unplayed = set(lists[winner]) - set(peers[1 - winner].public_faces.values()) - set(
        peers[1 - winner].private_faces.values())
    assert unplayed, "the winner's deck still holds cards its opponent never saw"


def test_demo_with_a_deck_file(tmp_path: Path) -> None:
    deck = tmp_path / "mine.deck"
    deck.write_text(random_deck_text(3))
    other = tmp_path / "theirs.deck"
    other.write_text(random_deck_text(4))
    out = subprocess.run([sys.executable, "-m", "p2php.cli", "demo", "tcg", "--deck", str(deck), "--deck2", str(other),
                          "--seed", "3", "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["audit"] == "clean" and result["options"]["deck0"] == "own"
    assert "Curious" not in json.dumps(result["options"])  # the list is nowhere in the table's options
    bad = tmp_path / "bad.deck"
    bad.write_text("Character: Hermione Granger\n61 Curious Raven\n")
    refused = subprocess.run([sys.executable, "-m", "p2php.cli", "demo", "tcg", "--deck", str(bad)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "deck:2:" in refused.stderr and len(refused.stderr.splitlines()) == 1, \
        refused.stderr
    mixed = subprocess.run([sys.executable, "-m", "p2php.cli", "demo", "tcg", "--deck", str(deck)],
                           capture_output=True, text=True, timeout=60)  # a 60-card deck against a 40-card starter
    assert mixed.returncode != 0 and len(mixed.stderr.splitlines()) == 1 and "seat 1's deck" in mixed.stderr, \
        mixed.stderr


@pytest.mark.parametrize("crypto", ["verified", "fast"])
def test_an_opponent_learns_no_unplayed_card_in_memory_or_on_the_wire(crypto: str) -> None:
    """Issue 11: each peer's knowledge of the other's deck is what was dealt to it or shown to it, and no frame
    before the audit carries any card in the clear (a card's group element never appears in the bytes)."""
    import msgpack

    from p2php.engine.contract import Deal, Show

    (lists0, opts0), (lists1, opts1) = (GAME.read_private_deck(random_deck_text(3 + s), s, {}) for s in (0, 1))
    wire: list[bytes] = []

    def record(sender: int, recipient: int, frame: dict[str, object]) -> dict[str, object]:
        wire.append(msgpack.packb(frame, use_bin_type=True))
        return frame

    peers = make_peers("tcg", 2, {**opts0, **opts1, "crypto": crypto}, seed=9, private_decks={0: lists0, 1: lists1})
    run_in_memory(peers, {s: RandomBot(f"9/{s}") for s in (0, 1)}, tamper=record)
    assert all(p.verdict is not None and p.verdict.clean for p in peers), [p.verdict for p in peers]
    for ls in peers:
        entitled = set()
        for event in ls.events:
            if isinstance(event.step, Deal):
                entitled |= {slot for slot, seat in event.step.to if seat == ls.seat}
            if isinstance(event.step, Show) and event.step.viewer == ls.seat:
                entitled |= set(event.step.slots)
        assert set(ls.private_faces) <= entitled  # nothing known privately that was not dealt or shown to it
    blob = b"".join(w for w in wire if b"audit" not in w)
    points = peers[0].points.points
    assert blob and points
    assert not [p for p in points if p in blob]

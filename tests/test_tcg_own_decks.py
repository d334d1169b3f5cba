"""A player's own TCG deck: its list stays on its own peer, the table sees only its starting Character.

``deckN=own`` + ``characterN`` are public options; the list comes from the player's deck file through
``Game.read_private_deck`` into ``PeerConfig.private_decks``, never into the options or onto the wire.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def _whole_block(peer: Any) -> None:
    """A modified client whose verified deck draws from its whole block (every version, any list): the pool a
    cheater would use, and what the game's pool was for a named constructed list and for two-version names."""
    from p2php.games.tcg.ids import BLOCK

    if peer.vdeck is not None:
        peer.vdeck._pool = lambda rec: list(range(rec.owner * BLOCK, (rec.owner + 1) * BLOCK))


def _play(options: dict[str, Any], crypto: str, decks: dict[int, dict[str, list[int]]], seed: int) -> Any:
    peers = make_peers("tcg", 2, {**options, "crypto": crypto}, seed=seed, private_decks=decks)
    _whole_block(peers[0])
    run_in_memory(peers, {s: RandomBot(f"{seed}/{s}") for s in (0, 1)})
    return peers[1].verdict


@pytest.mark.parametrize("crypto", ["verified", "fast"])
def test_a_seat_cannot_shuffle_another_list_than_the_one_the_table_names(crypto: str) -> None:
    """The options name seat 0's deck (``decklist0``, or a starter deck); seat 0 shuffles another legal list of
    its own block. A verified table's pool was the whole block outside starter play, and the fast audit checked
    only the deck rules: the game ran clean on a deck nobody agreed to (40 foreign cards opened in one game). Now
    the pool is the named list and the fast audit holds the list to it: seat 0 is named either way."""
    from p2php.games.tcg.decklist import parse_deck
    from p2php.games.tcg.ids import instance_ids
    from p2php.testing.tcg import random_deck_text

    public0, other = random_deck_text(11), random_deck_text(12)
    swapped = instance_ids(0, parse_deck(other))
    assert sorted(swapped) != instance_ids(0, parse_deck(public0))
    draco = GAME.private_decks(GAME.parse_options({"deck0": "draco"}), 0)["deck0"]
    for options, cheat in (({"format": "constructed", "decklist0": public0, "decklist1": random_deck_text(13)},
                            swapped),
                           ({}, draco)):  # the default options: seat 0 plays Hermione's starter deck
        verdict = _play(options, crypto, {0: {"deck0": cheat}}, 4)
        assert verdict is not None and not verdict.clean and verdict.culprit == 0, verdict
        assert verdict.code in ("bad_secret_deck", "bad_message"), verdict  # (a pass over a pool of another size)


@pytest.mark.parametrize("crypto", ["verified", "fast"])
def test_eight_dracos_of_two_versions_are_named_on_every_table(crypto: str) -> None:
    """The copy limit counts names: the two versions of Draco Malfoy are one card. A verified pool held four ids
    of each version, so a deck of 4 + 4 was drawn from it and ran clean (the fast audit named it). Now an own
    deck lists each name by its first version and the pool holds only those."""
    from p2php.games.tcg.cards import CardType, card_by_number
    from p2php.games.tcg.ids import _layout
    from p2php.testing.tcg import random_deck_text

    first = _layout()[0]
    lesson = next(n for n in range(1, 117) if card_by_number(n).type is CardType.LESSON)
    cheat = [first[2] + i for i in range(4)] + [first[3] + i for i in range(4)] + [first[lesson] + i for i in range(52)]
    lists1, opts1 = GAME.read_private_deck(random_deck_text(1), 1, {})
    options = {"deck0": "own", "character0": "Hermione Granger", "format": "constructed", **opts1}
    verdict = _play(options, crypto, {0: {"deck0": cheat}, 1: lists1}, 5)
    assert verdict is not None and not verdict.clean and verdict.culprit == 0, verdict
    assert verdict.code in ("bad_secret_deck", "bad_message"), verdict


def test_an_own_deck_lists_each_name_by_its_first_version_which_the_pool_holds_four_of() -> None:
    """Three of Draco Malfoy (Base 3) and one of Base 2 are legal (four of one name, one text): an own deck's ids
    are four of the first version, all in the verified pool, which holds no id of the second."""
    from p2php.games.tcg.cards import card_by_number
    from p2php.games.tcg.decklist import DeckList
    from p2php.games.tcg.ids import card_of, first_version, own_deck_ids

    assert (first_version(3), first_version(10), first_version(9), first_version(25)) == (2, 9, 9, 25)
    deck = DeckList(card_by_number(9), ((card_by_number(2), 1), (card_by_number(3), 3)))
    ids = own_deck_ids(0, deck)
    assert [card_of(i).number for i in ids] == [2, 2, 2, 2]
    pool = set(GAME.private_pool({"deck0": "own", "character0": "Hermione Granger", "format": "constructed"}, 0,
                                 "deck0") or ())
    assert set(ids) <= pool and not any(card_of(i).number in (3, 10) for i in pool)
    assert sum(card_of(i).number == 2 for i in pool) == 4


def test_an_own_deck_uses_random_copy_numbers_so_an_opened_copy_tells_no_count() -> None:
    """protocol.md §7.8: "copy 3 of X" opened must not prove the secret list holds four X. With copies 0..count-1
    one opened Lesson numbered 11 proved twelve of them; the copies are now drawn at random, and the list is still
    one the audit and the verified pool accept."""
    from p2php.games.tcg.decklist import parse_deck
    from p2php.games.tcg.ids import _layout, card_of, instance_ids

    text = random_deck_text(7)
    deck = parse_deck(text)
    options = {"deck0": "own", "character0": deck.character.name, "format": "constructed"}
    pool = set(GAME.private_pool(options, 0, "deck0") or ())
    lowest = instance_ids(0, deck)  # copies 0..count-1 of each card
    first = _layout()[0]
    copies_seen: set[int] = set()
    lists = [GAME.read_private_deck(text, 0, {})[0]["deck0"] for _ in range(20)]
    for ids in lists:
        assert sorted(card_of(i).number for i in ids) == sorted(card_of(i).number for i in lowest)
        assert set(ids) <= pool and GAME.check_private_deck(options, 0, "deck0", ids) is None
        copies_seen |= {i - first[card_of(i).number] for i in ids}
    assert any(ids != lowest for ids in lists), "every read gave copies 0..count-1: an opened copy tells the count"
    assert max(copies_seen) >= 24, copies_seen  # a Lesson's 60 ids are all in use, not only its first 12 or so


@pytest.mark.parametrize("crypto", ["fast", "verified"])
async def test_a_rematch_deals_an_own_deck_with_fresh_copy_numbers(crypto: str) -> None:
    """The copy numbers were drawn once, when the deck file was read, and every rematch at the table dealt the
    same ones: each game's opened copies added to what an opponent knew of the list. A rematch draws them afresh
    (``Game.private_decks_again``): the same cards, other ids, a clean game and audit."""
    from p2php.games.tcg.ids import card_of
    from p2php.session.local_net import run_local_table
    from p2php.session.runner import bot_decider

    lists = {s: GAME.read_private_deck(random_deck_text(s + 3), s, {})[0] for s in (0, 1)}
    options: dict[str, Any] = {"crypto": crypto}
    for s in (0, 1):
        options.update(GAME.read_private_deck(random_deck_text(s + 3), s, {})[1])
    bots = [bot_decider(RandomBot(f"rematch/{s}")) for s in (0, 1)]
    first = await run_local_table("tcg", 2, bots, options, seed="own", private_decks=lists)
    again = await run_local_table("tcg", 2, bots, options, seed="own/again", private_decks=lists,
                                  rematch_of=[r.lockstep for r in first])
    for results in (first, again):
        assert all(r.lockstep.verdict is not None and r.lockstep.verdict.clean for r in results)
    for s in (0, 1):
        before, after = first[s].lockstep.private_decks[f"deck{s}"], again[s].lockstep.private_decks[f"deck{s}"]
        assert before == lists[s][f"deck{s}"]
        assert sorted(card_of(i).number for i in after) == sorted(card_of(i).number for i in before)
        assert after != before, "the rematch dealt the same copy numbers"

"""The speed work's fast paths give exactly what the plain definitions give.

DetRng draws its words four at a time and ``shuffle`` reads them inline; ``canonical``
and ``encode`` skip copying lists of scalars and dicts already in key order; ``plain``
does the same for snapshots.  Determinism is a contract, so each is compared here with
a straightforward reference (the definition they replaced) on many random values,
and the generator's stream is pinned to the value the original implementation drew.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from enum import Enum, IntEnum
from typing import Any

import msgpack
import pytest

from p2php.canonical import NotCanonical, canonical, encode, hash_value
from p2php.engine.tasks import plain
from p2php.rng import DetRng


def _reference_canonical(value: Any) -> Any:
    """The definition: scalars as they are, lists for sequences, dicts with sorted keys, else refused."""
    if value is None or isinstance(value, bool | int | str | bytes):
        return value
    if isinstance(value, list | tuple):
        return [_reference_canonical(v) for v in value]
    if isinstance(value, Mapping):
        keys = list(value.keys())
        if not all(isinstance(k, str) for k in keys) and not all(
            isinstance(k, int) and not isinstance(k, bool) for k in keys
        ):
            raise NotCanonical("keys")
        return {k: _reference_canonical(value[k]) for k in sorted(keys)}
    raise NotCanonical("type")


class Colour(IntEnum):
    RED = 0
    BLUE = 1


class Stage(Enum):
    START = 1


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.randrange(12 if depth < 4 else 6)
    if roll == 0:
        return None
    if roll == 1:
        return rng.random() < 0.5
    if roll == 2:
        return rng.randrange(-(2**63), 2**64)
    if roll == 3:
        return rng.choice(["", "a", "play", "黑魔王"])
    if roll == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(4)))
    if roll == 5:
        return Colour(rng.randrange(2))
    if roll in (6, 7):
        items = [_value(rng, depth + 1) for _ in range(rng.randrange(5))]
        return tuple(items) if roll == 7 else items
    keys: list[Any]
    if roll == 8:
        keys = rng.sample(["z", "a", "m", "kind", "b"], rng.randrange(5))
    elif roll == 9:
        keys = rng.sample([5, -1, 0, 3, 2**40], rng.randrange(5))
    elif roll == 10:
        keys = sorted(rng.sample(["x", "c", "y"], rng.randrange(4)))  # already in order
    else:
        keys = [rng.choice(["a", 1, True])]  # mixed or bool keys: refused
    return {k: _value(rng, depth + 1) for k in keys}


def test_canonical_and_encode_match_the_definition() -> None:
    rng = random.Random(16)
    checked = refused = 0
    for _ in range(3000):
        value = _value(rng)
        if rng.random() < 0.05:
            value = [value, 1.5]  # a float somewhere: refused
        try:
            expected = _reference_canonical(value)
        except NotCanonical:
            with pytest.raises(NotCanonical):
                canonical(value)
            with pytest.raises(NotCanonical):
                encode(value)
            refused += 1
            continue
        assert canonical(value) == expected
        packed = msgpack.packb(expected, use_bin_type=True, strict_types=False)
        assert encode(value) == packed
        assert hash_value(value) == hashlib.sha256(packed).digest()
        checked += 1
    assert checked > 1000 and refused > 50


def test_canonical_returns_fresh_lists() -> None:
    hand = (3, 1, 2)
    out = canonical({"hand": hand, "pile": [4, 5]})
    assert out == {"hand": [3, 1, 2], "pile": [4, 5]}
    assert type(out["hand"]) is list


def _reference_plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str | bytes):
        return value
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, list | tuple):
        return [_reference_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _reference_plain(v) for k, v in value.items()}
    raise TypeError(type(value).__name__)


def test_plain_matches_the_definition() -> None:
    rng = random.Random(9)
    for _ in range(2000):
        value = _value(rng)
        if rng.random() < 0.2:
            value = [value, Stage.START, (Stage.START, 1)]
        expected = _reference_plain(value)
        assert plain(value) == expected
        assert type(plain(value)) is type(expected)


def test_detrng_stream_is_pinned() -> None:
    """The values the original word-at-a-time generator drew (any change breaks old transcripts)."""
    r = DetRng(b"pin")
    out: list[Any] = [r.below(n) for n in (2, 3, 7, 108, 1000, 2**64 - 1, 2**64 + 1, 2**255)]
    assert out[:5] == [0, 2, 2, 51, 637]
    deck = list(range(108))
    r.shuffle(deck)
    out += deck
    out.append(r.bytes(13).hex())
    out.append(r.permutation(9))
    assert hashlib.sha256(repr(out).encode()).hexdigest() == (
        "48ada10b2fcde4500c99db51d9bd531c7b34f29f1014292ab4b78f5f078d6415")


def test_shuffle_draws_what_below_draws() -> None:
    """shuffle() reads the stream inline; it must consume it exactly as below(i + 1) calls would."""
    for seed in range(20):
        a, b = DetRng(seed), DetRng(seed)
        for size in (0, 1, 2, 5, 52, 108):
            items = list(range(size))
            a.shuffle(items)
            expected = list(range(size))
            for i in range(size - 1, 0, -1):
                j = b.below(i + 1)
                expected[i], expected[j] = expected[j], expected[i]
            assert items == expected
            assert a.below(1000) == b.below(1000)  # and both stand at the same place in the stream


@pytest.mark.parametrize("game_name, players, options", [
    ("uno", 3, {"deck": "all", "rounds": 1, "crypto": "fast"}),
    ("hpsha", 4, {"crypto": "fast"}),
])
def test_owes_keys_is_whether_the_key_duty_is_empty(
    monkeypatch: pytest.MonkeyPatch, game_name: str, players: int, options: dict[str, Any]
) -> None:
    """``Lockstep._owes_keys`` (who is expected to send ``keys``, asked at every poll) stops at the first slot a seat
    still holds; at every point of a whole game it must say what ``bool(_key_duty(seat))`` says."""
    from p2php.engine.registry import get_game
    from p2php.session.lockstep import Lockstep
    from p2php.session.memory import make_peers, run_in_memory

    original = Lockstep._owes_keys
    asked = []

    def checked(self: Lockstep, seat: int) -> bool:
        fast = original(self, seat)
        assert fast == bool(self._key_duty(seat))
        asked.append(fast)
        return fast

    monkeypatch.setattr(Lockstep, "_owes_keys", checked)
    peers = make_peers(game_name, players, options, seed=5)
    game = get_game(game_name)
    run_in_memory(peers, {s: game.make_bot("random", s) for s in range(players)})
    assert all(ls.finished for ls in peers)
    assert True in asked and False in asked  # both answers were given, for deals and reveals


# ----------------------------------------------------------------------------- HP Sha's skill tables


def _hpsha_states(players: int, options: dict[str, Any], games: int) -> Any:
    """Every state after a decision of a few seeded random-bot HP Sha games."""
    import p2php.games  # noqa: F401  (registers the games)
    from p2php.engine.contract import Decide, GameOver
    from p2php.engine.local import LocalTable
    from p2php.engine.registry import get_game

    g = get_game("hpsha")
    opts = g.parse_options(options)
    for seed in range(games):
        table = LocalTable(g.new_state(players, opts), seed=seed)
        bots = {s: g.make_bot("random", f"{seed}/{s}") for s in range(players)}
        for _ in range(4000):
            step = table.run_chance()
            if isinstance(step, GameOver):
                break
            assert isinstance(step, Decide)
            answers = []
            for seat in step.seats:
                k = table.knowledge(seat)
                answers.append((seat, bots[seat].choose(table.state, seat, k, table.state.legal_actions(seat, k))))
            table.act(answers)
            yield table.state


def _reference_skills(st: Any, seat: int) -> tuple[Any, ...]:
    """HpshaState.skills as it was defined before its fast path: _own_skills plus the creatures' extras."""
    from p2php.games.hpsha import creatures

    own = st._own_skills(seat)
    if st.creatures and st.char[seat] >= 0:
        extra: tuple[Any, ...] = (creatures.SALAMANDER,) if st.cr.get("lit") else ()
        if st.flags[seat].get("centaur"):
            extra += (creatures.CENTAUR,)
        if st.flags[seat].get("gnome") or st.cr.get("loan", [-1])[0] == seat:
            extra += (creatures.GNOME_BORROW, creatures.GNOME_RETURN)
        return (*own, *extra) if extra else own
    return own


@pytest.mark.parametrize(("players", "options"), [(5, {}), (8, {"creatures": 11}), (10, {})])
def test_hpsha_skill_tables_match_the_definition(players: int, options: dict[str, Any]) -> None:
    """``skills``, ``hooked`` and ``listening`` answer what asking every skill answers; ``order_from``
    what its definition gives."""
    from p2php.games.hpsha import triggers as tp
    from p2php.games.hpsha.state import _HOOKS, _overrides

    checked = 0
    for st in _hpsha_states(players, options, 3):
        checked += 1
        start = st.current_or_first()
        for seat in range(st.n):
            own = st.skills(seat)
            assert own == _reference_skills(st, seat)
            for hook in _HOOKS:
                hooked = st.hooked(seat, hook)
                assert [sk for sk in own if _overrides(sk, hook)] == [sk for sk in hooked if _overrides(sk, hook)]
        for s in range(-1, st.n + 1):
            assert st.order_from(s) == [(s + i) % st.n for i in range(st.n) if st.alive[(s + i) % st.n]]
        for point in tp.POINTS:
            assert st.listening(point) == [(s, sk.key) for s in st.order_from(start) for sk in st.skills(s)
                                           if point in sk.points]
    assert checked > 100  # whole games were walked, not an empty generator


@pytest.mark.parametrize(("players", "options"), [(6, {}), (8, {"creatures": 11})])
def test_hpsha_target_ok_matches_targets_for(players: int, options: dict[str, Any]) -> None:
    """``target_ok`` answers ``targets in targets_for(...)`` for every kind and many target lists; ``targets_for``
    with ``range_memo``'s kept answers lists what it lists asking ``in_range`` each time."""
    from p2php.games.hpsha.data import KINDS
    from p2php.games.hpsha.play import NOT_IN_PLAY, range_memo, target_ok, targets_for

    compared = 0
    for i, st in enumerate(_hpsha_states(players, options, 2)):
        if i % 20:
            continue
        n = st.n
        for user in range(n):
            if not st.alive[user]:
                continue
            others = [s for s in st.order_from(user) if s != user]
            tries = [[], [user], others, st.order_from(user), list(range(n)), others[::-1],
                     [s for s in st.order_from(user) if st.hp[s] < st.max_hp[s]]]
            tries += [[t] for t in range(-1, n + 1)] + [[a, b] for a in range(n) for b in range(n) if a != b]
            for kind in KINDS:
                if kind in NOT_IN_PLAY:
                    continue
                listed = targets_for(st, user, kind)
                assert targets_for(st, user, kind, range_memo(st)) == listed  # play_actions' kept in_range answers
                for targets in tries:
                    assert target_ok(st, user, kind, targets) == (targets in listed), (kind, user, targets)
                    compared += 1
    assert compared > 1000  # many states, kinds and target lists were compared


def test_hpsha_as_slots_matches_the_definition() -> None:
    """``as_slots``'s one-int fast path gives what the general check gives (and refuses what it refuses)."""
    from p2php.engine.contract import IllegalAction
    from p2php.games.hpsha.tasks import as_slots

    def reference(v: Any) -> list[int] | str:
        if not isinstance(v, list) or not all(type(x) is int for x in v) or len(set(v)) != len(v):
            return "refused"
        return list(v)

    for v in ([3], [0], [-1], [True], [1.0], ["1"], [None], [1, 2], [2, 2], [], None, 3, (3,), [[3]]):
        try:
            got: list[int] | str = as_slots({"slots": v})
        except IllegalAction:
            got = "refused"
        assert got == reference(v), v
        if isinstance(got, list):
            assert got is not v  # a fresh list: callers may keep it


def test_hpsha_event_digest_folded_late_is_the_chain() -> None:
    """``event_digest`` read at the end only equals the chain read after every step, and the definition:
    ``sha256(digest + msgpack(event))`` from 32 zero bytes over every event said, in order."""
    from p2php.games.hpsha.state import _pack

    early: list[bytes] = []
    said: list[tuple[Any, ...]] = []
    for st in _hpsha_states(6, {}, 1):  # reads after every decision (the chain so far), keeps every event
        new = st.event_no - len(said)
        assert new <= len(st.events)
        said.extend(st.events[len(st.events) - new:] if new else [])
        early.append(st.event_digest)
    late = [st.event_digest for st in list(_hpsha_states(6, {}, 1))[-1:]]  # the same game, read once at its end
    chain = bytes(32)
    for event in said:
        chain = hashlib.sha256(chain + _pack(event)).digest()
    assert len(said) > 100 and early[-1] == late[0] == chain


def test_stage_names_are_the_members() -> None:
    """``stage_names(S).X is S.X`` for every member, and every HP Sha module's ``<Task>Stage`` is its task's."""
    import importlib

    from p2php.engine.tasks import stage_names

    class Stage(Enum):
        A = 1
        B = 2

    names = stage_names(Stage)
    assert names.A is Stage.A and names.B is Stage.B
    seen = 0
    for module in ("flow", "windows", "tasks", "play", "damage", "cards_spells", "cards_basic"):
        mod = importlib.import_module(f"p2php.games.hpsha.{module}")
        for name, value in vars(mod).items():
            task = getattr(mod, name[: -len("Stage")], None) if name.endswith("Stage") else None
            if task is not None and isinstance(getattr(task, "Stage", None), type):
                for member in task.Stage:
                    assert getattr(value, member.name) is member
                seen += 1
    assert seen >= 20


@pytest.mark.parametrize(("game", "players", "seeds", "options"),
                         [("hpsha", 5, 4, {}), ("hpsha", 10, 1, {}), ("tcg", 2, 3, {}), ("hogwarts", 4, 2, {}),
                          ("uno", 2, 6, {"rounds": "2"}), ("uno", 4, 3, {"rounds": "2"})])
def test_play_with_listed_answers_matches_checked_play(game: str, players: int, seeds: int,
                                                       options: dict[str, str]) -> None:
    """``LocalTable.play`` hands its bots' listed answers to ``apply_listed`` (no checks again); stepping the
    same game with ``act`` (every answer checked, then ``apply``) gives the same log and state hash."""
    from p2php.engine.contract import Decide, GameOver
    from p2php.engine.local import LocalTable, default_decks
    from p2php.engine.registry import get_game

    g = get_game(game)
    opts = g.parse_options(options)
    decks = default_decks(g, players, opts)
    for seed in range(seeds):
        fast = LocalTable(g.new_state(players, opts), seed=seed, private_decks=decks)
        over = fast.play({s: g.make_bot("random", f"{seed}/{s}") for s in range(players)})
        slow = LocalTable(g.new_state(players, opts), seed=seed, private_decks=decks)
        bots = {s: g.make_bot("random", f"{seed}/{s}") for s in range(players)}
        while not isinstance(step := slow.run_chance(), GameOver):
            assert isinstance(step, Decide)
            answers = []
            for seat in step.seats:
                k = slow.knowledge(seat)
                answers.append((seat, bots[seat].choose(slow.state, seat, k, slow.state.legal_actions(seat, k))))
            slow.act(answers)
        assert (step, slow.log, slow.state.state_hash()) == (over, fast.log, fast.state.state_hash())


def _reference_shuffle(rng: DetRng, items: list[int]) -> None:
    """The definition: below(i + 1) for each i from the last index down."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


@pytest.mark.parametrize("rejecting", [False, True])
def test_shuffle_leaves_the_generator_where_below_would(monkeypatch: pytest.MonkeyPatch, rejecting: bool) -> None:
    """shuffle() makes its words in bulk: the same items, and the same words, counter and position after it,
    from every position in a block, for sizes around block edges, past the bound table, and (``rejecting``:
    a bound of about 2**63, so half the words are drawn again) through the one-by-one path's rejections."""
    import p2php.rng as rng_module

    if rejecting:
        limit = (1 << 63) + 12345
        monkeypatch.setattr(rng_module, "_LIMIT", limit)
        monkeypatch.setattr(rng_module, "_BOUNDS", tuple(limit - (limit % n) if n else 0 for n in range(1025)))
    for seed in range(6):
        for before in range(6):
            for size in (2, 3, 4, 5, 6, 9, 13, 52, 108, 1024, 1025, 1500):
                a, b = DetRng(seed), DetRng(seed)
                for _ in range(before):
                    assert a.below(10) == b.below(10)
                items, expected = list(range(size)), list(range(size))
                a.shuffle(items)
                _reference_shuffle(b, expected)
                assert items == expected
                assert (a._counter, a._words, a._pos) == (b._counter, b._words, b._pos)
                assert a.bytes(9) == b.bytes(9)

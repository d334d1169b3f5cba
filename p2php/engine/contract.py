"""The engine contract: what every game implements and every peer, bot and UI uses.

A game is a pure, deterministic state machine (no sockets, clocks, threads or
global randomness).  Its *public* state is identical on every peer; hidden cards
are opaque **slots** (ints) whose faces only some peers know.  The shape follows
OpenSpiel: ask the state what happens next (:meth:`GameState.step`), list the
legal actions of a seat, apply actions, observe per seat.

What happens next is one of these :data:`Step` values:

* :class:`Decide` – the listed seats must each send one action.  Every listed
  seat answers (a "pass" is an action too), so no peer learns anything from who
  stayed silent, and the answers are applied together, in the listed order.
* :class:`Shuffle` – make a new face-down deck of the given (public) card
  instances; its slots are ``first_slot ..`` in the shuffled order.
* :class:`Reshuffle` – make a new face-down deck of the cards now in some slots
  (face down or face up, any mix), shuffled by every peer; the old slots are spent.
* :class:`Deal` – give face-down slots to seats; only the receiving seat learns
  each face.
* :class:`Reveal` – open slots to everyone; the faces come back to
  :meth:`GameState.advance`.
* :class:`Show` – let one seat see another seat's slots privately.
* :class:`Randomness` – joint randomness that no peer could predict or bias;
  the 32 bytes come back to :meth:`GameState.advance`.
* :class:`GameOver` – the result.

The session layer (or :class:`p2php.engine.local.LocalTable` for engine-only
play) fulfils each step and calls back into the state.  An action that opens
cards (playing a card from the hand) names them through
:meth:`GameState.reveals`; the faces travel with the action and arrive in
:meth:`GameState.apply`.  Legality that depends on a face the validating peer
cannot see is checked by the peers that can see it, and by everyone at the
audit, which replays the game knowing every face (see :class:`Knowledge`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from p2php.canonical import hash_value
from p2php.errors import P2phpError
from p2php.rng import DetRng

Seat = int
Slot = int
CardId = int
Action = dict[str, Any]
"""An action is plain msgpack-able data with a ``"type"`` key, e.g.
``{"type": "play", "slot": 17, "colour": "red", "uno": True}``."""


# ----------------------------------------------------------------------------- steps


@dataclass(frozen=True, slots=True)
class Decide:
    """Seats that must each send one action now, applied in this order.

    ``sealed=True`` makes it a simultaneous choice: every seat first commits to
    its answer (a hash), and only when all commitments are in are the answers
    revealed, so nobody can wait to see the others' choices before making its own.
    """

    seats: tuple[Seat, ...]
    prompt: str = ""
    sealed: bool = False


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Make a face-down deck of ``cards`` (public composition), shuffled by every peer.

    The deck's slots are ``first_slot, first_slot + 1, ...`` in shuffled order.

    With ``owner`` set, the composition is secret to everyone but the owner (a
    trading-card player's own deck): ``cards`` is empty, ``size`` says how many,
    and the owner's peer supplies the list privately (``private_decks[purpose]``).
    Nobody, the owner included, learns the order; the audit recovers the list and
    checks it with :meth:`Game.check_private_deck`.
    """

    cards: tuple[CardId, ...]
    first_slot: Slot
    purpose: str = "deck"
    owner: Seat | None = None
    size: int = 0

    @property
    def count(self) -> int:
        return self.size if self.owner is not None else len(self.cards)

    @property
    def slots(self) -> range:
        return range(self.first_slot, self.first_slot + self.count)


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """A new face-down deck holding exactly the cards now in ``slots``, shuffled by every peer.

    ``slots`` may mix face-down slots (faces unknown to some or all seats: a player's remaining deck) and slots
    whose face is public (cards from a discard pile). The new deck's slots are ``first_slot, first_slot + 1, ...``
    in shuffled order, one per input; the old slots are *spent*: no later step may name them. The engine learns
    nothing but the new slot range (a face it knew, say after a private :class:`Show`, no longer says where the
    card went), and nobody can change which cards the deck holds (protocol.md §7.6).

    The face-down slots must all come from decks under one joint key (in practice: one deck and its earlier
    reshuffles); a mix of two decks' face-down slots is an engine bug that the session refuses.
    """

    slots: tuple[Slot, ...]
    first_slot: Slot
    purpose: str = "reshuffle"

    @property
    def count(self) -> int:
        return len(self.slots)

    @property
    def new_slots(self) -> range:
        """The slots of the new deck."""
        return range(self.first_slot, self.first_slot + len(self.slots))


@dataclass(frozen=True, slots=True)
class Deal:
    """Give each slot to a seat; only that seat learns the face."""

    to: tuple[tuple[Slot, Seat], ...]


@dataclass(frozen=True, slots=True)
class Reveal:
    """Open slots to everyone."""

    slots: tuple[Slot, ...]


@dataclass(frozen=True, slots=True)
class Show:
    """Let ``viewer`` see ``slots`` (held face down by ``owner``) privately."""

    slots: tuple[Slot, ...]
    owner: Seat
    viewer: Seat


@dataclass(frozen=True, slots=True)
class Randomness:
    """Joint randomness: 32 bytes nobody could predict or bias (except by aborting)."""

    purpose: str


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game has ended."""

    winners: tuple[Seat, ...]
    scores: tuple[int, ...]
    summary: str = ""


Step = Decide | Shuffle | Reshuffle | Deal | Reveal | Show | Randomness | GameOver


# ----------------------------------------------------------------------------- errors


class IllegalAction(P2phpError, ValueError):
    """An action that the rules do not allow.  ``str(err)`` says why."""


class OptionError(P2phpError, ValueError):
    """A game option that is unknown or has a bad value."""


# ----------------------------------------------------------------------------- knowledge


@dataclass(slots=True)
class Knowledge:
    """What one seat knows about faces: the public faces plus its private ones.

    ``everything=True`` is the auditor's view at the end of a game, when every
    secret has been released: then every face is known.
    """

    public: Mapping[Slot, CardId]
    private: dict[Slot, CardId] = field(default_factory=dict)
    everything: bool = False

    def face(self, slot: Slot) -> CardId | None:
        """The face of ``slot`` if this seat knows it, else ``None``."""
        f = self.public.get(slot)
        if f is None:
            f = self.private.get(slot)
        return f


# ----------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One game option: its default and the values allowed (``None``: any int)."""

    default: str | int | bool
    choices: tuple[str | int | bool, ...] | None = None
    help: str = ""

    def parse(self, name: str, raw: object) -> str | int | bool:
        """Turn a raw value (possibly a CLI string) into a checked option value."""
        kind = type(self.default)
        value: str | int | bool
        if isinstance(raw, kind):
            value = raw
        elif isinstance(raw, str):
            try:
                if kind is bool:
                    low = raw.lower()
                    if low not in ("true", "false", "on", "off", "yes", "no", "1", "0"):
                        raise ValueError(raw)
                    value = low in ("true", "on", "yes", "1")
                elif kind is int:
                    value = int(raw)
                else:
                    value = raw
            except ValueError:
                raise OptionError(f"option {name}: {raw!r} is not a {kind.__name__}") from None
        else:
            raise OptionError(f"option {name}: {raw!r} is not a {kind.__name__}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise OptionError(f"option {name}: {value!r} is not one of {allowed}")
        return value


# ----------------------------------------------------------------------------- game + state


class GameState(ABC):
    """Public state of one game in progress.  Mutable; :meth:`clone` to branch."""

    apply_checks: ClassVar[bool] = False
    """Does :meth:`apply` validate every answer in full itself (with the opened faces and the public ones)?
    Then an engine-only table that picked an answer from its seat's own :meth:`legal_actions` list need not
    :meth:`check` it first (``check`` accepts every listed action: the contract); a peer always checks."""

    @abstractmethod
    def step(self) -> Step:
        """What happens next."""

    @abstractmethod
    def legal_actions(self, seat: Seat, knowledge: Knowledge) -> list[Action]:
        """Every legal action for ``seat`` at the current :class:`Decide` step."""

    @abstractmethod
    def check(self, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        """Raise :class:`IllegalAction` if ``action`` is not allowed for ``seat``.

        ``knowledge`` is the *validating* peer's.  Checks that need a face it
        does not know are skipped; the peers who know it, and the audit, make them.
        Faces revealed by the action itself are checked in :meth:`apply`.
        """

    def setup_done(self) -> bool:
        """Whether the set-up (dealing roles, characters, starting hands ...) is over.

        Informative only (benchmarks measure set-up time with it); the default says
        the set-up ends at the first decision.
        """
        return True

    def reveals(self, seat: Seat, action: Action) -> tuple[Slot, ...]:
        """Slots that ``action`` opens to everyone (e.g. the card being played)."""
        return ()

    def forced_in_public(self, seat: Seat) -> bool:
        """Whether ``seat``'s pending decision has one legal action whatever faces the seat holds.

        A UI that answers a forced decision by itself (the terminal's and the bridge's ``auto_forced``) answers
        only these.  A decision forced by the seat's own cards (a 咒立停 window while the hand holds none, an UNO
        card drawn that does not match) answered at once, where one with a choice waits for a person, tells every
        seat by the time it took what the hand lacks (protocol.md §10.4, "Side channels").  Default: ``False``.
        """
        return False

    @abstractmethod
    def apply(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        """Apply the answers to the current :class:`Decide`, in order.

        ``faces`` holds the faces opened by the answers (see :meth:`reveals`).
        Raises :class:`IllegalAction` if a revealed face makes an action illegal.
        To find which of several answers is to blame, the session may call
        ``apply`` on a fresh copy with only a prefix of the answers: a partial
        call must validate the given answers (it need not leave a usable state).
        """

    def apply_listed(self, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> None:
        """:meth:`apply` for answers that are each an action object of its seat's own :meth:`legal_actions`
        list at this step, one per asked seat, with every face they open: a bot's picks at an engine-only table
        (:meth:`~p2php.engine.local.LocalTable.play`).  A game whose ``apply`` checks what ``check`` has already
        accepted may skip that here (``check`` accepts every listed action: the contract); by default it is
        ``apply``.  A peer never calls it: another seat's answer is never known to be listed."""
        self.apply(answers, faces)

    @abstractmethod
    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        """Complete the current non-:class:`Decide` step (faces for a Reveal, bytes for Randomness)."""

    @abstractmethod
    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator), as plain data for UIs and bots."""

    @abstractmethod
    def snapshot(self) -> Any:
        """The whole public state as plain data (see :mod:`p2php.canonical`)."""

    @abstractmethod
    def clone(self) -> GameState:
        """An independent copy."""

    def state_hash(self) -> bytes:
        """SHA-256 of the canonical encoding of :meth:`snapshot`."""
        return hash_value(self.snapshot())

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        """A one-line human description of an action (for logs)."""
        return f"seat {seat}: {action}"

    def describe_prompt(self, prompt: str) -> str:
        """What a :class:`Decide`'s ``prompt`` asks, in words (the terminal's question); the id itself by default."""
        return prompt


class Game(ABC):
    """A game definition: registered by name, creates states."""

    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[Mapping[str, OptionSpec]] = {}

    def parse_options(self, raw: Mapping[str, object]) -> dict[str, str | int | bool]:
        """Check ``raw`` options and fill in defaults.  Raises :class:`OptionError`."""
        unknown = sorted(set(raw) - set(self.options))
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            raise OptionError(f"unknown option(s) {', '.join(unknown)} for {self.name} (known: {known})")
        out: dict[str, str | int | bool] = {}
        for name in sorted(self.options):
            spec = self.options[name]
            out[name] = spec.parse(name, raw[name]) if name in raw else spec.default
        return out

    @abstractmethod
    def new_state(self, players: int, options: Mapping[str, object]) -> GameState:
        """The state before anything has happened (options already parsed or raw)."""

    @abstractmethod
    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        """A human name of a card instance."""

    @abstractmethod
    def universe_size(self, options: Mapping[str, object]) -> int:
        """How many card instances exist (card ids are ``0 .. size-1``)."""

    bot_kinds: ClassVar[tuple[str, ...]] = ("random",)

    def make_bot(self, kind: str, seed: bytes | str | int) -> Bot:
        """A bot of the given kind (``"random"`` always exists; games add e.g. ``"heuristic"``)."""
        if kind != "random":
            raise OptionError(f"{self.name} has no {kind!r} bot (kinds: {', '.join(self.bot_kinds)})")
        return RandomBot(seed)

    def check_private_deck(
        self, options: Mapping[str, object], owner: Seat, purpose: str, cards: Sequence[CardId]
    ) -> str | None:
        """Why a secret deck list (see :class:`Shuffle`) breaks the deck-building rules, or ``None``."""
        return None

    def private_pool(self, options: Mapping[str, object], owner: Seat, purpose: str) -> Sequence[CardId] | None:
        """The card ids ``owner`` may build its secret ``purpose`` deck from (``None``: every id of the game).

        Any ``size`` distinct ids of the pool must make a legal deck: a verified deck proves exactly that at the
        owner's first pass (a proven shuffle of the whole pool, whose head is the deck), so the deck rules hold
        without anyone, even at the audit, learning the composition (protocol.md B.10). A fast deck checks the
        recovered list with :meth:`check_private_deck` at the audit instead. Express the rules as a pool of
        instance ids (four ids per card for a four-copies rule); at most 1024 ids.
        """
        return None

    def table_lines(self, observation: Mapping[str, Any], seat: Seat, names: Sequence[str]) -> list[str] | None:
        """The terminal's view of the table for ``seat`` from its ``observation``, in plain lines (``None``: the
        terminal prints the observation as it is). ``names`` are the seats' display names, already escaped."""
        return None

    def read_private_deck(
        self, text: str, seat: Seat, options: Mapping[str, object]
    ) -> tuple[dict[str, list[CardId]], dict[str, str]]:
        """A player's own deck file for ``seat``: its secret lists by purpose, and the public options it implies.

        The lists stay on the player's peer (``PeerConfig.private_decks``); the options (say, its starting
        Character and "this seat brings its own deck") go into the table's options, which every seat sees. Raises
        :class:`OptionError` with one line naming the file's line for a deck that cannot be played.
        """
        raise OptionError(f"{self.name} has no decks of a player's own")

    def seat_options(self, seat: Seat) -> frozenset[str]:
        """The options that belong to ``seat``'s player, who may set them in the lobby (``{}``: none).

        A trading-card player who brings its own deck sets these for its seat when it sits down (its deck's
        implied options: "own", its starting Character), so the host need not know its deck beforehand.
        """
        return frozenset()

    def private_decks_again(self, decks: Mapping[str, list[CardId]], options: Mapping[str, object],
                            seat: Seat) -> dict[str, list[CardId]]:
        """``seat``'s own secret lists for a rematch, from the ended game's (default: the same lists).

        A game whose secret list carries more than the cards themselves draws that part afresh here: a trading-card
        deck's copy numbers, drawn at random so that an opened "copy 11" says nothing of how many copies the deck
        holds, would otherwise be the same in every game at the table, and each rematch would tell an opponent more.
        """
        return {purpose: list(cards) for purpose, cards in decks.items()}

    def private_decks(self, options: Mapping[str, object], seat: Seat) -> dict[str, list[CardId]]:
        """The secret deck lists ``seat`` brings when its player names none, by purpose (``{}``: none).

        A trading-card game answers with the deck its options name (a starter deck, whose list is public
        anyway); a player's own deck comes from its peer instead (``PeerConfig.private_decks``), never from
        the options, which every seat sees.
        """
        return {}

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise OptionError(
                f"{self.name} needs {self.min_players}–{self.max_players} players, not {players}"
            )


# ----------------------------------------------------------------------------- bots


class Bot(Protocol):
    """An automated decision maker: sees only what its seat may see (re-exported by :mod:`p2php.bots`)."""

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        """Pick one of ``legal`` (never empty)."""
        ...


class RandomBot:
    """Picks a uniformly random legal action (seeded, so games replay); every game's ``"random"`` bot."""

    def __init__(self, seed: bytes | str | int = 0) -> None:
        self.rng = DetRng(seed)

    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        return self.rng.choice(legal)

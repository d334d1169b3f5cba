"""Characters' special abilities (§5.5): usable during one's turn after the first draw.

* Draco Malfoy (2, 3): "During your turn, you may use an Action and discard a card from your hand to look
  at your opponent's hand. You may then choose 1 card in his or her hand and discard it."  An Action of
  the turn (``{"type": "ability", "slot"}``, the slot discarded face up); then the opponent's hand is
  shown to Draco's player alone (a Show step) and they may pick one card, which is opened (a Reveal: its
  last key is the opponent's) and discarded.  Ruling r9237a0a5: as many times as one has Actions.
* Hermione Granger (9, 10): "If you already have 2 or more Lessons in play, then whenever you use an
  Action to play a Lesson card, you may play 2 Lesson cards instead of 1."  After a Lesson played with
  an Action while 2 or more were already in play, :class:`SecondLesson` offers one more Lesson from the
  hand.  Decision (§5.5 is silent): "already" is counted before the first of the two Lessons is played.
* Harry Potter (8): "Whenever you use an Action to draw a card, you may draw 2 cards instead of 1" -- a
  second draw action ``{"type": "draw", "cards": 2}``; ruling rf0602fe0: it changes how many cards the
  Action draws, not what the Action is for.
* Ron Weasley (17): playing a Character costs 1 Action instead of 2 (``turn.action_cost``).
* Rubeus Hagrid (18): each Creature of his player's that does 3 or more damage to the opponent does 2
  more (``TcgState.creature_damage``, so normal Creature damage and Steelclaw alike: ruling rc1ef75c5;
  rulings r9fa9adef and r38f8923b concern cards not implemented yet).
* Hannah Abbott (7), Professor Filius Flitwick (15): "Once per game, you may trade 2 cards in your hand
  for 2 non-Healing cards / 1 card that needs Charms Power in your discard pile" -- ``{"type": "trade",
  "card": number}``, no Action; offered only when both halves can be done in full; the 2 hand cards are
  discarded first (opened), then the pile cards are taken, not counting the 2 just discarded (a trade
  gives something back).  Flitwick's Charms Power counts through ``power.py``.
* Dean Thomas (1): "Once per game, you may draw 3 cards" -- ``{"type": "dean"}`` during the turn, no
  Action (FAQ 9: nothing costs an Action unless it says so); the use is remembered per card in play
  (:attr:`TcgState.used`, key ``-1 - seat`` for a starting Dean, else his slot), so a Dean that left
  play and came back could use it again (§9).
* Nearly Headless Nick (13): "Once per game, you may search your deck. When you do, you may take up to 2 Item
  cards from your deck, show them to your opponent, and put them into your hand. Then shuffle your deck" --
  ``{"type": "once", "card": 13}``, no Action, offered while the deck holds a card; the search is Alchemy's
  (``spells.SearchDeck``, ``spells.ReshuffleDeck``).
* Professor Severus Snape (16): "Once per game, you may shuffle up to 7 non-Healing cards from your discard
  pile into your deck" -- ``{"type": "once", "card": 16}``, no Action, offered while the pile holds a
  non-Healing card; as Hospital Wing does (``spells.shuffle_in``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Reveal, Seat, Show, Slot, Step
from p2php.engine.tasks import CONTINUE, Done, Outcome, Push, Task
from p2php.games.tcg.cards import CardType
from p2php.games.tcg.damage import Draw, draws
from p2php.games.tcg.ids import card_of
from p2php.games.tcg.spells import OwnDiscards, Retrieve, search_deck, shuffle_in
from p2php.games.tcg.state import TcgState

__all__ = [
    "DEAN", "DRACO", "HARRY", "HERMIONE", "ONCE", "RON", "TRADERS", "DracoLook", "SecondLesson", "Trade",
    "dean_draws", "dean_ready", "once_abilities", "second_lesson_due", "trades", "use_once",
]

DRACO = "Draco Malfoy"
HERMIONE = "Hermione Granger"
HARRY = "Harry Potter"
RON = "Ron Weasley"
DEAN = "Dean Thomas"
DEAN_NUMBER = 1


def _keys(g: TcgState, seat: Seat, number: int) -> list[int]:
    """Once-per-game keys of ``seat``'s Characters in play with card ``number``: -1 - seat for the starting one."""
    keys = [-1 - seat] if g.start[seat] == number else []
    return keys + [s for s in g.characters[seat] if g.card(s).number == number]


def _unused(g: TcgState, seat: Seat, number: int) -> int | None:
    return next((k for k in _keys(g, seat, number) if [seat, k] not in g.used), None)


def dean_ready(g: TcgState, seat: Seat) -> bool:
    """A Dean Thomas of ``seat``'s in play has not used his once-per-game draw."""
    return _unused(g, seat, DEAN_NUMBER) is not None


def dean_draws(g: TcgState, seat: Seat) -> list[Draw]:
    """Use the first unused Dean: remember it, and draw 3 cards."""
    key = _unused(g, seat, DEAN_NUMBER)
    g.used.append([seat, int(key if key is not None else 0)])
    g.log("ability", seat, DEAN, key)
    return draws(seat, 3)


NICK, SNAPE = 13, 16
ONCE = frozenset({NICK, SNAPE})
"""Once-per-game abilities used with ``{"type": "once", "card": number}``: Nearly Headless Nick, Snape."""


def once_abilities(g: TcgState, seat: Seat) -> list[Action]:
    """Nick's search (a deck to search) and Snape's shuffle (a non-Healing card in the pile), if unused."""
    out: list[Action] = []
    if _unused(g, seat, NICK) is not None and g.deck[seat]:
        out.append({"type": "once", "card": NICK})
    if _unused(g, seat, SNAPE) is not None and any(
            Retrieve(seat, "", 7, True, only="non_healing").fits(g, s) for s in g.discard[seat]):
        out.append({"type": "once", "card": SNAPE})
    return out


def use_once(g: TcgState, seat: Seat, number: int) -> list[Task[TcgState]]:
    """Use the first unused Character ``number`` of ``seat``'s: remember it, and its tasks in order."""
    key = _unused(g, seat, number)
    g.used.append([seat, int(key if key is not None else 0)])
    g.log("ability", seat, number, key)
    return search_deck(seat, CardType.ITEM.value, 2) if number == NICK else shuffle_in(seat, 7)


TRADERS = {7: (2, "non_healing"), 15: (1, "charms")}
"""Once-per-game trades "2 cards in your hand for N cards in your discard pile that ...": Hannah Abbott,
Professor Filius Flitwick."""


def trades(g: TcgState, seat: Seat) -> list[Action]:
    """The trade abilities ``seat`` may use now: 2 cards in hand, and enough fitting cards in the pile."""
    out: list[Action] = []
    for number, (count, only) in TRADERS.items():
        if _unused(g, seat, number) is not None and len(g.hand[seat]) >= 2 and \
                sum(Retrieve(seat, "", count, False, only=only).fits(g, s) for s in g.discard[seat]) >= count:
            out.append({"type": "trade", "card": number})
    return out


@dataclass
class Trade(Task[TcgState]):
    """Hannah Abbott / Flitwick: discard 2 cards of the hand, then take cards that were already in the pile."""

    seat: int
    number: int
    before: list[int] = field(default_factory=list)
    stage: int = 0

    def run(self, g: TcgState) -> Outcome:
        self.stage += 1
        if self.stage == 1:
            key = _unused(g, self.seat, self.number)
            g.used.append([self.seat, int(key if key is not None else 0)])
            g.log("ability", self.seat, self.number, key)
            self.before = list(g.discard[self.seat])
            return Push(OwnDiscards(self.seat, 2))
        if self.stage == 2:
            count, only = TRADERS[self.number]
            new = [s for s in g.discard[self.seat] if s not in self.before]
            return Push(Retrieve(self.seat, "", count, False, only=only, exclude=new))
        return Done()


def second_lesson_due(g: TcgState, seat: Seat, lessons_before: int) -> bool:
    """Hermione's ability applies to a Lesson just played with an Action."""
    return g.has_character(seat, HERMIONE) and lessons_before >= 2


@dataclass
class DracoLook(Task[TcgState]):
    """After Draco's cost is paid: look at the opponent's hand, maybe discard one card of it."""

    class Stage(Enum):
        SHOW = auto()
        CHOOSE = auto()
        OPEN = auto()
        DONE = auto()

    seat: int
    optional: bool = True  # False for Illegibilus: "Choose 1 of those cards and discard it"
    stage: Stage = Stage.SHOW
    chosen: int = -1

    def run(self, g: TcgState) -> Outcome:
        S = DracoLook.Stage
        opp = 1 - self.seat
        if self.stage is S.SHOW:
            if not g.hand[opp]:
                return Done()
            return Show(tuple(g.hand[opp]), owner=opp, viewer=self.seat)
        if self.stage is S.CHOOSE:
            return Decide((self.seat,), "draco")
        if self.stage is S.OPEN:
            return Reveal((self.chosen,))
        return Done()

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if isinstance(step, Show):
            self.stage = DracoLook.Stage.CHOOSE
            return CONTINUE
        g.hand[1 - self.seat].remove(self.chosen)
        g.to_discard(self.chosen)
        g.log("discarded", 1 - self.seat, self.chosen)
        self.stage = DracoLook.Stage.DONE
        return CONTINUE

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "discard", "slot": s} for s in g.hand[1 - self.seat]]
        return [*out, {"type": "none"}] if self.optional else out

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        if action["type"] == "none" and self.optional:
            return Done()
        self.chosen = action["slot"]
        self.stage = DracoLook.Stage.OPEN
        return CONTINUE


@dataclass
class SecondLesson(Task[TcgState]):
    """Hermione's second Lesson for the same Action: a Lesson from the hand, or stop.

    Also Homework's "Put up to 2 Lesson cards from your hand into play" (``left=2``, prompt ``homework``).
    """

    seat: int
    left: int = 1
    prompt: str = "second_lesson"

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), self.prompt) if self.left > 0 and g.hand[self.seat] else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = []
        for slot in g.hand[seat]:
            face = knowledge.face(slot)
            if face is None or _is_lesson(face):
                out.append({"type": "play", "slot": slot})
        return [*out, {"type": "stop"}]

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        if action == {"type": "stop"}:
            return
        slot = action.get("slot")
        if set(action) != {"type", "slot"} or action.get("type") != "play" or slot not in g.hand[seat]:
            raise IllegalAction(f"not a legal action here: {action}")
        face = knowledge.face(slot)
        if face is not None and not _is_lesson(face):
            raise IllegalAction("only a Lesson may be played with Hermione's ability")

    def reveals(self, g: TcgState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")
        return (slot,) if action.get("type") == "play" and slot in g.hand[seat] and slot not in g.pub else ()

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        if action["type"] == "stop":
            return Done()
        slot = action["slot"]
        if not _is_lesson(g.pub[slot]):
            raise IllegalAction("only a Lesson may be played with Hermione's ability")
        g.hand[seat].remove(slot)
        g.lessons[seat].append(slot)
        g.log("play", seat, slot)
        g.plays[seat] += 1
        self.left -= 1
        return CONTINUE


def _is_lesson(card_id: CardId) -> bool:
    return card_of(card_id).type is CardType.LESSON

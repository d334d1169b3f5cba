"""Adventures (§5.6): one per side, an effect while in play, a task "to solve" for the opponent, a reward.

An Adventure costs 2 Actions and no Power, and its player may not play another while one of theirs is in
play (:attr:`TcgState.adventures`, one slot or -1 per side).  Its opponent may solve it during their turn
(``{"type": "solve"}`` in the Actions decision); solving is done all at once, so it is offered only when
it can be done in full; the reward follows, and the Adventure goes to its owner's discard pile.

Decisions (§5.6 and tcg.md "Not specified" item 6):

* solving costs no Action (it is listed with Characters' abilities as "any time during your turn") and
  may be tried once an Adventure is in play, as often as the solver can pay;
* "chooses N cards in his or her hand and discards them" is solvable only with N cards in hand; "N of his
  or her Lessons / Creatures in play" only with N of them (the starting Character is never one, §5.5);
* "Before each of your turns, your opponent takes N damage" is Adventure damage at the ``before_turn``
  timing point (``triggers.py``), so Dungbomb prevents it (ruling rab1851a2);
* "skips a total of N Actions" (Gringotts' Cart Ride, Diagon Alley, Peeves Causes Trouble) is an action
  ``{"type": "skip"}`` that uses 1 Action; the count stays with the Adventure while it is in play (a new
  Adventure starts from 0) and the last one solves it;
* Diagon Alley's reward "may draw any number of cards": the number is chosen first, then all are drawn
  at once (ruling r03088ae3);
* Human Chess Game: "played 1 or more cards during your previous turn" counts every card its owner
  played in their latest turn, Lessons put into play by a card's text included (ruling ref9e6014);
  Characters' abilities stay usable (ruling r992f41e8); to solve, the solver chooses a Character of
  theirs in play (not the starting one) or 8 cards of the hand;
* a reward "You take N damage" is damage to the Adventure's owner by the Adventure;
* Meet the Centaurs opens the opponent's hand when it enters play and each card they draw while it is
  in play (as Mrs Norris does); its reward opens its owner's hand for the rest of the game;
* Reptile House counts the Actions used to play a Lesson this turn; Hermione Granger's second Lesson
  comes with the same Action, so it is still allowed;
* Hiding From Snape: "Your opponent chooses 4 Item cards in his or her hand and discards them" is offered when
  the solver's own knowledge shows 4 Items in its hand (the other peer cannot see them); the solver then names
  them one at a time, each opened as it is discarded and refused if it is no Item. Its reward "may search his
  or her deck for any card and put it into his or her hand. Then your opponent shuffles his or her deck" shows
  the deck to the solver alone, and the card taken goes into the hand face down (nothing says to show it); the
  deck is then reshuffled (the engine's Reshuffle step);
* Apparate (42) discards the opponent's Adventure without its reward; Logic Puzzle (56) discards it and
  its caster gets the reward; Draco's Trick (50), "Discard the Adventure you've played. You get the
  reward.", gives its caster the reward of their own Adventure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Done, Outcome, Replace, Task
from p2php.games.tcg.cards import Card, CardType
from p2php.games.tcg.damage import Draw, Mill, draws
from p2php.games.tcg.ids import card_of
from p2php.games.tcg.spells import (
    DiscardHandTask,
    LoseLesson,
    OpenHand,
    OwnDiscards,
    PickCreature,
    Retrieve,
    search_deck,
)
from p2php.games.tcg.state import TcgState, owner_of

__all__ = [
    "ADVENTURES", "Adventure", "ChessSolve", "DiscardItems", "DrawAny", "adventure_blocks", "can_skip", "can_solve",
    "draw_actions_allowed", "extra_power", "play_forbidden", "reward", "skip_action", "solve",
]


@dataclass(frozen=True, slots=True)
class Adventure:
    """One Adventure's parts: ``blocks`` (a card type the opponent can't play), ``before`` (damage before each of
    its owner's turns), ``power`` (more Power the opponent's Creatures and Spells need), what solving takes
    (``hand`` cards, ``lessons``, ``creatures``), and the reward (``draw`` up to N, ``lesson_back``,
    ``draw_or_hit`` N, ``owner_damage`` N).  ``blocks`` may also be ``face_up`` (the opponent's hand is
    face up) or ``one_lesson_action`` (Reptile House)."""

    blocks: str = ""
    before: int = 0
    power: int = 0
    hand: int = 0
    lessons: int = 0
    creatures: int = 0
    draw: int = 0
    lesson_back: bool = False
    draw_or_hit: int = 0
    owner_damage: int = 0
    whole_hand: bool = False  # to solve: discard the whole hand (even an empty one)
    skip: int = 0  # to solve: skip a total of N Actions (over any number of turns)
    chess: bool = False  # to solve: discard 1 Character in play (not the starting one) or 8 cards of the hand
    draw_any: bool = False  # reward: draw any number of cards
    owner_face_up: bool = False  # reward: the owner plays with the hand face up for the rest of the game
    items: int = 0  # to solve: discard N Item cards of the hand
    search: bool = False  # reward: search the deck for any card (into the hand, face down), then shuffle it


ADVENTURES: dict[int, Adventure] = {
    4: Adventure(before=1, lessons=3, draw_or_hit=3),  # Dragon's Escape
    6: Adventure(skip=5, draw=5),  # Gringotts' Cart Ride (its before-turn discard: triggers.py)
    11: Adventure(blocks="chess", chess=True, draw=3),  # Human Chess Game
    19: Adventure(before=2, hand=7, owner_damage=4),  # Troll in the Bathroom
    23: Adventure(power=2, hand=7, lesson_back=True),  # Harry Hunting
    39: Adventure(blocks="spell", hand=6, draw=1),  # 4 Privet Drive
    48: Adventure(blocks="draw_action", skip=7, draw_any=True),  # Diagon Alley
    60: Adventure(skip=5, owner_damage=3),  # Peeves Causes Trouble (its damage on drawing: damage.Draw)
    27: Adventure(blocks="face_up", whole_hand=True, owner_face_up=True),  # Meet the Centaurs
    64: Adventure(blocks="one_lesson_action", lessons=4, draw=1),  # Reptile House
    70: Adventure(before=4, creatures=2, draw=1),  # Unusual Pets ("only if your opponent has any Creatures")
    54: Adventure(blocks="item", items=4, search=True),  # Hiding From Snape
}
UNUSUAL_PETS = 70


def _theirs(g: TcgState, seat: Seat) -> Adventure | None:
    """The Adventure ``seat``'s opponent has in play, if any."""
    slot = g.adventures[1 - seat]
    return ADVENTURES.get(g.card(slot).number) if slot >= 0 else None


def adventure_blocks(g: TcgState, seat: Seat, card: Card) -> str | None:
    """Why an Adventure stops ``seat`` playing ``card`` (its own one-per-side rule, the opponent's effect)."""
    if card.type is CardType.ADVENTURE:
        if g.adventures[seat] >= 0:
            return "only one Adventure of yours may be in play (§5.6)"
        if card.number == UNUSUAL_PETS and not g.creatures[1 - seat]:
            return f"{card.name} needs an opponent's Creature in play"
    mine = _theirs(g, seat)
    if mine is not None and mine.blocks == card.type.value:
        return f"the opponent's Adventure forbids playing {card.type.value} cards"
    if mine is not None and mine.blocks == "one_lesson_action" and card.type is CardType.LESSON and \
            g.lesson_actions >= 1:
        return "only 1 Action a turn may play Lessons (the opponent's Reptile House)"
    return None



def extra_power(g: TcgState, seat: Seat, card: Card) -> int:
    """More Power ``card`` needs because of the opponent's Adventure (Harry Hunting)."""
    mine = _theirs(g, seat)
    return mine.power if mine is not None and card.type in (CardType.CREATURE, CardType.SPELL) else 0


def play_forbidden(g: TcgState, seat: Seat) -> str | None:
    """Why ``seat`` can play no card at all now (Forgetfulness Potion, Human Chess Game), or None.

    Ruling ref9e6014: putting a card into play from anywhere (Remembrall) is playing it too.
    """
    if g.marked(seat, "no_play"):
        return "no cards can be played this turn (Forgetfulness Potion)"
    mine = _theirs(g, seat)
    if mine is not None and mine.blocks == "chess" and g.plays[1 - seat] == 0:
        return "the opponent played no card last turn (Human Chess Game)"
    return None


def draw_actions_allowed(g: TcgState, seat: Seat) -> bool:
    """Diagon Alley: "Your opponent can't use Actions to draw cards"."""
    mine = _theirs(g, seat)
    return mine is None or mine.blocks != "draw_action"


def can_skip(g: TcgState, seat: Seat) -> bool:
    """The opponent's Adventure is solved by skipping Actions."""
    mine = _theirs(g, seat)
    return mine is not None and mine.skip > 0


def skip_action(g: TcgState, seat: Seat) -> list[Task[TcgState]]:
    """``seat`` skips one Action towards the opponent's Adventure; the last one solves it."""
    side = 1 - seat
    slot = g.adventures[side]
    g.skipped[side] += 1
    g.log("skip", seat, g.skipped[side])
    if g.skipped[side] < ADVENTURES[g.card(slot).number].skip:
        return []
    g.log("solve", seat, slot)
    return [DiscardAdventure(side), *reward(g, seat, slot)]


def can_solve(g: TcgState, seat: Seat, knowledge: Knowledge | None = None) -> bool:
    """``seat`` can solve the opponent's Adventure now, all at once (not those solved by skipping Actions).

    Item cards to discard are counted from ``knowledge``: a hand card whose face it does not know may be one.
    """
    adv = _theirs(g, seat)
    if adv is None or adv.skip:
        return False
    if adv.items:
        faces = [knowledge.face(s) if knowledge is not None else None for s in g.hand[seat]]
        return sum(f is None or _is_item(f) for f in faces) >= adv.items
    if adv.chess:
        return bool(g.characters[seat]) or len(g.hand[seat]) >= 8
    return len(g.hand[seat]) >= adv.hand and len(g.lessons[seat]) >= adv.lessons and \
        len(g.creatures[seat]) >= adv.creatures


def solve(g: TcgState, seat: Seat) -> list[Task[TcgState]]:
    """``seat`` solves the opponent's Adventure: what it takes, then the reward, then it is discarded."""
    slot = g.adventures[1 - seat]
    adv = ADVENTURES[g.card(slot).number]
    g.log("solve", seat, slot)
    tasks: list[Task[TcgState]] = []
    if adv.hand:
        tasks.append(OwnDiscards(seat, adv.hand))
    if adv.whole_hand:
        tasks.append(DiscardHandTask(seat))
    if adv.lessons:
        tasks.append(LoseLesson(seat, "", adv.lessons))
    tasks.extend(PickCreature(seat, seat) for _ in range(adv.creatures))
    if adv.chess:
        tasks.append(ChessSolve(seat))
    if adv.items:
        tasks.append(DiscardItems(seat, adv.items))
    return [*tasks, DiscardAdventure(1 - seat), *reward(g, seat, slot)]


def reward(g: TcgState, seat: Seat, slot: Slot) -> list[Task[TcgState]]:
    """The reward of Adventure ``slot`` for ``seat`` (the solver, or Logic Puzzle's / Draco's Trick's caster)."""
    adv = ADVENTURES[g.card(slot).number]
    out: list[Task[TcgState]] = []
    if adv.draw:
        out.append(MayDraw(seat, adv.draw))
    if adv.lesson_back:
        out.append(Retrieve(seat, "lesson", 1, True, to_play=True))
    if adv.draw_any:
        out.append(DrawAny(seat))
    if adv.draw_or_hit:
        out.append(DrawOrHit(seat, adv.draw_or_hit))
    if adv.owner_damage:
        out.append(Mill(owner_of(slot), adv.owner_damage, "adventure"))  # "You take N damage": its owner
    if adv.owner_face_up:
        g.face_up_forever.append(owner_of(slot))
        out.append(OpenHand(owner_of(slot)))
    if adv.search:
        out.extend(search_deck(seat, "", 1, show=False))
    return out


def _is_item(face: CardId) -> bool:
    return card_of(face).type is CardType.ITEM


@dataclass
class DiscardItems(Task[TcgState]):
    """Hiding From Snape solved: ``seat`` discards ``left`` Item cards of its hand, one at a time, each opened."""

    seat: int
    left: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "discard_item") if self.left > 0 and g.hand[self.seat] else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        faces = {s: knowledge.face(s) for s in g.hand[self.seat]}
        return [{"type": "discard", "slot": s} for s, face in faces.items() if face is None or _is_item(face)]

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        slot = action.get("slot")
        if set(action) != {"type", "slot"} or action.get("type") != "discard" or slot not in g.hand[self.seat]:
            raise IllegalAction(f"not a legal action here: {action}")
        face = knowledge.face(slot)
        if face is not None and not _is_item(face):
            raise IllegalAction(f"{card_of(face).name} is no Item card")

    def reveals(self, g: TcgState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")
        return (slot,) if slot in g.hand[self.seat] and slot not in g.pub else ()

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        slot = action["slot"]
        if not _is_item(g.pub[slot]):
            raise IllegalAction(f"{g.card(slot).name} is no Item card")
        g.hand[self.seat].remove(slot)
        g.to_discard(slot)
        g.log("discarded", self.seat, slot)
        self.left -= 1
        return CONTINUE


@dataclass
class DiscardAdventure(Task[TcgState]):
    """``seat``'s Adventure (if still in play) goes to its owner's discard pile."""

    seat: int

    def run(self, g: TcgState) -> Outcome:
        if g.adventures[self.seat] >= 0:
            g.discard_from_play(g.adventures[self.seat])
        return Done()


@dataclass
class MayDraw(Task[TcgState]):
    """``seat`` may draw up to ``count`` cards (a reward): one question per card."""

    seat: int
    count: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "reward") if self.count > 0 else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "draw"}, {"type": "stop"}]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        if action["type"] == "stop":
            return Done()
        self.count -= 1
        return Replace(Draw(self.seat), self) if self.count else Replace(Draw(self.seat))


@dataclass
class DrawOrHit(Task[TcgState]):
    """Dragon's Escape's reward: ``seat`` draws ``count`` cards or does ``count`` damage to the opponent."""

    seat: int
    count: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "reward")

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "draw"}, {"type": "target", "seat": 1 - self.seat}]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        if action["type"] == "draw":
            return Replace(*draws(self.seat, self.count))
        return Replace(Mill(1 - self.seat, self.count, "adventure"))



@dataclass
class DrawAny(Task[TcgState]):
    """Diagon Alley's reward: ``seat`` chooses how many cards to draw, then draws them all (ruling r03088ae3)."""

    seat: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "reward")

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        return [{"type": "draw", "cards": n} for n in range(len(g.deck[self.seat]) + 1)]

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        count = int(action["cards"])
        return Replace(*draws(self.seat, count)) if count else Done()


@dataclass
class ChessSolve(Task[TcgState]):
    """Human Chess Game solved: ``seat`` discards 1 of its Characters in play, or 8 cards of its hand."""

    seat: int

    def run(self, g: TcgState) -> Outcome:
        return Decide((self.seat,), "solve")

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = [{"type": "in_play", "slot": s} for s in g.characters[self.seat]]
        return [*out, {"type": "hand"}] if len(g.hand[self.seat]) >= 8 else out

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((_seat, action),) = answers
        if action["type"] == "hand":
            return Replace(OwnDiscards(self.seat, 8))
        g.discard_from_play(action["slot"])
        return Done()

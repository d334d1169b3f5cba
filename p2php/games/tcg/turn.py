"""The flow: the set-up, then turns (§3.2) until a deck runs out; the Actions of a turn and what they play.

Set-up (§2): each seat's starting Character is in play from the start (public, given by the table's
options); each deck is a secret-composition deck shuffled through the protocol (only its owner lists
its cards; nobody learns the order); 7 cards are dealt to each seat face down; joint randomness picks
who goes first.

Decisions where the rules are silent:

* §2 step 5, who goes first: a fair coin from the engine's joint randomness (``Randomness("first")``);
* §2/§3, the first player's first draw: the rulebook says "Do this first every turn!" with no
  exception, so the first player draws on turn 1 too;
* §5.4, an Item costs 1 Action, like a Creature (reading (a));
* §3.2 step 1 ("before your turn") is a timing point (``triggers.BEFORE_TURN``) that Delivery Owl
  listens at; step 5 ("at the end of your turn") is a stage of :class:`Turn` no implemented card uses;
* Unicorn (20), "You get 1 more Action on each of your turns (including the turn you play Unicorn)":
  a turn starts with 2 Actions plus 1 per Unicorn its player has in play, and playing one adds 1 at
  once; a Unicorn that leaves play during the turn does not take back the Action it gave;
* a player may draw with an Action even from a one-card deck (and so lose: see ``damage.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, auto

from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    IllegalAction,
    Knowledge,
    Randomness,
    Seat,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.tasks import CONTINUE, Done, Outcome, Push, Task
from p2php.engine.timing import TimingPoint
from p2php.games.tcg.abilities import (
    DRACO,
    HARRY,
    RON,
    DracoLook,
    SecondLesson,
    Trade,
    dean_draws,
    dean_ready,
    once_abilities,
    second_lesson_due,
    trades,
    use_once,
)
from p2php.games.tcg.adventures import (
    adventure_blocks,
    can_skip,
    can_solve,
    draw_actions_allowed,
    extra_power,
    play_forbidden,
    skip_action,
    solve,
)
from p2php.games.tcg.cards import Card, CardType
from p2php.games.tcg.damage import Draw, Mill, draws
from p2php.games.tcg.effects import blocked_by_text, pay_cost, resolve, unimplemented
from p2php.games.tcg.ids import card_of
from p2php.games.tcg.items import item_actions, item_cost, play_item, use_item
from p2php.games.tcg.power import enough_power
from p2php.games.tcg.spells import OpenHand
from p2php.games.tcg.state import DECK_SLOTS, HAND, TcgState
from p2php.games.tcg.triggers import BEFORE_TURN

__all__ = ["Actions", "CastSpell", "Match", "Turn", "action_cost", "why_not"]

ACTIONS = 2
"""Actions per turn (§3.1); they cannot be saved (FAQ 2)."""
UNICORN = 20
MRS_NORRIS = 29


def action_cost(g: TcgState, seat: Seat, card: Card) -> int:
    """Characters and Adventures cost 2 Actions, everything else 1 (§0.1, §5.4 decision); with Ron Weasley
    in play a Character costs 1."""
    if card.type is CardType.CHARACTER and g.has_character(seat, RON):
        return 1
    return 2 if card.type in (CardType.CHARACTER, CardType.ADVENTURE) else 1


def why_not(g: TcgState, seat: Seat, card: Card, left: int) -> str | None:
    """Why ``seat`` cannot play ``card`` from its hand with ``left`` Actions, or None when it can."""
    if unimplemented(card):
        return f"{card.name} is not implemented yet"
    forbidden = play_forbidden(g, seat)
    if forbidden:
        return forbidden
    blocked = adventure_blocks(g, seat, card)
    if blocked:
        return blocked
    if action_cost(g, seat, card) > left:
        return f"{card.name} needs {action_cost(g, seat, card)} Actions"
    if "Unique" in card.keywords and card.name in g.in_play_names():
        return f"{card.name} is Unique and already in play (§8)"
    extra = extra_power(g, seat, card)
    if card.type in (CardType.CREATURE, CardType.SPELL, CardType.ITEM) and not enough_power(g, seat, card, extra):
        return f"{card.name} needs {(card.cost or 0) + extra} Power with 1 of {card.lesson}"
    return blocked_by_text(g, seat, card)


@dataclass
class Match(Task[TcgState]):
    """The whole duel, at the bottom of the stack: set-up, then one Turn after another."""

    class Stage(Enum):
        SHUFFLE = auto()  # seat 0's deck, then seat 1's (secret decks)
        DEAL = auto()  # 7 cards each
        FIRST = auto()  # who goes first
        TURNS = auto()

    stage: Stage = Stage.SHUFFLE
    shuffled: int = 0
    next_seat: int = 0

    def run(self, g: TcgState) -> Outcome:
        S = Match.Stage
        if self.stage is S.SHUFFLE:
            s = self.shuffled
            return Shuffle((), first_slot=s * DECK_SLOTS, purpose=f"deck{s}", owner=s, size=g.sizes[s])
        if self.stage is S.DEAL:
            return Deal(tuple((g.deck[s][i], s) for s in (0, 1) for i in range(HAND)))
        if self.stage is S.FIRST:
            return Randomness("first")
        g.turn = self.next_seat
        g.turns += 1
        self.next_seat = 1 - self.next_seat
        return Push(Turn(g.turn))

    def received(self, g: TcgState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        S = Match.Stage
        if isinstance(step, Shuffle):
            g.deck[self.shuffled] = list(step.slots)
            self.shuffled += 1
            self.stage = S.DEAL if self.shuffled == 2 else S.SHUFFLE
        elif isinstance(step, Deal):
            for slot, seat in step.to:
                g.deck[seat].remove(slot)
                g.hand[seat].append(slot)
            self.stage = S.FIRST
        else:
            g.first = self.next_seat = random[0] % 2
            g.log("first", g.first)
            self.stage = S.TURNS
        return CONTINUE


@dataclass
class Turn(Task[TcgState]):
    """One turn of ``seat`` (§3.2): before, draw, Creatures' damage, 2 Actions, end."""

    class Stage(Enum):
        BEFORE = auto()  # "before your turn begins": the BEFORE_TURN timing point
        DRAW = auto()
        CREATURES = auto()
        ACTIONS = auto()
        END = auto()  # "at the end of your turn" effects (none implemented)

    seat: int
    stage: Stage = Stage.BEFORE

    def run(self, g: TcgState) -> Outcome:
        S = Turn.Stage
        if self.stage is S.BEFORE:
            g.log("turn", self.seat, g.turns)
            self.stage = S.DRAW
            g.extra_actions = 0
            g.lesson_actions = 0
            g.plays[self.seat] = 0
            g.shields = [x for x in g.shields if x[1] >= g.turns]  # the spent ones go
            g.muzzled = [x for x in g.muzzled if x[1] >= g.turns]
            if g.listening(BEFORE_TURN):
                return Push(TimingPoint(BEFORE_TURN, {"seat": self.seat}))
            return CONTINUE
        if self.stage is S.DRAW:
            self.stage = S.CREATURES
            return Push(Draw(self.seat))
        if self.stage is S.CREATURES:
            self.stage = S.ACTIONS
            damage = g.creature_damage(self.seat)  # every Creature in play was played on an earlier turn
            return Push(Mill(1 - self.seat, damage, "creature")) if damage else CONTINUE
        if self.stage is S.ACTIONS:
            self.stage = S.END
            unicorns = sum(g.card(s).number == UNICORN for s, _ in g.creatures[self.seat])
            return Push(Actions(self.seat, ACTIONS + unicorns))
        return Done()


@dataclass
class Actions(Task[TcgState]):
    """``seat`` spends its Actions one decision at a time: play a card, draw, use Draco, or end."""

    seat: int
    left: int = ACTIONS

    def run(self, g: TcgState) -> Outcome:
        self.left += g.extra_actions  # granted by a card just played
        g.extra_actions = 0
        return Decide((self.seat,), "action") if self.left > 0 else Done()

    def legal(self, g: TcgState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        out: list[Action] = []
        for slot in g.hand[seat]:
            face = knowledge.face(slot)
            if face is None or why_not(g, seat, card_of(face), self.left) is None:
                out.append({"type": "play", "slot": slot})
        if draw_actions_allowed(g, seat):
            out.append({"type": "draw"})
            if g.has_character(seat, HARRY):
                out.append({"type": "draw", "cards": 2})
        if can_skip(g, seat):
            out.append({"type": "skip"})
        if dean_ready(g, seat):
            out.append({"type": "dean"})
        out.extend(trades(g, seat))
        out.extend(once_abilities(g, seat))
        if g.has_character(seat, DRACO):
            out.extend({"type": "ability", "slot": slot} for slot in g.hand[seat])
        out.extend(item_actions(g, seat, self.left))
        if can_solve(g, seat, knowledge):
            out.append({"type": "solve"})
        out.append({"type": "end"})
        return out

    def check(self, g: TcgState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        kind = action.get("type")
        if action == {"type": "end"} or (action == {"type": "skip"} and can_skip(g, seat)):
            return
        if kind == "draw" and not draw_actions_allowed(g, seat):
            raise IllegalAction("the opponent's Diagon Alley: no Actions to draw cards")
        if action == {"type": "draw"} or (action == {"type": "draw", "cards": 2} and g.has_character(seat, HARRY)):
            return
        if action == {"type": "dean"} and dean_ready(g, seat):
            return
        if action == {"type": "solve"} and can_solve(g, seat, knowledge):
            return
        if kind == "trade" and action in trades(g, seat):
            return
        if kind == "once" and action in once_abilities(g, seat):
            return
        if kind == "item":
            if action not in item_actions(g, seat, self.left):
                raise IllegalAction(f"no usable Item: {action}")
            return
        slot = action.get("slot")
        if kind not in ("play", "ability") or set(action) != {"type", "slot"} or slot not in g.hand[seat]:
            raise IllegalAction(f"not a legal action here: {action}")
        if kind == "ability":
            if not g.has_character(seat, DRACO):
                raise IllegalAction("no Character in play has that ability")
            return
        face = knowledge.face(slot)
        reason = why_not(g, seat, card_of(face), self.left) if face is not None else None
        if reason:
            raise IllegalAction(reason)

    def reveals(self, g: TcgState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        slot = action.get("slot")
        if action.get("type") in ("play", "ability") and slot in g.hand[seat] and slot not in g.pub:
            return (slot,)
        return ()

    def answer(self, g: TcgState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        kind = action["type"]
        if kind == "end":
            return Done()
        if kind == "draw":
            self.left -= 1
            return Push(*draws(seat, int(action.get("cards", 1))))
        if kind == "dean":
            return Push(*dean_draws(g, seat))
        if kind == "solve":
            return Push(*solve(g, seat))
        if kind == "skip":
            self.left -= 1
            tasks = skip_action(g, seat)
            return Push(*tasks) if tasks else CONTINUE
        if kind == "trade":
            return Push(Trade(seat, int(action["card"])))
        if kind == "once":
            return Push(*use_once(g, seat, int(action["card"])))
        if kind == "item":
            self.left -= item_cost(g, action["slot"])
            tasks = use_item(g, seat, action["slot"])
            return Push(*tasks) if tasks else CONTINUE
        slot = action["slot"]
        if kind == "ability":
            self.left -= 1
            g.hand[seat].remove(slot)
            g.to_discard(slot)
            g.log("ability", seat, DRACO, slot)
            return Push(DracoLook(seat))
        card = g.card(slot)
        reason = why_not(g, seat, card, self.left)
        if reason:
            raise IllegalAction(reason)
        self.left -= action_cost(g, seat, card)
        g.hand[seat].remove(slot)
        g.log("play", seat, slot)
        g.plays[seat] += 1
        if card.type is CardType.LESSON:
            g.lesson_actions += 1
            before = len(g.lessons[seat])
            g.lessons[seat].append(slot)
            return Push(SecondLesson(seat)) if second_lesson_due(g, seat, before) else CONTINUE
        if card.type is CardType.CREATURE:
            pay_cost(g, seat, card)
            g.creatures[seat].append([slot, 0])
            self.left += card.number == UNICORN
            return Push(OpenHand(1 - seat)) if card.number == MRS_NORRIS else CONTINUE
        if card.type is CardType.ITEM:
            pay_cost(g, seat, card)
            play_item(g, seat, slot)
            return CONTINUE
        if card.type is CardType.CHARACTER:
            g.characters[seat].append(slot)
            return CONTINUE
        if card.type is CardType.ADVENTURE:
            g.adventures[seat] = slot
            g.skipped[seat] = 0
            return Push(OpenHand(1 - seat)) if g.face_up(1 - seat) else CONTINUE
        return Push(CastSpell(seat, slot))


@dataclass
class CastSpell(Task[TcgState]):
    """A Spell is shown (opened), does what it says, and goes to its owner's discard pile (§5.3)."""

    seat: int
    slot: int
    resolved: bool = False

    def run(self, g: TcgState) -> Outcome:
        if not self.resolved:
            self.resolved = True
            tasks = resolve(g, self.seat, g.card(self.slot))
            return Push(*tasks) if tasks else CONTINUE
        g.to_discard(self.slot)
        return Done()

"""A battle of two sides that attack in turn (rules §14.6 qualified, §14.7, data §2.2, C-33, C-35): a player
against a player, or a player against a Death Eater played by another seat.

Side 0 is the mover, who starts.  A side's turn is an optional defence card, then one compulsory attack (an
attack card or its attack dice); there are no enemy abilities, and a "retaliation" that a protection answers
(``cancel_next``, ``skip``, ``shield``, ``reflect_next``) is the other side's next attack (data §2.2): each
attack uses one up, even one that costs nothing.  Each side may play at most 1 potion and 1 spell card in the
battle (C-33, C-35).  The battle ends when a side is at ``floor`` LP or fewer (1 for two players: "the first
to bring the other to 1 or fewer wins"; 0 against a Death Eater).  The result is the winning side, or -1 when
nobody won (the Invisibility Cloak, Pettigrew's flight).

Abilities: the students' battle abilities as against an enemy (``res_minus_1``, ``reroll_once``,
``card_plus_1``, ``last_stand``, ``ignore_once``, ``sixes_double``, ``hit_regen``, ``serpensortia``,
``flee_once``) and the eight Death Eaters' (data §4.2): ``first_card_void``, ``bite_regen``, ``spell_plus_1``,
``crucio``, ``spy`` (the hand is shown to the Death Eater's player, who puts 1 card under its deck),
``imperius`` (at most 1 defence card), ``execute``, ``res_minus_1``.  A dice attack is one joint draw; with the
option ``dodge=true`` (C-36) the side hit may re-roll the dice that hit (1–2 cost 2 LP each, 3–5 cost 1, a 6
costs the attacker 1), the result still one attack for the protections.

The special tokens (Elder Wand, Gryffindor's Sword, Resurrection Stone, Invisibility Cloak) are offered to a
player side at its attack decisions, as in an enemy battle; used, they go to a Diagon Alley star cell of the
user's choice when the battle ends (C-29).  The Cloak ends the battle with no winner and its user moves up to 5
steps without battles (C-28).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Seat, Show, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Task, offered

from .battle import (
    BATTLE_CARDS,
    BATTLE_TOKENS,
    CANCEL,
    CLOAK,
    MIN_RES,
    SKIP,
    card_reveal,
    check_card,
    choices,
    dodge_result,
    escape_actions,
    guarded,
    hand_card,
    place_actions,
    place_spent,
    protect,
    spend_token,
    usable_cards,
)
from .cards import HandCard
from .dice import Roll
from .ids import deck_of_slot
from .remask import mix_first
from .state import MAX_LP
from .terms import amount, parse

if TYPE_CHECKING:
    from .sheets import DeathEaterSheet
    from .state import HogwartsState

__all__ = ["ESCAPED", "Versus"]

ESCAPED = -1
SPY_CARDS = 1
IMPERIUS_DEFENCES = 1


@dataclass
class Versus(Task["HogwartsState"]):
    """``seats[i]`` is side i's player seat (-1: the Death Eater ``eater``, a back's sheet number, whose
    decisions ``deciders[1]`` makes with the cards ``eater_hand``); ``floor``: 1 between players, 0 against
    a Death Eater."""

    class Stage(Enum):
        START = auto()
        SPY = auto()
        DEFEND = auto()
        ATTACK = auto()
        DICE = auto()
        DODGE = auto()
        FLEE = auto()
        ESCAPE = auto()
        PLACE = auto()

    seats: list[int]
    deciders: list[int]
    floor: int
    eater: int = 0
    eater_lp: int = 0
    eater_hand: list[int] = field(default_factory=list)
    stage: Stage = Stage.START
    current: int = 0  # the side whose turn it is
    played: list[list[str]] = field(default_factory=lambda: [[], []])  # decks played by each side
    defences: list[int] = field(default_factory=lambda: [0, 0])
    guard: list[list[int]] = field(default_factory=lambda: [[0, 0, 0, 0], [0, 0, 0, 0]])
    once: list[str] = field(default_factory=list)  # "ability:side" used this battle
    bonus: list[int] = field(default_factory=lambda: [0, 0])  # extra attack dice (Wand, Sword)
    buffer: list[int] = field(default_factory=lambda: [0, 0])  # the Resurrection Stone's LP
    spent: list[str] = field(default_factory=list)
    spent_by: list[int] = field(default_factory=list)
    dice: list[int] = field(default_factory=list)
    extra: int = 0  # extra dice of the attack card being resolved
    cut: int = 0  # its cut of the resistance
    rolled: bool = False
    asked: bool = False
    dodging: bool = False
    winner: int = ESCAPED
    escaper: int = -1
    mixed: bool = False  # the spied hand was re-masked before the spy's look if it had to be (E38)

    # ---- the sides
    def sheet_of(self, g: HogwartsState, side: int) -> DeathEaterSheet | None:
        return g.data.death_eaters[self.eater - 1] if self.seats[side] < 0 else None

    def ability(self, g: HogwartsState, side: int) -> str:
        back = self.sheet_of(g, side)
        return back.battle_ability.key if back is not None else g.ability(self.seats[side])[1]

    def lp(self, g: HogwartsState, side: int) -> int:
        return self.eater_lp if self.seats[side] < 0 else g.lp[self.seats[side]]

    def set_lp(self, g: HogwartsState, side: int, lp: int) -> None:
        """A student heals up to 14 LP; a Death Eater never above its sheet's LP (Greyback's bite, a potion: as an
        enemy's ``regen`` stops at its starting LP and the Return mode's V18)."""
        lp = max(0, min(MAX_LP, lp))
        if self.seats[side] < 0:
            back = self.sheet_of(g, side)
            self.eater_lp = min(lp, back.lp) if back is not None else lp
        else:
            g.lp[self.seats[side]] = lp

    def res(self, g: HogwartsState, side: int) -> int:
        back = self.sheet_of(g, side)
        return back.res if back is not None else g.student(self.seats[side]).res

    def attack_dice(self, g: HogwartsState, side: int) -> int:
        back = self.sheet_of(g, side)
        return back.attack_dice if back is not None else g.student(self.seats[side]).attack_dice

    def hand(self, g: HogwartsState, side: int) -> list[Slot]:
        return self.eater_hand if self.seats[side] < 0 else g.hand[self.seats[side]]

    def use_once(self, side: int, ability: str) -> bool:
        key = f"{ability}:{side}"
        if key in self.once:
            return False
        self.once.append(key)
        return True

    def down(self, g: HogwartsState, side: int) -> bool:
        return self.lp(g, side) <= self.floor

    # ---- losing life points
    def lose(self, g: HogwartsState, side: int, n: int) -> None:
        """``side`` loses ``n`` LP (the Stone's LP first; Luna and Neville's once-per-battle abilities)."""
        absorbed = min(n, self.buffer[side])
        self.buffer[side] -= absorbed
        n -= absorbed
        if n <= 0:
            return
        lp = max(0, self.lp(g, side) - n)
        ability = self.ability(g, side)
        if lp <= self.floor and ability == "ignore_once" and self.use_once(side, "ignore_once"):
            g.log("ignored", self.seats[side], n)
            return
        if lp == 0 and ability == "last_stand" and self.use_once(side, "last_stand"):
            lp = 1
        self.set_lp(g, side, lp)
        g.log("lose", self.seats[side], n)

    def hit(self, g: HogwartsState, side: int, n: int) -> None:
        """One attack on ``side`` costing ``n`` LP, answered by the first of its protections."""
        how, n = guarded(self.guard[side], n)
        if how == "reflected":
            self.lose(g, 1 - side, n)
        elif how == "hit":
            self.lose(g, side, n)

    # ---- cards and tokens
    def playable(self, g: HogwartsState, side: int) -> list[Slot]:
        """Cards ``side`` may still play: 1 potion and 1 spell card in the battle (public: card backs)."""
        return [s for s in self.hand(g, side) if deck_of_slot(s) in BATTLE_CARDS
                and deck_of_slot(s) not in self.played[side]]

    def card_actions(self, g: HogwartsState, side: int, knowledge: Knowledge, use: str) -> list[Action]:
        if use == "defence" and self.ability(g, 1 - side) == "imperius" and self.defences[side] >= IMPERIUS_DEFENCES:
            return []
        return usable_cards(g, self.playable(g, side), knowledge, use)

    def token_actions(self, g: HogwartsState, side: int) -> list[Action]:
        if self.seats[side] < 0:
            return []
        held = g.held[self.seats[side]]
        return [{"type": "token", "token": t} for t in (*BATTLE_TOKENS, CLOAK) if t in held]

    def may_defend(self, g: HogwartsState, side: int) -> bool:
        """Public: some card could be a defence (its face is the decider's secret)."""
        if self.ability(g, 1 - side) == "imperius" and self.defences[side] >= IMPERIUS_DEFENCES:
            return False
        return bool(self.playable(g, side))

    # ---- the flow
    def run(self, g: HogwartsState) -> Outcome:
        S = Versus.Stage
        side = self.current
        if self.stage is S.START:
            if not self.mixed and self.ability(g, 1) == "spy" and g.hand[self.seats[0]]:
                self.mixed = True  # the spy's choice names a slot: a hand another seat knows is re-masked (E38)
                mix = mix_first(g, [self.seats[0]])
                if mix is not None:
                    return mix
            return self.start(g)
        if self.stage is S.SPY:
            return Decide((self.deciders[1],), "spy")
        if self.stage is S.DEFEND:
            if self.may_defend(g, side):
                return Decide((self.deciders[side],), "defend")
            self.stage = S.ATTACK
            return CONTINUE
        if self.stage is S.ATTACK:
            if self.playable(g, side) or self.token_actions(g, side):
                return Decide((self.deciders[side],), "attack")
            return self.dice_attack(0, 0)
        if self.stage is S.DICE:
            return self.score_dice(g)
        if self.stage is S.DODGE:
            if self.dodging:
                return self.dodged(g)
            return Decide((self.deciders[1 - side],), "dodge")
        if self.stage is S.FLEE:
            return Decide((self.deciders[1 - side],), "flee")
        if self.stage is S.ESCAPE:
            return Decide((self.escaper,), "cloak_move")
        return Decide((self.spent_by[0],), "place_used")

    def start(self, g: HogwartsState) -> Outcome:
        """The start of the battle: Draco's ``serpensortia``, Bellatrix's ``crucio``, Rookwood's ``spy``."""
        g.log("versus", list(self.seats), self.eater)
        for side in (0, 1):
            ability = self.ability(g, side)
            if ability == "serpensortia":
                self.lose(g, 1 - side, 1)
            elif ability == "crucio":
                self.lose(g, 1 - side, 2)
        if self.ability(g, 1) == "spy" and g.hand[self.seats[0]]:
            self.stage = Versus.Stage.SPY
            return Show(tuple(g.hand[self.seats[0]]), self.seats[0], self.deciders[1])
        return self.begin(g)

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        return CONTINUE  # the spy's look: the hand is now known to the Death Eater's player

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        S = Versus.Stage
        side = self.current
        if self.stage is S.SPY:
            return [{"type": "spy", "slot": s} for s in g.hand[self.seats[0]]]
        if self.stage is S.DEFEND:
            return [{"type": "no_defence"}, *self.card_actions(g, side, knowledge, "defence")]
        if self.stage is S.DICE:
            return choices("reroll")
        if self.stage is S.DODGE:
            return choices("dodge")
        if self.stage is S.FLEE:
            return choices("flee")
        if self.stage is S.ESCAPE:
            return escape_actions(g, g.pos[self.escaper])
        if self.stage is S.PLACE:
            return place_actions(g, self.spent[0])
        return [{"type": "dice"}, *self.card_actions(g, side, knowledge, "attack"), *self.token_actions(g, side)]

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        S = Versus.Stage
        if self.stage not in (S.DEFEND, S.ATTACK) or action.get("type") != "card":
            if not offered(action, self.legal(g, seat, knowledge)):
                raise IllegalAction(f"not a legal action here: {action}")
            return
        side = self.current
        want = "defence" if self.stage is S.DEFEND else "attack"
        if want == "defence" and not self.may_defend(g, side):
            raise IllegalAction("no more defence cards in this battle (Imperius)")
        check_card(g, action, knowledge, self.playable(g, side), want)

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return card_reveal(action)

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        _seat, action = answers[0]
        kind = action["type"]
        S = Versus.Stage
        side = self.current
        if self.stage is S.SPY:
            slot = int(action["slot"])
            g.discard_from_hand(self.seats[0], slot)
            g.log("spied", self.seats[0])
            return self.begin(g)
        if self.stage is S.DICE:
            if kind == "reroll":
                self.use_once(side, "reroll_once")
                self.rolled, self.dice = False, []
                g.log("reroll", self.seats[side])
            return CONTINUE
        if self.stage is S.DODGE:
            if kind == "dodge":
                self.dodging = True
                hitting = self.dice[0]
                return Call(Roll(hitting, "dodge"), into="dice")
            loss = self.dice[1]
            self.dice = []
            return self.attacked(g, loss)
        if self.stage is S.FLEE:
            if kind == "flee":
                self.use_once(1 - side, "flee_once")
                g.log("flee", self.seats[1 - side])
                return self.finish(g, ESCAPED)
            return self.next_turn(g)
        if self.stage is S.ESCAPE:
            path = [str(c) for c in action["path"]]
            if path:
                g.pos[self.escaper] = path[-1]
            g.log("escape", self.escaper, path)
            return self.finish(g, ESCAPED)
        if self.stage is S.PLACE:
            return CONTINUE if place_spent(g, str(action["cell"]), self.spent, self.spent_by) else Done(self.winner)
        if kind == "no_defence":
            self.stage = S.ATTACK
            return CONTINUE
        if kind == "dice":
            return self.dice_attack(0, 0)
        if kind == "token":
            return self.use_token(g, side, str(action["token"]))
        slot = int(action["slot"])
        card = hand_card(g, slot)
        if card is None or slot not in self.playable(g, side):
            raise IllegalAction(f"slot {slot} is not a battle card this side may play")
        self.hand(g, side).remove(slot)
        g.under(slot)
        self.played[side].append(card.deck)
        g.log("card", self.seats[side], card.id)
        if self.stage is S.DEFEND:
            if card.use != "defence":
                raise IllegalAction(f"{card.name} is not a defence card")
            self.defences[side] += 1
            self.defend(g, side, card)
            self.stage = S.ATTACK
            return CONTINUE
        if card.use != "attack":
            raise IllegalAction(f"{card.name} is not an attack card")
        return self.attack_card(g, side, card)

    def use_token(self, g: HogwartsState, side: int, token: str) -> Outcome:
        seat = self.seats[side]
        lent = spend_token(g, seat, token, self.spent, self.spent_by)
        if token == CLOAK:
            g.ended.append(seat)
            self.escaper = seat
            self.stage = Versus.Stage.ESCAPE
        elif lent:
            self.buffer[side] += lent
        else:  # the Elder Wand, Gryffindor's Sword
            self.bonus[side] += 1
        return CONTINUE

    # ---- effects
    def defend(self, g: HogwartsState, side: int, card: HandCard) -> None:
        heal = protect(self.guard[side], card)
        if heal:
            self.set_lp(g, side, self.lp(g, side) + heal)

    def attack_card(self, g: HogwartsState, side: int, card: HandCard) -> Outcome:
        guard = self.guard[side]
        damage = 0
        for term in card.effect:
            head, args = parse(term)
            if head == "damage":
                damage = amount(args[0])
            elif head == "cancel_next":
                guard[CANCEL] += 1
            elif head == "skip":
                guard[SKIP] += amount(args[0])
            elif head == "dice":
                cut = int(args[1][len("res"):]) if len(args) > 1 else 0
                return self.void(g, side) or self.dice_attack(amount(args[0]), -cut)
        if self.void(g, side):
            return self.attacked(g, 0)
        ability = self.ability(g, side)
        if damage and (ability == "card_plus_1" or (ability == "spell_plus_1" and card.deck == "spell")):
            damage += 1
        return self.attacked(g, damage)

    def void(self, g: HogwartsState, side: int) -> Outcome | None:
        """Barty Crouch Jr.: the first attack card played against him has no effect (it still counts)."""
        if self.ability(g, 1 - side) == "first_card_void" and self.use_once(1 - side, "first_card_void"):
            g.log("voided", self.seats[side])
            return self.attacked(g, 0)
        return None

    def dice_attack(self, extra: int, cut: int) -> Outcome:
        self.extra, self.cut = extra, cut
        self.stage = Versus.Stage.DICE
        return CONTINUE

    def score_dice(self, g: HogwartsState) -> Outcome:
        side, other = self.current, 1 - self.current
        n = self.attack_dice(g, side) + self.extra + self.bonus[side]
        ability = self.ability(g, side)
        if not self.rolled:
            self.rolled = True
            return Call(Roll(n, "attack"), into="dice")
        if not self.asked and ability == "reroll_once" and f"reroll_once:{side}" not in self.once:
            self.asked = True
            return Decide((self.deciders[side],), "reroll")
        self.rolled = self.asked = False
        res = self.res(g, other) - self.cut - (1 if ability == "res_minus_1" else 0)
        if ability == "execute" and self.lp(g, other) <= 3:
            res = MIN_RES
        res = max(MIN_RES, res)
        hitting = [d for d in self.dice if d >= res]
        loss = sum(2 if d == 6 and ability == "sixes_double" else 1 for d in hitting)
        g.log("hits", self.seats[side], loss)
        if hitting and ability in ("hit_regen", "bite_regen") and len(hitting) >= (2 if ability == "hit_regen" else 1):
            self.set_lp(g, side, self.lp(g, side) + 1)
        if hitting and g.options.get("dodge") is True:
            self.dice = [len(hitting), loss]
            self.stage = Versus.Stage.DODGE
            return CONTINUE
        self.dice = []
        return self.attacked(g, loss)

    def dodged(self, g: HogwartsState) -> Outcome:
        """The dodge dice replace the hits (rules §16.5): 1–2 cost 2, 3–5 cost 1, a 6 costs the attacker 1."""
        loss, sixes = dodge_result(self.dice)
        self.dodging, self.dice = False, []
        if sixes:
            self.lose(g, self.current, sixes)
        return self.attacked(g, loss)

    def attacked(self, g: HogwartsState, loss: int) -> Outcome:
        """The attack is resolved: it costs the other side ``loss`` (its protections first)."""
        other = 1 - self.current
        self.hit(g, other, loss)
        return self.check_end(g)

    def check_end(self, g: HogwartsState) -> Outcome:
        """After an attack: a side at the floor has lost; Pettigrew may flee; else the other side's turn."""
        side, other = self.current, 1 - self.current
        if self.down(g, other):
            return self.finish(g, side)
        if self.down(g, side):
            return self.finish(g, other)
        if self.ability(g, other) == "flee_once" and self.seats[other] >= 0 and f"flee_once:{other}" not in self.once:
            self.stage = Versus.Stage.FLEE
            return CONTINUE
        return self.next_turn(g)

    def begin(self, g: HogwartsState) -> Outcome:
        """After the start of the battle (and the spy's look): the mover's first turn, unless a side is down."""
        self.stage = Versus.Stage.DEFEND
        if self.down(g, 1):
            return self.finish(g, 0)
        if self.down(g, 0):
            return self.finish(g, 1)
        return CONTINUE

    def next_turn(self, g: HogwartsState) -> Outcome:
        self.current = 1 - self.current
        self.stage = Versus.Stage.DEFEND
        return CONTINUE

    def finish(self, g: HogwartsState, winner: int) -> Outcome:
        self.buffer = [0, 0]
        self.winner = winner
        g.log("versus_won" if winner >= 0 else "versus_escaped", self.seats[winner] if winner >= 0 else -1)
        if not self.spent:
            return Done(winner)
        self.stage = Versus.Stage.PLACE
        return CONTINUE

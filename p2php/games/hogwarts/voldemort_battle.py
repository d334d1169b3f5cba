"""Battles of The Return of Lord Voldemort (rules §16.5, §14, C-36): a hero against a Death Eater, and the
final battle of Harry against Voldemort (§16.4).  Two sheets fight; whoever started the battle attacks first
and the sides alternate until one has 0 LP.  Each round the attacker may play one defence card, then attacks
with an attack card or its attack dice; each side plays at most 3 potion or spell cards (C-41).

The Dodge is always on (C-36): a fighter about to lose LP to a dice attack may re-roll the dice that hit
instead — 1–2 cost it 2 LP each, 3–5 cost 1, a 6 costs the attacker 1 (none against Voldemort's
``dark_lord``).  Card effects are the data's terms: ``damage``, ``dice``, ``heal``, ``shield``,
``reflect_next`` (the next attack's damage goes back to the attacker), ``cancel_next`` and ``skip`` (the
opponent's next attack(s) do nothing).  Death Eaters' abilities (data §4.2) and the heroes' battle abilities
apply as printed; a fighter is ``seat:N`` (a player's figure) or ``eater:Name`` (a Death Eater the villain
plays, its cards in :attr:`.voldemort_rules.Campaign.eater_hand`).

Decisions (ours, V-list of the package docstring): the special battle tokens are not used in Return mode
(they are the sides' goals, V6); Ron's ``reroll_once`` is offered after each of his dice attacks until used
(V7, as E13); Rookwood's ``spy`` puts a card of
his opponent's chosen by the joint randomness under its deck, face down (V8); a hero who loses puts his
potion and spell cards under their decks (§14.1) and goes to the start with 1 LP (V9).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Randomness, Seat, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Task, offered
from p2php.rng import DetRng

from .battle import BATTLE_CARDS, MIN_RES, hand_card
from .cards import HandCard
from .dice import Roll
from .ids import deck_of_slot
from .remask import mix_first
from .state import MAX_LP, START
from .terms import amount, parse
from .voldemort_rules import VOLDEMORT_BACK, campaign, eater_sheet, is_voldemort

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["CARD_LIMIT", "SheetBattle", "defeat_hero", "fighter_name", "remove_eater"]

CARD_LIMIT = 3
"""Potion or spell cards per side and battle (rules §16.5, C-41)."""
CRUCIO_LP = 2
LOST_HERO_LP = 1
CANCEL, SHIELD, REFLECT = range(3)


def seat_of(fighter: str) -> int | None:
    return int(fighter[5:]) if fighter.startswith("seat:") else None


def fighter_name(g: HogwartsState, fighter: str) -> str:
    seat = seat_of(fighter)
    if seat is None:
        return fighter[6:]
    return "Lord Voldemort" if is_voldemort(g, seat) else g.student(seat).name


def stats(g: HogwartsState, fighter: str) -> tuple[int, int, str]:
    """Resistance, attack dice and battle ability of a fighter's sheet (side)."""
    seat = seat_of(fighter)
    if seat is None:
        sheet = eater_sheet(g, fighter[6:])
        return sheet.res, sheet.attack_dice, sheet.battle_ability.key
    if is_voldemort(g, seat):
        back = g.data.death_eaters[VOLDEMORT_BACK - 1]
        return back.res, back.attack_dice, back.battle_ability.key
    front = g.student(seat)
    return front.res, front.attack_dice, front.battle_ability.key


def controller(g: HogwartsState, fighter: str) -> Seat:
    seat = seat_of(fighter)
    return campaign(g).villain if seat is None else seat


def hand(g: HogwartsState, fighter: str) -> list[Slot]:
    seat = seat_of(fighter)
    return campaign(g).eater_hand[fighter[6:]] if seat is None else g.hand[seat]


def life(g: HogwartsState, fighter: str) -> int:
    seat = seat_of(fighter)
    return campaign(g).eater_lp[fighter[6:]] if seat is None else g.lp[seat]


def set_life(g: HogwartsState, fighter: str, lp: int) -> None:
    seat = seat_of(fighter)
    lp = max(0, min(MAX_LP, lp))
    if seat is None:
        campaign(g).eater_lp[fighter[6:]] = lp
    else:
        g.lp[seat] = lp


def remove_eater(g: HogwartsState, name: str) -> None:
    """A Death Eater that loses leaves the game; its cards go under their decks (data §4.2)."""
    c = campaign(g)
    for slot in c.eater_hand.pop(name, []):
        g.under(slot)
    c.eaters.pop(name, None)
    c.eater_lp.pop(name, None)
    g.log("eater_removed", name)


def defeat_hero(g: HogwartsState, seat: Seat) -> None:
    """A hero who loses goes back to the start with 1 LP (rules §16.5), his potion and spell cards under their
    decks (§14.1, V9); his turn, if it is his, ends."""
    for slot in [s for s in g.hand[seat] if deck_of_slot(s) in BATTLE_CARDS]:
        g.discard_from_hand(seat, slot)
    g.pos[seat] = START
    g.lp[seat] = LOST_HERO_LP
    g.fallen.append(seat)
    g.ended.append(seat)
    campaign(g).retry = [s for s in campaign(g).retry if s != seat]
    g.log("defeated", seat)


@dataclass
class SheetBattle(Task["HogwartsState"]):
    """``fighters[0]`` (who started it) fights ``fighters[1]``; the result is the winner's fighter string."""

    class Stage(Enum):
        START = auto()
        SPY = auto()
        DEFEND = auto()
        ATTACK = auto()
        DICE = auto()
        DODGE = auto()
        CHECK = auto()

    fighters: list[str]
    kind: str = "hero_vs_death_eater"
    stage: Stage = Stage.START
    attacker: int = 0
    used: list[int] = field(default_factory=lambda: [0, 0])
    defences: list[int] = field(default_factory=lambda: [0, 0])
    guard: list[list[int]] = field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])
    dice: list[int] = field(default_factory=list)
    rolled: bool = False
    extra: int = 0
    cut: int = 0
    hitting: int = 0
    reroll: list[bool] = field(default_factory=lambda: [False, False])  # Ron's reroll_once used, per side
    asked: bool = False  # Ron was asked about this roll
    mixed: bool = False  # the spied hand was re-masked before the spy's pick if it had to be (remask.py, E38)

    # ---- who may play what
    def limit_left(self, g: HogwartsState, side: int, use: str) -> bool:
        if self.used[side] >= CARD_LIMIT:
            return False
        other = stats(g, self.fighters[1 - side])[2]
        return not (use == "defence" and other == "imperius" and self.defences[side] >= 1)

    def card_actions(self, g: HogwartsState, side: int, knowledge: Knowledge, use: str) -> list[Action]:
        if not self.limit_left(g, side, use):
            return []
        out: list[Action] = []
        for slot in hand(g, self.fighters[side]):
            card = hand_card(g, slot, knowledge)
            if card is not None and card.use == use:
                out.append({"type": "card", "slot": slot})
        return out

    def playable(self, g: HogwartsState, side: int, use: str) -> bool:
        """Public: whether ``side`` holds any potion or spell card it may still play (faces not needed)."""
        return self.limit_left(g, side, use) and any(deck_of_slot(s) in BATTLE_CARDS
                                                     for s in hand(g, self.fighters[side]))

    # ---- the flow
    def run(self, g: HogwartsState) -> Outcome:
        S = SheetBattle.Stage
        side = self.attacker
        who = controller(g, self.fighters[side])
        if self.stage is S.START:
            return self.start(g)
        if self.stage is S.SPY:
            if not self.mixed:
                self.mixed = True
                victims = [seat_of(self.fighters[1 - s]) for s in (0, 1) if stats(g, self.fighters[s])[2] == "spy"]
                mix = mix_first(g, [v for v in victims if v is not None], BATTLE_CARDS)
                if mix is not None:
                    return mix
            return Randomness("spy")
        if self.stage is S.DEFEND:
            if self.playable(g, side, "defence"):
                return Decide((who,), "defend")
            self.stage = S.ATTACK
            return CONTINUE
        if self.stage is S.ATTACK:
            if self.playable(g, side, "attack"):
                return Decide((who,), "attack")
            return self.dice_attack(0, 0)
        if self.stage is S.DICE:
            return self.roll(g)
        if self.stage is S.DODGE:
            if not self.rolled:
                return Decide((controller(g, self.fighters[1 - side]),), "dodge")
            return self.dodged(g)
        return self.check_end(g)

    def start(self, g: HogwartsState) -> Outcome:
        g.log("battle", self.kind, [fighter_name(g, f) for f in self.fighters])
        for side in (0, 1):
            if stats(g, self.fighters[side])[2] == "crucio":  # Bellatrix: her opponent loses 2 at once
                self.lose(g, 1 - side, CRUCIO_LP)
        spies = [s for s in (0, 1) if stats(g, self.fighters[s])[2] == "spy"
                 and any(deck_of_slot(x) in BATTLE_CARDS for x in hand(g, self.fighters[1 - s]))]
        self.stage = SheetBattle.Stage.SPY if spies else SheetBattle.Stage.DEFEND
        if any(life(g, f) <= 0 for f in self.fighters):
            self.stage = SheetBattle.Stage.CHECK
        return CONTINUE

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        """Rookwood's ``spy``: one of his opponent's potion or spell cards goes under its deck (V8)."""
        for side in (0, 1):
            if stats(g, self.fighters[side])[2] != "spy":
                continue
            victim = self.fighters[1 - side]
            cards = [s for s in hand(g, victim) if deck_of_slot(s) in BATTLE_CARDS]
            if cards:
                slot = cards[DetRng(random).below(len(cards))]
                hand(g, victim).remove(slot)
                g.under(slot)
                g.log("spied", fighter_name(g, victim))
        self.stage = SheetBattle.Stage.DEFEND
        return CONTINUE

    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        S = SheetBattle.Stage
        if self.stage is S.DEFEND:
            return [{"type": "no_defence"}, *self.card_actions(g, self.attacker, knowledge, "defence")]
        if self.stage is S.DODGE:
            return [{"type": "take_hits"}, {"type": "dodge"}]
        if self.stage is S.DICE:
            return [{"type": "keep"}, {"type": "reroll"}]
        return [{"type": "dice"}, *self.card_actions(g, self.attacker, knowledge, "attack")]

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        S = SheetBattle.Stage
        if action.get("type") != "card" or self.stage not in (S.DEFEND, S.ATTACK):
            if not offered(action, self.legal(g, seat, knowledge)):
                raise IllegalAction(f"not a legal action here: {action}")
            return
        use = "defence" if self.stage is S.DEFEND else "attack"
        slot = action.get("slot")
        if slot not in hand(g, self.fighters[self.attacker]) or deck_of_slot(int(slot)) not in BATTLE_CARDS \
                or not self.limit_left(g, self.attacker, use):
            raise IllegalAction(f"not a card this fighter may play now: {action}")
        card = hand_card(g, int(slot), knowledge)
        if card is not None and card.use != use:
            raise IllegalAction(f"{card.name} is not a {use} card")

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return (action["slot"],) if action.get("type") == "card" and isinstance(action.get("slot"), int) else ()

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        action = answers[0][1]
        kind = action["type"]
        S = SheetBattle.Stage
        if self.stage is S.DICE:  # Ron: keep the roll, or roll all its dice again (once per battle)
            if kind == "reroll":
                self.reroll[self.attacker] = True
                self.rolled, self.dice = False, []
                g.log("reroll", answers[0][0])
            return CONTINUE
        if self.stage is S.DODGE:
            if kind == "dodge":
                self.rolled = True
                g.log("dodge", fighter_name(g, self.fighters[1 - self.attacker]))
                return Call(Roll(self.hitting, "dodge"), into="dice")
            return self.hits_land(g, self.hitting)
        if kind == "no_defence":
            self.stage = S.ATTACK
            return CONTINUE
        if kind == "dice":
            return self.dice_attack(0, 0)
        slot = int(action["slot"])
        card = hand_card(g, slot)
        use = "defence" if self.stage is S.DEFEND else "attack"
        if card is None or card.use != use:
            raise IllegalAction(f"the card opened is not a {use} card")
        hand(g, self.fighters[self.attacker]).remove(slot)
        g.under(slot)
        self.used[self.attacker] += 1
        g.log("card", controller(g, self.fighters[self.attacker]), card.id)
        if use == "defence":
            self.defences[self.attacker] += 1
            self.defend(g, card)
            self.stage = S.ATTACK
            return CONTINUE
        return self.attack_card(g, card)

    # ---- effects
    def lose(self, g: HogwartsState, side: int, n: int) -> None:
        if n > 0:
            set_life(g, self.fighters[side], life(g, self.fighters[side]) - n)
            g.log("lose", fighter_name(g, self.fighters[side]), n)

    def strike(self, g: HogwartsState, n: int) -> None:
        """The attacker's attack of ``n`` meets the defender's protections (cancel, reflect, shield)."""
        guard = self.guard[1 - self.attacker]
        if guard[CANCEL]:
            guard[CANCEL] -= 1
            g.log("cancelled", fighter_name(g, self.fighters[self.attacker]))
            return
        if guard[REFLECT]:
            guard[REFLECT] = 0
            self.lose(g, self.attacker, n)
            return
        if guard[SHIELD]:
            n, guard[SHIELD] = max(0, n - guard[SHIELD]), 0
        self.lose(g, 1 - self.attacker, n)

    def defend(self, g: HogwartsState, card: HandCard) -> None:
        guard = self.guard[self.attacker]
        for term in card.effect:
            head, args = parse(term)
            if head == "heal":
                set_life(g, self.fighters[self.attacker], life(g, self.fighters[self.attacker]) + amount(args[0]))
            elif head == "shield":
                guard[SHIELD] = amount(args[0])
            elif head == "reflect_next":
                guard[REFLECT] = 1
            elif head == "cancel_next":
                guard[CANCEL] += 1

    def attack_card(self, g: HogwartsState, card: HandCard) -> Outcome:
        guard = self.guard[self.attacker]
        ability = stats(g, self.fighters[self.attacker])[2]
        damage = 0
        for term in card.effect:
            head, args = parse(term)
            if head == "damage":
                damage = amount(args[0])
            elif head in ("cancel_next", "skip"):
                guard[CANCEL] += amount(args[0]) if head == "skip" else 1
            elif head == "dice":
                cut = int(args[1][len("res"):]) if len(args) > 1 else 0
                return self.dice_attack(amount(args[0]), -cut)
        if damage:
            damage += 1 if ability == "card_plus_1" else 0
            damage += 1 if ability == "spell_plus_1" and card.deck == "spell" else 0
            self.strike(g, damage)
        self.stage = SheetBattle.Stage.CHECK
        return CONTINUE

    def dice_attack(self, extra: int, cut: int) -> Outcome:
        self.extra, self.cut, self.rolled = extra, cut, False
        self.stage = SheetBattle.Stage.DICE
        return CONTINUE

    def roll(self, g: HogwartsState) -> Outcome:
        attacker, defender = self.fighters[self.attacker], self.fighters[1 - self.attacker]
        _res, dice, ability = stats(g, attacker)
        if not self.rolled:
            self.rolled = True
            return Call(Roll(dice + self.extra, "attack"), into="dice")
        if ability == "reroll_once" and not self.reroll[self.attacker] and not self.asked:
            self.asked = True
            return Decide((controller(g, attacker),), "reroll")
        self.asked = False
        res = stats(g, defender)[0] - self.cut - (1 if ability in ("res_minus_1", "dark_lord") else 0)
        if ability == "execute" and life(g, defender) <= 3:
            res = MIN_RES
        res = max(MIN_RES, res)
        self.hitting = sum(1 for d in self.dice if d >= res)
        self.dice, self.rolled = [], False
        g.log("hits", fighter_name(g, attacker), self.hitting)
        if self.hitting and ability == "bite_regen":  # Greyback: a dice attack that hits heals him 1
            set_life(g, attacker, min(eater_sheet(g, attacker[6:]).lp, life(g, attacker) + 1))
        guard = self.guard[1 - self.attacker]
        if not self.hitting or guard[CANCEL] or guard[REFLECT]:
            return self.hits_land(g, self.hitting)
        self.stage = SheetBattle.Stage.DODGE
        return CONTINUE

    def dodged(self, g: HogwartsState) -> Outcome:
        """The dodge dice replace the hits (rules §16.5); a 6 costs the attacker 1, never Voldemort."""
        loss = sum(2 if d <= 2 else 0 if d == 6 else 1 for d in self.dice)
        if stats(g, self.fighters[self.attacker])[2] != "dark_lord":
            self.lose(g, self.attacker, sum(1 for d in self.dice if d == 6))
        self.dice, self.rolled = [], False
        return self.hits_land(g, loss)

    def hits_land(self, g: HogwartsState, loss: int) -> Outcome:
        self.hitting = 0
        if loss:
            self.strike(g, loss)
        self.stage = SheetBattle.Stage.CHECK
        return CONTINUE

    def check_end(self, g: HogwartsState) -> Outcome:
        down = [side for side in (self.attacker, 1 - self.attacker) if life(g, self.fighters[side]) <= 0]
        if down:  # the side attacked loses first: an attacker hurt by its own reflected or dodged attack
            loser = 1 - self.attacker if 1 - self.attacker in down else self.attacker
            winner = self.fighters[1 - loser]
            g.log("battle_won", fighter_name(g, winner))
            return Done(winner)
        self.attacker = 1 - self.attacker
        self.stage = SheetBattle.Stage.DEFEND
        return CONTINUE

"""A battle against an enemy card (rules §14.1, data §2.2): a duel card, a mission's battle card, or an
event's enemy fought by a group (§14.4).

Each round, for the participant whose round it is: the enemy's ``before:`` abilities, then an optional
defence card, then one compulsory attack (an attack card or the attack dice), then the enemy's ``after:``
abilities — also after the attack that brought it to 0 (Tom Riddle).  Then a participant at 0 LP has lost
(even if the enemy is at 0), an enemy at 0 has lost.  A group takes turns, clockwise from the drawer; the
enemy's LP are multiplied by the number of participants and each may play 2 cards (§14.4).

A dice attack and the enemy's ``after:roll`` counter-roll come from one joint draw when no decision lies
between them (no re-roll or Dodge to ask): nothing is learnt early, and a game needs fewer joint draws
(fewer message rounds).  Cards are opened with the action that plays them (:meth:`Battle.reveals`) and go
under their decks.
Protections (``cancel_next``, ``skip``, ``shield``, ``reflect_next``) answer the enemy's next
"retaliations": one trigger of a ``before:``/``after:`` ability each (data §2.2); a trigger that costs
nothing still uses one up.

The Elder Wand and Gryffindor's Sword (+1 attack die for the battle) and the Resurrection Stone (+6 LP that
absorb losses first and vanish at the end, C-27) are offered at each attack decision; used, they go to a
Diagon Alley star cell of the user's choice when the battle ends (C-29), or, if the battle is a mission's
and they are its tokens, to board 2 with the others (C-51).

Decisions (ours): in a duel no loss takes a player below 1 LP (C-32), so the duel is lost at 1.  Ron's
``reroll_once`` is offered after each dice attack until used.  Luna's ``ignore_once`` is used for her on
the first loss that would defeat her (in a duel: leave her at 1), the one moment it changes the outcome.
Pettigrew's flight is offered after each of his rounds; the Invisibility Cloak at each attack decision of
its holder: the player moves up to 5 steps by the normal rules without battles (C-28) and its turn ends as
after a defeat (no mission; the figure still returns from a trip: ``HogwartsState.ended``).  Whoever leaves
(either way) is out of the battle: alone, it ends with no winner (``escaped``); a group fights on without
it, and ends with no winner when nobody is left standing or when a team mission's holder leaves (C-26,
E35).  An event's reward goes to those still standing when the enemy falls.

With the option ``dodge=true`` (C-36, off by default in the base game) a player about to lose LP to an
enemy's ``after:roll`` dice may re-roll the dice that hit instead: 1–2 cost 2 LP each, 3–5 cost 1, a 6 costs
the enemy 1 (rules §16.5); the result is still one retaliation (a protection answers it as a whole).

The mechanics both kinds of battle share are written once here, as functions :class:`.versus.Versus` (two
sides attacking in turn) uses too: protections (:func:`guarded`, :func:`protect`), the Dodge's dice, the
yes/no answers, the cards one may play and their check, the special tokens spent, the Cloak's escapes and
the used tokens' places.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from p2php.engine.contract import Action, CardId, Decide, IllegalAction, Knowledge, Randomness, Seat, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Task, offered
from p2php.rng import DetRng

from .board import CLOAK_STEPS, Constraints, walks_up_to
from .cards import EnemyCard, HandCard
from .defeat import defeat
from .dice import Roll
from .ids import deck_of_slot, instance
from .remask import mix_first
from .terms import amount, parse, terms_of

if TYPE_CHECKING:
    from .state import HogwartsState

__all__ = ["BATTLE_CARDS", "Battle", "enemy_card"]

BATTLE_CARDS = ("spell", "potion")
MIN_RES = 2
"""Effective resistance never drops below 2: a 1 always misses (data §2.2)."""
SKIP, CANCEL, SHIELD, REFLECT = range(4)
BATTLE_TOKENS = ("elder_wand", "gryffindors_sword", "resurrection_stone")
"""Special tokens offered in every battle (rules §13)."""
CLOAK = "invisibility_cloak"
"""Offered at its holder's attack decisions, alone or in a group (C-28, E35)."""
STONE_LP = 6


def escape_actions(g: HogwartsState, cell: str) -> list[Action]:
    """The Invisibility Cloak's escapes from ``cell``: every normal walk of up to 5 steps (C-28), or staying."""
    moves = walks_up_to(g.graph, cell, CLOAK_STEPS, Constraints())
    return [{"type": "escape", "path": list(w.path)} for w in moves] or [{"type": "escape", "path": []}]


def place_actions(g: HogwartsState, token: str) -> list[Action]:
    """Where a special token spent in a battle may be put back: Diagon Alley's star cells."""
    return [{"type": "place", "token": token, "cell": c} for c in diagon_alley_stars(g)]


def guarded(guard: list[int], n: int) -> tuple[str, int]:
    """An attack of ``n`` LP against a side whose protections are ``guard``, using up the first that answers
    it (E13, E28): ``("absorbed", 0)`` (a skip or a cancel), ``("reflected", n)`` (back at the attacker) or
    ``("hit", LP lost)`` (a shield takes its share)."""
    if guard[SKIP]:
        guard[SKIP] -= 1
        return "absorbed", 0
    if guard[CANCEL]:
        guard[CANCEL] -= 1
        return "absorbed", 0
    if guard[REFLECT]:
        guard[REFLECT] = 0
        return "reflected", n
    if guard[SHIELD]:
        n, guard[SHIELD] = max(0, n - guard[SHIELD]), 0
    return "hit", n


def protect(guard: list[int], card: HandCard) -> int:
    """A defence card's protections go on ``guard`` (E13, E28); the LP it heals are returned."""
    heal = 0
    for term in card.effect:
        head, args = parse(term)
        if head == "heal":
            heal += amount(args[0])
        elif head == "shield":
            guard[SHIELD] = amount(args[0])
        elif head == "reflect_next":
            guard[REFLECT] = 1
        elif head == "cancel_next":
            guard[CANCEL] += 1
    return heal


def dodge_result(dice: Sequence[int]) -> tuple[int, int]:
    """The Dodge's dice (rules §16.5): the LP they cost the dodger (1–2: 2, 3–5: 1) and the attacker (a 6: 1)."""
    return sum(2 if d <= 2 else 0 if d == 6 else 1 for d in dice), sum(1 for d in dice if d == 6)


def choices(stage: str) -> list[Action]:
    """The fixed answers of the battles' yes/no decisions: Ron's re-roll, the Dodge, Pettigrew's flight."""
    return [{"type": t} for t in {"reroll": ("keep", "reroll"), "dodge": ("take_hits", "dodge"),
                                  "flee": ("stay", "flee")}[stage]]


def usable_cards(g: HogwartsState, slots: Sequence[Slot], knowledge: Knowledge, use: str) -> list[Action]:
    """The ``slots`` whose face ``knowledge`` knows to be ``use`` cards (defence or attack), as actions."""
    out: list[Action] = []
    for slot in slots:
        card = hand_card(g, slot, knowledge)
        if card is not None and card.use == use:
            out.append({"type": "card", "slot": slot})
    return out


def check_card(g: HogwartsState, action: Action, knowledge: Knowledge, playable: Sequence[Slot], want: str) -> None:
    """A card played in a battle: one of the ``playable`` slots and, if its face is known, a ``want`` card."""
    if action.get("slot") not in playable:
        raise IllegalAction(f"not a card that may be played in this battle now: {action}")
    card = hand_card(g, action["slot"], knowledge)
    if card is not None and card.use != want:
        raise IllegalAction(f"{card.name} is not a {want} card")


def spend_token(g: HogwartsState, seat: Seat, token: str, spent: list[str], spent_by: list[int],
                keep: Sequence[str] = ()) -> int:
    """A special token used in battle (rules §13) leaves ``seat``'s sheet at once, to be placed when the battle
    ends (C-29) unless a mission's ``keep`` hands it in; the LP it lends (the Stone, C-27), or 0."""
    g.held[seat].remove(token)
    if token not in keep:
        spent.append(token)
        spent_by.append(seat)
    g.log("token_used", seat, token)
    return STONE_LP if token == "resurrection_stone" else 0


def card_reveal(action: Action) -> tuple[Slot, ...]:
    """The hand card an action plays, opened with it (both battles' ``reveals``)."""
    return (action["slot"],) if action.get("type") == "card" and isinstance(action.get("slot"), int) else ()


def place_spent(g: HogwartsState, cell: str, spent: list[str], spent_by: list[int]) -> bool:
    """The first special token used in a battle goes to ``cell`` (C-29); whether others are still to place."""
    g.place_token(cell, spent.pop(0))
    spent_by.pop(0)
    return bool(spent)


def diagon_alley_stars(g: HogwartsState) -> list[str]:
    """The three star cells of Diagon Alley, where used special tokens go (rules §13)."""
    return [c.id for c in g.data.cells.values() if c.board == "board1" and c.kind == "star"]


def enemy_card(g: HogwartsState, card_id: str) -> EnemyCard:
    data = g.data
    return data.duels.get(card_id) or data.battle_cards.get(card_id) or data.event_battles[card_id]


def hand_card(g: HogwartsState, slot: Slot, knowledge: Knowledge | None = None) -> HandCard | None:
    face = g.pub.get(slot) if knowledge is None else knowledge.face(slot)
    if face is None:
        return None
    inst = instance(face)
    return g.data.hand_card(inst.card) if inst.deck in BATTLE_CARDS else None


@dataclass
class Battle(Task["HogwartsState"]):
    """``participants`` fight ``enemy`` (a card id); ``kind`` is ``duel``, ``mission`` or ``event``; the
    special tokens in ``keep`` go back with the caller's (a mission's tokens).  The result is ``won``,
    ``fled`` (a duel enemy fled: won, 1 card), ``escaped`` (no winner: everyone left by the Cloak or Pettigrew's
    flight, or a team mission's holder did) or ``lost``.  A group's ``standing`` are those still fighting,
    ``left`` those who left it."""

    class Stage(Enum):
        REVEAL = auto()
        DISCARD = auto()
        BEFORE = auto()
        DEFEND = auto()
        ATTACK = auto()
        DICE = auto()
        AFTER = auto()
        CHECK = auto()
        ESCAPE = auto()
        PLACE = auto()

    participants: list[int]
    enemy: str
    kind: str
    limit: int
    keep: list[str] = field(default_factory=list)
    stage: Stage = Stage.REVEAL
    lp: int = 0
    start_lp: int = 0
    standing: list[int] = field(default_factory=list)
    left: list[int] = field(default_factory=list)  # who left by the Cloak or Pettigrew's flight (E35)
    current: int = 0  # the seat whose round it is
    used: dict[int, int] = field(default_factory=dict)
    guard: dict[int, list[int]] = field(default_factory=dict)  # seat -> [skip, cancel, shield, reflect]
    once: list[str] = field(default_factory=list)  # "ability:seat" of the once-per-battle abilities used
    bonus: dict[int, int] = field(default_factory=dict)  # extra attack dice for the battle (Wand, Sword)
    buffer: dict[int, int] = field(default_factory=dict)  # the Resurrection Stone's temporary LP
    spent: list[str] = field(default_factory=list)  # special tokens used, placed when the battle ends
    spent_by: list[int] = field(default_factory=list)  # who used each
    asked: bool = False  # Ron was asked about this roll / Pettigrew about this round
    result: str = ""
    dice: list[int] = field(default_factory=list)
    extra_dice: int = 0
    res_cut: int = 0
    rolled: bool = False  # the roll of the current attack or ability has been made (its faces in dice)
    dodge: str = ""  # "asked" (dice = [hitting dice, loss]), "rolled" (dice = the dodge dice)
    counter: list[int] = field(default_factory=list)  # the enemy's counter-roll, drawn with the attack's dice
    after: int = 0  # the after-ability being resolved
    mixed: bool = False  # the hands were re-masked before reveal:discard's pick if they had to be (E38)
    fled: bool = False

    def card(self, g: HogwartsState) -> EnemyCard:
        return enemy_card(g, self.enemy)

    # ---- losing life points
    def lose(self, g: HogwartsState, seat: Seat, n: int) -> None:
        absorbed = min(n, self.buffer.get(seat, 0))
        if absorbed:
            self.buffer[seat] -= absorbed
            n -= absorbed
        if n <= 0:
            return
        floor = 1 if self.kind == "duel" else 0
        lp = max(floor, g.lp[seat] - n)
        battle_ability = g.ability(seat)[1]
        if lp == floor and battle_ability == "ignore_once" and self.use_once(seat, "ignore_once"):
            g.log("ignored", seat, n)
            return
        if lp == 0 and battle_ability == "last_stand" and self.use_once(seat, "last_stand"):
            lp = 1
        g.lp[seat] = lp
        g.log("lose", seat, n)

    def retaliate(self, g: HogwartsState, seat: Seat, n: int) -> None:
        how, n = guarded(self.guard[seat], n)
        if how == "reflected":
            self.lp -= n
        elif how == "hit":
            self.lose(g, seat, n)

    def use_once(self, seat: Seat, ability: str) -> bool:
        """Use a once-per-battle ability if it is still unused (data §4.3); whether it was."""
        key = f"{ability}:{seat}"
        if key in self.once:
            return False
        self.once.append(key)
        return True

    def down(self, g: HogwartsState, seat: Seat) -> bool:
        return g.lp[seat] <= (1 if self.kind == "duel" else 0)

    # ---- cards
    def playable(self, g: HogwartsState, seat: Seat) -> list[Slot]:
        """Hand slots ``seat`` could play now (public: the deck of a slot, the enemy's immunity, the limit)."""
        if self.used[seat] >= self.limit:
            return []
        immune = self.card(g).immune
        return [s for s in g.hand[seat] if deck_of_slot(s) in BATTLE_CARDS and f"{deck_of_slot(s)}s" not in immune]

    def token_actions(self, g: HogwartsState, seat: Seat) -> list[Action]:
        """The special tokens ``seat`` may use now (public: the tokens on its sheet)."""
        tokens = [t for t in (*BATTLE_TOKENS, CLOAK) if t in g.held[seat]]
        return [{"type": "token", "token": t} for t in tokens]

    def card_actions(self, g: HogwartsState, seat: Seat, knowledge: Knowledge, use: str) -> list[Action]:
        return usable_cards(g, self.playable(g, seat), knowledge, use)

    def run(self, g: HogwartsState) -> Outcome:
        S = Battle.Stage
        enemy = self.card(g)
        if self.stage is S.REVEAL:
            return self.reveal(g, enemy)
        if self.stage is S.DISCARD:
            if not self.mixed:
                self.mixed = True
                mix = mix_first(g, [s for s in self.participants if len(g.hand[s]) > 1])
                if mix is not None:
                    return mix
            return Randomness("discard")
        if self.stage is S.BEFORE:
            for args in terms_of(enemy.abilities, "before:lose"):
                self.retaliate(g, self.current, amount(args[0]))
            self.stage = S.DEFEND if not self.down(g, self.current) else S.CHECK
            return CONTINUE
        if self.stage is S.DEFEND:
            if self.playable(g, self.current):
                return Decide((self.current,), "defend")
            self.stage = S.ATTACK
            return CONTINUE
        if self.stage is S.ATTACK:
            if self.playable(g, self.current) or self.token_actions(g, self.current):
                return Decide((self.current,), "attack")
            return self.dice_attack(0, 0)
        if self.stage is S.DICE:
            return self.score_dice(g, enemy)
        if self.stage is S.AFTER:
            return self.after_abilities(g, enemy)
        if self.stage is S.ESCAPE:
            return Decide((self.current,), "cloak_move")
        if self.stage is S.PLACE:
            return Decide((self.spent_by[0],), "place_used")
        return self.check_end(g, enemy)

    def reveal(self, g: HogwartsState, enemy: EnemyCard) -> Outcome:
        self.start_lp = enemy.lp * len(self.participants)
        self.lp = self.start_lp
        self.standing = list(self.participants)
        self.current = self.participants[0]
        for seat in self.participants:
            self.used[seat] = 0
            self.guard[seat] = [0, 0, 0, 0]
        g.log("battle", self.kind, self.enemy, list(self.participants))
        for args in terms_of(enemy.abilities, "reveal:lose"):
            for seat in self.participants:
                self.lose(g, seat, amount(args[0]))
        for seat in self.participants:
            if g.ability(seat)[1] == "serpensortia":  # Draco: the opponent loses 1 at the start
                self.lp -= 1
        discard = terms_of(enemy.abilities, "reveal:discard")
        self.stage = Battle.Stage.DISCARD if discard and any(g.hand[s] for s in self.participants) else \
            Battle.Stage.BEFORE
        if any(self.down(g, s) for s in self.participants):
            self.stage = Battle.Stage.CHECK
        return CONTINUE

    def received(self, g: HogwartsState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        rng = DetRng(random)
        n = sum(amount(a[0]) for a in terms_of(self.card(g).abilities, "reveal:discard"))
        for seat in self.participants:
            for _ in range(min(n, len(g.hand[seat]))):
                g.discard_from_hand(seat, g.hand[seat][rng.below(len(g.hand[seat]))])
            g.log("discard_random", seat, n)
        self.stage = Battle.Stage.BEFORE
        return CONTINUE

    # ---- the decisions
    def legal(self, g: HogwartsState, seat: Seat, knowledge: Knowledge) -> list[Action]:
        S = Battle.Stage
        if self.stage is S.DEFEND:
            return [{"type": "no_defence"}, *self.card_actions(g, seat, knowledge, "defence")]
        if self.stage is S.DICE:
            return choices("reroll")
        if self.stage is S.CHECK:
            return choices("flee")
        if self.stage is S.AFTER:
            return choices("dodge")
        if self.stage is S.ESCAPE:
            return escape_actions(g, g.pos[seat])
        if self.stage is S.PLACE:
            return place_actions(g, self.spent[0])
        return [{"type": "dice"}, *self.card_actions(g, seat, knowledge, "attack"), *self.token_actions(g, seat)]

    def check(self, g: HogwartsState, seat: Seat, action: Action, knowledge: Knowledge) -> None:
        S = Battle.Stage
        if self.stage not in (S.DEFEND, S.ATTACK) or action.get("type") != "card":
            if not offered(action, self.legal(g, seat, knowledge)):
                raise IllegalAction(f"not a legal action here: {action}")
            return
        check_card(g, action, knowledge, self.playable(g, seat), "defence" if self.stage is S.DEFEND else "attack")

    def reveals(self, g: HogwartsState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        return card_reveal(action)

    def answer(self, g: HogwartsState, answers: Sequence[tuple[Seat, Action]],
               faces: Mapping[Slot, CardId]) -> Outcome:
        seat, action = answers[0]
        kind = action["type"]
        S = Battle.Stage
        if self.stage is S.DICE:  # Ron: keep the roll, or roll all its dice again (once per battle)
            if kind == "reroll":
                self.use_once(seat, "reroll_once")
                self.rolled, self.dice = False, []
                g.log("reroll", seat)
            return CONTINUE
        if self.stage is S.AFTER:  # the optional Dodge (C-36): take the hits, or re-roll the dice that hit
            if kind == "dodge":
                self.dodge = "rolled"
                g.log("dodge", seat)
                return Call(Roll(self.dice[0], "dodge"), into="dice")
            return self.ability_done(g, seat, self.dice[1])
        if self.stage is S.CHECK:  # Pettigrew: stay, or flee (once per battle)
            if kind == "flee":
                self.use_once(seat, "flee_once")
                g.log("flee", seat)
                return self.leave(g, seat)
            return self.next_round(g, seat)
        if self.stage is S.ESCAPE:
            if action["path"]:
                g.pos[seat] = str(action["path"][-1])
            g.log("escape", seat, list(action["path"]))
            return self.leave(g, seat)
        if self.stage is S.PLACE:
            return CONTINUE if place_spent(g, str(action["cell"]), self.spent, self.spent_by) else Done(self.result)
        if kind == "token":
            return self.use_token(g, seat, str(action["token"]))
        defending = self.stage is S.DEFEND
        if kind in ("no_defence", "dice"):
            if defending:
                self.stage = S.ATTACK
                return CONTINUE
            return self.dice_attack(0, 0)
        slot = int(action["slot"])
        card = hand_card(g, slot)
        want = "defence" if defending else "attack"
        if card is None or card.use != want:
            raise IllegalAction(f"the card opened is not a {want} card")
        g.discard_from_hand(seat, slot)
        self.used[seat] += 1
        g.log("card", seat, card.id)
        if defending:
            self.defend(g, seat, card)
            self.stage = S.ATTACK
            return CONTINUE
        return self.attack_card(g, seat, card, slot)

    def use_token(self, g: HogwartsState, seat: Seat, token: str) -> Outcome:
        """A special token used in battle (rules §13): it leaves the sheet at once; the attack is still due."""
        lent = spend_token(g, seat, token, self.spent, self.spent_by, self.keep)
        if token == CLOAK:  # the holder leaves the battle at once; the escape move follows (C-28)
            g.ended.append(seat)
            self.stage = Battle.Stage.ESCAPE
        elif lent:
            self.buffer[seat] = self.buffer.get(seat, 0) + lent
        else:  # the Elder Wand, Gryffindor's Sword
            self.bonus[seat] = self.bonus.get(seat, 0) + 1
        return CONTINUE

    def leave(self, g: HogwartsState, seat: Seat) -> Outcome:
        """``seat`` has left the battle (the Cloak, Pettigrew's flight): the others fight on, unless nobody is
        left or a team mission's holder left (the mission fails at once, C-26, E35): then no one won."""
        self.left.append(seat)
        self.standing.remove(seat)
        if not self.standing or (self.kind == "mission" and seat == self.participants[0]):
            return self.finish(g, "escaped")
        return self.next_round(g, seat)

    def finish(self, g: HogwartsState, result: str) -> Outcome:
        """The battle is over: the special tokens used go to Diagon Alley first (C-29); the Stone's LP vanish."""
        self.buffer = {}
        self.result = result
        if not self.spent:
            return Done(result)
        self.stage = Battle.Stage.PLACE
        return CONTINUE

    # ---- effects
    def defend(self, g: HogwartsState, seat: Seat, card: HandCard) -> None:
        heal = protect(self.guard[seat], card)
        if heal:
            g.heal(seat, heal)

    def attack_card(self, g: HogwartsState, seat: Seat, card: HandCard, slot: Slot) -> Outcome:
        enemy = self.card(g)
        guard = self.guard[seat]
        damage = 0
        for term in card.effect:
            head, args = parse(term)
            if head == "damage":
                damage = amount(args[0])
            elif head == "vs" and args[0] in enemy.tags:
                damage = amount(parse(args[1])[1][0])
            elif head == "cancel_next":
                guard[CANCEL] += 1
            elif head == "skip":
                guard[SKIP] += amount(args[0])
            elif head == "dice":
                cut = int(args[1][len("res"):]) if len(args) > 1 else 0
                return self.dice_attack(amount(args[0]), -cut)
        if damage:
            if g.ability(seat)[1] == "card_plus_1":
                damage += 1
            if card.deck == "spell":
                damage += sum(amount(a[0]) for a in terms_of(enemy.abilities, "spell_bonus"))
            if any(a[0] in card.tags for a in terms_of(enemy.abilities, "weak")):
                damage *= 2
            self.lp -= damage
            g.log("damage", self.enemy, damage)
        return self.attacked(g, enemy)

    def dice_attack(self, extra: int, cut: int) -> Outcome:
        self.extra_dice, self.res_cut = extra, cut
        self.stage = Battle.Stage.DICE
        return CONTINUE

    def score_dice(self, g: HogwartsState, enemy: EnemyCard) -> Outcome:
        seat = self.current
        dice = g.student(seat).attack_dice + self.extra_dice + self.bonus.get(seat, 0)
        may_reroll = g.ability(seat)[1] == "reroll_once" and f"reroll_once:{seat}" not in self.once
        if not self.rolled:
            self.rolled = True
            counter = 0 if may_reroll or g.options.get("dodge") is True else self.counter_dice(enemy)
            return Call(Roll(dice + counter, "attack"), into="dice")
        if len(self.dice) > dice:  # the enemy's counter-rolls came with the attack (one joint draw)
            self.dice, self.counter = self.dice[:dice], self.dice[dice:]
        if not self.asked and may_reroll:
            self.asked = True
            return Decide((seat,), "reroll")
        self.rolled = self.asked = False
        res = enemy.res - self.res_cut - (1 if g.ability(seat)[1] == "res_minus_1" else 0)
        res = max(MIN_RES, res)
        hitting = [d for d in self.dice if d >= res]
        hits = sum(2 if d == 6 and g.ability(seat)[1] == "sixes_double" else 1 for d in hitting)
        for args in terms_of(enemy.abilities, "cap"):
            hits = min(hits, amount(args[0]))
        self.lp -= hits
        g.log("hits", seat, hits)
        if len(hitting) >= 2 and g.ability(seat)[1] == "hit_regen":
            g.heal(seat, 1)
        self.dice = []
        return self.attacked(g, enemy)

    def counter_dice(self, enemy: EnemyCard) -> int:
        """How many dice the enemy's ``after:roll`` abilities roll after an attack."""
        return sum(amount(args[0]) for args in terms_of(enemy.abilities, "after:roll"))

    def attacked(self, g: HogwartsState, enemy: EnemyCard) -> Outcome:
        """An attack is over: a fleeing duel enemy ends the battle, else its ``after:`` abilities follow."""
        if self.kind == "duel" and terms_of(enemy.abilities, "flee") and 1 <= self.lp <= 2:
            self.fled = True
            g.log("fled", self.enemy)
            return self.finish(g, "fled")
        self.after = 0
        self.stage = Battle.Stage.AFTER
        return CONTINUE

    def after_abilities(self, g: HogwartsState, enemy: EnemyCard) -> Outcome:
        seat = self.current
        triggers = [t for t in enemy.abilities if t.startswith("after:")]
        if self.after >= len(triggers):
            if terms_of(enemy.abilities, "regen") and self.lp >= 1:
                self.lp = min(self.start_lp, self.lp + 1)
            self.stage = Battle.Stage.CHECK
            return CONTINUE
        head, args = parse(triggers[self.after])
        if head == "after:lose":
            self.after += 1
            self.retaliate(g, seat, amount(args[0]))
            return CONTINUE
        if not self.rolled:
            self.rolled = True
            n = amount(args[0])
            if len(self.counter) >= n:  # rolled with the attack: no decision lies between the two
                self.dice, self.counter = self.counter[:n], self.counter[n:]
            else:
                return Call(Roll(n, "enemy"), into="dice")
        if self.dodge == "rolled":  # the dodge dice replace the hits (rules §16.5)
            loss, sixes = dodge_result(self.dice)
            self.lp -= sixes
            return self.ability_done(g, seat, loss)
        res = g.student(seat).res - (1 if len(args) > 1 and args[1] == "res-1" else 0)
        if terms_of(enemy.abilities, "execute") and g.lp[seat] <= 3:
            res = MIN_RES
        res = max(MIN_RES, res)
        sixes = sum(amount(a[0]) for a in terms_of(enemy.abilities, "sixes")) or 1
        hitting = [d for d in self.dice if d >= res]
        loss = sum(sixes if d == 6 else 1 for d in hitting)
        if hitting and g.options.get("dodge") is True:
            self.dodge, self.dice = "asked", [len(hitting), loss]
            return Decide((seat,), "dodge")
        return self.ability_done(g, seat, loss)

    def ability_done(self, g: HogwartsState, seat: Seat, loss: int) -> Outcome:
        """An ``after:roll`` counter-attack is resolved: ``seat`` loses ``loss`` LP (as a retaliation)."""
        self.rolled, self.dodge, self.dice = False, "", []
        self.after += 1
        self.retaliate(g, seat, loss)
        return CONTINUE

    def check_end(self, g: HogwartsState, enemy: EnemyCard) -> Outcome:
        seat = self.current
        if self.down(g, seat):
            g.log("battle_lost", seat, self.enemy)
            if self.kind != "duel":
                defeat(g, seat)
            self.standing.remove(seat)
            if not self.standing or len(self.participants) == 1:  # a group (event, team mission) fights on
                return self.finish(g, "lost")
            if self.lp > 0:
                return self.next_round(g, seat)
        if self.lp <= 0:
            g.log("battle_won", list(self.standing), self.enemy)
            if self.kind == "event":
                self.reward(g, enemy)
            return self.finish(g, "won")
        if not self.asked and g.ability(seat)[1] == "flee_once" and f"flee_once:{seat}" not in self.once:
            self.asked = True
            return Decide((seat,), "flee")
        return self.next_round(g, seat)

    def reward(self, g: HogwartsState, enemy: EnemyCard) -> None:
        """An event's enemy beaten: its reward to each of those still standing (not the defeated, not those
        who left)."""
        head, args = parse((enemy.reward or "").split(":")[-1])
        if head == "points":
            for seat in self.standing:
                g.score(seat, amount(args[0]), enemy.id)

    def next_round(self, g: HogwartsState, seat: Seat) -> Outcome:
        self.asked = False
        order = [s for s in self.participants if s in self.standing or s == seat]
        self.current = order[(order.index(seat) + 1) % len(order)]
        if self.current not in self.standing:
            self.current = self.standing[0]
        self.stage = Battle.Stage.BEFORE
        return CONTINUE

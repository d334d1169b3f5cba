"""The magical-creature pack (§11): the creature deck, the selection on each death, each creature's effect.

Option ``creatures=N``: at set-up N creatures are drawn at random from the ones played here
(:data:`~p2php.games.hpsha.creature_data.PLAYED`) by a public-composition Shuffle whose first N
slots are then revealed — everyone sees which creatures take part (§11.1) — and those N are
shuffled again, face down, into the creature deck (a public-composition Shuffle: the order is
known to nobody).  On every death that does not end the game (:class:`SelectionTask`, pushed by
:class:`~p2php.games.hpsha.damage.DeathTask` after the rewards) the creatures the dead character
held return to the deck, then the character whose turn it is (the next living player when that
character is dead, e.g. died in its own turn — §11.3 Gnome, "the same below") turns over the top
creature (a Reveal of its slot) and it resolves.  A creature that does not stay goes back at once;
whenever one goes back the deck is shuffled anew (its composition is public, its order must not be).

The creatures' lasting effects are plain flags on their holder (``state.flags``, which exist only when
creatures are on, so games without them hash as before): ``phoenix`` (read by DamageTask with the
locked prevention), ``thestral`` (read by ``HpshaState.distance`` and the −1-broom slot checks), ``gnome`` (1 + the
index of the slot it holds, read by the same slot checks: ``creature_marks.slot_closed``) and
``werewolf`` (``HpshaState.skills`` gives none; DamageTask's BITE stage asks ``creature_marks``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any, ClassVar

from p2php.engine.contract import Action, CardId, IllegalAction, Knowledge, Reveal, Shuffle, Slot, Step
from p2php.engine.tasks import CONTINUE, Call, Done, Outcome, Push
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.cards_spells import flip
from p2php.games.hpsha.creature_data import CREATURES, PLAYED, creature_id, creature_key
from p2php.games.hpsha.creature_marks import slot_closed
from p2php.games.hpsha.damage import AFTER_DEATH, DamageTask, LoseHpTask
from p2php.games.hpsha.data import CARDS, EQUIP_SLOTS, KINDS, MINUS
from p2php.games.hpsha.moves import DiscardCardsTask, DrawTask, PeekDeckTask, RandomHandCardTask, RevealTopTask
from p2php.games.hpsha.skillkit import mark_used, named_targets, used_this_turn
from p2php.games.hpsha.tasks import AskChoice, Task, as_slots
from p2php.games.hpsha.triggers import SKILLS, Skill

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

HELD = ("acromantula", "centaur", "dragon", "gnome", "phoenix", "salamander", "thestral", "werewolf")
"""The flags a creature that stays puts on its holder (the creature's key)."""


def turn_holder(st: HpshaState) -> int:
    """"The character whose turn it is" for a selection: the current player, or — when it is dead
    (it died in its own turn) — its next living player (§11.3, Gnome's rule for all creatures)."""
    cur = st.current_or_first()
    return cur if st.alive[cur] else st.next_alive(cur)


# ----------------------------------------------------------------------------- the creature deck


@dataclass
class ShuffleCreaturesTask(Task):
    """The creatures now in the deck (a public multiset) shuffled face down into fresh slots."""

    first: int = -1

    def run(self, st: HpshaState) -> Outcome:
        pool = st.cr["pool"]
        if not pool:
            st.cr["deck"] = []
            return Done()
        self.first = st.alloc(len(pool))
        return Shuffle(tuple(sorted(pool)), self.first, "creatures")

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        st.cr["deck"] = list(range(self.first, self.first + len(st.cr["pool"])))
        return Done()


@dataclass
class CreatureSetupTask(Task):
    """Choose N creatures at random and show them (§11.1), then the face-down creature deck.

    POOL (a Shuffle of every creature played here) → SHOW (its first N slots revealed) → DECK
    (the chosen ones shuffled face down) → done (SetupTask starts the game loop).
    """

    class Stage(Enum):
        POOL = auto()
        SHOW = auto()
        DECK = auto()

    first: int = -1
    stage: Stage = field(default=Stage.POOL, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        S = CreatureSetupTask.Stage
        if self.stage is S.POOL:
            self.first = st.alloc(len(PLAYED))
            return Shuffle(tuple(creature_id(k) for k in PLAYED), self.first, "creature_pool")
        if self.stage is S.SHOW:
            return Reveal(tuple(range(self.first, self.first + st.creatures)))
        if not st.cr.get("deck"):  # DECK: the shuffle is under way
            return Push(ShuffleCreaturesTask())
        return Done()  # SetupTask goes on: the game loop

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        if self.stage is CreatureSetupTask.Stage.POOL:
            self.stage = CreatureSetupTask.Stage.SHOW
            return CONTINUE
        chosen = sorted(faces[s] for s in range(self.first, self.first + st.creatures))
        st.cr.update({"chosen": chosen, "pool": list(chosen), "deck": [], "out": []})
        st.say("creatures", [creature_key(c) for c in chosen])
        self.stage = CreatureSetupTask.Stage.DECK
        return CONTINUE


# ----------------------------------------------------------------------------- the selection (判选)


@dataclass
class SelectionTask(Task):
    """判选 on a death (§11.2): the dead character's creatures come back, the top one is turned over
    and carried out; one that does not stay goes back to the deck (reshuffled).

    RETURN → TURN (Reveal of the top slot) → RESOLVE (its effect) → BACK → DONE.
    """

    class Stage(Enum):
        RETURN = auto()
        TURN = auto()
        RESOLVE = auto()
        BACK = auto()
        DONE = auto()

    who: int
    killer: int
    slot: int = -1
    card: int = -1
    holder: int = -1  # who keeps a creature that stays (-1: nobody, it goes back)
    sub: int = 0  # the Gnome's slot: 1 + its index in EQUIP_SLOTS (0: no slot, void)
    stage: Stage = field(default=Stage.RETURN, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        S = SelectionTask.Stage
        if self.stage is S.RETURN:
            self.stage = S.TURN
            if self.killer >= 0:  # the Phoenix's "has killed a character" (any death, any time)
                st.flags[self.killer]["kills"] = st.flags[self.killer].get("kills", 0) + 1
            back = [c for c, seat in st.cr["out"] if seat == self.who]
            if back:
                st.cr["out"] = [e for e in st.cr["out"] if e[1] != self.who]
                for c in back:
                    if st.flags[self.who].pop(creature_key(c), None) == 2 and creature_key(c) == "salamander":
                        st.cr.pop("lit", None)
                    st.cr["pool"].append(c)
                st.say("creatures_back", self.who, [creature_key(c) for c in back])
                return Push(ShuffleCreaturesTask())
        if self.stage is S.TURN:
            if not st.cr["deck"]:
                st.say("no_creature")
                return Done()
            self.slot = st.cr["deck"][0]
            return Reveal((self.slot,))
        if self.stage is S.RESOLVE:
            self.stage = S.BACK
            return _resolve(self, st, creature_key(self.card))
        if self.stage is S.BACK:
            self.stage = S.DONE
            key = creature_key(self.card)
            if key == "gnome" and not self.sub:
                self.holder = -1  # no slot to equip it in at all: void
            if CREATURES[key].stays and self.holder >= 0 and st.alive[self.holder]:
                st.cr["out"].append([self.card, self.holder])
                st.flags[self.holder][key] = self.sub if key == "gnome" else 1
                st.say("creature_kept", self.holder, key)
                if key == "werewolf":  # the character's skills are gone: the listening caches change
                    st.characters_changed()
                return CONTINUE
            st.cr["pool"].append(self.card)
            return Push(ShuffleCreaturesTask())
        return Done()

    def received(self, st: HpshaState, step: Step, faces: Mapping[Slot, CardId], random: bytes) -> Outcome:
        self.card = faces[self.slot]
        st.cr["deck"].pop(0)
        st.cr["pool"].remove(self.card)
        st.say("creature_turned", turn_holder(st), creature_key(self.card))
        self.stage = SelectionTask.Stage.RESOLVE
        return CONTINUE


def _resolve(sel: SelectionTask, st: HpshaState, key: str) -> Outcome:
    """Start the creature's effect (``sel.holder`` is set for a creature that stays)."""
    cur = turn_holder(st)
    if key == "unicorn":
        k = sel.killer
        if k < 0 or not st.alive[k]:
            st.say("creature_void", key)
            return CONTINUE
        return Push(DeckTopEffectTask(key, k))
    if key in ("merpeople", "basilisk"):
        return Push(DeckTopEffectTask(key, cur))
    if key == "gnome":
        sel.holder = cur
        return Call(GnomeSlotTask(cur), into="sub")
    if key in ("werewolf", "salamander", "centaur", "dragon"):  # the centaur: it sits after the turn's character
        sel.holder = cur
        return CONTINUE
    if key == "acromantula":  # the next player of the character whose turn it is
        sel.holder = st.next_alive(cur)
        return CONTINUE
    if key == "thestral":
        sel.holder = cur
        old = st.equip[cur].get(MINUS)
        if old is not None:  # the −1 broom (火弩箭 included) gives way to the thestral
            return Push(DiscardCardsTask([old], ["n_creature", key]))
        return CONTINUE
    # phoenix: the lowest current HP among those who never killed; ties hold a rank-off
    fit = [s for s in st.order_from(cur) if not st.flags[s].get("kills")]
    if not fit:
        st.say("creature_void", key)
        return CONTINUE
    low = min(st.hp[s] for s in fit)
    return Call(RankOffTask([s for s in fit if st.hp[s] == low]), into="holder")


def _in_game(st: HpshaState, seat: int, sub: str) -> bool:
    """Whether ``seat``'s ``sub`` slot is in the game: not closed by a creature, not covered by 金妮's 蝠咒."""
    return not slot_closed(st, seat, sub) and not st.flags[seat].get("covered:" + sub)


@dataclass
class GnomeSlotTask(Task):
    """The Gnome must be equipped (§11.3): its holder chooses an empty slot, or — with none — an equipped
    card it replaces (discarded).  Slots out of the game (金妮's 蝠咒) or held by a creature are neither.
    Result: 1 + the slot's index in EQUIP_SLOTS (0: no slot at all, the selection is void)."""

    seat: int
    choice: str | None = None

    def run(self, st: HpshaState) -> Outcome:
        eq = st.equip[self.seat]
        if self.choice is None:
            free = [sub for sub in EQUIP_SLOTS if _in_game(st, self.seat, sub)]
            opts = [sub for sub in free if sub not in eq] or free
            if not opts:
                st.say("creature_void", "gnome")
                return Done(0)
            if len(opts) > 1:
                return Call(AskChoice(self.seat, "gnome", opts), into="choice")
            self.choice = opts[0]
        old = eq.get(self.choice)
        if old is not None:  # replaced: discarded (then run again, the slot is empty)
            return Push(DiscardCardsTask([old], ["n_creature", "gnome"]))
        st.say("gnome_slot", self.seat, self.choice)
        return Done(1 + EQUIP_SLOTS.index(self.choice))


@dataclass
class RankOffTask(Task):
    """比点 (the Phoenix's tie-break): each tied character turns over the deck top (in turn order);
    the highest rank wins, ties for the highest go again.  The cards are then discarded.
    Result: the winner (the only one when one qualifies; -1 if the cards ran out: our choice, the
    first of the tied in turn order)."""

    seats: list[int]
    got: list[int] | None = None

    def run(self, st: HpshaState) -> Outcome:
        if len(self.seats) == 1:
            return Done(self.seats[0])
        if self.got is None:
            return Call(RevealTopTask(len(self.seats)), into="got")
        got, self.got = self.got, None
        if len(got) < len(self.seats):  # no card left anywhere
            for s in got:
                st.to_discard(s)
            return Done(self.seats[0])
        ranks = [CARDS[st.pub[s]].rank for s in got]
        st.say("rank_off", self.seats, st.ids(got))
        for s in got:
            st.to_discard(s)
        top = max(ranks)
        self.seats = [seat for seat, r in zip(self.seats, ranks, strict=True) if r == top]
        return CONTINUE


@dataclass
class DeckTopEffectTask(Task):
    """A creature that turns over the deck top and acts by its suit or rank (our card faces, see
    :data:`~p2php.games.hpsha.creature_data.CREATURES`): 独角兽 and 巨蜘蛛 by suit, 人鱼 and 蛇怪 by rank.
    The card is a plain reveal, not a judgement (no 预言 / 捉弄), and is discarded after."""

    key: str
    seat: int
    got: list[int] | None = None
    done: bool = False

    def run(self, st: HpshaState) -> Outcome:
        if self.done:
            return Done()
        if self.got is None:
            return Call(RevealTopTask(1), into="got")
        self.done = True
        if not self.got:
            return CONTINUE
        s = self.got[0]
        card = CARDS[st.pub[s]]
        st.to_discard(s)
        st.say("creature_card", self.key, st.ids([s]))
        seat = self.seat
        if self.key == "unicorn":
            if card.suit == "♥" and st.hp[seat] < st.max_hp[seat]:
                st.recover(seat, 1)
                return CONTINUE
            if card.suit in "♥♦":
                return Push(DrawTask(seat, 1))
            if card.suit == "♠":
                return Push(LoseHpTask(seat, 1, "unicorn"))
            return Push(_DiscardRandomTask(seat))
        if self.key == "acromantula":
            if card.suit == "♠" and st.alive[seat]:
                return Push(DamageTask(-1, seat, 1, "acromantula"))
            return CONTINUE
        if self.key == "dragon":
            return _dragon_egg(st, seat, card.suit)
        if self.key == "merpeople":
            if card.rank <= 6:
                flip(st, seat)
            return CONTINUE
        living = st.order_from(seat)  # basilisk: count in turn order, the executor being 1
        victim = living[(card.rank - 1) % len(living)]
        st.say("basilisk_gaze", victim)
        return Push(DamageTask(-1, victim, 1, "basilisk"))


def _dragon_egg(st: HpshaState, holder: int, suit: str) -> Outcome:
    """The dragon egg's card (our choice): ♥ its holder recovers 1 HP, ♦ it goes to the character whose
    turn it is, ♠ its holder is burned (1 sourceless fire damage), ♣ its holder discards a random card."""
    if not st.alive[holder]:
        return CONTINUE
    if suit == "♥":
        st.recover(holder, 1)
        return CONTINUE
    if suit == "♦":
        cur = st.current_or_first()
        if cur != holder and st.alive[cur]:
            del st.flags[holder]["dragon"]
            st.flags[cur]["dragon"] = 1
            for e in st.cr["out"]:
                if e[1] == holder and e[0] == creature_id("dragon"):
                    e[1] = cur
            st.say("egg_moves", holder, cur)
        return CONTINUE
    if suit == "♠":
        return Push(DamageTask(-1, holder, 1, "dragon", nature="fire"))
    return Push(_DiscardRandomTask(holder))


@dataclass
class _DiscardRandomTask(Task):
    """The Unicorn's ♣: a hand card chosen by joint randomness is discarded."""

    seat: int
    picked: int | None = None

    def run(self, st: HpshaState) -> Outcome:
        if self.picked is None:
            return Call(RandomHandCardTask(self.seat, "unicorn"), into="picked")
        if self.picked < 0:
            return Done()
        s, self.picked = self.picked, -1
        return Push(DiscardCardsTask([s], ["n_creature", "unicorn"]))


# ----------------------------------------------------------------------------- the salamander's heal


class SalamanderHeal(Skill):
    """火蜥蜴 (our choice, see creature_data): while a salamander is activated anywhere, any character in
    its own play phase, once per turn, discards a red hand card → a wounded character recovers 1 HP."""

    key, zh, en = "salamander", "火蜥蜴", "Salamander"

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key):
            return []
        red = [s for s in st.hands[seat] if (f := kn.face(s)) is not None and CARDS[f].red and st.can_use(seat, s)]
        hurt = [t for t in st.order_from(seat) if st.hp[t] < st.max_hp[t]]
        return [{"type": "skill", "skill": self.key, "slots": [s], "targets": [t]} for s in red for t in hurt]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Callable[[Slot], CardId | None]) -> None:
        (t,) = named_targets(action, 1)
        slots = as_slots(action)
        if used_this_turn(st, seat, self.key) or not st.cr.get("lit"):
            raise IllegalAction("火蜥蜴 Salamander: once per turn, while one is activated")
        if len(slots) != 1 or slots[0] not in st.hands[seat]:
            raise IllegalAction("火蜥蜴 Salamander: discard one red hand card")
        f = face(slots[0])
        if f is not None and not CARDS[f].red:
            raise IllegalAction("火蜥蜴 Salamander: that card is not red")
        if not (0 <= t < st.n) or not st.alive[t] or st.hp[t] >= st.max_hp[t]:
            raise IllegalAction("火蜥蜴 Salamander: name a wounded living character")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        st.push(_HealTask(int(action["slots"][0]), int(action["targets"][0])))


@dataclass
class _HealTask(Task):
    """The salamander's red card is discarded, then the recovery."""

    slot: int
    target: int
    discarded: bool = False

    def run(self, st: HpshaState) -> Outcome:
        if not self.discarded:
            self.discarded = True
            return Push(DiscardCardsTask([self.slot], ["n_creature", "salamander"]))
        st.recover(self.target, 1)
        return Done()


class CentaurLook(Skill):
    """马人 (our choice, see creature_data): its holder, once per turn in its own play phase, places a hand
    card face up (明置: it is shown to everyone and stays in the hand) to look at the top 3 deck cards and
    put them back in any order."""

    key, zh, en = "centaur", "马人", "Centaur"

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key) or not st.deck:
            return []
        return [{"type": "skill", "skill": self.key, "slots": [s], "targets": []} for s in st.hands[seat]]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Callable[[Slot], CardId | None]) -> None:
        slots = as_slots(action)
        if used_this_turn(st, seat, self.key) or not st.flags[seat].get("centaur"):
            raise IllegalAction("马人 Centaur: its holder, once per turn")
        if len(slots) != 1 or slots[0] not in st.hands[seat]:
            raise IllegalAction("马人 Centaur: place one hand card face up")
        if action.get("targets") != []:  # it names no one: seats there were read by nothing
            raise IllegalAction("马人 Centaur names no target")

    def play_reveals(self, st: HpshaState, seat: int, action: Action) -> tuple[Slot, ...]:
        return st.unopened(as_slots(action))

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        st.say("centaur_shows", seat, st.ids(as_slots(action)))
        st.push(PeekDeckTask(seat, 3, reorder=True))


# ----------------------------------------------------------------------------- the gnome's advantage


def _can_hold(st: HpshaState, seat: int, sub: str) -> bool:
    """Whether ``seat``'s ``sub`` slot may take a card now: empty, and in the game (:func:`_in_game`)."""
    return sub not in st.equip[seat] and _in_game(st, seat, sub)


class GnomeBorrow(Skill):
    """地精 (our choice, see creature_data C14): its holder, once per turn in its own play phase, borrows one
    equipment card of another living character into the matching slot of its own, if that slot is free, and
    uses it for the rest of the turn; :class:`GnomeReturn` gives it back."""

    key, zh, en = "gnome", "地精", "Gnome"

    def play_offers(self, st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
        if used_this_turn(st, seat, self.key) or not st.flags[seat].get("gnome"):
            return []
        return [{"type": "skill", "skill": self.key, "slots": [slot], "targets": [t]}
                for t in st.order_from(seat) if t != seat and st.alive[t]
                for sub, slot in sorted(st.equip[t].items()) if _can_hold(st, seat, sub)]

    def check_play(self, st: HpshaState, seat: int, action: Action, face: Callable[[Slot], CardId | None]) -> None:
        (t,) = named_targets(action, 1)
        slots = as_slots(action)
        if used_this_turn(st, seat, self.key) or not st.flags[seat].get("gnome"):
            raise IllegalAction("地精 Gnome: its holder, once per turn")
        if not (0 <= t < st.n) or t == seat or not st.alive[t] or len(slots) != 1:
            raise IllegalAction("地精 Gnome: name one equipment card of another living character")
        where = st.locate(slots[0])
        if where is None or where[1] != t or where[0] not in EQUIP_SLOTS:
            raise IllegalAction("地精 Gnome: that card is not in that character's equipment area")
        if not _can_hold(st, seat, where[0]):
            raise IllegalAction(f"地精 Gnome: your {where[0]} slot cannot take it")

    def play(self, st: HpshaState, seat: int, action: Action) -> None:
        mark_used(st, seat, self.key)
        slot, owner = int(action["slots"][0]), int(action["targets"][0])
        sub = KINDS[st.kind(slot)].sub
        st.take(slot)
        st.equip[seat][sub] = slot
        st.cr["loan"] = [seat, slot, owner, sub]  # one gnome, so at most one loan at a time
        st.say("gnome_borrows", seat, owner, st.pub[slot])


class GnomeReturn(Skill):
    """地精 (locked; our choice): at the end of its holder's turn the borrowed card goes back to the slot it
    came from — or to the discard pile if that slot took another card, its owner died, or the card is no
    longer where it was borrowed to (then nothing happens: it went wherever the game sent it)."""

    key, zh, en, compulsory = "gnome_return", "地精", "Gnome", True
    points: ClassVar[frozenset[str]] = frozenset({tp.TURN_END})

    def available(self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any]) -> bool:
        return ctx.get("who") == seat and st.cr.get("loan", [-1])[0] == seat

    def invoke(
        self, st: HpshaState, seat: int, point: str, ctx: dict[str, Any], action: Action, faces: dict[Slot, CardId]
    ) -> None:
        give_back(st, seat)


def give_back(st: HpshaState, seat: int) -> None:
    """End ``seat``'s loan, if it has one (also called when the holder loses the gnome)."""
    loan = st.cr.get("loan")
    if loan is None or loan[0] != seat:
        return
    del st.cr["loan"]
    slot, owner, sub = int(loan[1]), int(loan[2]), str(loan[3])
    if st.equip[seat].get(sub) != slot:
        return
    st.take(slot)
    if st.alive[owner] and _can_hold(st, owner, sub):
        st.equip[owner][sub] = slot
        st.say("gnome_gives_back", seat, owner, st.pub[slot])
    else:
        st.discard.append(slot)
        st.say("gnome_loan_discarded", seat, st.pub[slot])


GNOME_BORROW = GnomeBorrow()
SKILLS[GNOME_BORROW.key] = GNOME_BORROW
GNOME_RETURN = GnomeReturn()
SKILLS[GNOME_RETURN.key] = GNOME_RETURN
CENTAUR = CentaurLook()
SKILLS[CENTAUR.key] = CENTAUR
SALAMANDER = SalamanderHeal()
SKILLS[SALAMANDER.key] = SALAMANDER

ADDED_POINTS: frozenset[str] = frozenset().union(
    *(sk.points for sk in (GNOME_BORROW, GNOME_RETURN, CENTAUR, SALAMANDER)))
"""The timing points the skills a creature adds to a seat (``HpshaState.skills``) listen at: no character need
listen there for them to be asked (the Gnome's return at the end of the borrower's turn)."""
AFTER_DEATH["selection"] = SelectionTask

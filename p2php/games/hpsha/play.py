"""The play phase: which cards may be used now, on whom, and the generic "use a card" task.

Legal actions and their check share one set of public target rules
(:func:`targets_for`), so every action listed passes :meth:`check`, and a peer
that cannot see the card still checks everything but its face (the face is
opened by the action itself and checked in ``apply``).

Play-phase actions:

* ``{"type": "use", "kind": k, "slots": [s], "targets": [...]}`` — use a hand card
  (``"skill": key`` when a view-as skill converts the cards);
* ``{"type": "quill", "slot": s, "targets": [t]}`` — 羽毛笔: a hand card face down
  as a 爆破咒 (no reveal until the target has guessed);
* ``{"type": "skill", "skill": key, "targets": [...], ...}`` — activate a skill
  (:meth:`~p2php.games.hpsha.triggers.Skill.play_offers`);
* ``{"type": "end"}`` — end the play phase.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, IllegalAction, Knowledge, Seat, Slot
from p2php.engine.tasks import CONTINUE, Done, Outcome, Push, ask_one, stage_names
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha import triggers as tp
from p2php.games.hpsha.creature_marks import slot_closed
from p2php.games.hpsha.data import CARDS, EQUIPMENT, KINDS, WEAPON, is_delayed, is_instant, kind_label
from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.tasks import Task, as_int, as_slots

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState

NOT_IN_PLAY = frozenset({"apparate", "patronus", "counter"})  # responses only
MAX_PLAYS = 200  # guard: a lone 复制成双 can cycle through a one-card deck forever
HOSTILE = frozenset({"bombarda", "expelliarmus", "legilimens", "crucio", "bind", "impediment", "out_of_body"})


def bombarda_allowed(st: HpshaState, user: int) -> bool:
    """One 爆破咒 per play phase, any number with the 胡桃木魔杖."""
    return st.bombarda_used == 0 or bool(gear(st, user, gp.BOMBARDA_LIMIT, {"unlimited": False})["unlimited"])


def granted(st: HpshaState, seat: int) -> list[str]:
    """The play-phase action types ``seat``'s equipment adds (羽毛笔 Quill: ``quill``)."""
    grants: list[str] = gear(st, seat, gp.PLAY_GRANTS, {"grants": []})["grants"]
    return grants


def has_cards(st: HpshaState, t: int, zones: str) -> bool:
    """Does ``t`` have a card in the zones (h: hand, w: weapon, e: any equipment, j: judgement)?"""
    return bool(
        ("h" in zones and st.hands[t]) or ("w" in zones and WEAPON in st.equip[t])
        or ("e" in zones and st.equip[t]) or ("j" in zones and st.judge[t])
    )


def targets_for(st: HpshaState, user: int, kind: str, reach: Callable[[int, int], bool] | None = None,
                seen: list[int] | None = None) -> list[list[int]]:
    """Every legal target list for using ``kind`` in ``user``'s play phase (empty: not usable).

    ``reach`` answers ``st.in_range`` (by default it is that), e.g. from :func:`range_memo`; ``seen`` is the
    other living seats in turn order from ``user`` when the caller has them (one listing asks for several kinds)."""
    if reach is None:
        reach = st.in_range
    others = [s for s in st.order_from(user) if s != user] if seen is None else seen
    if kind == "bombarda":
        return [[t] for t in others if reach(user, t)] if bombarda_allowed(st, user) else []
    if kind == "tears":
        return [[user]] if st.hp[user] < st.max_hp[user] else []
    if kind == "geminio":
        return [[user]]
    if kind == "expelliarmus":
        return [[t] for t in others if has_cards(st, t, "hwj")]
    if kind == "legilimens":
        return [[t] for t in others if reach(user, t) and has_cards(st, t, "hej")]
    if kind in ("sectumsempra", "stupefy"):
        return [list(others)] if others else []  # (a list of its own, as each call made it)
    if kind == "reparo":
        hurt = [s for s in st.order_from(user) if st.hp[s] < st.max_hp[s]]
        return [hurt] if hurt else []
    if kind == "aguamenti":
        return [st.order_from(user)]
    if kind == "out_of_body":
        return [[a, b] for a in others if reach(user, a) for b in st.order_from(a) if reach(a, b)]
    if kind == "crucio":
        return [[t] for t in others]
    if kind == "bind":
        return [[t] for t in others if not st.has_judge(t, "bind")]
    if kind == "impediment":
        return [[t] for t in others if reach(user, t) and not st.has_judge(t, "impediment")]
    if kind == "avada":
        return [] if st.has_judge(user, "avada") else [[user]]
    if KINDS[kind].category == EQUIPMENT:
        if st.flags[user].get("covered:" + KINDS[kind].sub):  # that area is out of the game (金妮's 蝠咒)
            return []
        if slot_closed(st, user, KINDS[kind].sub):  # the 夜骐 Thestral or the 地精 Gnome holds it
            return []
        return [[user]]
    return []


def target_ok(st: HpshaState, user: int, kind: str, targets: list[int]) -> bool:
    """``targets in targets_for(st, user, kind)``, without listing every target list.

    A check asks this three times per action (the table's check, apply's and the task's), and
    listing 穿心咒's target pairs alone asks the distance between every two characters;
    ``tests/test_fast_paths.py`` compares the two.  ``targets`` are distinct ints (``as_slots``).
    """
    if kind in ("tears", "geminio", "avada") or KINDS[kind].category == EQUIPMENT:
        return targets == [user] and bool(targets_for(st, user, kind))  # at most [[user]]: cheap to list
    others = [s for s in st.order_from(user) if s != user]
    if kind in _ONE_TARGET:
        if len(targets) != 1 or targets[0] not in others:
            return False
        t = targets[0]
        if kind == "bombarda":
            return st.in_range(user, t) and bombarda_allowed(st, user)
        if kind == "expelliarmus":
            return has_cards(st, t, "hwj")
        if kind == "legilimens":
            return st.in_range(user, t) and has_cards(st, t, "hej")
        if kind == "bind":
            return not st.has_judge(t, "bind")
        if kind == "impediment":
            return st.in_range(user, t) and not st.has_judge(t, "impediment")
        return True  # crucio: any other character
    if kind in ("sectumsempra", "stupefy"):
        return bool(others) and targets == others
    if kind == "reparo":
        hurt = [s for s in st.order_from(user) if st.hp[s] < st.max_hp[s]]
        return bool(hurt) and targets == hurt
    if kind == "aguamenti":
        return targets == st.order_from(user)
    if kind == "out_of_body":
        if len(targets) != 2:
            return False
        a, b = targets
        return a in others and st.in_range(user, a) and b in st.order_from(a) and st.in_range(a, b)
    return False


_ONE_TARGET = frozenset({"bombarda", "expelliarmus", "legilimens", "crucio", "bind", "impediment"})
"""The kinds whose target lists :func:`targets_for` gives as ``[t]``, one per other character allowed."""


def range_memo(st: HpshaState) -> Callable[[int, int], bool]:
    """``st.in_range``, each answer kept, while ``st`` does not change: listing the play actions asks the
    same pairs for several kinds (爆破咒, 摄神取念, 障碍重重, and 穿心咒's every pair), each a distance with
    every modifier."""
    memo: dict[tuple[int, int], bool] = {}
    ranges: dict[int, int] = {}  # each attacker's attack range, asked once (in_range asks it per target)
    alive, distance, attack_range = st.alive, st.distance, st.attack_range

    def reach(a: int, b: int) -> bool:
        got = memo.get((a, b))
        if got is None:  # st.in_range(a, b), its terms in the same order
            got = 0 <= b < len(alive) and a != b and alive[b]
            if got:
                dist = distance(a, b)
                r = ranges.get(a)
                if r is None:
                    r = ranges[a] = attack_range(a)
                got = dist <= r
            memo[(a, b)] = got
        return got

    return reach


def play_actions(st: HpshaState, seat: int, kn: Knowledge) -> list[Action]:
    acts: list[Action] = []
    if st.plays_this_phase >= MAX_PLAYS:
        return [{"type": "end"}]
    cache: dict[str, list[list[int]]] = {}
    reach = range_memo(st)
    others = [s for s in st.order_from(seat) if s != seat]  # (targets_for's, for every kind)
    plain_cards = not st.hooked(seat, "treat_as")  # then as_card(seat, f) is CARDS[f]
    face = kn.face
    for s in st.hands[seat]:
        f = face(s)
        if f is None or not st.can_use(seat, s):
            continue
        kind = (CARDS[f] if plain_cards else st.as_card(seat, f)).kind  # as the card counts now (亚瑟's 着迷)
        if kind in NOT_IN_PLAY:
            continue
        if kind not in cache:
            cache[kind] = targets_for(st, seat, kind, reach, others)
        for tg in cache[kind]:
            acts.append({"type": "use", "kind": kind, "slots": [s], "targets": tg})
    for sk in st.skills(seat):
        if sk.view_as and sk.view_as not in NOT_IN_PLAY:
            tgs = targets_for(st, seat, sk.view_as, reach, others)
            for group in sk.view_as_sets(st, seat, kn):
                if not all(st.can_use(seat, s) for s in group):
                    continue
                for tg in tgs:
                    acts.append({"type": "use", "kind": sk.view_as, "slots": group, "targets": tg, "skill": sk.key})
    if "quill" in granted(st, seat) and bombarda_allowed(st, seat):
        in_range = [t for t in st.order_from(seat) if reach(seat, t)]
        for s in st.hands[seat]:
            if not st.can_use(seat, s):
                continue
            for t in in_range:
                acts.append({"type": "quill", "slot": s, "targets": [t]})
    for sk in st.hooked(seat, "play_offers"):  # play-phase activations of skills (Skill.play_offers)
        acts.extend(sk.play_offers(st, seat, kn))
    acts.append({"type": "end"})
    return acts


def validate_play(st: HpshaState, seat: int, action: Action, face: Any) -> None:
    """Raise IllegalAction unless ``action`` is a valid play-phase action (faces checked where known)."""
    t = action.get("type")
    if t == "end":
        return
    if st.plays_this_phase >= MAX_PLAYS:
        raise IllegalAction(f"at most {MAX_PLAYS} actions in one play phase (endless-loop guard)")
    targets = as_slots(action, "targets")
    if t == "quill":
        s = as_int(action, "slot")
        if "quill" not in granted(st, seat) or not bombarda_allowed(st, seat):
            raise IllegalAction("羽毛笔 Quill: needs the quill equipped and a 爆破咒 still allowed")
        if s not in st.hands[seat]:
            raise IllegalAction(f"slot {s} is not in your hand")
        if not st.can_use(seat, s):
            raise IllegalAction(f"slot {s} is set face down (禁闭): it cannot be used this turn")
        if len(targets) != 1 or not st.in_range(seat, targets[0]):
            raise IllegalAction("羽毛笔 Quill: one target within attack range")
        return
    if t == "skill":
        psk = next((x for x in st.skills(seat) if x.key == action.get("skill")), None)
        if psk is None:
            raise IllegalAction(f"you have no skill {action.get('skill')!r} to activate now")
        if not action.keys() <= psk.play_keys:
            raise IllegalAction(f"{psk.label} reads no {sorted(action.keys() - psk.play_keys)[0][:40]!r}")
        psk.check_play(st, seat, action, face)
        return
    if t != "use":
        raise IllegalAction(f"unknown play action {t!r}")
    kind = action.get("kind")
    if not isinstance(kind, str) or kind not in KINDS or kind in NOT_IN_PLAY:
        raise IllegalAction(f"{kind!r} cannot be used in the play phase")
    slots = as_slots(action)
    for s in slots:
        if s not in st.hands[seat]:
            raise IllegalAction(f"slot {s} is not in your hand")
        if not st.can_use(seat, s):
            raise IllegalAction(f"slot {s} is set face down (禁闭): it cannot be used this turn")
    skill = action.get("skill")
    if "skill" not in action:  # (a null skill was read as none: a second form of the plain use)
        if len(slots) != 1:
            raise IllegalAction("use exactly one card")
        f = face(slots[0])
        if f is not None and st.as_card(seat, f).kind != kind:
            raise IllegalAction(f"that card is not {kind_label(kind)}")
    else:
        sk = next((x for x in st.skills(seat) if x.key == skill and x.view_as == kind), None)
        if sk is None or len(slots) != sk.view_as_count:
            raise IllegalAction(f"no skill {skill!r} turning cards into {kind_label(kind)}")
        faces = [face(s) for s in slots]
        if all(f is not None for f in faces) and not sk.view_as_ok([CARDS[f] for f in faces]):
            raise IllegalAction(f"{sk.label}: those cards cannot be used as {kind_label(kind)}")
    if not target_ok(st, seat, kind, targets):
        raise IllegalAction(f"{kind_label(kind)} cannot target {targets}")


@dataclass
class PlayPhaseTask(Task):
    """出牌阶段: the player uses cards one at a time until choosing to end (or dying).

    Stages: ``START`` (the phase's counters reset), ``PLAYING`` (one action after another),
    ``ENDED`` (the player chose to end).
    """

    class Stage(Enum):
        START = auto()
        PLAYING = auto()
        ENDED = auto()

    seat: int
    stage: Stage = field(default=Stage.START, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        if self.stage is PlayPhaseTaskStage.ENDED or not st.alive[self.seat]:
            return Done()
        if self.stage is PlayPhaseTaskStage.START:
            st.bombarda_used = 0
            st.plays_this_phase = 0
            self.stage = PlayPhaseTaskStage.PLAYING
        return ask_one(self.seat, "play")

    def legal(self, st: HpshaState, seat: Seat, kn: Knowledge) -> list[Action]:
        return play_actions(st, seat, kn)

    def check(self, st: HpshaState, seat: Seat, action: Action, kn: Knowledge) -> None:
        validate_play(st, seat, action, kn.face)

    def reveals(self, st: HpshaState, seat: Seat, action: Action) -> tuple[Slot, ...]:
        if action.get("type") == "use":
            return st.unopened(as_slots(action))
        if action.get("type") == "skill":
            psk = next((sk for sk in st.skills(seat) if sk.key == action.get("skill")), None)
            return psk.play_reveals(st, seat, action) if psk is not None else ()
        return ()

    def answer(self, st: HpshaState, answers: Sequence[tuple[Seat, Action]], faces: Mapping[Slot, CardId]) -> Outcome:
        ((seat, action),) = answers
        validate_play(st, seat, action, st.pub.get)
        t = action["type"]
        if t == "end":
            self.stage = PlayPhaseTaskStage.ENDED
            return CONTINUE
        st.plays_this_phase += 1
        if t == "skill":  # the skill pushes what it does (Skill.play)
            next(sk for sk in st.skills(seat) if sk.key == action["skill"]).play(st, seat, action)
            return CONTINUE
        if t == "quill":
            from p2php.games.hpsha.cards_basic import QuillTask

            slot = action["slot"]
            st.to_processing(slot)
            return Push(QuillTask(seat, slot, action["targets"][0]))
        for s in action["slots"]:
            st.to_processing(s)
        return Push(UseCardTask(seat, action["kind"], list(action["slots"]), list(action["targets"]),
                                action.get("skill") or ""))


@dataclass
class UseCardTask(Task):
    """使用 a card from the hand: CARD_USED fires (before it resolves), then the card's effect,
    then the card goes to the discard pile (equipment and delayed spells go to their areas).

    Stages: ``USE`` (announced; equipment and delayed spells are placed here, else CARD_USED),
    ``TARGETS`` (TARGET_CHOSEN for each target), ``EFFECT`` (what the card does), ``RESOLVED``
    (CARD_RESOLVED), ``DISCARD`` (the card goes to the pile), ``REPLACED`` (after the CARD_MOVED of
    the equipment card an equipped one replaced).
    """

    class Stage(Enum):
        USE = auto()
        TARGETS = auto()
        EFFECT = auto()
        RESOLVED = auto()
        DISCARD = auto()
        REPLACED = auto()

    user: int
    kind: str
    slots: list[int]
    targets: list[int]
    skill: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    stage: Stage = field(default=Stage.USE, kw_only=True)

    def run(self, st: HpshaState) -> Outcome:
        kind, user = self.kind, self.user
        if self.stage is UseCardTaskStage.USE:
            st.say("uses", user, kind, st.ids(self.slots), self.skill, list(self.targets))
            k = KINDS[kind]
            if k.category == EQUIPMENT:
                old = st.equip[user].get(k.sub)
                st.put_equipment(user, self.slots[0])
                if old is None:
                    return Done()
                self.stage = UseCardTaskStage.REPLACED  # the replaced card leaves the equipment area
                return st.fire_last(tp.CARD_MOVED, {"owner": user, "to": -1, "slots": [old], "how": "replace"})
            why = st.spell_void(user, kind, self.targets[0], st.colour_of(self.slots)) if is_delayed(kind) else ""
            if why:  # 伏地魔's 黑暗: used, but no effect — it never enters the judgement area
                st.say("void", kind, self.targets[0], why)
                st.to_discard(self.slots[0])
                return Done()
            if is_delayed(kind):
                st.take(self.slots[0])
                st.judge[self.targets[0]].append([self.slots[0], kind])
                return Done()
            if kind == "bombarda":
                st.bombarda_used += 1
            self.stage = UseCardTaskStage.TARGETS
            return st.fire_last(tp.CARD_USED, {"user": user, "kind": kind, "targets": list(self.targets)})
        if self.stage is UseCardTaskStage.TARGETS:
            self.stage = UseCardTaskStage.EFFECT
            for t in reversed(self.targets):  # pushed in reverse: the first target's point resolves first
                st.fire(tp.TARGET_CHOSEN, {"user": user, "kind": kind, "target": t})
            return CONTINUE
        if self.stage is UseCardTaskStage.EFFECT:
            self.stage = UseCardTaskStage.RESOLVED
            if kind == "tears":
                st.recover(user, 1)
            elif kind == "bombarda":
                from p2php.games.hpsha.cards_basic import BombardaTask

                return Push(BombardaTask(user, self.targets[0], list(self.slots)))
            elif is_instant(kind):
                from p2php.games.hpsha.cards_spells import SpellTask

                return Push(SpellTask(user, kind, list(self.targets), colour=st.colour_of(self.slots)))
            return CONTINUE
        if self.stage is UseCardTaskStage.RESOLVED:
            self.stage = UseCardTaskStage.DISCARD
            return st.fire_last(tp.CARD_RESOLVED, {"user": user, "kind": kind, "targets": list(self.targets)})
        if self.stage is UseCardTaskStage.DISCARD:
            for s in self.slots:
                if s in st.processing:
                    st.to_discard(s)
        return Done()


# Each task's stages as plain names for its methods (p2php.engine.tasks.stage_names: faster reads).
PlayPhaseTaskStage = stage_names(PlayPhaseTask.Stage)
UseCardTaskStage = stage_names(UseCardTask.Stage)

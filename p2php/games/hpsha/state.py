"""The public state of a Harry Potter Sha game and its small, shared rule helpers.

The state is identical on every peer and never holds a hidden face: hands are
lists of slots, and ``pub`` maps only the slots opened to everyone (cards used,
played, discarded, equipped, judged, shown).  Pending resolution is the task
stack (see :mod:`p2php.games.hpsha.tasks`); :meth:`HpshaState._settle` runs it
until a task needs an external step, which is cached so :meth:`step` is an
idempotent, cheap read.
"""

from __future__ import annotations

import bisect
import copy
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import msgpack

from p2php.canonical import canonical
from p2php.engine.contract import (
    Action,
    CardId,
    Deal,
    Decide,
    GameOver,
    Knowledge,
    Randomness,
    Reshuffle,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Slot,
    Step,
)
from p2php.engine.remask import knowers, note_seen, put_in_place
from p2php.engine.taskgame import TaskGame, keys_by_type
from p2php.engine.tasks import CONTINUE, Outcome, TaskStack
from p2php.engine.timing import Effect
from p2php.games.hpsha import characters as _characters  # noqa: F401  (registers the skills)
from p2php.games.hpsha import chars_adults as _chars_adults  # (registers the Dark Mark's and the Order's skills)
from p2php.games.hpsha import chars_staff as _chars_staff  # noqa: F401  (registers the staff's skills)
from p2php.games.hpsha import chars_students as _chars_students  # noqa: F401  (registers the students' skills)
from p2php.games.hpsha import creatures as _creatures  # (the creature pack's selection and the salamander's heal)
from p2php.games.hpsha import equipment as _equipment  # noqa: F401  (attaches the wands' and armour's effects)
from p2php.games.hpsha import gear as gp
from p2php.games.hpsha.creature_marks import centaur_after
from p2php.games.hpsha.damage import role_summary, winners_for
from p2php.games.hpsha.data import (
    ARMOUR,
    CARDS,
    CHARACTERS,
    DARK,
    KINDS,
    MINUS,
    PLUS,
    ROLE_NAMES,
    ROLE_TABLE,
    SPY,
    WEAPON,
    Card,
    card_label,
    identity_cards,
    role_counts,
)
from p2php.games.hpsha.gear import gear
from p2php.games.hpsha.tasks import Task
from p2php.games.hpsha.triggers import SKILLS, SKILLS_BY_CHARACTER, Skill
from p2php.games.hpsha.windows import TriggerTask

LOG_KEEP = 256
_pack = msgpack.Packer(use_bin_type=True).pack
"""``msgpack.packb(x, use_bin_type=True)`` without making a Packer per event (it resets after each pack)."""
_SKILLS_OF: tuple[tuple[Skill, ...], ...] = tuple(SKILLS_BY_CHARACTER.get(c.key, ()) for c in CHARACTERS)

_HOOKS = ("treat_as", "uncounterable", "prevents_damage", "prevents_damage_from", "skips_phase", "hand_limit",
          "spell_void", "damage_source", "locks_equipment", "play_offers", "view_as_sets")
"""Skill hooks whose default answer is "no effect": a skill that does not override one may be skipped."""


def _overrides(sk: Skill, hook: str) -> bool:
    """Does ``sk`` implement ``hook`` itself (not :class:`Skill`'s do-nothing default)?"""
    method = getattr(sk, hook)
    return getattr(method, "__func__", method) is not getattr(Skill, hook)


_HOOKED: dict[str, tuple[tuple[Skill, ...], ...]] = {
    hook: tuple(tuple(sk for sk in own if _overrides(sk, hook)) for own in _SKILLS_OF) for hook in _HOOKS}
"""Per hook, per character: its skills that implement the hook (in skill order).  Asking only those
gives the same answer as asking every skill, since the others return the default."""

_LISTENING_OF: tuple[dict[str, tuple[str, ...]], ...] = tuple(
    {point: tuple(sk.key for sk in own if point in sk.points) for point in {p for sk in own for p in sk.points}}
    for own in _SKILLS_OF)
"""Per character: the keys of its skills listening at each point (in skill order).  Only looked up by
point, never iterated, so the set's order does not matter."""


def _as_dealt(flags: dict[str, Any], turn_no: int) -> bool:
    """Are a seat's character skills as dealt (no 唐克斯's 易容 borrow, no 费尔奇's 禁闭 this turn: its
    ``skills_off`` keeps the turn number, only that turn's is in force)? Then, without creatures, :meth:`skills`
    is the character's own tuple and :meth:`hooked` and :meth:`listening` may use its tables directly."""
    return "borrowed" not in flags and flags.get("skills_off") != turn_no


class HpshaState(TaskGame):
    """One game of Harry Potter Sha in progress (public information only)."""

    action_keys = keys_by_type({  # every answer's keys, by its type (TaskGame.action_keys)
        "arrange": "order", "card": "skill slots", "choose": "value", "discard": "slots", "duel": "slot", "end": "",
        "invoke": "option slot target targets", "move": "slot to", "not_minister": "", "pass": "", "pick": "slot",
        "quill": "slot targets", "reveal_identity": "", "skill": "kind skill slots targets value", "take": "slots",
        "use": "kind skill slots targets",
    })

    def __init__(self, players: int, options: Mapping[str, Any]) -> None:
        from p2php.games.hpsha.flow import SetupTask

        if players not in ROLE_TABLE:
            raise ValueError(f"Harry Potter Sha needs 4–10 players, not {players}")
        self.n = players
        self.alt_roles = options.get("roles", "standard") == "alt"
        self.max_turns = int(options.get("max_turns", 1000))
        self.creatures = int(options.get("creatures", 0))  # the creature pack (creatures.py); 0: off
        self.cr: dict[str, Any] = {}  # its public state (hashed only when creatures are on)
        self.counts = role_counts(players, self.alt_roles)
        self.identity_pool = identity_cards(players, self.alt_roles)
        self.next_slot = 0
        self.uid = 0
        self.stack: TaskStack[HpshaState] = TaskStack([SetupTask()])
        self.result: GameOver | None = None
        # zones (slots)
        self.deck: list[int] = []
        self.discard: list[int] = []
        self.processing: list[int] = []
        self.set_aside: list[int] = []
        self.pub: dict[int, int] = {}
        self.hands: list[list[int]] = [[] for _ in range(players)]
        # who may know a hidden face besides its holder (remask.py): slot -> seats that saw it (a Show's viewer,
        # a hand it left); opened faces are in pub.  And [first slot, family] of every deck and hand re-mask,
        # by first slot: a family is a deck and its reshuffles (one joint key), named by its first slot.
        self.seen: dict[int, list[int]] = {}
        self.blocks: list[list[int]] = []
        self.equip: list[dict[str, int]] = [{} for _ in range(players)]
        self.judge: list[list[list[Any]]] = [[] for _ in range(players)]  # [slot, kind] oldest first
        # seats
        self.alive = [True] * players
        self.hp = [0] * players
        self.max_hp = [0] * players
        self.char = [-1] * players
        self.face_down = [False] * players
        self.identity_slot = [-1] * players
        self.roles: dict[int, str] = {}
        self.minister = -1
        self.flags: list[dict[str, int]] = [{} for _ in range(players)]
        self.after_dying: dict[int, list[list[int]]] = {}
        # turn
        self.current = -1
        self.phase = "setup"
        self.turn_no = 0
        self.bombarda_used = 0
        self.plays_this_phase = 0
        self.impeded = False
        self.skip: list[str] = []
        self.extra_phases: list[list[Any]] = []  # [seat, phase] granted for after that seat's turn
        # what happened, as plain data ((kind, *args): seats, numbers, card ids, keys); words.py has the words
        self.events: list[tuple[Any, ...]] = []  # the last LOG_KEEP
        self.event_no = 0  # events ever said, so readers (bots) can tell new from seen
        self._digest = bytes(32)  # the hash chain over the events said before ``_unhashed`` (see event_digest)
        self._unhashed: list[tuple[Any, ...]] = []  # events said since ``_digest`` was last brought up to date
        self._listen: dict[str, bool] = {}
        self._dist_hooks: list[tuple[int, Skill]] = []
        self._range_hooks = False
        self._alive_key: list[bool] = []
        self._pos: dict[int, int] = {}
        self._listeners: dict[str, list[bool]] = {}  # see _can_listen
        self._listen_char: list[int] = []
        self._orders: dict[int, tuple[int, ...]] = {}  # see order_from
        self._orders_alive: list[bool] = []
        self.stack.settle(self)

    # ------------------------------------------------------------------ engine plumbing
    # step, legal_actions, check, reveals, apply and advance come from TaskGame: they ask the top task.

    @property
    def pending(self) -> Step | None:
        """The step the stack waits for (readers: bots, views)."""
        return self.stack.pending

    def setup_done(self) -> bool:
        """Roles, characters and the four starting cards each are all dealt."""
        return self.phase != "setup"

    def push(self, task: Task, into: str = "") -> None:
        """Put ``task`` on the stack: it runs before the task now running goes on (with ``into``,
        its result goes to that field of the running task).  Effects that are not tasks (a skill's
        ``invoke``) push this way; a task's ``run`` usually returns ``Push``/``Call`` instead."""
        self.stack.push(task, into)

    def alloc(self, n: int) -> int:
        first = self.next_slot
        self.next_slot += n
        return first

    def new_uid(self) -> int:
        self.uid += 1
        return self.uid

    # ------------------------------------------------------------------ seats and skills

    def order_from(self, start: int) -> list[int]:
        """Living seats in turn order starting at ``start`` (inclusive): a new list each time.

        Kept per ``start`` in ``_orders`` while ``alive`` stays as it was (asked for nearly every
        timing point and window); ``tests/test_fast_paths.py`` compares it with the definition."""
        return list(self._order(start))

    def _order(self, start: int) -> tuple[int, ...]:
        """:meth:`order_from` as the kept tuple, for readers that only iterate it."""
        if self._orders_alive != self.alive:
            self._orders_alive = list(self.alive)
            self._orders = {}
        order = self._orders.get(start)
        if order is None:
            n, alive = self.n, self.alive
            order = self._orders[start] = tuple((start + i) % n for i in range(n) if alive[(start + i) % n])
        return order

    def next_alive(self, seat: int) -> int:
        for i in range(1, self.n + 1):
            s = (seat + i) % self.n
            if self.alive[s]:
                return s
        return seat

    def current_or_first(self) -> int:
        return self.current if self.current >= 0 else max(self.minister, 0)

    def skills(self, seat: int) -> tuple[Skill, ...]:
        """The skills the seat can use now: its character's, the 火蜥蜴 Salamander's heal while one is
        activated anywhere, and the 马人 Centaur's 明置 for its holder (creatures.py).

        The common case (its character's skills unchanged) returns the very tuple ``_SKILLS_OF[c]``,
        which :meth:`hooked` and :meth:`listening` recognise to use their per-character tables."""
        c = self.char[seat]
        if c < 0:
            return ()
        if not self.creatures:
            return _SKILLS_OF[c] if _as_dealt(self.flags[seat], self.turn_no) else self._own_skills(seat)
        own = self._own_skills(seat)
        if self.char[seat] >= 0:
            extra: tuple[Skill, ...] = (_creatures.SALAMANDER,) if self.cr.get("lit") else ()
            if self.flags[seat].get("centaur"):
                extra += (_creatures.CENTAUR,)
            if self.flags[seat].get("gnome") or self.cr.get("loan", [-1])[0] == seat:
                extra += (_creatures.GNOME_BORROW, _creatures.GNOME_RETURN)
            return (*own, *extra) if extra else own
        return own

    def _own_skills(self, seat: int) -> tuple[Skill, ...]:
        c = self.char[seat]
        if c < 0 or (self.creatures and self.flags[seat].get("werewolf")):  # 狼人 Werewolf: no skills at all
            return ()
        if "borrowed" in self.flags[seat]:  # 唐克斯's 易容: her own skills plus the one obtained this turn
            own = self.all_skills(seat)
            off = self.flags[seat].get("skills_off") == self.turn_no
            return tuple(sk for sk in own if sk.compulsory) if off else own
        if self.flags[seat].get("skills_off") == self.turn_no:  # 费尔奇's 禁闭: only locked skills work
            return tuple(sk for sk in _SKILLS_OF[c] if sk.compulsory)
        return _SKILLS_OF[c]

    def hooked(self, seat: int, hook: str) -> tuple[Skill, ...]:
        """The skills of :meth:`skills` worth asking for ``hook`` (one of ``_HOOKS``): with the
        character's skills unchanged only those that implement it, else all of them (the same answers:
        a skill without the hook gives the default)."""
        c = self.char[seat]
        if c >= 0 and not self.creatures and _as_dealt(self.flags[seat], self.turn_no):  # skills()'s common case
            return _HOOKED[hook][c]
        own = self.skills(seat)
        if c >= 0 and own is _SKILLS_OF[c]:
            return _HOOKED[hook][c]
        return own

    def hooks_of(self, seat: int, first: str, second: str) -> tuple[tuple[Skill, ...], tuple[Skill, ...]]:
        """``(hooked(seat, first), hooked(seat, second))``, deciding the common case once (a window asks both
        of every seat)."""
        c = self.char[seat]
        if c >= 0 and not self.creatures and _as_dealt(self.flags[seat], self.turn_no):
            return _HOOKED[first][c], _HOOKED[second][c]
        return self.hooked(seat, first), self.hooked(seat, second)

    def all_skills(self, seat: int) -> tuple[Skill, ...]:
        """Every skill of the seat's character, even while it cannot activate them (continuous
        effects already in force, such as 擅飞's distances or 巨力's range, go on)."""
        c = self.char[seat]
        if c >= 0 and "borrowed" in self.flags[seat]:  # 唐克斯's 易容 (chars_adults.borrowed)
            return _SKILLS_OF[c] + (_chars_adults.borrowed(self.flags[seat]["borrowed"]),)
        return () if c < 0 else _SKILLS_OF[c]

    def can_use(self, seat: int, slot: int) -> bool:
        """False for a hand card set face down by 费尔奇's 禁闭 this turn (it may not be used or played)."""
        return self.flags[seat].get(f"sealed:{slot}") != self.turn_no

    def skill_label(self, key: str) -> str:
        return SKILLS[key].label if key in SKILLS else key

    def fire(self, point: str, ctx: dict[str, Any], into: str = "") -> Outcome:
        """Resolve timing point ``point`` before the running task goes on; returns ``CONTINUE``.

        A trigger task is pushed if any seat has a skill listening there.  Skills may edit
        ``ctx``; with ``into``, the edited ctx is stored in that field of the running task
        (which stays as it was, usually ``None``, when nobody listens), so a task reads what the
        skills changed from its own field::

            self.stage = Stage.CAUSED
            return st.fire(tp.DAMAGE_CAUSED, self.ctx(), into="caused")

        Which one: :meth:`fire_last` when the task returns its outcome at once and reads nothing back (no
        ``into``); ``fire`` otherwise (an ``into``, a point fired from an effect's ``invoke``, or state
        changed after it).  ``fire`` is always correct; ``fire_last`` only saves a trigger task.
        """
        listening = self._listen.get(point)
        if listening is None:
            listening = self._listen[point] = (
                (self.creatures and point in _creatures.ADDED_POINTS)  # (a creature's skill is no character's)
                or any(point in sk.points for s in range(self.n) for sk in self.all_skills(s)))
        if listening:
            self.stack.push(TriggerTask(point, ctx), into)
        return CONTINUE

    def fire_last(self, point: str, ctx: dict[str, Any]) -> Outcome:
        """:meth:`fire` (no ``into``) for a task that returns this outcome at once, changing nothing after.

        The trigger task would then run next, on this very state: its listeners are read now, and when none
        applies (each one's seat dead, its public condition unmet, none keeping a book through ``witness``)
        no task is pushed, as the one pushed would end at once, seen by no step and giving its ctx to nobody.
        Else it is pushed with the listeners read, as its first run would have read them (it asks the
        conditions again: ``available`` only reads the state).  Most points of a turn find nobody's skill
        applies; a trigger task costs a few µs to make, push, run and pop.

        So a skill's ``available`` is asked here with the firing task on top of the stack, not the trigger
        task: one that reads the stack must find what it looks for from the top (as ``_used_card`` does),
        not from below the top; a skill that must see every firing keeps its book in ``witness``.
        """
        listening = self._listen.get(point)
        if listening is None:
            return self.fire(point, ctx)  # fire() decides (and keeps) whether anyone listens at all
        if listening:
            cands, alive = self.listening(point), self.alive
            for seat, key in cands:
                if alive[seat]:
                    effect = SKILLS[key]
                    if type(effect).witness is not Effect.witness or effect.available(self, seat, point, ctx):
                        self.stack.push(TriggerTask(point, ctx, cands, started=True))
                        break
        return CONTINUE

    # ---- what the kit's TimingPoint asks (p2php.engine.timing.Listeners)

    def listening(self, point: str) -> list[tuple[Seat, str]]:
        """Skills listening at ``point``, in seat order from the current player."""
        out: list[tuple[Seat, str]] = []
        seats = self._order(self.current_or_first())
        if self.creatures:
            for s in seats:
                self._listening_at(s, point, out)
            return out
        can = self._can_listen(point)  # skills(s) is a part of all_skills(s): skip seats that cannot listen
        char, flags, turn_no = self.char, self.flags, self.turn_no
        for s in seats:
            if not can[s]:
                continue
            if _as_dealt(flags[s], turn_no):  # skills()'s common case: its table
                for key in _LISTENING_OF[char[s]].get(point, ()):  # (char[s] >= 0: all_skills(s) listens)
                    out.append((s, key))
            else:
                self._listening_at(s, point, out)
        return out

    def _listening_at(self, seat: int, point: str, out: list[tuple[Seat, str]]) -> None:
        """Add ``seat``'s skills listening at ``point`` to ``out`` (a part of :meth:`listening`)."""
        own = self.skills(seat)
        c = self.char[seat]
        if c >= 0 and own is _SKILLS_OF[c]:  # the character's skills: its table by point
            for key in _LISTENING_OF[c].get(point, ()):
                out.append((seat, key))
        else:
            out.extend((seat, sk.key) for sk in own if point in sk.points)

    def _can_listen(self, point: str) -> list[bool]:
        """Per seat: does any of :meth:`all_skills` listen at ``point``?

        Cached in ``_listeners`` by point.  What it depends on -- the characters and 唐克斯's borrowed
        skills -- changes only through :meth:`characters_changed` (which empties the cache, as it does
        ``fire``'s), except while characters are first revealed in the set-up: so a change of
        ``char`` empties it too."""
        if self._listen_char != self.char:
            self._listen_char = list(self.char)
            self._listeners = {}
        can = self._listeners.get(point)
        if can is None:
            can = self._listeners[point] = [any(point in sk.points for sk in self.all_skills(s))
                                            for s in range(self.n)]
        return can

    def effect(self, key: str) -> Skill:
        return SKILLS[key]

    def may_respond(self, seat: Seat) -> bool:
        return self.alive[seat]

    def announce(self, seat: Seat, key: str, chosen: bool) -> None:
        self.say("skill" if chosen else "triggers", seat, key)

    def public(self) -> Knowledge:
        return self.public_view()

    def advance(self, faces: Mapping[Slot, CardId] | None = None, random: bytes = b"") -> None:
        """:meth:`TaskGame.advance`, noting each deck's family and who a Show let see a hidden face (remask.py) first:
        the advance runs on into the next tasks, and one of them may plan a re-mask from what is noted here."""
        step = self.stack.settle(self)
        t = type(step)
        if t is Shuffle:
            assert isinstance(step, Shuffle)
            bisect.insort(self.blocks, [step.first_slot, step.first_slot])
        elif t is Show:
            assert isinstance(step, Show)
            viewer, own = step.viewer, self.hands[step.viewer]
            for s in step.slots:  # a card just obtained, shown to its new holder, is no news
                if s not in self.pub and (viewer != step.owner or s not in own):
                    note_seen(self.seen, s, viewer)
        super().advance(faces, random)

    def characters_changed(self) -> None:
        self._listen = {}
        self._listeners = {}
        wolf = [bool(self.creatures and self.flags[seat].get("werewolf")) for seat in range(self.n)]
        self._dist_hooks = [(seat, sk) for seat in range(self.n) for sk in self.all_skills(seat)
                            if type(sk).distance_override is not Skill.distance_override and not wolf[seat]]
        self._range_hooks = any(type(sk).attack_range is not Skill.attack_range
                                for seat in range(self.n) for sk in self.all_skills(seat))

    def faction(self, seat: int) -> str:
        return CHARACTERS[self.char[seat]].faction if self.char[seat] >= 0 else ""

    def gender(self, seat: int) -> str:
        return CHARACTERS[self.char[seat]].gender if self.char[seat] >= 0 else ""

    def who(self, seat: int) -> str:
        c = self.char[seat]
        return f"seat {seat}" + (f" {CHARACTERS[c].zh}" if c >= 0 else "")

    def say(self, kind: str, *args: Any) -> None:
        """Record a public event; its words live in :mod:`.words`, outside the hashed state.

        The event goes into ``event_digest`` (one small hash per event rather than re-encoding
        the kept events at every step) when that is next read, so play that never hashes the
        state (bots, benchmarks) never pays for it.  Lists become tuples: events never change.
        """
        event = (kind, *[tuple(a) if isinstance(a, list) else a for a in args])
        self._unhashed.append(event)
        self.events.append(event)
        self.event_no += 1
        if len(self.events) > LOG_KEEP:
            del self.events[: len(self.events) - LOG_KEEP]

    @property
    def event_digest(self) -> bytes:
        """A hash chain over every event ever said (what the state hash covers): each step is
        ``sha256(digest + msgpack(event))``, from 32 zero bytes, in the order the events were said.

        Computed when read, for the events said since the last read (:meth:`say` only queues them)."""
        if self._unhashed:
            digest, sha256, pack = self._digest, hashlib.sha256, _pack
            for event in self._unhashed:
                digest = sha256(digest + pack(event)).digest()
            self._digest = digest
            self._unhashed = []
        return self._digest

    def ids(self, slots: Iterable[int]) -> list[int]:
        """The public card ids of ``slots`` for an event (-1: a card nobody has seen)."""
        return [self.pub.get(s, -1) for s in slots]

    @property
    def log(self) -> list[str]:
        """The kept events as English lines (for test harnesses; views call :func:`.words.lines`)."""
        from p2php.games.hpsha.words import lines

        return lines(self)

    # ------------------------------------------------------------------ cards and zones

    def card(self, slot: int) -> Card:
        return CARDS[self.pub[slot]]

    def kind(self, slot: int) -> str:
        return CARDS[self.pub[slot]].kind

    def names(self, slots: Iterable[int]) -> str:
        return ", ".join(card_label(self.pub[s]) if s in self.pub else "a hidden card" for s in slots)

    def unopened(self, slots: Iterable[int]) -> tuple[int, ...]:
        return tuple(s for s in slots if s not in self.pub)

    def discard_available(self) -> bool:
        return any(s not in self.set_aside for s in self.discard)

    def locate(self, slot: int) -> tuple[str, int] | None:
        """Where a slot is: (zone, seat) with seat -1 for shared zones."""
        for seat in range(self.n):
            if slot in self.hands[seat]:
                return ("hand", seat)
            for k, s in self.equip[seat].items():
                if s == slot:
                    return (k, seat)
            for s, _k in self.judge[seat]:
                if s == slot:
                    return ("judge", seat)
        for name, zone in (("discard", self.discard), ("processing", self.processing), ("deck", self.deck)):
            if slot in zone:
                return (name, -1)
        return None

    def take(self, slot: int) -> None:
        """Remove a slot from wherever it is."""
        where = self.locate(slot)
        if where is None:
            return
        zone, seat = where
        if zone == "hand":
            self.hands[seat].remove(slot)
            if slot not in self.pub:  # its face stays known to the hand it leaves
                note_seen(self.seen, slot, seat)
        elif zone == "judge":
            self.judge[seat] = [e for e in self.judge[seat] if e[0] != slot]
        elif zone == "discard":
            self.discard.remove(slot)
        elif zone == "processing":
            self.processing.remove(slot)
        elif zone == "deck":
            self.deck.remove(slot)
        else:
            del self.equip[seat][zone]

    def to_discard(self, slot: int) -> None:
        self.take(slot)
        self.discard.append(slot)
        self.seen.pop(slot, None)  # face up from now on (the pile is open)

    def family(self, slot: int) -> int:
        """The deck family (first slot of its first deck) ``slot`` belongs to (see ``blocks``)."""
        i = bisect.bisect_right(self.blocks, [slot, 1 << 62]) - 1
        return self.blocks[i][1] if i >= 0 else -1

    def remasked(self, seat: int, step: Reshuffle) -> None:
        """A re-mask of ``seat``'s hand cards ``step.slots`` is done (remask.py): the new slots take the old
        ones' places in the hand (their order says nothing: the Reshuffle shuffled them), and 禁闭's seal moves
        with them.  Whoever knew a face of the group (every seat, for an opened card) knows it is one of the new
        slots, and learns which by elimination as the others are played or leave: each new slot keeps them all in
        ``seen``, so the next pick from the hand mixes it again (the review of Hogwarts' E38 found the leak)."""
        old, new = step.slots, list(step.new_slots)
        who = knowers(self.seen, self.pub, old, self.n)
        hidden = [s for s in old if s not in self.pub]
        family = self.family(hidden[0]) if hidden else step.first_slot  # face-up cards only: a new deck
        bisect.insort(self.blocks, [step.first_slot, family])
        flags = self.flags[seat]
        put_in_place(self.hands[seat], old, new)
        for s in old:
            self.pub.pop(s, None)
            self.seen.pop(s, None)
            sealed = flags.pop(f"sealed:{s}", None)
            if sealed == self.turn_no:  # a group of sealed cards only (remask_groups): each new one is sealed
                for n in new:
                    flags[f"sealed:{n}"] = sealed
        for n in new:
            if who:
                self.seen[n] = list(who)
        self.say("remask", seat, len(old))

    def to_hand(self, seat: int, slot: int) -> None:
        self.take(slot)
        self.hands[seat].append(slot)

    def to_processing(self, slot: int) -> None:
        self.take(slot)
        self.processing.append(slot)

    def put_equipment(self, seat: int, slot: int) -> None:
        """Equip (replacing — and discarding — the card in the same equipment slot)."""
        sub = KINDS[self.kind(slot)].sub
        old = self.equip[seat].get(sub)
        self.take(slot)
        if old is not None:
            self.to_discard(old)
        self.equip[seat][sub] = slot

    def weapon(self, seat: int) -> str | None:
        s = self.equip[seat].get(WEAPON)
        return None if s is None else self.kind(s)

    def armour(self, seat: int) -> str | None:
        """The card name of ``seat``'s armour (for views and tests: rules ask the gear points)."""
        s = self.equip[seat].get(ARMOUR)
        return None if s is None else self.kind(s)

    def has_judge(self, seat: int, kind: str) -> bool:
        return any(k == kind for _s, k in self.judge[seat])

    # ------------------------------------------------------------------ HP

    def recover(self, seat: int, n: int, quiet: bool = False) -> None:
        if not self.alive[seat]:
            return
        if self.creatures and self.flags[seat].get("acromantula"):  # 巨蜘蛛 Acromantula: no recovery
            self.say("no_recovery", seat)
            return
        before = self.hp[seat]
        self.hp[seat] = min(self.max_hp[seat], self.hp[seat] + n)
        if not quiet and self.hp[seat] != before:
            self.say("recovers", seat, self.hp[seat])

    def damaged(self, seat: int, amount: int) -> None:
        self.flags[seat]["hit_turn"] = self.turn_no

    def damage_prevented(self, seat: int) -> bool:
        return any(sk.prevents_damage(self, seat) for sk in self.hooked(seat, "prevents_damage"))

    def uncounterable(self, seat: int, kind: str) -> bool:
        return any(sk.uncounterable(self, seat, kind) for sk in self.hooked(seat, "uncounterable"))

    # ---- hooks of the Dark Mark's and the Order's skills (chars_adults.py)
    def colour_of(self, slots: Iterable[int]) -> str:
        """The colour of a card used as ``slots``: theirs when they are all one colour (a conversion
        keeps its cards' colour), else "" (colourless, like the 羽毛笔's 爆破咒)."""
        colours = {CARDS[self.pub[s]].colour for s in slots if s in self.pub}
        return colours.pop() if len(colours) == 1 else ""

    def spell_void(self, user: int, kind: str, target: int, colour: str) -> str:
        """Why the spell ``user`` uses has no effect on ``target`` (a skill's key), or ""."""
        for s in (user, target) if user != target else (user,):
            if s >= 0:
                for sk in self.hooked(s, "spell_void"):
                    if sk.spell_void(self, s, user, kind, target, colour):
                        return sk.key
        return ""

    def damage_prevented_from(self, seat: int, source: int) -> bool:
        return any(sk.prevents_damage_from(self, seat, source) for sk in self.hooked(seat, "prevents_damage_from"))

    def damage_source(self, source: int) -> int:
        """The source damage dealt by ``source`` counts as (易容), ``source`` itself normally."""
        for sk in self.hooked(source, "damage_source"):
            other = sk.damage_source(self, source)
            if other is not None:
                return other
        return source

    def equip_locked(self, owner: int, actor: int) -> bool:
        """True if ``actor`` may not move, discard, obtain or replace ``owner``'s equipped cards."""
        return actor != owner and any(sk.locks_equipment(self, owner, actor)
                                      for sk in self.hooked(owner, "locks_equipment"))

    def as_card(self, seat: int, face: int) -> Card:
        """A hand card of ``seat`` as it counts now (亚瑟's 着迷 may treat it as another card name)."""
        card = CARDS[face]
        for sk in self.hooked(seat, "treat_as"):
            kind = sk.treat_as(self, seat, card)
            if kind is not None:
                return Card(card.id, kind, card.suit, card.rank)
        return card

    def skips(self, seat: int, phase: str) -> bool:
        return phase in self.skip or any(sk.skips_phase(self, seat, phase) for sk in self.hooked(seat, "skips_phase"))

    def hand_limit(self, seat: int) -> int:
        limit = max(self.hp[seat], 0)
        for sk in self.hooked(seat, "hand_limit"):
            limit = sk.hand_limit(self, seat, limit)
        return limit

    def add_extra_phase(self, seat: int, phase: str) -> None:
        """Grant ``seat`` an extra ``phase`` (e.g. 纳威's 遗忘: an extra play phase), carried out right after
        that seat's current or next turn ends (after its end phase and TURN_END), in the order granted."""
        if phase not in ("start", "judge", "draw", "play", "discard", "end"):
            raise ValueError(f"no phase {phase!r}")
        self.extra_phases.append([seat, phase])

    def kill(self, seat: int) -> None:
        self.alive[seat] = False
        self.extra_phases = [e for e in self.extra_phases if e[0] != seat]
        for f in self.flags:
            if f.get("flyer") == seat:
                del f["flyer"]
        for sk in self.all_skills(seat):  # lasting effects the dead character kept end (金妮's 蝠咒)
            sk.on_own_death(self, seat)

    # ------------------------------------------------------------------ distance and range

    def raw_distance(self, a: int, b: int) -> int:
        """Seats between ``a`` and ``b`` the shorter way round, counting living characters only."""
        if a == b:
            return 0
        if self._alive_key != self.alive:
            self._alive_key = list(self.alive)
            self._pos = {s: i for i, s in enumerate(s for s in range(self.n) if self.alive[s])}
        pos = self._pos
        m = len(pos)
        if a not in pos or b not in pos:  # a dead seat: only living seats between count, plus the end
            n, alive = self.n, self.alive
            cw = sum(1 for i in range(1, (b - a) % n + 1) if alive[(a + i) % n] or (a + i) % n == b)
            ccw = sum(1 for i in range(1, (a - b) % n + 1) if alive[(a - i) % n] or (a - i) % n == b)
            return min(cw, ccw)
        d = (pos[b] - pos[a]) % m
        if self.creatures and (h := centaur_after(self)) in pos:  # the 马人 Centaur's seat counts too
            pa, pb = (pos[s] + (pos[s] > pos[h]) for s in (a, b))
            m += 1
            d = (pb - pa) % m
        return min(d, m - d)

    def distance(self, a: int, b: int, depth: int = 0) -> int:
        """Distance from ``a`` to ``b`` (≥ 1 between different characters), with every modifier."""
        if a == b:
            return 0
        if depth < 2:
            for s, sk in self._dist_hooks:
                if self.alive[s]:
                    d = sk.distance_override(self, s, a, b, depth)
                    if d is not None:
                        return d
        if self.equip[a] and gp.listening(self, a, gp.DISTANCE):  # 隐形斗篷 Cloak: a fixed distance
            fixed = gear(self, a, gp.DISTANCE, {"to": b, "distance": 0})["distance"]  # (none listening: 0)
            if fixed:
                return int(fixed)
        d = self.raw_distance(a, b)
        plus = self.equip[b].get(PLUS)
        if plus is not None:
            d += KINDS[self.kind(plus)].distance
        minus = self.equip[a].get(MINUS)
        if minus is not None:
            d += KINDS[self.kind(minus)].distance
        elif self.creatures and self.flags[a].get("thestral"):  # 夜骐 Thestral: −2 (creatures.py)
            d -= 2
        if self.impeded and a == self.current and self.phase == "play":
            d += 1
        return max(d, 1)

    def attack_range(self, seat: int) -> int:
        w = self.weapon(seat)
        rng = KINDS[w].range if w is not None else 1
        if self._range_hooks and not (self.creatures and self.flags[seat].get("werewolf")):
            for sk in self.all_skills(seat):
                rng = sk.attack_range(self, seat, rng)
        return rng

    def in_range(self, a: int, b: int) -> bool:
        # (0 <= b first: a cheater's target -1 read alive[-1], the last seat, and was taken)
        return 0 <= b < len(self.alive) and a != b and self.alive[b] and self.distance(a, b) <= self.attack_range(a)

    # ------------------------------------------------------------------ end of game

    def game_decided(self) -> bool:
        """Public test: the minister is dead, or every dark wizard and spy is dead (roles revealed at death)."""
        if self.minister >= 0 and not self.alive[self.minister]:
            return True
        dead_bad = sum(1 for s, r in self.roles.items() if r in (DARK, SPY) and not self.alive[s])
        return dead_bad == self.counts[2] + self.counts[3]

    def final_result(self, aborted: bool) -> GameOver:
        winners = winners_for(self.roles, self.alive, aborted)
        scores = tuple(1 if s in winners else 0 for s in range(self.n))
        if aborted:
            head = f"no winner: the turn limit ({self.max_turns}) was reached"
        else:
            roles = sorted({ROLE_NAMES[self.roles[s]] for s in winners})
            head = "winners: " + ", ".join(f"seat {s}" for s in winners) + " (" + " + ".join(roles) + ")"
        return GameOver(winners, scores, head + ". " + role_summary(self.roles, self.n))

    # ------------------------------------------------------------------ contract extras

    def observation(self, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
        from p2php.games.hpsha.observe import observe

        return observe(self, seat, knowledge)

    def describe(self, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
        from p2php.games.hpsha.observe import describe_action

        return describe_action(self, seat, action, faces)

    def snapshot(self) -> Any:
        pending: Any = None
        p = self.pending
        if isinstance(p, Decide):
            pending = ["decide", list(p.seats), p.prompt]
        elif isinstance(p, Shuffle):
            pending = ["shuffle", list(p.cards), p.first_slot, p.purpose]
        elif isinstance(p, Deal):
            pending = ["deal", [list(x) for x in p.to]]
        elif isinstance(p, Reveal):
            pending = ["reveal", list(p.slots)]
        elif isinstance(p, Show):
            pending = ["show", list(p.slots), p.owner, p.viewer]
        elif isinstance(p, Reshuffle):
            pending = ["reshuffle", list(p.slots), p.first_slot, p.purpose]
        elif isinstance(p, Randomness):
            pending = ["random", p.purpose]
        elif isinstance(p, GameOver):
            pending = ["over", list(p.winners), list(p.scores), p.summary]
        snap = {
            "n": self.n, "alt_roles": self.alt_roles, "max_turns": self.max_turns, "next_slot": self.next_slot,
            "uid": self.uid, "stack": self.stack.snapshot(), "pending": pending,
            "deck": self.deck, "discard": self.discard, "processing": self.processing, "set_aside": self.set_aside,
            "pub": self.pub, "hands": self.hands, "equip": self.equip, "judge": self.judge, "alive": self.alive,
            "hp": self.hp, "max_hp": self.max_hp, "char": self.char, "face_down": self.face_down,
            "identity_slot": self.identity_slot, "roles": self.roles, "minister": self.minister,
            "flags": self.flags, "after_dying": self.after_dying, "current": self.current, "phase": self.phase,
            "turn_no": self.turn_no, "bombarda_used": self.bombarda_used,
            "plays_this_phase": self.plays_this_phase, "impeded": self.impeded,
            "skip": self.skip, "extra_phases": self.extra_phases, "event_no": self.event_no,
            "event_digest": self.event_digest, "seen": self.seen, "blocks": self.blocks,
        }
        if self.creatures:  # absent when off: games without creatures hash as they always did
            snap["creatures"] = self.creatures
            snap["cr"] = self.cr
        return snap

    def state_hash(self) -> bytes:
        """SHA-256 of the canonical encoding of :meth:`snapshot`, as the contract defines it.

        Every peer hashes the state after every protocol step, so this skips the generic
        canonical walk for the large parts that are plain already (lists of ints, bools
        and strings; int- or str-keyed dicts of ints, whose keys only need sorting).
        ``tests/test_hpsha_games.py`` checks it equals ``hash_value(snapshot())``.
        """
        snap = self.snapshot()
        fast: dict[str, Any] = {}
        for key in sorted(snap):
            value = snap[key]
            if key in _PLAIN_PARTS:
                fast[key] = value
            elif key in ("pub", "roles", "seen"):
                fast[key] = dict(sorted(value.items()))
            elif key in ("equip", "flags"):
                fast[key] = [dict(sorted(d.items())) for d in value]
            else:
                fast[key] = canonical(value)
        return hashlib.sha256(msgpack.packb(fast, use_bin_type=True)).digest()

    def clone(self) -> HpshaState:
        # events are immutable tuples: the twin may share them (a new list, the same events)
        return copy.deepcopy(self, {id(self.events): list(self.events)})


_PLAIN_PARTS = frozenset({
    "n", "alt_roles", "max_turns", "next_slot", "uid", "deck", "discard", "processing", "set_aside", "hands",
    "judge", "alive", "hp", "max_hp", "char", "face_down", "identity_slot", "minister", "current", "phase",
    "turn_no", "bombarda_used", "plays_this_phase", "impeded", "skip", "extra_phases", "event_no", "event_digest",
    "blocks",
})
"""Snapshot parts that are canonical as they stand (plain lists and scalars, no dicts, no tuples of dicts)."""

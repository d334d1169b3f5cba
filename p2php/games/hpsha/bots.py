"""A heuristic Harry Potter Sha bot that plays its role, seeing only what its seat may see.

Inputs are the public state and the seat's own knowledge (its hand and
identity).  The bot keeps its own record of who attacked and who rescued whom,
learnt from the public events it sees (:meth:`HeuristicBot._learn`): that memory
is the bot's, not the game's, so it is no part of the hashed state.  From the
record it estimates each character's *loyalty* to the minister
(attacking the minister or its defenders is disloyal; attacking the minister's
attackers or saving the minister is loyal; revealed identities are certain).

* minister / auror: attack the least loyal, never the minister, save the loyal;
* dark wizard: attack the minister first, then the loyal; save the disloyal;
* spy: while others live, side with the minister against the disloyal (balance),
  and turn on the minister only when the two of them are left.
"""

from __future__ import annotations

from typing import Any

from p2php.engine.contract import Action, Decide, GameState, Knowledge, Seat
from p2php.games.hpsha.data import AUROR, CARDS, DARK, KINDS, MINISTER, SPY, identity_role
from p2php.games.hpsha.play import HOSTILE
from p2php.games.hpsha.state import HpshaState
from p2php.rng import DetRng

VALUE = {
    "tears": 9, "apparate": 7, "counter": 6, "patronus": 6, "bombarda": 5, "geminio": 6, "legilimens": 5,
    "expelliarmus": 4, "crucio": 4, "aguamenti": 4, "sectumsempra": 4, "stupefy": 4, "bind": 4, "reparo": 3,
    "out_of_body": 3, "impediment": 2, "avada": 1,
}
HARMFUL = frozenset({"bombarda", "expelliarmus", "legilimens", "crucio", "bind", "impediment", "out_of_body",
                     "sectumsempra", "stupefy"})
HELPFUL = frozenset({"geminio", "reparo", "aguamenti", "tears", "patronus"})


def card_value(card: int) -> int:
    kind = CARDS[card].kind
    if kind in VALUE:
        return VALUE[kind]
    return 5 if KINDS[kind].category == "equipment" else 3


class HeuristicBot:
    """Role-playing rule-of-thumb bot (deterministic given its seed)."""

    def __init__(self, seed: bytes | str | int = 0) -> None:
        self.rng = DetRng(seed)
        self.hostile: list[list[int]] = []  # [actor][target]: public attacks seen
        self.friendly: list[list[int]] = []  # [actor][target]: public rescues seen
        self.seen = 0  # the state's event_no when last read

    # ------------------------------------------------------------------ memory
    def _learn(self, st: HpshaState) -> None:
        """Count the public hostile and friendly acts among the events said since the last look.

        The state keeps only its last events, so a bot that was not asked for a long
        stretch misses the oldest of them; a state from another game (or an earlier
        point) starts the memory afresh.
        """
        if st.event_no < self.seen or len(self.hostile) != st.n:
            self.hostile = [[0] * st.n for _ in range(st.n)]
            self.friendly = [[0] * st.n for _ in range(st.n)]
            self.seen = 0
        new = min(st.event_no - self.seen, len(st.events))
        self.seen = st.event_no
        for e in st.events[len(st.events) - new:] if new > 0 else ():
            kind = e[0]
            if kind == "uses" and e[2] in HOSTILE and e[5]:
                self._count(self.hostile, e[1], e[5][0])
            elif kind == "quill":
                self._count(self.hostile, e[1], e[2])
            elif kind == "damage":
                self._count(self.hostile, e[3], e[1])
            elif kind == "rescued":
                self._count(self.friendly, e[3], e[1])

    @staticmethod
    def _count(table: list[list[int]], actor: int, target: int) -> None:
        if actor >= 0 and target >= 0 and actor != target:
            table[actor][target] += 1

    # ------------------------------------------------------------------ role model
    def _role(self, st: HpshaState, seat: int, kn: Knowledge) -> str:
        f = kn.face(st.identity_slot[seat]) if st.identity_slot[seat] >= 0 else None
        return identity_role(f) if f is not None else AUROR

    def _loyalty(self, st: HpshaState) -> list[float]:
        n, m = st.n, st.minister
        loyal = [0.0] * n
        if m >= 0:
            loyal[m] = 3.0
        for _ in range(2):
            new = [0.0] * n
            for a in range(n):
                if a in st.roles:
                    r = st.roles[a]
                    new[a] = 3.0 if r in (MINISTER, AUROR) else -3.0
                    continue
                score = 0.0
                for b in range(n):
                    score -= self.hostile[a][b] * (1.0 if loyal[b] > 0 else -0.7 if loyal[b] < 0 else 0.0)
                    score += self.friendly[a][b] * (0.8 if loyal[b] > 0 else -0.8 if loyal[b] < 0 else 0.0)
                new[a] = max(-3.0, min(3.0, score))
            if m >= 0:
                new[m] = 3.0
            loyal = new
        return loyal

    def _attitude(self, st: HpshaState, me: int, role: str) -> list[float]:
        """Positive: a friend of mine; negative: an enemy to hurt."""
        loyal = self._loyalty(st)
        out = [0.0] * st.n
        alive = sum(st.alive)
        dead_dark = sum(1 for s, r in st.roles.items() if r == DARK and not st.alive[s])
        dead_bad = dead_dark + sum(1 for s, r in st.roles.items() if r == SPY and not st.alive[s])
        unknown = [s for s in range(st.n) if st.alive[s] and s != me and s not in st.roles]
        bad_left = st.counts[2] + st.counts[3] - dead_bad - (1 if role in (DARK, SPY) else 0)
        p_bad = bad_left / len(unknown) if unknown else 0.0
        for s in range(st.n):
            if s == me:
                out[s] = 10.0
            elif role in (MINISTER, AUROR):
                if s in st.roles:
                    out[s] = loyal[s]
                elif dead_dark == st.counts[2]:  # only spies are left: whoever still attacks the living is one
                    harm = sum(self.hostile[s][x] for x in range(st.n) if st.alive[x] and x != s)
                    out[s] = 0.5 - p_bad * 2 - harm * 0.5
                else:
                    out[s] = loyal[s] + (0.45 - p_bad) * 2
            elif role == DARK:
                out[s] = -4.0 if s == st.minister else -loyal[s] if loyal[s] != 0 else 0.1
            elif s == st.minister:  # spy
                out[s] = -5.0 if alive <= 2 else 1.0
            elif dead_dark == st.counts[2]:
                out[s] = -2.0
            else:
                out[s] = loyal[s] - 0.5
        return out

    # ------------------------------------------------------------------ choose
    def choose(self, state: GameState, seat: Seat, knowledge: Knowledge, legal: list[Action]) -> Action:
        if len(legal) == 1 or not isinstance(state, HpshaState):
            return legal[0] if len(legal) == 1 else self.rng.choice(legal)
        st = state
        self._learn(st)
        step = st.pending
        prompt = step.prompt if isinstance(step, Decide) else ""
        role = self._role(st, seat, knowledge)
        att = self._attitude(st, seat, role)
        try:
            pick = self._decide(st, seat, knowledge, legal, prompt, att)
        except (KeyError, IndexError, ValueError, TypeError, AttributeError):
            pick = None
        return pick if pick is not None and pick in legal else self.rng.choice(legal)

    def _decide(self, st: HpshaState, seat: int, kn: Knowledge, legal: list[Action], prompt: str,
                att: list[float]) -> Action | None:
        top: Any = st.stack[-1]
        if prompt == "identity":
            return legal[0]
        if prompt == "pick_character":
            from p2php.games.hpsha.data import CHARACTER_BASE, CHARACTERS

            def worth(a: Action) -> int:
                f = kn.face(a["slot"])
                if f is None:
                    return 0
                c = CHARACTERS[f - CHARACTER_BASE]
                return c.hp + (3 if c.skilled else 0)
            return max(legal, key=worth)
        if prompt == "play":
            return self._play(st, seat, kn, legal, att)
        if prompt == "discard":
            return min(legal, key=lambda a: card_value(kn.face(a["slots"][0]) or 0))
        if prompt.startswith("respond:"):
            return self._respond(st, seat, kn, legal, prompt, att, top)
        if prompt == "stupefy":
            return _value(legal, "damage" if st.hp[seat] >= 3 else "flip")
        if prompt == "reparo":
            return _value(legal, "recover" if st.hp[seat] < st.max_hp[seat] else "draw")
        if prompt == "gnome":  # the gnome's slot: an empty one, else the cheapest equipped card
            eq = st.equip[seat]
            return min(legal, key=lambda a: card_value(st.pub[eq[a["value"]]]) if a["value"] in eq else -1)
        if prompt == "quill_guess":
            return _value(legal, "basic")
        if prompt == "aguamenti":
            return max(legal, key=lambda a: card_value(st.pub[a["value"]]))
        if prompt.startswith("pick:"):
            picker: Any = st.stack[-2]
            owner = int(picker.owner)
            def pick_worth(a: Action) -> float:
                v = a["value"]
                if v == "hand":
                    return 4.0
                if any(s == v for s, _k in st.judge[owner]):
                    return 6.0 if att[owner] > 0 else -5.0
                return 5.0 if att[owner] <= 0 else -5.0
            return max(legal, key=pick_worth)
        if prompt == "weapon:vine":
            return _value(legal, "use")
        if prompt == "weapon:maple":
            return next((a for a in legal if a["value"] != "pass"), None)
        if prompt in ("weapon:holly", "weapon:bludger"):
            cards = [a for a in legal if a["type"] == "card"]
            holder: Any = top  # HollyTask / BludgerTask: the 爆破咒's target
            target = int(holder.target)
            if cards and att[target] < 0:
                return min(cards, key=lambda a: sum(card_value(kn.face(s) or 0) for s in a["slots"]))
            return _pass(legal)
        if prompt.startswith("wealth:"):  # 卢修斯's 富有: go on judging; the colour worth more
            return _adults_skill(st, seat, kn, legal, prompt, att, top)
        if prompt.startswith("skill:"):
            return self._skill(st, seat, kn, legal, prompt[6:], att, top)
        if prompt == "point_duel":  # 拼点: the initiator plays high; the target too, unless a friend asked
            ranks = {a["slot"]: CARDS[f].rank for a in legal if (f := kn.face(a["slot"])) is not None}
            high = seat == top.initiator or att[top.initiator] < 0
            best = (max if high else min)(ranks, key=lambda s: ranks[s])
            return {"type": "duel", "slot": best}
        if prompt == "nargles_more":  # 蝻钩: go on cycling cheap cards
            return _student_more(kn, legal)
        return None

    def _play(self, st: HpshaState, seat: int, kn: Knowledge, legal: list[Action], att: list[float]) -> Action:
        best: Action = {"type": "end"}
        best_score = 0.0
        alive = [s for s in range(st.n) if st.alive[s] and s != seat]
        enemies = sum(1 for s in alive if att[s] < 0)
        friends = len(alive) - enemies
        for a in legal:
            if a["type"] == "end":
                continue
            score = 0.0
            if a["type"] == "skill":  # play-phase skill activations
                score = _skill_play_score(st, seat, kn, a, att) + self.rng.below(100) / 200.0
                if score > best_score:
                    best, best_score = a, score
                continue
            if a["type"] == "quill":
                t = a["targets"][0]
                f = kn.face(a["slot"])
                score = (2.5 - att[t]) - (card_value(f) if f is not None else 5) * 0.3 if att[t] < 0 else -1
            else:
                kind, tg = a["kind"], a["targets"]
                cat = KINDS[kind].category
                if cat == "equipment":
                    sub = KINDS[kind].sub
                    score = 4.0 if sub not in st.equip[seat] else 0.5
                    if sub == "weapon" and sub in st.equip[seat]:
                        score = 1.0 if KINDS[kind].range > st.attack_range(seat) else -1.0
                elif kind == "tears":
                    score = 8.0 if st.hp[seat] < st.max_hp[seat] - 0 else -1
                    if st.hp[seat] >= 3 and len(st.hands[seat]) <= st.hp[seat]:
                        score = 1.0
                elif kind in ("geminio", "aguamenti"):
                    score = 6.0 if kind == "geminio" else 2.5
                    if len(st.deck) + len(st.discard) < 6:
                        score = -3.0  # nothing left to draw
                elif kind == "reparo":
                    score = sum(1.0 if att[t] > 0 else -1.0 for t in tg) + 1.0
                elif kind in ("sectumsempra", "stupefy"):
                    score = 1.0 + enemies - friends
                elif kind == "avada":
                    score = -1.0
                elif kind == "out_of_body":
                    score = 2.0 - att[tg[1]] - att[tg[0]] * 0.5 if att[tg[1]] < 0 else -1.0
                else:
                    t = tg[0]
                    score = 3.0 - att[t] if att[t] < 0 else -2.0
                    if kind == "bombarda":
                        score += 1.0 + (1.0 if st.hp[t] <= 1 else 0.0)
            if len(st.hands[seat]) > 7 and score > -2.5:
                score += 3.0  # a hoard helps nobody (月圆 and friends): spend it
            score += self.rng.below(100) / 200.0
            if score > best_score:
                best, best_score = a, score
        return best

    def _respond(self, st: HpshaState, seat: int, kn: Knowledge, legal: list[Action], prompt: str,
                 att: list[float], top: Any) -> Action | None:
        cards = [a for a in legal if a["type"] == "card"]
        if not cards:
            return _pass(legal)
        cheapest = min(cards, key=lambda a: (len(a["slots"]), sum(card_value(kn.face(s) or 0) for s in a["slots"])))
        want = prompt[8:]
        target = getattr(top, "target", -1)
        if want in ("bombarda", "sectumsempra", "stupefy"):
            return cheapest  # dodge / answer whenever possible
        if want == "crucio":
            duel: Any = st.stack[-2]
            opponent = duel.user if duel.target == seat else duel.target
            return cheapest if att[opponent] < 0 or st.hp[seat] <= 2 else _pass(legal)
        if want == "tears":
            return cheapest if att[target] > 0 else _pass(legal)
        if want == "patronus":
            return cheapest if att[target] > 0 and (st.hp[target] <= 2 or target == seat) else _pass(legal)
        if want == "out_of_body":
            return cheapest if att[target] < 0 or len(st.hands[seat]) + len(st.equip[seat]) > 2 else _pass(legal)
        if want == "counter":
            win: Any = st.stack[-2] if len(st.stack) >= 2 else None
            subject, on = getattr(win, "subject", ""), getattr(win, "on", -1)
            if subject in HARMFUL and att[on] > 0:
                return cheapest
            if subject in HELPFUL and att[on] < 0 and self.rng.below(2) == 0:
                return cheapest
            if subject in ("bind", "avada") and on == seat:
                return cheapest
            return _pass(legal)
        return _pass(legal)

    def _skill(self, st: HpshaState, seat: int, kn: Knowledge, legal: list[Action], key: str,
               att: list[float], top: Any) -> Action | None:
        invokes = [a for a in legal if a["type"] != "pass"]
        if not invokes:
            return _pass(legal)
        key = key.removeprefix("disguise:")  # 唐克斯's 易容: a lent skill is played like the original
        if key == "natural_flyer":
            return max(invokes, key=lambda a: -sum(st.distance(a["target"], t) for t in range(st.n)
                                                  if st.alive[t] and att[t] < 0 and t != a["target"]))
        if key == "rescue":
            who = top.ctx["who"]
            return invokes[0] if att[who] > 0 else _pass(legal)
        if key == "sneer":
            got = top.ctx.get("discarded", [])
            return min(invokes, key=lambda a: card_value(kn.face(a["slot"]) or 0)) if len(got) >= 2 else _pass(legal)
        if key == "trickery":
            return _pass(legal)
        staff = _staff_skill(st, seat, kn, legal, key, att, top)
        if staff is not None:
            return staff
        students = _student_skill(st, seat, kn, legal, key, att, top)
        if students is not None:
            return students
        adults = _adults_skill(st, seat, kn, legal, key, att, top)
        if adults is not None:
            return adults
        return invokes[0]


def _value(legal: list[Action], value: Any) -> Action | None:
    return next((a for a in legal if a.get("value") == value), None)


def _pass(legal: list[Action]) -> Action | None:
    return next((a for a in legal if a["type"] == "pass"), None)



# ----------------------------------------------------------------------------- the Hogwarts staff (chars_staff.py)


def _owned_value(st: HpshaState, kn: Knowledge, slot: int) -> int:
    f = kn.face(slot)
    return card_value(f) if f is not None else 5


def _skill_play_score(st: HpshaState, seat: int, kn: Knowledge, a: Action, att: list[float]) -> float:
    """How much a play-phase skill activation is worth now (below 0: not worth it; unknown: −1)."""
    key, tg = a.get("skill"), a.get("targets", [])
    if isinstance(key, str) and key.startswith("disguise:"):  # 唐克斯's 易容: a lent skill, like the original
        a = {**a, "skill": key.removeprefix("disguise:")}
        key = a["skill"]
    if key == "salamander":  # a red card for 1 HP: for a friend (or oneself), the lower the HP the better
        t = tg[0]
        return (3.0 if att[t] > 0 or t == seat else -3.0) + (1.5 if st.hp[t] <= 1 else 0.0) - 0.5
    if key == "centaur":  # a look at the deck is worth it when the card shown is public already
        return 0.3 if a["slots"][0] in st.pub else -1.0
    adults = _adults_play_score(st, seat, kn, a, att)
    if adults is not None:
        return adults
    if key == "affinity":  # the giver loses a card; everybody gets one from the receiver on
        giver, receiver = tg
        return (1.0 if att[receiver] > 0 else -1.0) + (1.0 if att[giver] < 0 else -0.5) - 0.5
    if key == "potions":
        s, t = a["slots"][0], tg[0]
        cost = 1.5 if s in st.equip[seat].values() else 0.3
        return (3.0 if att[t] > 0 else -3.0) + (1.5 if st.hp[t] <= 1 else 0.0) - cost + 1.0
    if key == "interrogation":
        t = tg[0]
        if att[t] >= 0 or not (st.hands[t] or st.equip[t]):
            return -2.0
        return 1.5 + {"equipment": 0.5, "spell": 0.2}.get(str(a.get("value")), 0.0)
    if key == "giant_strength":
        t = tg[0]
        known = [CARDS[f] for s in st.hands[seat] if (f := kn.face(s)) is not None]
        high = max((c.rank for c in known), default=0)
        wants = any(c.kind == "bombarda" for c in known) and st.bombarda_used == 0
        return 1.2 if att[t] < 0 and high >= 11 and wants and len(known) >= 2 else -1.0
    return _student_play_score(st, seat, kn, a, att)


def _staff_skill(st: HpshaState, seat: int, kn: Knowledge, legal: list[Action], key: str,
                 att: list[float], top: Any) -> Action | None:
    """Decisions for the staff's skills (None: no opinion)."""
    invokes = [a for a in legal if a["type"] != "pass"]
    if key == "benevolence":  # spare friends; enemies take the damage
        return invokes[0] if att[int(top.ctx["target"])] > 0 else _pass(legal)
    if key == "affinity":  # the giver's card
        return min(invokes, key=lambda a: _owned_value(st, kn, a["slots"][0]))
    if key == "reprimand":
        if att[int(top.ctx["user"])] >= 0:
            return _pass(legal)
        return max(invokes, key=lambda a: card_value(st.pub[a["slot"]]))
    if key == "interrogation":  # a chosen cheap card beats losing one
        return min(invokes, key=lambda a: sum(_owned_value(st, kn, s) for s in a["slots"]))
    if key == "recklessness":
        reck: Any = st.stack[-2]
        t = int(reck.target)
        near = [s for s in st.order_from(seat) if s != t and st.distance(t, s) <= 1]
        splash = sum(1 if att[s] < 0 else -2 if att[s] > 0 else 0 for s in near)
        if splash > 0 and st.hp[t] > 2:
            return _pass(legal)
        return min(invokes, key=lambda a: _owned_value(st, kn, a["slots"][0]))
    if key == "prophecy":
        return min(invokes, key=lambda a: _owned_value(st, kn, a["slot"]))
    if key == "detention":
        if invokes and invokes[0]["type"] == "choose":  # the cards to set face down: the best ones
            return max(invokes, key=lambda a: _owned_value(st, kn, a["value"]))
        cheap = min(invokes, key=lambda a: _owned_value(st, kn, a["slot"]))
        if _owned_value(st, kn, cheap["slot"]) >= 8:
            return _pass(legal)
        src, cur = int(top.ctx["source"]), st.current
        if src == cur and src >= 0 and att[src] < 0 and len(st.hands[src]) >= 2:
            return {**cheap, "option": 2}
        if cur != seat and cur >= 0 and att[cur] < 0:
            return {**cheap, "option": 1}
        return _pass(legal)
    return None


# ----------------------------------------------------------------------------- the students (chars_students.py)


def _move_gain(st: HpshaState, x: int, to: int, att: list[float]) -> float:
    """棋艺: how good moving field card ``x`` to ``to`` is (equipment helps its holder; delayed spells hurt)."""
    where = st.locate(x)
    if where is None:
        return -9.0
    zone, frm = where
    good = zone != "judge"
    gain = (1.0 if att[frm] < 0 else -1.0 if att[frm] > 0 else 0.0) * (1 if good else -1)
    return gain + (1.0 if att[to] > 0 else -1.0 if att[to] < 0 else 0.0) * (1 if good else -1)


def _student_play_score(st: HpshaState, seat: int, kn: Knowledge, a: Action, att: list[float]) -> float:
    """Worth of a student's play-phase activation (棋艺, 蝠咒, 搞怪); below 0: not worth it."""
    from p2php.games.hpsha.chars_students import field_moves

    key, tg = a.get("skill"), a.get("targets", [])
    slots = a.get("slots", [])
    cost = _owned_value(st, kn, slots[0]) * 0.2 if slots else 0.0
    if key == "chess_mastery":
        best = max((_move_gain(st, x, to, att) for x, to in field_moves(st, seat)), default=-9.0)
        return best - cost if best > 1.0 else -1.0
    if key == "bat_bogey_hex":
        t = tg[0]
        worth = 2.5 if "weapon" in st.equip[t] or "armour" in st.equip[t] else 0.5 if st.equip[t] else -2.0
        return worth - cost if att[t] < 0 else -2.0
    if key == "mischief":
        if a.get("kind") == "bind":
            t = tg[0]
            return 3.0 - att[t] - cost if att[t] < 0 else -2.0
        return sum(1.0 if att[t] > 0 else -1.0 for t in tg) + 1.0 - cost
    return -1.0


def _student_more(kn: Knowledge, legal: list[Action]) -> Action | None:
    """蝻钩: discard one more card only if it is cheap."""
    cards = [a for a in legal if a["type"] == "discard"]
    if cards:
        cheap = min(cards, key=lambda a: card_value(kn.face(a["slots"][0]) or 0))
        if card_value(kn.face(cheap["slots"][0]) or 0) <= 3:
            return cheap
    return _pass(legal)


def _student_skill(st: HpshaState, seat: int, kn: Knowledge, legal: list[Action], key: str,
                   att: list[float], top: Any) -> Action | None:
    """Decisions for the students' skills (None: no opinion)."""
    invokes = [a for a in legal if a["type"] != "pass"]
    if key == "chess_mastery":  # which field card to move, if any helps
        best = max(invokes, key=lambda a: _move_gain(st, a["slot"], a["to"], att))
        return best if _move_gain(st, best["slot"], best["to"], att) > 0 else _pass(legal)
    if key == "bat_bogey_hex":  # the area: the target's best equipment
        task: Any = st.stack[-2]
        target = int(task.target)
        order = ["weapon", "armour", "minus", "plus"]
        have = [v for v in order if v in st.equip[target]] or order
        return _value(legal, have[0])
    if key == "courage":  # only with a high card, against an enemy
        ranks = [CARDS[f].rank for s in st.hands[seat] if (f := kn.face(s)) is not None]
        foes = [a for a in invokes if att[a["target"]] < 0]
        return foes[0] if foes and ranks and max(ranks) >= 11 else _pass(legal)
    if key == "gluttony":  # take as much as possible
        return max(invokes, key=lambda a: len(a.get("slots", [])))
    if key == "contrarian":
        if invokes and invokes[0]["type"] == "card":  # the card to discard: the cheapest
            return min(invokes, key=lambda a: card_value(kn.face(a["slots"][0]) or 0))
        friendly = [a for a in invokes if att[a["targets"][1]] > 0 and att[a["targets"][0]] < 0]
        return friendly[0] if friendly and len(st.hands[seat]) >= 3 else _pass(legal)
    if key == "nargles":
        cheap = min(invokes, key=lambda a: card_value(kn.face(a["slot"]) or 0))
        return cheap if card_value(kn.face(cheap["slot"]) or 0) <= 3 else _pass(legal)
    return None


# ------------------------------------------------------------------------ the Dark Mark and the Order (chars_adults.py)

PREFERRED_LOANS = ("arson", "brilliance", "charms", "lupin_patronus", "torture", "sneer", "wrongful_imprisonment",
                   "worry", "rescue", "transfiguration", "potions", "scheme")
"""易容: the skills worth borrowing for a turn, best first (then any optional skill, then anything)."""


def _adults_play_score(st: HpshaState, seat: int, kn: Knowledge, a: Action, att: list[float]) -> float | None:
    """Play-phase activations of 复活 and 阴谋 (None: not one of these)."""
    key, tg = a.get("skill"), a.get("targets", [])
    if key == "rebirth":  # back from 1 HP: worth almost any cards
        return 9.0 - 0.4 * sum(_owned_value(st, kn, s) for s in a["slots"])
    if key == "scheme":  # an equipment card for a friend, and 1 HP back
        s, t = a["slots"][0], tg[0]
        if att[t] <= 0:
            return -2.0
        keep = 1.5 if s in st.equip[seat].values() else 0.0
        return 1.0 + (2.0 if st.hp[seat] < st.max_hp[seat] else 0.0) - keep - 0.1 * _owned_value(st, kn, s)
    return None


def _adults_skill(st: HpshaState, seat: int, kn: Knowledge, legal: list[Action], key: str,
                  att: list[float], top: Any) -> Action | None:
    """Decisions for the Dark Mark's and the Order's skills (None: no opinion)."""
    invokes = [a for a in legal if a["type"] != "pass"]
    if key == "wealth:continue":
        return _value(legal, "continue")
    if key == "wealth:colour":
        wealth: Any = st.stack[-2]
        pool = [s for s in wealth.cards if s != wealth.last]
        return max(legal, key=lambda a: sum(card_value(st.pub[s]) for s in pool
                                            if CARDS[st.pub[s]].colour == a["value"]))
    if key in ("wealth", "arson"):
        return invokes[0]
    if key == "self_mutilation":
        who = int(top.ctx["who"])
        return invokes[0] if att[who] < 0 and st.hp[seat] >= 3 else _pass(legal)
    if key == "justice":
        cheap = min(invokes, key=lambda a: _owned_value(st, kn, a["slot"]))
        kind = str(top.ctx["kind"])
        worth = kind in HARMFUL or kind in ("geminio", "counter", "patronus")
        return cheap if worth and _owned_value(st, kn, cheap["slot"]) <= 5 else _pass(legal)
    if key == "worry":
        if top.point == "damage_caused":
            t = int(top.ctx["target"])
            return invokes[0] if att[t] > 0 and (st.hp[seat] >= 3 or st.hp[t] <= 2) else _pass(legal)
        foes = [a for a in invokes if att[a["target"]] < 0]
        if not foes:
            return _pass(legal)
        return min(foes, key=lambda a: (st.hp[a["target"]], _owned_value(st, kn, a["slot"])))
    if key == "wrongful_imprisonment":
        return invokes[0] if att[int(top.ctx["source"])] < 0 else _pass(legal)
    if key == "fugitive":
        foes = [a for a in invokes if att[a["target"]] < -1]
        if st.hp[seat] < 3 or not foes:
            return _pass(legal)
        return min(foes, key=lambda a: att[a["target"]])
    if key == "disguise":
        from p2php.games.hpsha.triggers import SKILLS

        def loan(a: Action) -> int:
            k = str(a["value"]).split("/")[1]
            if k in PREFERRED_LOANS:
                return len(PREFERRED_LOANS) - PREFERRED_LOANS.index(k) + 2
            return 1 if not SKILLS[k].compulsory else 0
        return max(invokes, key=loan)
    if key == "unrequited_love":
        friends = [a for a in invokes if att[a["target"]] > 0 and st.hp[a["target"]] < st.max_hp[a["target"]]]
        if not friends:
            return _pass(legal)
        return min(friends, key=lambda a: (_owned_value(st, kn, a["slot"])
                                           + (3 if a["slot"] in st.equip[seat].values() else 0), st.hp[a["target"]]))
    return None

"""A heuristic Harry Potter Sha bot that plays its role, seeing only what its seat may see.

Inputs are the public state (including the public record of who attacked and who
rescued whom) and the seat's own knowledge (its hand and identity).  From the
public record it estimates each character's *loyalty* to the minister
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
                    score -= st.hostile[a][b] * (1.0 if loyal[b] > 0 else -0.7 if loyal[b] < 0 else 0.0)
                    score += st.friendly[a][b] * (0.8 if loyal[b] > 0 else -0.8 if loyal[b] < 0 else 0.0)
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
                    harm = sum(st.hostile[s][x] for x in range(st.n) if st.alive[x] and x != s)
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
            holder: Any = top if prompt == "weapon:bludger" else st.stack[-2]
            target = int(holder.target)
            if cards and att[target] < 0:
                return min(cards, key=lambda a: sum(card_value(kn.face(s) or 0) for s in a["slots"]))
            return _pass(legal)
        if prompt.startswith("skill:"):
            return self._skill(st, seat, kn, legal, prompt[6:], att, top)
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
        return invokes[0]


def _value(legal: list[Action], value: Any) -> Action | None:
    return next((a for a in legal if a.get("value") == value), None)


def _pass(legal: list[Action]) -> Action | None:
    return next((a for a in legal if a["type"] == "pass"), None)


"""What a seat may see (observation) and human-readable action labels (describe).

Both are built only from the public state plus the viewer's own knowledge, so
they can never show another seat's hidden identity or hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Slot
from p2php.games.hpsha.data import (
    CARDS,
    CHARACTER_BASE,
    CHARACTERS,
    FACTIONS,
    GAME_CARDS,
    KINDS,
    RANK_NAMES,
    ROLE_NAMES,
    card_label,
    character_of,
    identity_role,
    kind_label,
)
from p2php.games.hpsha.words import lines

if TYPE_CHECKING:
    from p2php.games.hpsha.state import HpshaState


def _name(st: HpshaState, slot: int, faces: Mapping[Slot, CardId]) -> str:
    f = st.pub.get(slot, faces.get(slot))
    return card_label(f) if f is not None else "暗置牌 a face-down card"


def card_words(card: int) -> dict[str, str]:
    """A card's name in each language beside the bilingual label (``爆破咒 ♠7`` / ``Bombarda ♠7``)."""
    label = card_label(card)
    if 0 <= card < GAME_CARDS:
        c = CARDS[card]
        k = KINDS[c.kind]
        mark = f"{c.suit}{RANK_NAMES[c.rank]}"
        return {"label": label, "zh": f"{k.zh} {mark}", "en": f"{k.en} {mark}"}
    return {"label": label, "zh": label, "en": label}


def seat_facts(st: HpshaState, s: int, seat: int | None, role: str | None) -> dict[str, Any]:
    """What is public about seat ``s`` (and, for the viewer's own seat, its identity), as plain data.

    The same facts as the readable ``players`` line, for clients that draw the table themselves (the bridge,
    a browser): ids to key on, and labels in both languages.
    """
    c = st.char[s]
    facts: dict[str, Any] = {
        "seat": s, "you": s == seat, "current": s == st.current, "alive": bool(st.alive[s]),
        "character": None, "hp": st.hp[s], "max_hp": st.max_hp[s], "skills": [],
        "identity": ROLE_NAMES[role] if role else None,
        "hand_count": len(st.hands[s]),
        "equipment": [{"zone": zone, "card": st.pub[x], **card_words(st.pub[x])}
                      for zone, x in st.equip[s].items()],
        "judgement": [kind_label(k) for _x, k in st.judge[s]],
        "face_down": bool(st.face_down[s]),
        "distance": None, "in_range": None,
    }
    if c >= 0:
        ch = CHARACTERS[c]
        facts["character"] = {"id": c, "key": ch.key, "zh": ch.zh, "en": ch.en, "faction": ch.faction,
                              "gender": ch.gender}
        facts["skills"] = [{"key": sk.key, "zh": sk.zh, "en": sk.en, "locked": sk.compulsory}
                           for sk in st.skills(s)]
        if s == seat and st.alive[s]:
            facts["hand_limit"] = st.hand_limit(s)
    if seat is not None and s != seat and st.alive[s] and st.alive[seat] and st.char[seat] >= 0:
        facts["distance"] = st.distance(seat, s)
        facts["in_range"] = st.in_range(seat, s)
    return facts


def observe(st: HpshaState, seat: int | None, kn: Knowledge) -> dict[str, Any]:
    """The viewer's picture of the table: one readable line per character, then the viewer's own cards."""
    players = []
    seats = []
    for s in range(st.n):
        c = st.char[s]
        role = st.roles.get(s)
        if role is None and seat == s and st.identity_slot[s] >= 0:
            f = kn.face(st.identity_slot[s])
            role = identity_role(f) if f is not None else None
        parts = [f"seat {s}" + (" (you)" if s == seat else "") + (" ▶" if s == st.current else "")]
        if c >= 0:
            gender = "♂" if CHARACTERS[c].gender == "M" else "♀"
            parts.append(f"{CHARACTERS[c].label} [{FACTIONS[CHARACTERS[c].faction]} {gender}]")
            parts.append(f"HP {st.hp[s]}/{st.max_hp[s]}" if st.alive[s] else "dead")
            skills = st.skills(s)
            if skills:
                parts.append("skills: " + ", ".join(sk.label for sk in skills))
        parts.append(ROLE_NAMES[role] if role else "identity hidden")
        parts.append(f"{len(st.hands[s])} in hand"
                     + (f" (limit {st.hand_limit(s)})" if s == seat and c >= 0 and st.alive[s] else ""))
        if st.equip[s]:
            parts.append("equipped: " + ", ".join(card_label(st.pub[x]) for x in st.equip[s].values()))
        if st.judge[s]:
            parts.append("judgement area: " + ", ".join(kind_label(k) for _x, k in st.judge[s]))
        if st.face_down[s]:
            parts.append("face down")
        if seat is not None and s != seat and st.alive[s] and st.alive[seat] and st.char[seat] >= 0:
            parts.append(f"distance {st.distance(seat, s)}" + (" (in range)" if st.in_range(seat, s) else ""))
        players.append(" · ".join(parts))
        seats.append(seat_facts(st, s, seat, role))
    out: dict[str, Any] = {
        "you": seat,
        "turn": st.current,
        "phase": st.phase,
        "turn_no": st.turn_no,
        "players": players,
        "seats": seats,
        "deck": len(st.deck),
        "discard_pile": len(st.discard),
        "discard_top": card_label(st.pub[st.discard[-1]]) if st.discard else "",
    }
    if seat is not None:
        mine = []
        for x in st.hands[seat]:
            f = kn.face(x)
            label = card_label(f) if f is not None else "?"
            if not st.can_use(seat, x):
                label += " (禁闭 sealed this turn)"
            mine.append(label)
        out["hand"] = mine
        out["hand_cards"] = [
            {"slot": x, "card": kn.face(x), "usable": st.can_use(seat, x),
             **(card_words(f) if (f := kn.face(x)) is not None else {"label": "?", "zh": "?", "en": "?"})}
            for x in st.hands[seat]]
        f = kn.face(st.identity_slot[seat]) if st.identity_slot[seat] >= 0 else None
        out["identity"] = ROLE_NAMES[identity_role(f)] if f is not None else "?"
        if st.char[seat] >= 0:
            out["attack_range"] = st.attack_range(seat)
            out["hand_limit"] = st.hand_limit(seat)
    step = st.pending
    out["prompt"] = step.prompt if isinstance(step, Decide) else ""
    out["log"] = lines(st, "en", last=12)
    out["log_zh"] = lines(st, "zh", last=12)
    return out


def describe_action(st: HpshaState, seat: int, action: Action, faces: Mapping[Slot, CardId]) -> str:
    t = action.get("type")
    who = st.who(seat)
    try:
        if t == "use":
            slots = [int(x) for x in action.get("slots", [])]
            cards = ", ".join(_name(st, s, faces) for s in slots)
            via = f" via {st.skill_label(str(action['skill']))}" if action.get("skill") else ""
            tg = ", ".join(st.who(int(x)) for x in action.get("targets", []))
            return f"{who}: use {kind_label(str(action['kind']))} [{cards}]{via} → {tg}"
        if t == "quill":
            return (f"{who}: 羽毛笔 Quill — play {_name(st, int(action['slot']), faces)} face down at "
                    f"{st.who(int(action['targets'][0]))}")
        if t == "end":
            return f"{who}: end the play phase"
        if t == "pass":
            return f"{who}: pass"
        if t == "card":
            via = f" via {st.skill_label(str(action['skill']))}" if action.get("skill") else ""
            return f"{who}: give {', '.join(_name(st, int(s), faces) for s in action['slots'])}{via}"
        if t == "discard":
            return f"{who}: discard {', '.join(_name(st, int(s), faces) for s in action['slots'])}"
        if t == "choose":
            v = action["value"]
            if isinstance(v, int):
                return f"{who}: choose {_name(st, v, faces)}"
            owner, slash, key = str(v).partition("/")
            if slash and owner.isdigit() and int(owner) < st.n:  # 易容's "<seat>/<skill key>"
                return f"{who}: choose {st.who(int(owner))}'s {st.skill_label(key)}"
            return f"{who}: choose {v}"
        if t == "invoke":
            extra = ""
            if "target" in action:
                extra = f" → {st.who(int(action['target']))}"
            if "slot" in action:
                extra = f" with {_name(st, int(action['slot']), faces)}"
            step = st.pending
            key = step.prompt[6:] if isinstance(step, Decide) and step.prompt.startswith("skill:") else "skill"
            return f"{who}: use {st.skill_label(key)}{extra}"
        if t == "reveal_identity":
            return f"{who}: reveal the identity card (minister)"
        if t == "not_minister":
            return f"{who}: I am not the minister"
        if t == "skill":  # a play-phase skill activation
            parts = [st.who(int(x)) for x in action.get("targets", [])]
            parts += [_name(st, int(x), faces) for x in action.get("slots", [])]
            if "value" in action:
                parts.append(str(action["value"]))
            return f"{who}: use {st.skill_label(str(action['skill']))}" + (f" — {', '.join(parts)}" if parts else "")
        if t == "duel":
            return f"{who}: 拼点 with {_name(st, int(action['slot']), faces)} (face down)"
        if t == "move":  # 罗恩's 棋艺
            return f"{who}: move {_name(st, int(action['slot']), faces)} to {st.who(int(action['to']))}"
        if t == "take":  # 克拉布&高尔's 贪吃
            return f"{who}: show and obtain {', '.join(_name(st, int(s), faces) for s in action['slots'])}"
        if t == "arrange":  # the deck's top put back, first card first
            order = ", ".join(_name(st, int(s), faces) for s in action["order"])
            return f"{who}: put the top cards back in this order: {order}"
        if t == "pick":
            f = faces.get(int(action["slot"]))
            name = character_of(f).label if f is not None and f >= CHARACTER_BASE else "a character"
            return f"{who}: pick {name}"
    except (KeyError, ValueError, TypeError, IndexError):
        pass
    return f"{who}: {action}"

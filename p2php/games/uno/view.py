"""What people see: observations, event texts and action descriptions, rendered on demand.

The state keeps structured event tuples (hashed); the words live only here, so rewording a
message changes no state hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from p2php.engine.contract import Action, CardId, Decide, Knowledge, Seat, Slot
from p2php.games.uno.cards import CHARACTERS, COLOURS, WILD
from p2php.games.uno.matching import Mode

if TYPE_CHECKING:
    from p2php.games.uno.state import UnoState

_EVENT_TEMPLATES = {
    "draw": "seat {1} draws {2} card(s)",
    "dry": "seat {1} cannot draw: no cards left",
    "keep": "seat {1} keeps the drawn card",
    "uno": "seat {1} calls UNO",
    "forgot_uno": "seat {1} forgets to call UNO",
    "caught": "seat {1} catches seat {2} without UNO",
    "challenge": "seat {1} challenges seat {2}'s Wild Draw Four",
    "hand_revealed": "seat {1}'s hand is revealed",
    "out": "seat {1} has emptied their hand",
    "blocked": "nobody can draw or play: the round is blocked",
    "reshuffle": "the discard pile is reshuffled into a new draw pile ({1} cards)",
    "dealer": "seat {1} deals",
    "round_start": "round {1}, seat {2} deals",
}

_HOW = {Mode.INVISIBILITY: " against the card played at them", Mode.STONE: " (Resurrection Stone!)",
        Mode.STACK: " stacking the draw"}

_SIMPLE = {
    "draw": "draws a card", "keep": "keeps the drawn card", "pass": "passes",
    "catch": "calls out a missing UNO", "accept": "takes the effect", "challenge": "challenges",
    "uno": "calls UNO", "sorted": "is sorted into Gryffindor", "not_yet": "is not sorted yet",
}


def observation(g: UnoState, seat: Seat | None, knowledge: Knowledge) -> dict[str, Any]:
    names = g.deck.names
    step = g.step()
    top = g.top_card()
    obs: dict[str, Any] = {
        "game": "uno",
        "players": g.n,
        "round": g.round_no + (0 if g.result is not None else 1),
        "dealer": g.dealer,
        "scores": list(g.scores),
        "turn": g.current,
        "direction": "left" if g.direction == 1 else "right",
        "colour": COLOURS[g.colour] if g.colour >= 0 else None,
        "top": names[top] if top is not None else None,
        "top_card": top,
        "hand_counts": [len(h) for h in g.hands],
        "draw_pile": len(g.pile),
        "discard_pile": len(g.discard),
        "prompt": step.prompt if isinstance(step, Decide) else None,
        "awaiting": list(step.seats) if isinstance(step, Decide) else [],
        "pending": g.pending(),
        "public_hand_cards": {
            str(s): [names[g.pub[x]] for x in g.hands[s] if x in g.pub] for s in range(g.n)
        },
        "events": [event_text(g, ev) for ev in g.events[-12:]],
        "last_round": g.last_round,
        "over": g.result is not None,
    }
    if seat is not None:
        hand = []
        for slot in g.hands[seat]:
            card = knowledge.face(slot)
            hand.append({"slot": slot, "card": card, "name": names[card] if card is not None else None})
        # in deck order (colour, then number, action, wild): a hand reads sorted, not in the order it was drawn
        hand.sort(key=lambda h: (h["card"] is None, h["card"] if h["card"] is not None else 0, h["slot"]))
        obs["seat"] = seat
        obs["hand"] = hand
    return obs


def event_text(g: UnoState, ev: tuple[Any, ...]) -> str:
    names = g.deck.names
    kind = ev[0]
    if kind == "play":
        _, seat, card, colour, target, dumped, mode = ev
        text = f"seat {seat} plays {names[card]}{_HOW.get(mode, '')}"
        if dumped:
            text += " discarding " + ", ".join(names[c] for c in dumped)
        if g.deck.kind[card] >= WILD and not dumped:
            text += f", names {COLOURS[colour]}"
        if target >= 0:
            text += f", targets seat {target}"
        return text
    if kind == "sorted":
        return f"seat {ev[1]} is sorted by {names[ev[2]]} ({CHARACTERS[g.deck.value[ev[2]]]})"
    if kind == "colour":
        return f"seat {ev[1]} names {COLOURS[ev[2]]}"
    if kind == "verdict":
        return f"seat {ev[1]}'s Wild Draw Four was {'legal' if ev[2] else 'illegal'}"
    if kind == "round_end":
        return f"seat {ev[1]} wins the round ({ev[2]} points){' (blocked)' if ev[3] else ''}"
    if kind in ("put_back", "first"):
        what = "goes back; the deck is reshuffled" if kind == "put_back" else "is the first card"
        return f"{names[ev[1]]} {what}"
    if kind == "cut":
        return f"seat {ev[1]} turns up {names[ev[2]]} for the deal"
    template = _EVENT_TEMPLATES.get(kind)
    return template.format(*ev) if template is not None else repr(ev)


def describe(g: UnoState, seat: Seat, action: Action, faces: Mapping[Slot, CardId]) -> str:
    names = g.deck.names
    typ = action.get("type")
    if typ in ("play", "invisibility", "stone"):
        slot = action.get("slot")
        card = faces.get(slot) if isinstance(slot, int) else None
        if card is None and isinstance(slot, int):
            card = g.pub.get(slot)
        what = names[card] if card is not None else f"slot {slot}"
        text = f"seat {seat} plays {what}"
        if typ == "invisibility":
            text += " (Invisibility against the card played at them)"
        elif typ == "stone":
            text += " (Resurrection Stone)"
        dump = action.get("dump")
        if dump:
            shown = [names[faces[s]] if s in faces else f"slot {s}" for s in dump]
            text += " discarding " + ", ".join(shown)
        if action.get("colour"):
            text += f", naming {action['colour']}"
        if action.get("target") is not None:
            text += f", at seat {action['target']}"
        if action.get("uno"):
            text += " — UNO!"
        return text
    if typ == "verdict":
        return f"seat {seat} admits the Wild Draw Four was {'legal' if action.get('legal') else 'illegal'}"
    if typ == "colour":
        return f"seat {seat} names {action.get('colour')}"
    return f"seat {seat} {_SIMPLE.get(str(typ), str(action))}"


# ----------------------------------------------------------------------------- help (read-only, for ? and the page)

_HELP: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("number", "Number card", ("number",),
     "Play it on a card of the same colour or the same number. 0–9 in four colours; the number pictures "
     "Hagrid (0), Harry (1), Hermione (2), Ron (3), Neville (4), Dumbledore (5), McGonagall (6), Snape (7), "
     "Draco (8) and Luna (9). Worth its number in points."),
    ("draw_two", "Draw Two", ("draw two",),
     "Play it only on the same colour or on another Draw Two. The next player draws 2 cards and loses the turn. "
     "20 points."),
    ("reverse", "Reverse", ("reverse",),
     "Play it only on the same colour or on another Reverse. The direction of play flips. 20 points."),
    ("skip", "Skip", ("skip",),
     "Play it only on the same colour or on another Skip. The next player loses the turn. 20 points."),
    ("wild", "Wild", ("wild",),
     "Play it on any card, even when you hold other playable cards, and name the colour play goes on with. "
     "50 points."),
    ("wild_draw_four", "Wild Draw Four", ("wild draw four",),
     "Name a colour; the next player draws 4 cards and loses the turn. Allowed only when you hold no card of the "
     "top card's colour: the next player may challenge it — a bluff caught makes you draw 4, a wrong "
     "challenge makes them draw 6. 50 points."),
    ("sorting_hat", "Sorting Hat", ("sorting hat", "hat"),
     "A Wild card: name the colour. Choose a player, who draws one card at a time until a Gryffindor student "
     "(a number 1 to 4) comes into their hand; everything drawn is kept. 50 points."),
    ("voldemort", "Voldemort", ("voldemort",),
     "Play it to discard, with it, all your 1, 5 and 0 cards; with none of them it is an ordinary Wild card "
     "(name the colour). 50 points."),
    ("howler", "Howler", ("howler",),
     "Playable in any situation; name the colour and choose a player, who shows everyone their whole hand. "
     "Invisibility cancels it. 50 points."),
    ("invisibility", "Invisibility", ("invisibility", "invisible"),
     "An ordinary Wild card, or played at once against a card played at you: that card's effect on you is "
     "cancelled. 50 points."),
    ("moody", "Moody", ("moody",),
     "A Wild card: name the colour and choose a player, who draws 2 cards. 50 points."),
    ("resurrection_stone", "Resurrection Stone", ("resurrection stone", "stone"),
     "An ordinary Wild card, or played when a player empties their hand: that player draws 1 card and the "
     "round goes on. 50 points."),
    ("uno", "UNO!", ("uno",),
     "Playing your second-to-last card, say UNO (the game's menu offers the call with the card). Caught "
     "without it before the next player plays, you draw 2 cards."),
)


def help_entries(lang: str) -> list[dict[str, Any]]:
    """UNO's cards and the UNO call, for :mod:`p2php.gamehelp` (one language: English for both)."""
    return [{"id": f"card:{key}", "kind": "rule" if key == "uno" else "card", "title": title,
             "names": [title, key, *names], "facts": "", "text": text} for key, title, names, text in _HELP]

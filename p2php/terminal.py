"""Playing in a terminal: what a person sees, and how their choices are read.

Everything a person sees comes from the same per-seat observation every bot
gets (plus the public event log), so the terminal can never show a card the
seat does not know.  :class:`TerminalUI` is both halves of a terminal seat:

* :meth:`TerminalUI.observe` (the runner's ``observe`` callback) prints the
  running log and, while a shuffle, deal or another seat's decision is under
  way, a progress line — redrawn in place on a TTY, one line per shuffle when
  the output is a file or a pipe;
* :meth:`TerminalUI.decide` (the runner's decider) shows the private view (hand,
  identity), the public table, whose turn it is and a numbered list of the legal
  actions, and re-asks until the answer is valid.  End of input or Ctrl-C ends
  the game politely with :class:`Quit` (the other peers then name this seat as
  gone, as they must).

Colours are used only when the output is a TTY and ``NO_COLOR`` is unset (see
no-color.org).  Harry Potter Sha names come as "中文 English"; ``lang="zh"`` or
``"en"`` keeps one half — done here, on the finished text, so the game engine
needs no language option and every peer's engine stays byte-identical.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

import trio

from p2php.engine.contract import Action, Deal, Decide, Randomness, Reshuffle, Reveal, Show, Shuffle
from p2php.errors import UsageError
from p2php.session.lockstep import Event, Lockstep
from p2php.session.runner import LeaveTable
from p2php.text import LINE, NAME, lookalike_keys, safe, with_seat

if TYPE_CHECKING:
    from p2php.session.handshake import Table
    from p2php.session.records import Verdict

LANGS = ("zh", "en")


class Quit(LeaveTable):
    """The person at the terminal chose to leave: the runner tells the table (a signed leave) and ends."""


def clean(text: object, limit: int = NAME) -> str:
    """Text that came from other peers (names) made safe to print: control characters escaped, length bounded.

    A peer chooses its own name (a hello's name is any string the frame limit allows); printed raw, it
    could carry escape sequences that rewrite the screen of everyone at the table (erase our last line
    and draw a fake "audit: clean" in its place).  See :func:`p2php.text.safe`.
    """
    return safe(text, limit)


def _columns(char: str) -> int:
    """Terminal columns of one printable character (a combining mark 0, a wide or full-width one 2)."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def hang(text: str, width: int, indent: str = "    ") -> str:
    """``text`` (already escaped) in rows of fewer than ``width`` columns, every row after the first indented.

    A long line of remote text left to the terminal wraps at its right edge, and what follows starts a row of
    its own at column 0, where it reads as one of our lines: a chat line of 62 padding characters and then
    ``safety code: …`` drew a second safety code under the real one.  Broken here, a remote line's next row
    always starts with ``indent``.
    """
    limit = max(len(indent) + 8, width - 1)
    rows: list[str] = []
    row: list[str] = []
    used = 0
    for char in text:
        need = _columns(char)
        if used + need > limit:
            rows.append("".join(row))
            row, used = [indent], len(indent)
        row.append(char)
        used += need
    rows.append("".join(row))
    return "\n".join(rows)


def verdict_text(verdict: Verdict | None, table: Table | None = None) -> str:
    """The audit's verdict for people, with the culprit's name and the reason escaped and bounded.

    Both come from the network: the name from the culprit's own hello, the reason often quotes what
    the culprit sent.  (:meth:`Verdict.text` joins them raw.)
    """
    if verdict is None:
        return "unfinished"
    if verdict.clean:
        return "clean"
    reason = safe(verdict.reason, 300)
    if verdict.culprit is None:
        return f"unattributed: {reason}"
    name = f" ({clean(table.name(verdict.culprit))})" if table is not None else ""
    return f"seat {verdict.culprit}{name}: {reason}"


# ----------------------------------------------------------------------------- colours


def want_colour(stream: TextIO) -> bool:
    """Colours only on a TTY, and never when NO_COLOR is set (to anything non-empty) or TERM is dumb."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34",
          "magenta": "35", "cyan": "36", "reverse": "7"}


class Palette:
    """ANSI styling that turns itself off (returns text unchanged) when colours are not wanted."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def card(self, name: str) -> str:
        """A card name coloured by what it shows: UNO colours, red/black suits."""
        if not self.enabled:
            return name
        first = name.split(" ", 1)[0].lower()
        if first in ("red", "yellow", "green", "blue"):
            return self(name, first, "bold")
        if "♥" in name or "♦" in name:
            return self(name, "red")
        if name.lower().startswith("wild") or first in ("howler", "voldemort"):
            return self(name, "magenta", "bold")
        return self(name, "bold")


# ----------------------------------------------------------------------------- languages


def _split_pair(text: str) -> tuple[str, str] | None:
    """``"部长 Minister"`` → ("部长", "Minister"): Chinese first word(s), then the English rest."""
    m = re.match(r"^(\S*[^\x00-\x7f]\S*(?: \S*[^\x00-\x7f]\S*)*) (.+)$", text)
    return (m.group(1), m.group(2)) if m else None


def bilingual_pairs(game: str) -> list[tuple[str, str]]:
    """Every (Chinese, English) name pair a game prints as "中文 English" (empty for other games)."""
    if game != "hpsha":
        return []
    from p2php.games.hpsha import data

    pairs: list[tuple[str, str]] = [(k.zh, k.en) for k in data.KINDS.values()]
    pairs += [(c.zh, c.en) for c in data.CHARACTERS]
    for label in [*data.ROLE_NAMES.values(), *data.FACTIONS.values()]:
        pair = _split_pair(label)
        if pair is not None:
            pairs.append(pair)
    try:
        import p2php.games.hpsha.characters  # noqa: F401  (defines the Skill subclasses)
        from p2php.games.hpsha.triggers import Skill

        todo: list[type[Skill]] = list(Skill.__subclasses__())
        while todo:
            cls = todo.pop()
            todo.extend(cls.__subclasses__())
            if cls.zh and cls.en:
                pairs.append((cls.zh, cls.en))
    except ImportError:  # the skill machinery moved: names still work, skills stay bilingual
        pass
    pairs += [("身份", "Identity"), ("人物", "Character")]
    return pairs


class Localizer:
    """Keeps the Chinese or the English half of "中文 English" names (``lang`` None: both)."""

    # Suffixes the hpsha engine glues to names, per language.
    _TAILS = {"（无技能 stand-in）": ("（无技能）", " (no skill)"), "（锁定技 locked）": ("（锁定技）", " (locked)")}
    # Rule terms the hpsha engine's log lines print in Chinese only.
    _TERMS = {"拼点": ("拼点", "point duel"), "暗置牌 a face-down card": ("暗置牌", "a face-down card")}

    def __init__(self, game: str, lang: str | None) -> None:
        if lang is not None and lang not in LANGS:
            raise UsageError(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}")
        self.lang = lang
        table: dict[str, str] = {}
        if lang is not None:
            pick = 0 if lang == "zh" else 1
            for zh, en in bilingual_pairs(game):
                table[f"{zh} {en}"] = zh if lang == "zh" else en
                if lang == "en":
                    table.setdefault(zh, en)  # names the engine prints in Chinese only (e.g. "seat 2 哈利·波特")
            if table:
                for tail, choice in self._TAILS.items():
                    table[tail] = choice[pick]
                for term, choice in self._TERMS.items():
                    table.setdefault(term, choice[pick])
        self.table = table
        self.pattern = (re.compile("|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)))
                        if table else None)

    def __call__(self, text: str) -> str:
        if self.pattern is None:
            return text
        return self.pattern.sub(lambda m: self.table[m.group(0)], text)


# ----------------------------------------------------------------------------- the log


def _without_seat(line: str, seat: int) -> str:
    """"seat 2 plays …" / "seat 2: pick …" → "plays …" / "pick …" (the line is already headed by the name)."""
    return line.removeprefix(f"seat {seat}: ").removeprefix(f"seat {seat} ")


def _purpose(purpose: str) -> str:
    """A step's purpose as words ("out_of_body: random hand card" → "out of body: random hand card")."""
    return purpose.replace("_", " ")


_SEAT_LIKE = re.compile(r"\bseat\s*(?:\d|[ol]+\b)", re.IGNORECASE)
"""A seat's number after "seat", searched in a name's look-alike keys (:func:`~p2php.text.lookalike_keys`, which
draw 0 as o and 1 as l): "sеat 0" with a Cyrillic "е" read as "seat 0" and was shown without its seat (review
rv10-web)."""
_CLASH_SUFFIX = re.compile(r"(?:\s*\(seat \d+\))+\s*$")
_YOU = lookalike_keys("you") | lookalike_keys("your")


def seen_name(name: str, seat: int, viewer: int | None) -> str:
    """``seat``'s name (already escaped) as the person at ``viewer`` reads it: another seat whose name reads as the
    person's own -- "you", "your" (or a look-alike), or a seat ("seat 0"), which the terminal turns into names -- is
    shown with its seat, as :meth:`~p2php.session.handshake.Table.name` shows a clash (red-team rt10-web: a hello
    named "seat 0" had every move of its seat listed as "seat 0 plays …", then the person's own, one named "you" as
    "you draw 2 card(s)")."""
    if seat == viewer:
        return name
    bare = _CLASH_SUFFIX.sub("", name).strip()
    keys = lookalike_keys(bare)
    marked = name.endswith(f" (seat {seat})")
    if marked or not (keys & _YOU or any(_SEAT_LIKE.search(k.partition(":")[2]) for k in keys)):
        return name
    return with_seat(name, seat)


def event_lines(ls: Lockstep, event: Event, *, person: bool = False) -> list[str]:
    """Human lines for one resolved step, from this peer's point of view (``person``: for the person at this seat,
    each other seat's name as :func:`seen_name` shows it)."""
    step = event.step
    name = ls.game.card_name

    def who(seat: int) -> str:  # (Table.name is escaped and cut at NAME already: cut again, a long name's cut note
        # changed, "…(+21 chars)" to "…(+12 chars)", and the page, which knows a seat by the name the bridge gives it
        # at the start, read such a seat's line as game text: "seat 0: …" became the person's; review rv10-web)
        shown = ls.table.name(seat)
        return seen_name(shown, seat, ls.seat) if person else shown
    if isinstance(step, Decide):
        return [f"{who(seat)}: {safe(_without_seat(line, seat), LINE)}"
                for (seat, _), line in zip(event.answers, event.lines, strict=False)]
    if isinstance(step, Shuffle):
        done = "shuffled and proved" if ls.vdeck is not None else "shuffled and locked"
        whose = "" if step.owner is None else f", {who(step.owner)}'s own secret list"
        return [f"· every peer {done} a deck of {step.count} cards ({_purpose(step.purpose)}{whose})"]
    if isinstance(step, Reshuffle):
        how = "reshuffled with proofs" if ls.vdeck is not None else "reshuffled"
        return [f"· every peer {how} {step.count} cards into a new face-down deck ({_purpose(step.purpose)})"]
    if isinstance(step, Deal):
        mine = [slot for slot, seat in step.to if seat == ls.seat]
        counts: dict[int, int] = {}
        for _, seat in step.to:
            counts[seat] = counts.get(seat, 0) + 1
        dealt = ", ".join(f"{n} card{'s' if n != 1 else ''} to {who(s)}" for s, n in counts.items())
        line = f"· dealt face down: {dealt}"
        if mine:
            line += "  (you got: " + ", ".join(name(ls.private_faces[s], ls.options) for s in mine
                                               if s in ls.private_faces) + ")"
        return [line]
    if isinstance(step, Reveal):
        return [safe("· revealed: " + ", ".join(name(c, ls.options) for c in event.faces.values()), LINE)]
    if isinstance(step, Show):
        if step.owner == step.viewer:  # a search: the seat looks through cards only it may see
            return [f"· {who(step.owner)} looked at {len(step.slots)} card(s) privately"]
        return [f"· {who(step.owner)} showed {len(step.slots)} card(s) privately to {who(step.viewer)}"]
    if isinstance(step, Randomness):
        return [f"· joint random draw ({_purpose(step.purpose)}): {event.random.hex()[:8]}"]
    return []


def render_observation(obs: dict[str, Any]) -> str:
    """A compact, readable rendering of any game's observation dict (the fallback view)."""
    lines = []
    for key, value in obs.items():
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = ", ".join(value)
        lines.append(safe(f"  {key.replace('_', ' ')}: {value}", LINE))
    return "\n".join(lines)


def action_label(ls: Lockstep, action: Action) -> str:
    """The game's own description of ``action`` for the local seat (the raw action if it has none)."""
    assert ls.seat is not None
    known = {**ls.private_faces, **ls.public_faces}
    try:
        return ls.state.describe(ls.seat, action, known)
    except Exception:
        return str(action)


_IMPERATIVE = {"plays": "play", "draws": "draw", "keeps": "keep", "passes": "pass", "calls": "call",
               "takes": "take", "challenges": "challenge", "admits": "admit", "uses": "use", "gives": "give"}


def _strip_self(label: str, seat: int) -> str:
    """"seat 2 哈利·波特: use …" / "seat 2 plays …" → "use …" / "play …" (the menu is always about you)."""
    m = re.match(rf"seat {seat}(?: [^\s:]+)?: (.+)$", label) or re.match(rf"seat {seat} (.+)$", label)
    if not m:
        return label
    verb, space, rest = m.group(1).partition(" ")
    return _IMPERATIVE.get(verb, verb) + space + rest


def _with_names(text: str, names: list[str]) -> str:
    """``seat 2`` → ``bot2`` in game text, so people read names rather than numbers.

    A seat named "you" (the person at ``p2php play``) reads as one: "you play", "your hand", not "you plays".
    """
    def sub(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        return names[seat] if 0 <= seat < len(names) else m.group(0)

    out = re.sub(r"\bseat (\d+)\b", sub, text)
    return _second_person(out) if "you" in names else out


_YOU_VERBS = {"is": "are", "has": "have", "was": "were"}


def _second_person(text: str) -> str:
    """Game text about a seat named "you", in the second person: "you plays" → "you play", "you's" → "your"."""
    def verb(m: re.Match[str]) -> str:
        word = m.group(2)
        if word in _YOU_VERBS:
            word = _YOU_VERBS[word]
        elif word.endswith(("ches", "shes", "sses", "xes")):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 2:
            word = word[:-1]
        return f"{m.group(1)}you {word}"

    text = re.sub(r"\byou's\b", "your", text)
    return re.sub(r"(^|[·,;:(]\s*)you ([a-z]+)\b", verb, text)


# ----------------------------------------------------------------------------- game views


_UNO_PROMPTS = {
    "turn": "your turn: play a card, or draw",
    "drawn": "you drew a card: play it or keep it",
    "catch": "someone did not call UNO: catch them?",
    "respond:skip": "you are being skipped: answer or take it",
    "respond:draw_two": "a Draw Two is played at you: answer or take it",
    "respond:wild_draw_four": "a Wild Draw Four is played at you: challenge, answer or take it",
    "respond:sorting_hat": "the Sorting Hat is played at you",
    "respond:moody": "Moody is played at you",
    "respond:howler": "a Howler is played at you",
    "sorting": "the Sorting Hat sorts you",
    "stone": "someone went out: play the Resurrection Stone?",
    "stone_uno": "Resurrection Stone: call UNO?",
    "verdict": "was that Wild Draw Four legal?",
    "first_colour": "name the colour of the first card",
}


def _hpsha_prompt(prompt: str) -> str:
    try:
        from p2php.games.hpsha.data import KINDS
        from p2php.games.hpsha.triggers import SKILLS
    except ImportError:
        return prompt
    kind, _, what = prompt.partition(":")
    if what in KINDS:
        label = f"{KINDS[what].zh} {KINDS[what].en}"
    elif what in SKILLS:
        label = f"{SKILLS[what].zh} {SKILLS[what].en}"
    else:
        label = what.replace("_", " ")
    texts = {
        "identity": "identities are dealt: the minister reveals, everyone else says so",
        "pick_character": "pick your character",
        "play": "your play phase: use a card or a skill, or end the phase",
        "discard": "discard down to your hand limit",
        "respond": f"{label}: play a card in answer, or pass",
        "skill": f"use the skill {label}?",
        "weapon": f"weapon effect: {label}",
        "pick": f"pick a card ({label})",
        "stupefy": "昏昏倒地 Stupefy: choose",
        "reparo": "修复如初 Reparo: take a card",
        "aguamenti": "清水如泉 Aguamenti: take a card",
        "quill_guess": "羽毛笔 Quill: guess the face-down card",
    }
    return texts.get(kind, prompt)


class TerminalUI:
    """One seat played by a person in this terminal (see the module docstring).

    Each menu's header ends with the question's number (``#7``); a line may start with it (``#7 2``) and is then
    taken only by that question: a line read is handed to the question open when it comes (:func:`read_line`), so a
    choice typed for a question withdrawn meanwhile (the rejoin hold, protocol.md §3.5) answers the next one unless
    it names its question. A line without it (piped input) works as before.

    ``out`` is where everything is printed; ``ask(prompt)`` reads one line
    (``input`` by default, run in a thread so the peer keeps serving the
    network); ``lang`` picks "zh" or "en" names; ``colour`` None means
    :func:`want_colour`; ``tty`` None means "redraw progress in place if
    ``out`` is a TTY"; ``auto_forced`` answers decisions that have a single
    legal action by themselves (Harry Potter Sha asks every seat in every
    response window; a person should not have to type "1" for each), when the
    game says every seat would have that one action whatever its cards
    (``GameState.forced_in_public``): answered at once only when the hand has
    no card for it, a window would tell every seat what the hand lacks.
    """

    def __init__(self, out: TextIO | None = None, ask: Callable[[str], str] | None = None,
                 lang: str | None = None, colour: bool | None = None, tty: bool | None = None,
                 show_private_log: bool = True, auto_forced: bool = True) -> None:
        self.out = out if out is not None else sys.stdout
        self.ask = ask or input
        self.lang = lang
        self.tty = want_tty(self.out) if tty is None else tty
        self.paint = Palette(want_colour(self.out) if colour is None else colour)
        self.show_private_log = show_private_log
        self.auto_forced = auto_forced  # a decision with one legal action answers itself (no endless "1. pass")
        self.localize: Localizer | None = None
        self.done = 0  # events already printed
        self.coded = False  # the safety code was shown
        self.status = ""  # the progress line on screen (TTY)
        self.announced: set[int] = set()  # shuffles already announced (non-TTY), by tick
        self.prompts_open = 0  # prompts open (asking): two for a moment, a withdrawn one not yet run to its end
        self.questions = 0  # menus shown: each question's number (#N in its header; a line may start with it)
        self.carried: dict[int, tuple[str, str]] = {}  # online: seat -> (escaped name, how its link is carried)
        self.say: Callable[[str], None] | None = None  # sends a chat line (set where the table has people)
        self.names: tuple[str, ...] = ()  # the seats' names, for chat lines (set with ``say``)

    # ---- printing

    def _loc(self, ls: Lockstep, text: str) -> str:
        if self.localize is None:
            self.localize = Localizer(ls.game.name, self.lang)
        return self.localize(text)

    def write(self, text: str = "") -> None:
        """Print a line, first wiping a progress line drawn in place."""
        if self.status:
            self.out.write("\r\x1b[K")
            self.status = ""
        self.out.write(text + "\n")
        self.out.flush()

    def _status(self, text: str) -> None:
        if text == self.status:
            return
        self.out.write("\r\x1b[K" + self.paint(text, "dim") if text else "\r\x1b[K")
        self.out.flush()
        self.status = text

    def link_carried(self, seat: int, name: str, how: str) -> None:
        """Online: how our link with ``seat`` is carried changed (``name`` already escaped); the line of link
        states is printed now and shown again in the table view."""
        self.carried[seat] = (name, how)
        self.write(self.paint(carried_line(self.carried), "dim"))

    # ---- observe: the running log and progress

    def observe(self, ls: Lockstep, _lines: list[str] | None = None) -> None:
        """The runner's observe callback: new log lines, then the progress line."""
        if not self.coded:
            self.coded = True
            self.write(safety_line(ls))
        while self.done < len(ls.events):
            event = ls.events[self.done]
            self.done += 1
            for line in event_lines(ls, event, person=True):
                self._log_line(ls, line)
        self._progress(ls)

    __call__ = observe

    def _log_line(self, ls: Lockstep, line: str) -> None:
        line = safe(self._loc(ls, line), LINE)  # event_lines escaped the names; this guards the game's text
        private = line.startswith("·")
        if private and not self.show_private_log and "revealed" not in line:
            return
        me = clean(ls.table.name(ls.seat)) if ls.seat is not None else None
        if private:
            self.write(self.paint(line, "cyan") if "you got" in line else self.paint(line, "dim"))
        elif me is not None and line.startswith(me + ":"):
            self.write(self.paint(line, "green"))
        else:
            self.write(line)

    def _progress(self, ls: Lockstep) -> None:
        if self.asking:  # the runner keeps observing while the person thinks
            return
        text = progress_text(ls)
        if self.tty:
            self._status(text or "")
            return
        step = ls.step
        if isinstance(step, Shuffle) and ls.tick not in self.announced and not ls.finished:
            self.announced.add(ls.tick)
            n = ls.players
            how = (f"each of the {n} peers re-masks and shuffles it with a proof ({n} passes)" if ls.vdeck is not None
                   else f"each of the {n} peers shuffles and then locks the deck ({2 * n} passes)")
            self.write(self.paint(f"… shuffling {step.count} cards ({_purpose(step.purpose)}): {how}", "dim"))

    # ---- decide: the view, the menu, the prompt

    def view_lines(self, ls: Lockstep) -> list[str]:
        """The private view and the public table, as this seat sees them now."""
        assert ls.seat is not None
        obs = ls.state.observation(ls.seat, ls.knowledge())
        game = ls.game.name
        own = ls.game.table_lines(obs, ls.seat, [self._name(ls, s) for s in range(ls.players)])
        if own is not None:
            lines = own
        elif game == "uno":
            lines = self._uno_view(ls, obs)
        elif game == "hpsha":
            lines = self._hpsha_view(ls, obs)
        else:
            lines = render_observation(obs).split("\n")
        return [self._loc(ls, line) for line in lines]

    def _name(self, ls: Lockstep, seat: int) -> str:
        return seen_name(clean(ls.table.name(seat)), seat, ls.seat)

    def _uno_view(self, ls: Lockstep, obs: dict[str, Any]) -> list[str]:
        p = self.paint
        me = ls.seat
        turn = obs.get("turn")
        top = obs.get("top")
        lines = [p(f"Table — UNO, round {obs.get('round')}", "bold")
                 + f"   top card: {p.card(str(top)) if top else '—'}"
                 + (f"   colour: {obs['colour']}" if obs.get("colour") else "")
                 + f"   direction: {obs.get('direction')}   draw pile: {obs.get('draw_pile')}"]
        counts = obs.get("hand_counts", [])
        scores = obs.get("scores", [])
        shown = obs.get("public_hand_cards", {})
        for s in range(ls.players):
            mark = p("▶", "yellow", "bold") if s == turn else " "
            line = (f" {mark} seat {s}  {self._name(ls, s):<12} {counts[s] if s < len(counts) else '?':>2} cards"
                    f"   {scores[s] if s < len(scores) else 0:>4} pts")
            if s == me:
                line += p("  (you)", "green")
            if shown.get(str(s)):
                line += "   face up: " + ", ".join(p.card(c) for c in shown[str(s)])
            lines.append(line)
        names = [self._name(ls, s) for s in range(ls.players)]
        events = obs.get("events") or []
        if events:
            recent = " · ".join(safe(_with_names(str(e), names), 200) for e in events[-4:])
            lines.append(p("Recent:", "bold") + " " + recent)
        pending = obs.get("pending")
        if pending:
            known = {**ls.public_faces, **ls.private_faces}

            def show(key: str, value: Any) -> str:
                if key in ("by", "against", "uno_missed_by", "went_out", "sorting") and isinstance(value, int):
                    value = names[value] if 0 <= value < len(names) else value
                if key.endswith("_slot") and isinstance(value, int):  # a slot means nothing to a person: its card
                    card = known.get(value)
                    what = ls.state.deck.names[card] if card is not None else "a face-down card"  # type: ignore[attr-defined]
                    return f"{key.removesuffix('_slot').replace('_', ' ')}: {what}"
                return f"{key.replace('_', ' ')} {value}"

            lines.append(safe("Pending: " + ", ".join(show(k, v) for k, v in pending.items() if k != "slot"), LINE))
        hand = [h.get("name") or "?" for h in obs.get("hand", [])]
        lines.append(p("Your hand", "bold") + f" ({len(hand)}): " + ", ".join(p.card(h) for h in hand))
        return lines

    def _hpsha_view(self, ls: Lockstep, obs: dict[str, Any]) -> list[str]:
        p = self.paint
        turn = obs.get("turn")
        current = f" of {self._name(ls, turn)}" if isinstance(turn, int) and 0 <= turn < ls.players else ""
        lines = [p(f"Table — Harry Potter Sha, turn {obs.get('turn_no')}", "bold")
                 + f"   {obs.get('phase')} phase{current}   deck: {obs.get('deck')}"
                 + (f"   discard pile top: {p.card(str(obs['discard_top']))}" if obs.get("discard_top") else "")]
        for s, text in enumerate(obs.get("players", [])):
            line = f"  {safe(text, LINE)}  — {self._name(ls, s)}"
            lines.append(p(line, "green") if s == ls.seat else line)
        log = (obs.get("log_zh") if self.lang == "zh" else None) or obs.get("log") or []  # words.py renders both
        if log:
            lines.append(p("Recent:", "bold"))
            lines.extend(f"  {safe(entry, LINE)}" for entry in log[-5:])
        lines.append(p("You", "bold") + f": identity {obs.get('identity', '?')}"
                     + (f", attack range {obs['attack_range']}" if "attack_range" in obs else ""))
        hand = obs.get("hand", [])
        lines.append(p("Your hand", "bold") + f" ({len(hand)}): " + ", ".join(p.card(str(h)) for h in hand))
        return lines

    @property
    def asking(self) -> bool:
        """A prompt is open: no progress line may overwrite it."""
        return self.prompts_open > 0

    def prompt_text(self, ls: Lockstep) -> str:
        step = ls.step
        prompt = step.prompt if isinstance(step, Decide) else ""
        if ls.game.name == "uno":
            return _UNO_PROMPTS.get(prompt, prompt)
        if ls.game.name == "hpsha":
            return self._loc(ls, _hpsha_prompt(prompt))
        return ls.state.describe_prompt(prompt)

    def label(self, ls: Lockstep, action: Action) -> str:
        assert ls.seat is not None
        return safe(self._loc(ls, _strip_self(action_label(ls, action), ls.seat)), LINE)

    def choices(self, ls: Lockstep, legal: list[Action]) -> list[Action]:
        """The legal actions worth a menu line each: of several that read the same (two copies of one card),
        the first."""
        seen: set[str] = set()
        out = []
        for action in legal:
            label = self.label(ls, action)
            if label not in seen:
                seen.add(label)
                out.append(action)
        return out

    def menu(self, ls: Lockstep, legal: list[Action]) -> list[str]:
        return [f"  {self.paint(f'{i:>2}', 'bold')}. {self.label(ls, action)}" for i, action in enumerate(legal, 1)]

    def show_turn(self, ls: Lockstep, legal: list[Action], asked: int = 0) -> None:
        assert ls.seat is not None
        p = self.paint
        self.write()
        self.write(p("─" * 24 + " Your view " + "─" * 25, "bold"))
        for line in self.view_lines(ls):
            self.write(line)
        if self.carried:
            self.write(p(carried_line(self.carried), "dim"))
        what = safe(self.prompt_text(ls), 200) or "your decision"
        mark = f"  #{asked}" if asked else ""  # (the question's number)
        self.write(p(f"▶ {self._name(ls, ls.seat)} (seat {ls.seat}): {what}{mark}", "yellow", "bold"))
        for line in self.menu(ls, legal):
            self.write(line)

    async def decide(self, ls: Lockstep) -> Action:
        """Ask the person until they give a valid choice (Quit on q, end of input or Ctrl-C)."""
        assert ls.seat is not None
        legal = self.choices(ls, ls.legal_actions())
        if len(legal) == 1 and self.auto_forced and ls.state.forced_in_public(ls.seat):
            label = safe(self._loc(ls, _strip_self(action_label(ls, legal[0]), ls.seat)), LINE)
            self.write(self.paint(f"▶ {self._name(ls, ls.seat)}: {label}  (your only choice)", "dim"))
            return legal[0]
        self.questions += 1
        asked = self.questions
        self.show_turn(ls, legal, asked)
        n = len(legal)
        hint = (f"Choose 1–{n}" + (" (Enter = 1)" if n == 1 else "") + ", v to view again, ? NAME for help"
                + (", > text to chat" if self.say is not None else "") + ", q to quit: ")
        while True:
            self.prompts_open += 1
            try:
                line = await read_line(self.paint(hint, "bold"), self.ask)
            finally:
                self.prompts_open -= 1  # (not a flag: a withdrawn question's end cleared the next one's, rt7-stale)
            if line is None:
                raise Quit()
            if (meant := _QUESTION.match(line)) is not None:  # "#7 2": 2, if question 7 is still the one open
                if int(meant[1]) != asked:  # typed for a question withdrawn meanwhile (§3.5): not played here
                    self.write(self.paint(f"  that answer is for question #{safe(meant[1], 12)}, but question "
                                          f"#{asked} is open (above): not played", "red"))
                    continue
                line = meant[2]
            if self.say is not None and line.lstrip().startswith(">"):
                self.send_chat(line.lstrip()[1:])
                continue
            raw = line.strip().lower()
            if raw in ("q", "quit", "exit"):
                raise Quit()
            if raw.startswith("?") and raw[1:].strip():
                for out in help_lines(ls.game.name, self.lang or "en", line.strip()[1:]):
                    self.write(out)
                continue
            if raw == "" and n == 1:
                return legal[0]
            if raw in ("v", "view", "?", "h", "help"):
                self.show_turn(ls, legal, asked)
                continue
            if (k := number(raw)) is not None and 1 <= k <= n:
                return legal[k - 1]
            self.write(self.paint(f"  '{safe(raw, 20)}' is not a choice: type a number from 1 to {n}.", "red"))


    # ---- chat (protocol.md §3.8): lines typed after ">" at a prompt; lines heard printed escaped

    def send_chat(self, text: str) -> None:
        assert self.say is not None
        try:
            self.say(text)
        except Exception as err:  # too long, empty, too fast: say why, keep the prompt
            self.write(self.paint(f"  (not sent: {safe(err, 200)})", "red"))

    def chat_line(self, seat: int, text: str, dropped: bool = False) -> None:
        """A chat line (or a dropped one's reason) from ``seat``, escaped: remote text never reaches a terminal raw."""
        who = f"{safe(self.names[seat], NAME)} (seat {seat})" if 0 <= seat < len(self.names) else f"seat {seat}"
        width = shutil.get_terminal_size().columns
        if dropped:
            self.write(self.paint(hang(f"! dropped a chat line from {who}: {safe(text, 300)}", width), "red"))
        else:
            self.write(self.paint(hang(f"» {who}: {safe(text, 300)}", width), "cyan"))


def chat_hooks(ui: TerminalUI, names: Sequence[str]) -> dict[str, Any]:
    """The :class:`~p2php.session.runner.PeerConfig` fields that give the person at ``ui`` the table's chat:
    lines typed after ``>`` at a prompt go to the table, lines heard are printed escaped (§3.8)."""
    from p2php.session.chat import ChatLine

    tx, rx = trio.open_memory_channel[str](16)

    def say(text: str) -> None:
        try:
            tx.send_nowait(text)
        except trio.WouldBlock:
            raise UsageError("slow down: the last lines are still being sent") from None

    def heard(note: Any) -> None:
        if isinstance(note, ChatLine):
            ui.chat_line(note.seat, note.text)
        else:
            ui.chat_line(note.seat, note.reason, dropped=True)

    ui.say = say
    ui.names = tuple(names)
    return {"chat": rx, "on_chat": heard}
HELP_SHOWN = 3
"""Entries ``? NAME`` prints in full; more matches are listed by name only."""


def help_lines(game: str, lang: str, query: str) -> list[str]:
    """What ``? NAME`` prints: the card, character, skill (sheet, cell …) ``query`` names, from the game's data
    through :mod:`p2php.gamehelp` (the browser's help panel shows the same entries)."""
    from p2php.gamehelp import find, help_entries

    entries = help_entries(game, lang if lang in ("en", "zh") else "en")
    if not entries:
        return [f"  no help for {game} yet"]
    found = find(entries, query)
    if not found:
        return [f"  nothing called '{safe(query.strip(), 40)}' in {game}: try part of a card, character or skill name"]
    out: list[str] = []
    for entry in found[:HELP_SHOWN]:
        out.append(f"  {entry['title']}" + (f" — {entry['facts']}" if entry["facts"] else ""))
        out += [f"    {line}" for line in str(entry["text"]).split("\n") if line.strip()]
    if len(found) > HELP_SHOWN:
        out.append("  also: " + ", ".join(e["title"] for e in found[HELP_SHOWN:HELP_SHOWN + 12])
                   + (" …" if len(found) > HELP_SHOWN + 12 else ""))
    return out


def want_tty(stream: TextIO) -> bool:
    """Whether progress may be redrawn in place (a real terminal, not a file or pipe)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def progress_text(ls: Lockstep) -> str | None:
    """What the table is busy with, if anything worth a progress line (None: nothing)."""
    if ls.finished:
        return None
    if ls.auditing:
        return "the game is over: every peer releases its secrets and checks the whole game…"
    step = ls.step
    n = ls.players
    name = ls.table.name
    if isinstance(step, Shuffle):
        phase = ls.phase
        total = 2 * n
        if phase < n:
            rec = ls.decks[-1] if ls.decks and ls.decks[-1].tick == ls.tick else None
            who = rec.pass_order(n)[phase] if rec is not None else None
            verb = "shuffles"
        else:
            who = 2 * n - 1 - phase
            verb = "locks"
        actor = f"{clean(name(who))} {verb}" if who is not None else verb
        purpose = _purpose(step.purpose)
        return f"shuffling {len(step.cards)} cards ({purpose})… pass {min(phase + 1, total)}/{total}: {actor}"
    waiting = [s for s in ls.waiting_for() if s != ls.seat]
    names = ", ".join(clean(name(s)) for s in waiting)
    if isinstance(step, Deal):
        return f"dealing {len(step.to)} card(s)… waiting for keys from {names}" if names else "dealing…"
    if isinstance(step, Reveal):
        return f"revealing {len(step.slots)} card(s)… waiting for {names}" if names else "revealing…"
    if isinstance(step, Show):
        return "a card is shown privately…"
    if isinstance(step, Randomness):
        return f"drawing joint randomness ({_purpose(step.purpose)})…"
    if isinstance(step, Decide) and waiting:
        return f"waiting for {names} to decide…"
    return None


_QUESTION = re.compile(r"\s*#\s*(\d{1,12})\s*(.*)\Z", re.DOTALL)
"""A line that names its question: ``#7 2`` answers 2 to question 7 only (the number a menu's header shows)."""


def terminal_decider(
    out: TextIO | None = None, ask: Callable[[str], str] | None = None, lang: str | None = None
) -> Callable[[Lockstep], Any]:
    """A decider that asks a person, re-asking until the answer is valid (see :class:`TerminalUI`)."""
    return TerminalUI(out, ask, lang).decide


class _Waiting:
    """A read waiting for the person's next line: the reading thread hands the line to it through trio."""

    def __init__(self, prompt: str) -> None:
        self.prompt = prompt
        self.token = trio.lowlevel.current_trio_token()
        self.done = trio.Event()
        self.line: str | None = None
        self.error: BaseException | None = None

    def give(self, line: str | None, error: BaseException | None) -> None:  # (in trio's thread)
        self.line, self.error = line, error
        self.done.set()


class _LineSource:
    """One input (``input()``, or a test's ``ask``) and the one thread that reads it: at most one read of it is in
    flight whatever the reads waiting on it (§ read_line)."""

    def __init__(self, reader: Callable[[str], str]) -> None:
        self.reader = reader
        self.waiting: list[_Waiting] = []  # the reads waiting, oldest first: the newest takes the next line
        self.busy = False  # the thread is in ``reader`` (or about to be)
        self.reading: str | None = None  # the prompt the thread's ``reader`` shows now (None: between two reads)

    def run(self, prompt: str) -> None:
        while True:
            line: str | None = None
            error: BaseException | None = None
            try:
                line = self.reader(prompt)
            except (EOFError, KeyboardInterrupt):
                pass
            except BaseException as err:  # handed to the read, which raises it
                error = err
            with _SOURCES_LOCK:
                waiting = self.waiting.pop() if self.waiting else None
                self.reading = None
            if waiting is not None:  # else the question it was typed for was withdrawn: dropped (read_line)
                with contextlib.suppress(trio.RunFinishedError):
                    waiting.token.run_sync_soon(waiting.give, line, error)
            with _SOURCES_LOCK:
                if not self.waiting:
                    self.busy = False
                    _SOURCES.pop(self.reader, None)
                    return
                prompt = self.reading = self.waiting[-1].prompt


_SOURCES: dict[Callable[[str], str], _LineSource] = {}
_SOURCES_LOCK = threading.Lock()


async def read_line(prompt: str, ask: Callable[[str], str] | None = None) -> str | None:
    """One line from the person (None at end of input), without blocking trio; cancellable.

    ``input()`` (or ``ask``) blocks and cannot be interrupted, so it runs in a worker thread, and one thread at most
    reads an input: a read cancelled (a question withdrawn in the rejoin hold, Ctrl-C, the game ending under the
    prompt) leaves it reading, and the line it brings goes to the read that waits when it comes -- the next question,
    asked meanwhile (its prompt is shown again). Before, each read had its own thread: the abandoned one took the
    next line typed and lost it, and the next question waited for another (rt7-stale). A line that comes while no
    read waits was typed for the withdrawn question: it is dropped, not kept for the next one, which may be a
    different question where the same number means a different move. Nothing is read while no read waits (the
    rest of a paste stays in the terminal's buffer): one line at most is held.
    """
    reader = ask or input
    waiting = _Waiting(prompt)
    with _SOURCES_LOCK:
        source = _SOURCES.setdefault(reader, _LineSource(reader))
        source.waiting.append(waiting)  # (a read still waiting is most often one being cancelled -- the withdrawn
        # question's decider, not yet run since it was cancelled: the newest question is the one the person sees,
        # and takes the line; one that is not cancelled takes the next line after it, never waits for good: two
        # people at one input in one process, a test's host and joiner, both asked "Play again?" at once)
        start, source.busy = not source.busy, True
        if start:
            source.reading = prompt
        # (a thread between two reads shows this prompt itself: printed here too, it was shown twice, rv7-stale)
        shown_by_thread = source.reading is None
    if start:
        threading.Thread(target=source.run, args=(prompt,), daemon=True, name="p2php read_line").start()
    elif reader is input and not shown_by_thread:  # the thread shows the withdrawn question's prompt: show this one's
        sys.stdout.write(prompt)
        sys.stdout.flush()
    try:
        await waiting.done.wait()
    finally:
        with _SOURCES_LOCK:
            if waiting in source.waiting:
                source.waiting.remove(waiting)
    if waiting.error is not None:
        raise waiting.error
    return waiting.line


def number(text: str) -> int | None:
    """``text`` as a number the person typed (ASCII digits, at most 9), else None. ``str.isdigit`` takes "²" and
    "①", which ``int`` refuses, and ``int`` refuses more than 4 300 digits: a ValueError took the seat down with a
    traceback mid-game, or the host's lobby at ``k²`` (red-team rt8-red2)."""
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) else None


def print_lines(lines: Iterable[str], out: TextIO | None = None) -> None:
    stream = out if out is not None else sys.stdout
    for line in lines:
        stream.write(line + "\n")
    stream.flush()


def safety_line(ls: Lockstep) -> str:
    """The table's safety code, and when to compare it (see README: "Is it one table?")."""
    return (f"safety code: {ls.table.safety_code}  — everyone at the table must see the same code; "
            "compare it aloud or by chat (a different code means you are not all in one game)")


def summary_lines(ls: Lockstep, lang: str | None = None) -> list[str]:
    """The end of a game for a person: the result and the audit verdict."""
    localize = Localizer(ls.game.name, lang)
    lines = ["─" * 60]
    if ls.result is not None:
        text = ls.result.summary or f"winner: {list(ls.result.winners)} scores: {list(ls.result.scores)}"
        names = [f"seat {s} ({clean(ls.table.name(s))})" for s in range(ls.players)]
        lines.append(safe(localize(_with_names(text, names)), LINE))
    lines.append(f"audit: {verdict_text(ls.verdict, ls.table)}")
    lines.append(f"safety code: {ls.table.safety_code}")
    return lines


def link_line(name: str, seat: int, up: bool, wait: float) -> str:
    """A seat's link dropped or came back, for a person (``name`` already escaped)."""
    if up:
        return f"! {name} (seat {seat}) is back"
    return f"! {name} (seat {seat}) lost the connection: the table waits up to {wait:.0f} s for them to come back"


def carried_line(carried: dict[int, tuple[str, str]]) -> str:
    """The line of link states at an online table: ``seat -> (escaped name, direct | hole-punched | relayed)``."""
    return "links now: " + " · ".join(f"seat {s} ({name}) {how}" for s, (name, how) in sorted(carried.items()))

"""The magical-creature pack's data (§11): card ids, names, executors and the card faces we chose.

The rulebook gives each creature only an executor and a one-line effect, advantage and
disadvantage; the printed card faces are missing (§15.6).  Where a face is needed, the effect
below is **our choice** (decision C-list in the package docstring), kept as small as the text
allows.  Card ids follow the rulebook's order of all eleven creatures, ``CREATURE_BASE + i``, so that
adding the creatures not played yet never renumbers the others.  Only the creatures in
``PLAYED`` are offered by the ``creatures`` option: the rest are not implemented and are not
dealt (no stand-ins).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Creature:
    """One creature card: its key, names, who carries it out, and whether it stays in play."""

    key: str
    zh: str
    en: str
    executor: str  # current | next (the current's next player) | killer | phoenix (lowest HP, no kill)
    stays: bool  # stays with its holder until the holder dies (then back to the creature deck)
    face: str  # the effect as played here ("our choice" where the rulebook gives no card face)


ALL_KEYS = ("gnome", "unicorn", "phoenix", "dragon", "salamander", "acromantula", "werewolf", "centaur",
            "merpeople", "basilisk", "thestral")
"""All eleven creatures in the rulebook's order: creature ``k`` is card id ``CREATURE_BASE + ALL_KEYS.index(k)``."""

CREATURE_BASE = 139  # data.UNIVERSE: the creatures follow the character cards (data imports this module)
CREATURE_END = CREATURE_BASE + len(ALL_KEYS)

CREATURES: dict[str, Creature] = {c.key: c for c in (
    Creature("gnome", "地精", "Gnome", "current", True,
             "must be equipped: its holder chooses an empty equipment slot (weapon, armour, +1 or −1 broom), or "
             "with none an equipped card it replaces (discarded); that slot takes no card while it stays and "
             "the gnome does nothing there; its advantage (our choice of how): once per turn in its own play "
             "phase its holder borrows another living character's equipment card into its own matching slot, if "
             "free, uses it for the rest of the turn, and gives it back at the end of the turn (discarded if that "
             "slot took another card, or its owner died)"),
    Creature("centaur", "马人", "Centaur", "current", True,
             "our choice: kept by the character whose turn it is, it takes a seat at the table right after it "
             "(before its next living player) and counts as a place in every distance across that gap; its "
             "holder, once per turn in its own play phase, may place a hand card face up (明置: shown to all, it "
             "stays in the hand) to look at the top 3 deck cards and put them back in any order"),
    Creature("unicorn", "独角兽", "Unicorn", "killer", False,
             "our choice: the killer turns over the deck top: ♥ recovers 1 HP (draws 1 at full HP), ♦ draws 1, "
             "♠ loses 1 HP, ♣ discards a random hand card; no killer (or a dead one): void"),
    Creature("phoenix", "凤凰", "Phoenix", "phoenix", True,
             "kept on the character card: fire damage and 阿瓦达索命's damage to its holder are prevented "
             "(our choice: every time, until the holder dies)"),
    Creature("dragon", "火龙", "Dragon", "current", True,
             "our choice: the dragon card itself is the 龙蛋 dragon egg (the pack's 12th card is not identified) "
             "kept on its holder's character card; before every turn (with its start) the character whose turn "
             "it is turns over the deck top: ♥ the egg's holder recovers 1 HP, ♦ the egg goes to the character "
             "whose turn it is, ♠ its holder is burned (1 sourceless fire damage: the phoenix shields), ♣ its "
             "holder discards a random hand card"),
    Creature("salamander", "火蜥蜴", "Salamander", "current", True,
             "obtained face down; our choice: it turns face up (activated) when its holder's next turn starts; "
             "while an activated salamander is on the field, every character in its own play phase may, once "
             "per turn, discard a red hand card to have one wounded character recover 1 HP"),
    Creature("acromantula", "巨蜘蛛", "Acromantula", "next", True,
             "covers its holder's HP: our choice, the holder cannot recover HP at all (凤凰眼泪 cannot save it "
             "from dying: nobody is asked); at the start of the holder's turn it turns over the deck top — ♠: "
             "the holder takes 1 sourceless damage, otherwise nothing; at the end of that turn it passes to the "
             "next living player"),
    Creature("werewolf", "狼人", "Werewolf", "current", True,
             "the executor turns into the werewolf: its character's skills (locked and continuous ones too) "
             "are lost while it stays (our choice: until the holder dies; lasting effects already in force go "
             "on); our choice for the bite: each time its 爆破咒 deals damage, the target's next living player, "
             "unless that is the holder, takes 1 sourceless damage"),
    Creature("merpeople", "人鱼", "Merpeople", "current", False,
             "our choice: the executor turns over the deck top: rank A–6 flips the executor (翻面), 7–K nothing"),
    Creature("basilisk", "蛇怪", "Basilisk", "current", False,
             "our choice: the executor turns over the deck top and counts its rank in turn order among the "
             "living, the executor being 1; that character takes 1 sourceless damage (the gaze)"),
    Creature("thestral", "夜骐", "Thestral", "current", True,
             "the executor's −1 broom (火弩箭 included) is discarded and the thestral takes its place: distance "
             "to others −2, never discarded; no −1 broom can be equipped there again while it stays"),
)}
"""The creatures played here (the ``creatures`` option deals at most this many)."""

PLAYED = tuple(k for k in ALL_KEYS if k in CREATURES)


def creature_id(key: str) -> int:
    return CREATURE_BASE + ALL_KEYS.index(key)


def creature_key(card: int) -> str:
    return ALL_KEYS[card - CREATURE_BASE]


def creature_label(card: int) -> str:
    c = CREATURES.get(creature_key(card))
    return f"{c.zh} {c.en}" if c is not None else creature_key(card)

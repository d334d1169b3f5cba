"""Fixed tables of Harry Potter Sha: the 104-card deck, card kinds, characters, identities, role table.

Everything here is immutable data, shared by every peer.  The card instance ids
(the contract's "universe") are assigned in one fixed order so that every peer
agrees on them without communication:

* ``0 .. 103``   the game cards, suit by suit (♠ ♣ ♥ ♦), rank A..K, left card of
  the hpsha-data.md table cell first;
* ``104 .. 113`` the ten identity cards (1 minister, 3 aurors, 4 dark wizards,
  2 spies) — a game uses the subset its role-table row needs;
* ``114 .. 138`` the 25 character cards in the order of the character table.

The deck composition, suits, ranks, character HP and gender come from
``shared/rules/hpsha-data.md`` (a p2php design decision: Sanguosha's standard
deck slots renamed), used as given.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2php.games.hpsha.creature_data import CREATURE_BASE, CREATURE_END, creature_label

# ----------------------------------------------------------------------------- card kinds

BASIC, SPELL, EQUIPMENT = "basic", "spell", "equipment"
INSTANT, DELAYED = "instant", "delayed"
WEAPON, ARMOUR, PLUS, MINUS = "weapon", "armour", "plus", "minus"
EQUIP_SLOTS = (WEAPON, ARMOUR, PLUS, MINUS)


@dataclass(frozen=True, slots=True)
class Kind:
    """One card name (爆破咒, 胡桃木魔杖, ...) and its rule category."""

    key: str
    zh: str
    en: str
    category: str  # basic | spell | equipment
    sub: str = ""  # instant | delayed for spells; weapon | armour | plus | minus for equipment
    range: int = 0  # attack range of a weapon
    distance: int = 0  # broom modifier: +1 (plus) or -1 / -2 (minus)


KINDS: dict[str, Kind] = {
    k.key: k
    for k in (
        Kind("bombarda", "爆破咒", "Bombarda", BASIC),
        Kind("apparate", "幻影移形", "Apparate", BASIC),
        Kind("tears", "凤凰眼泪", "Phoenix Tears", BASIC),
        Kind("geminio", "复制成双", "Geminio", SPELL, INSTANT),
        Kind("expelliarmus", "除你武器", "Expelliarmus", SPELL, INSTANT),
        Kind("legilimens", "摄神取念", "Legilimens", SPELL, INSTANT),
        Kind("sectumsempra", "神锋无影", "Sectumsempra", SPELL, INSTANT),
        Kind("stupefy", "昏昏倒地", "Stupefy", SPELL, INSTANT),
        Kind("reparo", "修复如初", "Reparo", SPELL, INSTANT),
        Kind("aguamenti", "清水如泉", "Aguamenti", SPELL, INSTANT),
        Kind("out_of_body", "灵魂出窍", "Out of Body", SPELL, INSTANT),
        Kind("crucio", "钻心剜骨", "Crucio", SPELL, INSTANT),
        Kind("patronus", "呼神护卫", "Expecto Patronum", SPELL, INSTANT),
        Kind("counter", "咒立停", "Finite Incantatem", SPELL, INSTANT),
        Kind("bind", "统统石化", "Petrificus Totalus", SPELL, DELAYED),
        Kind("impediment", "障碍重重", "Impedimenta", SPELL, DELAYED),
        Kind("avada", "阿瓦达索命", "Avada Kedavra", SPELL, DELAYED),
        Kind("holly", "冬青木魔杖", "Holly Wand", EQUIPMENT, WEAPON, range=3),
        Kind("sword", "格兰芬多剑", "Sword of Gryffindor", EQUIPMENT, WEAPON, range=2),
        Kind("walnut", "胡桃木魔杖", "Walnut Wand", EQUIPMENT, WEAPON, range=2),
        Kind("willow", "柳木魔杖", "Willow Wand", EQUIPMENT, WEAPON, range=2),
        Kind("vine", "葡萄藤木魔杖", "Vine Wand", EQUIPMENT, WEAPON, range=2),
        Kind("maple", "槭木魔杖", "Maple Wand", EQUIPMENT, WEAPON, range=3),
        Kind("oak", "橡木魔杖", "Oak Wand", EQUIPMENT, WEAPON, range=3),
        Kind("bludger", "游走球", "Bludger", EQUIPMENT, WEAPON, range=3),
        Kind("quill", "羽毛笔", "Quill", EQUIPMENT, WEAPON, range=3),
        Kind("nimbus2000", "+1扫帚 光轮2000", "+1 Broom Nimbus 2000", EQUIPMENT, PLUS, distance=1),
        Kind("cleansweep", "+1扫帚 横扫七星", "+1 Broom Cleansweep Seven", EQUIPMENT, PLUS, distance=1),
        Kind("silverarrow", "+1扫帚 银箭", "+1 Broom Silver Arrow", EQUIPMENT, PLUS, distance=1),
        Kind("nimbus2001", "−1扫帚 光轮2001", "−1 Broom Nimbus 2001", EQUIPMENT, MINUS, distance=-1),
        Kind("comet260", "−1扫帚 彗星260", "−1 Broom Comet 260", EQUIPMENT, MINUS, distance=-1),
        Kind("firebolt", "火弩箭", "Firebolt (−2)", EQUIPMENT, MINUS, distance=-2),
        Kind("hat", "分院帽", "Sorting Hat", EQUIPMENT, ARMOUR),
        Kind("cloak", "隐形斗篷", "Invisibility Cloak", EQUIPMENT, ARMOUR),
    )
}

SUITS = ("♠", "♣", "♥", "♦")
SPADE, CLUB, HEART, DIAMOND = SUITS
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

# Rank A..K per suit; each cell is the two cards of hpsha-data.md, left first.
_TABLE: dict[str, tuple[tuple[str, str], ...]] = {
    SPADE: (
        ("crucio", "avada"), ("vine", "hat"), ("legilimens", "expelliarmus"),
        ("legilimens", "expelliarmus"), ("bludger", "nimbus2000"), ("sword", "bind"),
        ("bombarda", "stupefy"), ("bombarda", "bombarda"), ("bombarda", "bombarda"),
        ("bombarda", "bombarda"), ("legilimens", "counter"), ("oak", "impediment"),
        ("stupefy", "nimbus2001"),
    ),
    CLUB: (
        ("crucio", "walnut"), ("bombarda", "cloak"), ("bombarda", "expelliarmus"),
        ("bombarda", "expelliarmus"), ("bombarda", "cleansweep"), ("bombarda", "impediment"),
        ("bombarda", "stupefy"), ("bombarda", "bombarda"), ("bombarda", "bombarda"),
        ("bombarda", "bombarda"), ("bombarda", "bombarda"), ("out_of_body", "counter"),
        ("out_of_body", "counter"),
    ),
    HEART: (
        ("reparo", "sectumsempra"), ("apparate", "apparate"), ("tears", "aguamenti"),
        ("tears", "aguamenti"), ("maple", "firebolt"), ("tears", "bind"),
        ("tears", "geminio"), ("tears", "geminio"), ("tears", "geminio"),
        ("bombarda", "bombarda"), ("bombarda", "geminio"), ("tears", "patronus"),
        ("apparate", "silverarrow"),
    ),
    DIAMOND: (
        ("crucio", "quill"), ("apparate", "apparate"), ("apparate", "legilimens"),
        ("apparate", "patronus"), ("apparate", "holly"), ("bombarda", "apparate"),
        ("bombarda", "apparate"), ("bombarda", "apparate"), ("bombarda", "apparate"),
        ("bombarda", "apparate"), ("apparate", "apparate"), ("tears", "willow"),
        ("bombarda", "comet260"),
    ),
}


@dataclass(frozen=True, slots=True)
class Card:
    """One physical game card: its kind, suit and rank."""

    id: int
    kind: str
    suit: str
    rank: int

    @property
    def red(self) -> bool:
        return self.suit in (HEART, DIAMOND)

    @property
    def colour(self) -> str:
        return "red" if self.red else "black"

    @property
    def category(self) -> str:
        return KINDS[self.kind].category


def _build_deck() -> tuple[Card, ...]:
    cards: list[Card] = []
    for suit in SUITS:
        for rank0, cell in enumerate(_TABLE[suit]):
            for kind in cell:
                cards.append(Card(len(cards), kind, suit, rank0 + 1))
    return tuple(cards)


CARDS: tuple[Card, ...] = _build_deck()
GAME_CARDS = len(CARDS)  # 104
KIND_FACES: dict[str, frozenset[int]] = {k: frozenset(c.id for c in CARDS if c.kind == k)
                                         for k in {c.kind for c in CARDS}}
"""Card name -> the ids of the game cards of that name (``face in KIND_FACES[k]``: ``CARDS[face].kind == k``,
``None`` included)."""

# ----------------------------------------------------------------------------- identities

MINISTER, AUROR, DARK, SPY = "minister", "auror", "dark_wizard", "spy"
ROLE_NAMES = {
    MINISTER: "部长 Minister",
    AUROR: "傲罗 Auror",
    DARK: "黑巫师 Dark Wizard",
    SPY: "卧底 Spy",
}
IDENTITY_BASE = GAME_CARDS  # 104
IDENTITIES: tuple[str, ...] = (MINISTER,) + (AUROR,) * 3 + (DARK,) * 4 + (SPY,) * 2

# players -> (minister, aurors, dark wizards, spies); alternative rows for 4, 6, 8.
ROLE_TABLE: dict[int, tuple[int, int, int, int]] = {
    4: (1, 1, 1, 1), 5: (1, 1, 2, 1), 6: (1, 1, 3, 1), 7: (1, 2, 3, 1),
    8: (1, 2, 4, 1), 9: (1, 3, 4, 1), 10: (1, 3, 4, 2),
}
ROLE_TABLE_ALT: dict[int, tuple[int, int, int, int]] = {4: (1, 0, 2, 1), 6: (1, 1, 2, 2), 8: (1, 2, 3, 2)}


def role_counts(players: int, alt: bool) -> tuple[int, int, int, int]:
    """The row of the role table for this many players (alternative row when asked and one exists)."""
    if alt and players in ROLE_TABLE_ALT:
        return ROLE_TABLE_ALT[players]
    return ROLE_TABLE[players]


def identity_cards(players: int, alt: bool) -> tuple[int, ...]:
    """Card ids of the identity cards in play (the first copies of each role)."""
    m, a, d, s = role_counts(players, alt)
    out = [IDENTITY_BASE]
    out += [IDENTITY_BASE + 1 + i for i in range(a)]
    out += [IDENTITY_BASE + 4 + i for i in range(d)]
    out += [IDENTITY_BASE + 8 + i for i in range(s)]
    assert m == 1
    return tuple(out)


def identity_role(card: int) -> str:
    return IDENTITIES[card - IDENTITY_BASE]


# ----------------------------------------------------------------------------- characters

FACTIONS = {
    "gryffindor": "格兰芬多 Gryffindor",
    "hogwarts": "霍格沃茨 Hogwarts",
    "slytherin": "斯莱特林 Slytherin",
    "ravenclaw": "拉文克劳 Ravenclaw",
    "dark_mark": "黑魔标记 Dark Mark",
    "phoenix": "凤凰社 Order of the Phoenix",
}


@dataclass(frozen=True, slots=True)
class Character:
    """A character card: HP and gender from hpsha-data.md; ``skilled`` if its skills are implemented."""

    key: str
    zh: str
    en: str
    faction: str
    hp: int
    gender: str
    skilled: bool = False

    @property
    def label(self) -> str:
        tail = "" if self.skilled else "（无技能 stand-in）"
        return f"{self.zh} {self.en}{tail}"


CHARACTERS: tuple[Character, ...] = (
    Character("harry", "哈利·波特", "Harry Potter", "gryffindor", 4, "M", True),
    Character("hermione", "赫敏·格兰杰", "Hermione Granger", "gryffindor", 3, "F", True),
    Character("ron", "罗恩·韦斯莱", "Ron Weasley", "gryffindor", 4, "M", True),
    Character("neville", "纳威·隆巴顿", "Neville Longbottom", "gryffindor", 4, "M", True),
    Character("ginny", "金妮·韦斯莱", "Ginny Weasley", "gryffindor", 3, "F", True),
    Character("fred_george", "弗雷德&乔治", "Fred & George", "gryffindor", 4, "M", True),
    Character("dumbledore", "阿不思·邓布利多", "Albus Dumbledore", "hogwarts", 3, "M", True),
    Character("mcgonagall", "米勒娃·麦格", "Minerva McGonagall", "hogwarts", 3, "F", True),
    Character("snape", "西弗勒斯·斯内普", "Severus Snape", "hogwarts", 3, "M", True),
    Character("flitwick", "菲利乌斯·弗立维", "Filius Flitwick", "hogwarts", 3, "M", True),
    Character("hagrid", "鲁伯·海格", "Rubeus Hagrid", "hogwarts", 4, "M", True),
    Character("lupin", "莱姆斯·卢平", "Remus Lupin", "hogwarts", 4, "M", True),
    Character("trelawney", "西比尔·特里劳妮", "Sybill Trelawney", "hogwarts", 3, "F", True),
    Character("filch", "阿格斯·费尔奇", "Argus Filch", "hogwarts", 4, "M", True),
    Character("draco", "德拉科·马尔福", "Draco Malfoy", "slytherin", 4, "M", True),
    Character("crabbe_goyle", "克拉布&高尔", "Crabbe & Goyle", "slytherin", 3, "M", True),
    Character("luna", "卢娜·洛夫古德", "Luna Lovegood", "ravenclaw", 3, "F", True),
    Character("voldemort", "伏地魔", "Lord Voldemort", "dark_mark", 4, "M", True),
    Character("lucius", "卢修斯·马尔福", "Lucius Malfoy", "dark_mark", 4, "M", True),
    Character("pettigrew", "小矮星·彼得", "Peter Pettigrew", "dark_mark", 3, "M", True),
    Character("bellatrix", "贝拉特里克斯·莱斯特兰奇", "Bellatrix Lestrange", "dark_mark", 4, "F", True),
    Character("arthur", "亚瑟·韦斯莱", "Arthur Weasley", "phoenix", 4, "M", True),
    Character("molly", "莫丽·韦斯莱", "Molly Weasley", "phoenix", 3, "F", True),
    Character("sirius", "小天狼星·布莱克", "Sirius Black", "phoenix", 4, "M", True),
    Character("tonks", "尼法朵拉·唐克斯", "Nymphadora Tonks", "phoenix", 3, "F", True),
)
CHARACTER_BASE = IDENTITY_BASE + len(IDENTITIES)  # 114
CHARACTER_INDEX = {c.key: i for i, c in enumerate(CHARACTERS)}
UNIVERSE = CHARACTER_BASE + len(CHARACTERS)  # 139
assert UNIVERSE == CREATURE_BASE, "the creature cards follow the character cards"


def character_of(card: int) -> Character:
    return CHARACTERS[card - CHARACTER_BASE]


def character_card(key: str) -> int:
    return CHARACTER_BASE + CHARACTER_INDEX[key]


# ----------------------------------------------------------------------------- names


def card_label(card: int) -> str:
    """Human name of any card instance, Chinese with English beside it (``爆破咒 Bombarda ♠7``)."""
    if 0 <= card < GAME_CARDS:
        c = CARDS[card]
        k = KINDS[c.kind]
        return f"{k.zh} {k.en} {c.suit}{RANK_NAMES[c.rank]}"
    if IDENTITY_BASE <= card < CHARACTER_BASE:
        return "身份 Identity: " + ROLE_NAMES[identity_role(card)]
    if CHARACTER_BASE <= card < UNIVERSE:
        return "人物 Character: " + character_of(card).label
    if CREATURE_BASE <= card < CREATURE_END:  # the creature pack (option ``creatures``)
        return "魔法生物 Creature: " + creature_label(card)
    raise ValueError(f"no card {card} in Harry Potter Sha")


def kind_label(kind: str) -> str:
    k = KINDS[kind]
    return f"{k.zh} {k.en}"


def is_instant(kind: str) -> bool:
    return KINDS[kind].sub == INSTANT


def is_delayed(kind: str) -> bool:
    return KINDS[kind].sub == DELAYED

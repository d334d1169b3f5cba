"""Writes ``p2php/games/hpsha/help_texts.json``: every HP Sha card's and skill's text, in English and Chinese.

Why a generated data file: the page's and the terminal's help must say what the rulebook says, in the
player's language, and nobody should retype it.  The English comes from the rules digest
(``shared/rules/hpsha.md`` §9 cards, §10 characters), the Chinese from the simplified-Chinese rulebook
(``shared/seeds/001_*.txt``).  Kept: a card's timing, target, effect or skill and its ※ rulings; a skill's
text and its ※ rulings.  Dropped: the digest's translator's notes and ambiguity notes (they discuss the
source, not the game).  Cards are matched by their Chinese name (``data.KINDS``), skills by their key
(the digest's identifiers are the engine's skill keys) and else by their Chinese name.

    python tools/extract_hpsha_help.py /work/shared   # then review the diff of help_texts.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from p2php.games.hpsha import characters  # noqa: F401  (registers every skill)
from p2php.games.hpsha.creature_data import CREATURES
from p2php.games.hpsha.data import KINDS, MINUS, PLUS
from p2php.games.hpsha.triggers import SKILLS

OUT = Path(__file__).resolve().parent.parent / "p2php" / "games" / "hpsha" / "help_texts.json"


def _clean_en(text: str, names: dict[str, str]) -> str:
    text = re.sub(r"`([a-z_0-9.]+)`", lambda m: names.get(m.group(1), m.group(1).replace("_", " ")), text)
    text = text.replace("**", "").replace("[", "(").replace("]", ")")
    return re.sub(r"\s+", " ", text).strip()


def english(md: str) -> tuple[dict[str, str], dict[str, str]]:
    """(card text by Chinese name, skill text by key and by Chinese name) from the digest."""
    names: dict[str, str] = {}
    for m in re.finditer(r"^#{4,5} `([a-z_0-9]+)` \S+ — (.+)$", md, re.M):
        names[m.group(1)] = re.sub(r" \(.*\)$", "", m.group(2)).strip('"')
    for m in re.finditer(r"^\*\*`([a-z_0-9]+)` \S+ — \"([^\"]+)\"", md, re.M):
        names[m.group(1)] = m.group(2)
    part9 = md[md.index("## 9. Cards"):md.index("## 10. Characters")]
    cards: dict[str, str] = {}
    for block in re.split(r"^(?=#{4,5} `)", part9, flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        zh = re.match(r"#{4,5} `[a-z_0-9]+` (\S+)", head)
        if zh is None:
            continue
        kept = []
        for line in body.splitlines():
            s = line.strip()
            if s.startswith(("- Note", "- Translator", "> ", "Note", "|", "#", '"')) or not s:
                continue
            s = s.removeprefix("- ")
            if s.startswith("**Other:**"):
                s = s.removeprefix("**Other:**").strip()
                if not s:
                    continue
            kept.append(_clean_en(s, names))
        cards[zh.group(1)] = "\n".join(kept)
    part10 = md[md.index("## 10. Characters"):md.index("## 11.")]
    skills: dict[str, str] = {}
    for block in re.split(r"^(?=\*\*`[a-z_0-9]+` )", part10, flags=re.M)[1:]:
        key = re.match(r"\*\*`([a-z_0-9]+)` (\S+)", block)
        assert key is not None
        lines = block.splitlines()
        head = lines[0]
        locked = "Locked" in head
        kept = []
        for line in lines[1:]:
            s = line.strip()
            if s.startswith("#"):
                break
            if not s or s.startswith(("- Note", "- Translator", "> ", "Note")):
                continue
            kept.append(_clean_en(s.removeprefix("- "), names))
        skills[key.group(1)] = skills[key.group(2)] = ("Locked skill. " if locked else "") + "\n".join(kept)
    return cards, skills


def chinese(seed: str) -> tuple[dict[str, str], dict[str, str]]:
    """(card text by Chinese name, skill text by Chinese name) from the simplified rulebook."""
    start = seed.index("卡牌介绍")
    end = seed.index("魔法生物", seed.index("标准包人物牌"))
    lines = [x.strip() for x in seed[start:end].splitlines()]
    cards: dict[str, str] = {}
    skills: dict[str, str] = {}
    current: tuple[dict[str, str], str] | None = None
    for line in lines:
        if not line:
            continue
        whole = re.fullmatch(r"【([^】]+)】", line)
        skill = re.match(r"【([^】]+)】(.+)", line)
        if whole:
            current = (cards, whole.group(1))
            cards[whole.group(1)] = ""
        elif skill and not line.startswith("※"):
            current = (skills, skill.group(1))
            skills[skill.group(1)] = skill.group(2)
        elif current is not None and (line.startswith(("※", "出牌时机", "使用目标", "作用效果", "技能"))
                                      or (current[0] is cards and not cards[current[1]])):
            if line == "其他：":
                continue
            table, key = current
            table[key] = (table[key] + "\n" + line).strip()
        elif current is not None and line != "其他：":
            current = None  # a section heading or a paragraph between entries
    return cards, skills


def english_creatures(md: str) -> dict[str, str]:
    """Each magical creature card's text by key, from the digest's §11.3 (executor, effect, advantage,
    disadvantage), the parenthesised notes kept."""
    part = md[md.index("### 11.3"):md.index("## 12.")]
    out: dict[str, str] = {}
    for block in re.split(r"^(?=#### `)", part, flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        key = re.match(r"#### `([a-z_]+)`", head)
        assert key is not None
        kept = [_clean_en(x.strip().removeprefix("- "), {}) for x in body.splitlines()
                if x.strip().startswith("- **") or x.strip().startswith("- ※")]
        out[key.group(1)] = "\n".join(kept)
    return out


def chinese_creatures(seed: str, names: list[str]) -> dict[str, str]:
    """Each creature card's text by Chinese name, from the rulebook's creature pack (执行者 / 效果 / 优势 / 劣势)."""
    start = seed.index("判选规则")
    lines = [x.strip() for x in seed[start:].splitlines() if x.strip()]
    out: dict[str, str] = {}
    current = None
    for line in lines:
        if line in names:
            current = line
            out[line] = ""
        elif current is not None and line.startswith(("执行者", "效果", "优势", "劣势", "※")):
            out[current] = (out[current] + "\n" + line).strip()
        elif current is not None and out[current]:
            current = None
    return out


def main(shared: Path) -> None:
    md = (shared / "rules" / "hpsha.md").read_text(encoding="utf-8")
    seed = next((shared / "seeds").glob("001_*.txt")).read_text(encoding="utf-8")
    en_cards, en_skills = english(md)
    zh_cards, zh_skills = chinese(seed)
    out: dict[str, dict[str, dict[str, str]]] = {"cards": {}, "skills": {}, "creatures": {}}
    en_creatures = english_creatures(md)
    zh_creatures = chinese_creatures(seed, [c.zh for c in CREATURES.values()])
    for creature in CREATURES.values():
        en, zh = en_creatures.get(creature.key), zh_creatures.get(creature.zh)
        if not en or not zh:
            raise SystemExit(f"no text for creature {creature.key}: en {bool(en)} zh {bool(zh)}")
        out["creatures"][creature.key] = {"en": en, "zh": zh}
    for kind in KINDS.values():
        name = "+1扫帚" if kind.sub == PLUS else "-1扫帚" if kind.sub == MINUS and kind.key != "firebolt" else kind.zh
        en = en_cards.get(name) or en_cards.get(name.replace("-", "−"))
        zh = zh_cards.get(name)
        if kind.key == "firebolt":
            en = f"{en_cards['-1扫帚']}\n{en}"
            zh = f"{zh_cards['-1扫帚']}\n{zh}"
        if not en or not zh:
            raise SystemExit(f"no text for card {kind.key} ({name}): en {bool(en)} zh {bool(zh)}")
        out["cards"][kind.key] = {"en": en, "zh": zh}
    for key, sk in sorted(SKILLS.items()):
        en = en_skills.get(key) or en_skills.get(sk.zh)
        zh = zh_skills.get(sk.zh)
        if key.split("_")[0] in CREATURES:  # a creature's power (gnome, gnome_return): its card's text
            continue
        if not en or not zh:
            print(f"warning: no text for skill {key} ({sk.zh}): en {bool(en)} zh {bool(zh)}", file=sys.stderr)
            continue
        out["skills"][key] = {"en": en, "zh": zh}
    OUT.write_text(json.dumps(out, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(out['cards'])} cards, {len(out['skills'])} skills, {len(out['creatures'])} creatures")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared"))

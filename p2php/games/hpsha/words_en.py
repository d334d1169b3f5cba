"""English lines for Harry Potter Sha events (card and skill names stay "中文 English").

One entry per event kind: ``kind: lambda w, *args: line``, ``w`` a
:class:`~p2php.games.hpsha.words.Speaker`.  Kinds starting ``n_`` are fragments
(a task's note or reason) that other lines embed.  The wording is free to change:
nothing here is hashed.
"""

from __future__ import annotations

from collections.abc import Callable

from p2php.games.hpsha.creature_data import CREATURES
from p2php.games.hpsha.data import CHARACTER_BASE, KINDS, MINISTER, ROLE_NAMES

_VERB = {"use": "uses", "play": "plays", "discard": "discards"}
_CONTRA_END = {"died": "a designated character died before the swap"}


EN: dict[str, Callable[..., str]] = {
    # turn flow
    "characters": lambda w, hps: "characters: " + "; ".join(
        f"seat {x} {w.character(w.chars[x])} HP {hp}" for x, hp in enumerate(hps)),
    "minister": lambda w, s: f"seat {s} is the {ROLE_NAMES[MINISTER]}",
    "minister_picks": lambda w, card: f"the minister picks {w.character(card - CHARACTER_BASE)}",
    "turn": lambda w, no, s, hp, mx: f"— turn {no}: {w.who(s)} (HP {hp}/{mx})",
    "skips": lambda w, s, ph: f"{w.who(s)} skips the {ph} phase",
    "extra_phase": lambda w, s, ph: f"{w.who(s)} carries out an extra {ph} phase",
    "face_up_skip": lambda w, s: f"{w.who(s)} turns face up and skips this turn",
    "flipped": lambda w, s, down: f"{w.who(s)} is flipped face {'down' if down else 'up'}",
    # cards moving
    "draws": lambda w, s, n: f"{w.who(s)} draws {n}",
    "discards": lambda w, s, c: f"{w.who(s)} discards {w.cards(c)}",
    "discarded": lambda w, why, c: f"{w.frag(why)}: {w.cards(c)} discarded",
    "reshuffle": lambda w, n: f"the discard pile ({n} cards) is shuffled into a new deck",
    "remask": lambda w, s, n: f"{w.who(s)}'s hand ({n} cards) is mixed face down before a random pick",
    "takes": lambda w, s, c: f"{w.who(s)} takes {w.cards(c)}",
    "obtains": lambda w, s, c: f"{w.who(s)} obtains {w.cards(c)}",
    "picks": lambda w, ch, c, o, src:
        f"{w.who(ch)} takes {w.cards(c) if c else 'a hand card'} from {w.who(o)} ({w.reason(src)})",
    "duel": lambda w, a, b: f"拼点: {w.cards(a)} vs {w.cards(b)}",
    # using and playing cards
    "uses": lambda w, u, k, c, sk, tg: f"{w.who(u)} uses {w.kind(k)} ({w.cards(c)})"
    + (f" via {w.skill(sk)}" if sk else "") + f" → {w.whos(tg)}",
    "card": lambda w, s, mode, c, k, sk, note: f"{w.who(s)} {_VERB[mode]} {w.cards(c)}"
    + (f" (as {w.kind(k)} via {w.skill(sk)})" if sk else "") + w.frag(note),
    "void": lambda w, k, t, why: f"{w.kind(k)} has no effect on {w.who(t)} ({w.reason(why)})",
    "cancelled": lambda w, k, on: f"{w.kind(k)} on {w.who(on)} is cancelled",
    "patronus_void": lambda w, on, why: f"{w.kind('patronus')} has no effect on {w.who(on)} ({w.reason(why)})",
    "dodged": lambda w, t: f"{w.who(t)} dodges the 爆破咒",
    "quill": lambda w, u, t: f"{w.who(u)} plays a card face down at {w.who(t)} (羽毛笔 Quill)",
    "guess": lambda w, t, g, c, right: f"{w.who(t)} guessed {g}: the card is {w.cards(c)} — "
    + ("right, the card is void" if right else "wrong, it cannot be dodged"),
    "aguamenti": lambda w, c: f"清水如泉 Aguamenti reveals {w.cards(c)}",
    "bind": lambda w, s: f"统统石化: {w.who(s)} skips the play phase",
    "impediment": lambda w, s: f"障碍重重: {w.who(s)}'s distance to others is +1 in this play phase",
    "avada": lambda w, s: f"阿瓦达索命 strikes {w.who(s)}",
    "avada_on": lambda w, s: f"阿瓦达索命 moves on to {w.who(s)}",
    "judgement": lambda w, s, why, c: f"judgement for {w.who(s)} ({w.reason(why)}): {w.cards(c)}",
    "judgement_now": lambda w, c: f"the judgement card is now {w.cards(c)}",
    # equipment
    "vine": lambda w, t, u: f"葡萄藤木魔杖 Vine Wand: {w.who(t)} discards a hand card or lets {w.who(u)} draw",
    "walnut": lambda w: "胡桃木魔杖 Walnut Wand backlash: the 爆破咒 dealt no damage",
    "willow": lambda w: "柳木魔杖 Willow Wand: no hand cards, +1 damage",
    "maple": lambda w, s, c: f"槭木魔杖 Maple Wand: {w.who(s)} discards {w.cards(c)}",
    "hat": lambda w, s, t: f"分院帽 Sorting Hat: {w.who(s)} (same faction) cannot damage {w.who(t)}",
    # damage, HP, death
    "damage": lambda w, t, n, src, via, hp: f"{w.who(t)} takes {n} damage"
    + (f" from {w.who(src)}" if src >= 0 else " (no source)") + f" [{via}] → HP {hp}",
    "no_more_damage": lambda w, t: f"{w.who(t)} cannot take more damage this turn (locked skill)",
    "no_damage_from": lambda w, t, s: f"{w.who(t)} cannot take damage from {w.who(s)} (locked skill)",
    "prevented": lambda w, t: f"the damage to {w.who(t)} is prevented",
    "patronus_cancel": lambda w, t: f"the damage to {w.who(t)} is cancelled by 呼神护卫",
    "lose_hp": lambda w, s, n, why, hp: f"{w.who(s)} loses {n} HP ({w.skill_name(why)}) → HP {hp}",
    "recovers": lambda w, s, hp: f"{w.who(s)} recovers to HP {hp}",
    "rescued": lambda w, s, hp, by: f"{w.who(s)} recovers to HP {hp}",
    "dying": lambda w, s, hp: f"{w.who(s)} is dying (HP {hp})",
    "dies": lambda w, s, k, role: f"☠ {w.who(s)} dies" + (f", killed by {w.who(k)}" if k >= 0 else "")
    + f": {w.role(role)}",
    "dark_bounty": lambda w, k: f"{w.who(k)} killed a dark wizard: draws 3",
    "auror_penalty": lambda w, k: f"the minister killed an auror: {w.who(k)} discards every hand and equipped card",
    # skills in general
    "triggers": lambda w, s, key: f"{w.who(s)}'s {w.skill(key)} triggers",
    "skill": lambda w, s, key: f"{w.who(s)} uses {w.skill(key)}",
    # the characters' skills
    "flyer": lambda w, t: f"擅飞 marker on {w.who(t)}",
    "rescue_show": lambda w, h, c, o: f"解危: {w.who(h)} shows {w.cards(c)} from {w.who(o)}'s hand",
    "mock": lambda w, s, c, got: f"嘲哂: {w.who(s)} discards {w.cards(c)} and takes {w.cards(got)}",
    "rebirth": lambda w, s, n, hp: f"{w.who(s)} uses 复活 Rebirth: discards {n}, HP back to {hp}",
    "rich_show": lambda w, s, c: f"富有: {w.who(s)} displays {w.cards(c)}",
    "rich_take": lambda w, s, take, rest: f"富有: {w.who(s)} takes {w.cards(take)}"
    + (f", discards {w.cards(rest)}" if rest else ""),
    "scheme": lambda w, s, c, t: f"{w.who(s)} uses 阴谋 Scheme: gives {w.cards(c)} to {w.who(t)}",
    "self_harm_dies": lambda w, s: f"自残: {w.who(s)} dies at once",
    "fasc_void": lambda w, c: f"着迷: {w.cards(c)} — an equipment card or a delayed spell: no effect",
    "fasc": lambda w, s, suit, k: f"着迷: this turn {w.who(s)}'s {suit} hand cards count as {KINDS[k].zh}",
    "justice": lambda w, s, c, k: f"司法: {w.who(s)} discards {w.cards(c)}; the {KINDS[k].zh} takes effect directly",
    "worry_take": lambda w, s, t: f"忧心: {w.who(s)} takes 1 point of the damage to {w.who(t)}",
    "worry_hit": lambda w, s, c, t: f"忧心: {w.who(s)} discards {w.cards(c)} to deal 1 damage to {w.who(t)}",
    "wrongful_none": lambda w: "冤狱: nothing happens",
    "disguise": lambda w, s, o, key: f"易容: {w.who(s)} takes {w.who(o)}'s {w.skill(key)} for this turn",
    "unrequited": lambda w, s, t: f"苦恋: {w.who(s)} discards a card so that {w.who(t)} recovers 1 HP",
    "benevolence": lambda w, s, t: f"仁爱: {w.who(s)} prevents the damage to {w.who(t)} and discards two of its cards",
    "affinity": lambda w, s, a, b: f"{w.who(s)} uses 亲和 Affinity: {w.who(a)} gives {w.who(b)} a hand card",
    "affinity_give": lambda w, g, c, b: f"{w.who(g)} gives {w.cards(c)} to {w.who(b)} (亲和)",
    "rebuke": lambda w, s, c, u: f"斥责: {w.who(s)} takes {w.cards(c)} from {w.who(u)}'s equipment",
    "potions": lambda w, s, t: f"{w.who(s)} uses 魔药 Potions on {w.who(t)}",
    "interrogation": lambda w, s, t, ty: f"{w.who(s)} uses 诘难 Interrogation: {w.who(t)} must play a {ty} card",
    "giant": lambda w, s, t: f"{w.who(s)} uses 巨力 Giant Strength: 拼点 with {w.who(t)}",
    "giant_result": lambda w, s, d: f"巨力: {w.who(s)} "
    + (f"wins: attack range +{d} this turn" if d else "does not win: attack range 1 this turn"),
    "reckless": lambda w, near: "鲁莽: the extra damage is void; 1 sourceless damage to "
    + (w.whos(near) if near else "nobody"),
    "prophecy": lambda w, s, c: f"预言: {w.who(s)} reveals {w.cards(c)}",
    "prophecy_result": lambda w, colour, same: f"预言: the judgement card is {colour}, "
    + ("the same colour: draw 1" if same else "another colour"),
    "detention_seal": lambda w, s: f"禁闭: {w.who(s)} cannot activate skills until the end of this turn",
    "detention": lambda w, s, src, k: f"禁闭: {w.who(s)} looks at {w.who(src)}'s hand and sets {k} face down",
    "chess": lambda w, s, c, frm, to: f"棋艺: {w.who(s)} moves {w.cards(c)} from {w.who(frm)} to {w.who(to)}",
    "courage": lambda w, s, t: f"勇气: {w.who(s)} skips the play phase to 拼点 {w.who(t)}",
    "courage_get": lambda w, s, c: f"勇气: {w.who(s)} obtains {w.cards(c)}",
    "courage_won": lambda w, s: f"勇气: {w.who(s)} wins and will skip the discard phase",
    "shy": lambda w, s, c: f"羞赧: {w.who(s)} takes {w.cards(c)} back",
    "bat": lambda w, c, t, area, eq: f"蝠咒: {w.cards(c)} covers {w.who(t)}'s {area} area"
    + (f" and {w.cards(eq)} with it" if eq else "") + " (out of the game)",
    "bat_end": lambda w, t, area, eq, back: f"蝠咒 ends: {w.who(t)}'s {area} area is back"
    + ("" if back < 0 else f"; {w.cards(eq)} is back" if back else f"; {w.cards(eq)} is discarded"),
    "truant": lambda w, s: f"逃课: {w.who(s)} carries out the discard phase before the draw phase",
    "greedy": lambda w, s, c: f"贪吃: {w.who(s)} shows and obtains {w.cards(c)}",
    "greedy_skip": lambda w, s: f"贪吃: {w.who(s)} holds more cards than max HP and skips drawing",
    "contra": lambda w, a, b: f"反调: {w.who(a)} takes its turn before {w.who(b)}",
    "contra_skip": lambda w, a: f"反调: {w.who(a)} already had this turn and is skipped",
    "contra_end": lambda w, why: f"反调 ends: {_CONTRA_END.get(why, why)}",
    "contra_marks": lambda w, b, a: f"反调: marker B on {w.who(b)}, marker A on {w.who(a)}",
    "hook": lambda w, s, c: f"蝻钩: {w.who(s)} discards {w.cards(c)}",
    # fragments (notes on a request for a card; reasons for a discard)
    "n_vine": lambda w: " (葡萄藤木魔杖; pass: the user draws)",
    "n_holly": lambda w: " (冬青木魔杖: cannot be dodged)",
    "n_dodge": lambda w, i: " to dodge" + (f" ({i} of 2, 橡木魔杖)" if i else ""),
    "n_bludger": lambda w: " (游走球 Bludger: again at the same target)",
    "n_against": lambda w, k: f" against {w.kind(k)}",
    "n_against_on": lambda w, k, on: f" against {w.kind(k)} on {w.who(on)}",
    "n_out_of_body": lambda w, b: f" at {w.who(b)} (灵魂出窍)",
    "n_crucio": lambda w: " (钻心剜骨)",
    "n_save": lambda w, s: f" to save {w.who(s)}",
    "n_replace_judgement": lambda w: " to replace the judgement card",
    "n_skill": lambda w, key: f" ({w.skill_name(key)})",
    "n_reckless": lambda w: " (鲁莽: else the extra damage is void)",
    "skill_name": lambda w, key: w.skill_name(key),
    "n_chess": lambda w, s: f"棋艺: {w.who(s)}",
    "n_cards_of": lambda w, s: f"{w.who(s)}'s cards",
    "n_penalty": lambda w: "penalty",
    "n_pick": lambda w, ch, src, o: f"{w.who(ch)} ({w.reason(src)}) → {w.who(o)}",
    # the magical-creature pack (creatures.py)
    "creatures": lambda w, keys: "magical creatures in play: " + ", ".join(_cr(k) for k in keys),
    "creatures_back": lambda w, s, keys: f"{', '.join(_cr(k) for k in keys)} of {w.who(s)} return to the creatures",
    "no_creature": lambda w: "no creature left to turn over",
    "creature_turned": lambda w, s, k: f"{w.who(s)} turns over the creature {_cr(k)}",
    "creature_kept": lambda w, s, k: f"{w.who(s)} keeps {_cr(k)}",
    "creature_void": lambda w, k: f"{_cr(k)}: nobody qualifies, the selection is void",
    "creature_card": lambda w, k, c: f"{_cr(k)} turns over {w.cards(c)}",
    "rank_off": lambda w, seats, c: f"比点 rank-off of {w.whos(seats)}: {w.cards(c)}",
    "basilisk_gaze": lambda w, s: f"the basilisk's gaze falls on {w.who(s)}",
    "phoenix_blocks": lambda w, s: f"the phoenix shields {w.who(s)}: no damage",
    "werewolf_bite": lambda w, s: f"the werewolf's bite also hurts {w.who(s)}",
    "salamander_wakes": lambda w, s: f"the salamander of {w.who(s)} turns face up: activated",
    "acromantula_passes": lambda w, s, t: f"the acromantula passes from {w.who(s)} to {w.who(t)}",
    "no_recovery": lambda w, s: f"the acromantula covers the HP of {w.who(s)}: no recovery",
    "gnome_borrows": lambda w, s, t, c: f"{w.who(s)} borrows {w.card(c)} from {w.who(t)} with the gnome",
    "gnome_gives_back": lambda w, s, t, c: f"{w.who(s)} gives {w.card(c)} back to {w.who(t)}",
    "gnome_loan_discarded": lambda w, s, c: f"{w.who(s)} cannot give {w.card(c)} back: it is discarded",
    "centaur_shows": lambda w, s, c: f"{w.who(s)} places {w.cards(c)} face up: the centaur reads the deck",
    "egg_moves": lambda w, s, t: f"the dragon egg goes from {w.who(s)} to {w.who(t)}",
    "gnome_slot": lambda w, s, sub: f"the gnome takes the {sub} slot of {w.who(s)}",
    "n_creature": lambda w, k: _cr(k),
}


def _cr(key: str) -> str:
    c = CREATURES.get(key)
    return f"{c.zh} {c.en}" if c is not None else key


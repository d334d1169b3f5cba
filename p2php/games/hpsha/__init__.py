"""Harry Potter Sha (哈利波特杀) — rules engine (rules: shared/rules/hpsha.md, data: hpsha-data.md).

4–10 players, hidden identities.  Options: ``roles`` = standard | alt (the
alternative role-table rows for 4, 6 and 8 players); ``max_turns`` (1000).

Modules: ``data`` (deck, kinds, characters, identities, role table), ``state``
(public state, zones, distance), ``tasks`` (the resolution machinery: a stack of
plain-data tasks; asking a seat), ``moves`` (draw, reshuffle, reveal, show, take,
拼点), ``windows`` (timing points, 咒立停/呼神护卫 windows, judgement), ``damage``
(damage, HP loss, dying, death, game end), ``flow`` (setup, turns, phases),
``play`` (play-phase actions),
``cards_basic`` (爆破咒 + weapon hooks, 羽毛笔), ``cards_spells`` (instant and
delayed spells), ``triggers`` (timing points, skills, hooks), ``characters`` (the
five implemented characters), ``observe``, ``bots``, ``scenario`` (test harness: stacked
decks, scripted decisions) and ``scenario_protocol`` (the same scenarios through the real protocol).

Card universe: 0–103 game cards (deck table order), 104–113 identity cards,
114–138 character cards.  Decide prompts: ``identity``, ``pick_character``,
``play``, ``discard``, ``respond:<apparate|bombarda|sectumsempra|stupefy|crucio|
out_of_body|tears|patronus|counter>``, ``skill:<key>``, ``weapon:<vine|holly|bludger|
maple>``, ``pick:<card>``, ``stupefy``, ``reparo``, ``aguamenti``, ``quill_guess``.
Actions: ``use`` / ``quill`` / ``end`` (play phase), ``discard``, ``card`` (give hand
card(s), optionally ``skill`` for a conversion) / ``pass``, ``choose``, ``invoke``,
``reveal_identity`` / ``not_minister``, ``pick``.

Digest vs. original: every rule implemented here (cards, equipment, phases, dying,
death, game end, and the five characters' skills) was checked against the
simplified original (001) and, for the armour, the traditional one (000); no
disagreement was found.  The digest's "Note (ambiguity)" items are open
questions, decided below.

Decisions where the rules are silent or ambiguous:

Setup and turns
 1. Seat ``s``'s next player (下家) is ``s + 1``; the minister plays first (§15.8).
 2. Only the identity cards of the chosen row are shuffled and dealt.  All seats
    answer the identity Decide: the minister opens its card, the others claim
    "not the minister" (checked by whoever knows the face: the seat, the audit).
 3. The minister's four unpicked characters go back by a fresh Shuffle of the 24
    others (so nobody learns where they went); the picks of the others are face
    down slot choices, opened by one Reveal; unpicked characters are never opened.
 4. TURN_START fires before the start phase and TURN_END after the end phase
    ("at the end of the turn", 回合结束时).  A face-down (flipped) character turns
    up and skips its turn when that turn would begin; flipped characters keep
    their skills and equipment and may respond and be targeted (§15.19).
 5. Delayed spells are judged newest first (§15.16).  A judgement with no card
    left anywhere has no result (the spell is discarded; 阿瓦达索命 moves on).
 6. The discard phase discards one card per decision (each opened: the pile is
    face up) down to the hand limit = current HP (never below 0).
 7. The deck is reshuffled from the discard pile as soon as it is empty after a
    draw/reveal (or before one).  Deck and pile both empty: draw what there is.
 8. Guards, not rules: ``max_turns`` (default 1000) ends the game with no winner;
    a play phase allows at most 200 actions (a lone 复制成双 could cycle a
    one-card deck forever).
 9. Extra phases (纳威's 遗忘 is the rulebook's one source): a skill grants one with
    ``HpshaState.add_extra_phase``; it is carried out right after that seat's turn
    ends (after the end phase and TURN_END), with its own PHASE_START/PHASE_END
    (``ctx["extra"]``) and its own 爆破咒 allowance; turn-scoped effects (障碍重重's
    +1, skipped phases) are over by then.  A flipped (lost) turn does not spend it.

Responses, damage, dying, death, end
10. Response windows (§8.8, §15.11): every living seat, in order from the current
    player, answers explicitly.  The first response opens a nested 咒立停 window
    for it (LIFO).  If it stands, the window closes; if it was cancelled, the
    seats after the responder are still asked; seats that declined stay out.
11. A 咒立停 window opens before an instant spell takes effect on each target
    (single-target and self-target spells included) and before each delayed
    spell is judged.  呼神护卫 and 咒立停 are spells and can be countered.
12. Every damage opens a 呼神护卫 window (every living seat may protect the target).
    Order: locked prevention (万幸) → DAMAGE_BEFORE → 呼神护卫 → 分院帽 → causing
    (柳木 +1, 槭木) → DAMAGE_CAUSED → DAMAGE_RECEIVED → HP reduced, dying resolved
    → DAMAGE_AFTER.  Card damage's source is its user (爆破咒, 神锋无影, 昏昏倒地);
    阿瓦达索命 and the 胡桃木 backlash are sourceless.
13. "Apparate usually outside your own turn" is not enforced (it only matters when
    灵魂出窍 aims at its user).
14. Dying (§15.12): every living seat from the current player is asked for 凤凰眼泪;
    a seat that gives one is asked again while the character is still dying.
15. The killer is the source of the damage that caused the dying; HP loss and
    sourceless damage have no killer (no reward, no penalty) (§15.13).
16. Death: identity opened → the game ends at once if decided (no rewards) →
    DEATH → all hand, equipped and judgement-area cards discarded (face up) →
    rewards/penalties (dark wizard killed: the killer draws 3; minister killed an
    auror: the minister discards every hand and equipped card).
17. Game end (§7, §15.27): with two spies each plays alone; when the minister dies
    and the survivors are not one spy, all dark wizards win, alive or dead.  At
    the end every identity is opened; scores are 1 for winners, 0 otherwise.

Cards
18. 昏昏倒地: the target chooses damage or flip.  修复如初 and 清水如泉 resolve from
    the user (the user first if it is a target); a target at full HP may only
    draw.  清水如泉 reveals one card per living character first; shares that were
    cancelled leave their cards, which go to the discard pile at the end.
19. 除你武器 / 钻心剜骨 / 统统石化 have no range limit (literal, §15.25).  Hand cards
    are taken "at random" by joint Randomness; the user chooses the zone (no
    question when there is one option).  A hidden card taken into a hand is shown
    privately to its new holder only.
20. 灵魂出窍: B must be within A's attack range; if B is no longer in range when A
    is asked, A simply cannot attack.  A's 爆破咒 does not count toward any limit.
    A refusing → the user takes A's random hand card or an equipped card.
21. 钻心剜骨: the 爆破咒 played do not count toward the limit; if the other side has
    died, the damage is sourceless.
22. 阿瓦达索命 moves to the next living character without one (the judgement area
    may not hold two).  障碍重重's "discard 统统石化" is read as discarding itself.
23. Equipment has four slots (weapon, armour, +1 broom, −1 broom, §15.10); a new
    card in an occupied slot discards the old one.
24. Distance: the shorter way round counting living characters only, minimum 1;
    in range ⇔ distance ≤ attack range.  隐形斗篷: distance 1 whatever the brooms
    or 障碍重重 (reading (a)); 障碍重重 adds 1 only to the impeded character's own
    distances during its play phase.
25. 冬青木 discards a non-basic *hand* card.  葡萄藤木 works for 爆破咒 only.
    游走球's follow-up is another 爆破咒 and does not count toward the limit.
    胡桃木's backlash hits every 爆破咒 its holder uses in its own turn that deals
    no damage (literal).  羽毛笔 needs the target in attack range and uses up the
    play phase's 爆破咒 (per play phase, which equals per turn without extra play
    phases); its damage is sourced by the user but "not dealt by the card".
26. 分院帽's second clause applies to any damage with a source whose faction is the
    wearer's, outside the wearer's turn, after the 呼神护卫 window; 格兰芬多剑
    ignores armour for its 爆破咒.  隐形斗篷 stops others' instant spells only when
    they designate several targets (神锋无影, 昏昏倒地, 修复如初, 清水如泉).

Characters (five implemented; the other twenty are labelled "no skill" stand-ins)
27. 万幸 is checked before the 呼神护卫 window; "each complete turn" = each
    player's turn.  擅飞: any other living character; Harry's distance to the
    designated one is 1; it overrides brooms, 隐形斗篷 and 障碍重重 (a locked effect);
    outside his turn X's distance to Harry is X's distance to the designated
    character (1 for that character itself); it ends at Harry's next real turn
    start or when the designated character dies.
28. 聪颖 also triggers for 咒立停 and 呼神护卫 Hermione uses.  解危: Hermione picks one
    of the dying character's hand slots blind; it is opened to all; she obtains it
    after the dying state wherever it went (even if the character died), and it is
    kept out of reshuffles meanwhile.
29. 捉弄: each seat with a replacing skill is asked once per judgement, in order
    from the current player; the played card becomes the judgement card and the
    old one is discarded.  嘲哂: Draco's card must differ in suit from every card
    discarded in that phase; not offered when nothing was discarded.
30. 呼神: any two red hand cards in a 呼神护卫 window.  月圆's HP loss is at TURN_END.
31. 缄默: Flitwick's instant spells (his 咒立停 and 呼神护卫 included) open no 咒立停
    window at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from p2php.bots import RandomBot
from p2php.engine.contract import CardId, Game, OptionError, OptionSpec
from p2php.engine.registry import register
from p2php.games.hpsha.data import UNIVERSE, card_label
from p2php.games.hpsha.state import HpshaState

__all__ = ["GAME", "HpshaGame", "HpshaState"]


class HpshaGame(Game):
    """Harry Potter Sha for 4–10 players (hidden identities)."""

    name: ClassVar[str] = "hpsha"
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 10
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "roles": OptionSpec("standard", ("standard", "alt"), "role-table row: standard | alt (4, 6, 8 players)"),
        "max_turns": OptionSpec(1000, None, "turn limit: the game ends with no winner after this many turns"),
    }
    bot_kinds: ClassVar[tuple[str, ...]] = ("random", "heuristic")

    def _opts(self, options: Mapping[str, object]) -> dict[str, str | int | bool]:
        opts = self.parse_options(dict(options))
        if int(opts["max_turns"]) < 1:
            raise OptionError("option max_turns: must be at least 1")
        return opts

    def new_state(self, players: int, options: Mapping[str, object]) -> HpshaState:
        self.check_players(players)
        return HpshaState(players, self._opts(options))

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        return card_label(card)

    def universe_size(self, options: Mapping[str, object]) -> int:
        return UNIVERSE

    def make_bot(self, kind: str, seed: bytes | str | int) -> Any:
        if kind == "random":
            return RandomBot(seed)
        if kind == "heuristic":
            from p2php.games.hpsha.bots import HeuristicBot

            return HeuristicBot(seed)
        raise OptionError(f"hpsha has no {kind!r} bot (kinds: {', '.join(self.bot_kinds)})")


GAME = register(HpshaGame())

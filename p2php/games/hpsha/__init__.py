"""Harry Potter Sha (哈利波特杀) — rules engine (rules: shared/rules/hpsha.md, data: hpsha-data.md).

4–10 players, hidden identities.  Options: ``roles`` = standard | alt (the
alternative role-table rows for 4, 6 and 8 players); ``max_turns`` (1000);
``creatures`` (0 = off; the magical-creature pack, ``creatures`` / ``creature_data``).

Modules: ``data`` (deck, kinds, characters, identities, role table), ``state``
(public state, zones, distance), ``tasks`` (the resolution machinery: a stack of
plain-data tasks; asking a seat), ``moves`` (draw, reshuffle, reveal, show, take,
拼点), ``windows`` (timing points, 咒立停/呼神护卫 windows, judgement), ``damage``
(damage, HP loss, dying, death, game end), ``flow`` (setup, turns, phases),
``play`` (play-phase actions),
``cards_basic`` (爆破咒, 羽毛笔), ``cards_spells`` (instant and delayed spells),
``gear`` (the points equipment attaches to) and ``equipment`` (each wand and armour
card as an effect), ``words`` / ``words_en`` / ``words_zh`` (the log's events in
English and Chinese, outside the hashed state),
``remask`` (a hand mixed into fresh slots before a random pick),
``triggers`` (timing points, skills, hooks), ``characters`` (the
first five characters), ``chars_students`` (the other students), ``chars_staff`` (the Hogwarts
staff), ``chars_adults`` (the Dark Mark and
the Order of the Phoenix), ``observe`` and ``bots``.  Its test harness (stacked decks,
scripted decisions, in engine and protocol mode) is :mod:`p2php.testing.hpsha`.

Card universe: 0–103 game cards (deck table order), 104–113 identity cards,
114–138 character cards.  Decide prompts: ``identity``, ``pick_character``,
``play``, ``discard``, ``respond:<apparate|bombarda|sectumsempra|stupefy|crucio|
out_of_body|tears|patronus|counter>``, ``skill:<key>``, ``weapon:<vine|holly|bludger|
maple>``, ``pick:<card or skill key>``, ``stupefy``, ``reparo``, ``aguamenti``, ``quill_guess``.
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
 8. Guards, not rules: ``max_turns`` (default 1000, at most 10 000: the host's
    options bind every seat) ends the game with no winner;
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
    privately to its new holder only.  Before any random hand pick (these, 仁爱, 诘难,
    the creatures' ♣), a hand holding a card whose face a seat other than its holder
    may know — opened in it (勇气, 预言, 明置, 亲和, 阴谋, 贪吃, an equipment card
    obtained), obtained from another hand, seen by 禁闭 or a deck peek — is mixed
    face down into fresh slots (``remask``: a Reshuffle per deck family, then a Deal
    to its holder), so nobody learns which card went, and an opened card is hidden
    again as 展示 says (§8.15; a 明置 card too, our choice).  Only groups of two or
    more cards with such a face are mixed; the opened cards join the largest of
    them; 禁闭's sealed cards mix only among themselves and stay sealed; 解危's card
    and 预言's card under judgement keep their slots.
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
25. 冬青木 discards a non-basic card from the hand or the equipment area (the wand itself too):
    the original says 「弃置一张非基本牌」 without "hand" (issue 15).  葡萄藤木 works for 爆破咒 only.
    游走球's follow-up is another 爆破咒 and does not count toward the limit.
    胡桃木's backlash hits every 爆破咒 its holder uses in its own turn that deals
    no damage (literal).  羽毛笔 needs the target in attack range and uses up the
    play phase's 爆破咒 (per play phase, which equals per turn without extra play
    phases); its damage is sourced by the user but "not dealt by the card".
26. 分院帽's second clause applies to any damage with a source whose faction is the
    wearer's, outside the wearer's turn, after the 呼神护卫 window; 格兰芬多剑
    ignores armour for its 爆破咒.  隐形斗篷 stops others' instant spells only when
    they designate several targets (神锋无影, 昏昏倒地, 修复如初, 清水如泉).

Characters: the first five (all 25 have their skills; see also the blocks below)
27. 万幸 is checked before the 呼神护卫 window; "each complete turn" = each
    player's turn.  擅飞: any other living character; Harry's distance to the
    designated one is 1; it overrides brooms, 隐形斗篷 and 障碍重重 (a locked effect);
    outside his turn X's distance to Harry is X's distance to the designated
    character (1 for that character itself); it ends at Harry's next real turn
    start or when the designated character dies.
28. 聪颖 also triggers for 咒立停 and 呼神护卫 Hermione uses.  解危: Hermione picks one
    of the dying character's hand slots blind; it is opened to all; she obtains it
    after the dying state wherever it went (even if the character died), and it is
    kept out of reshuffles meanwhile.  A slot is not blind when another seat may
    know its face (an opened 勇气 card, a card she gave or saw: rule 19's list), so
    in such a hand the place is drawn with joint randomness instead (a Randomness),
    the odds of a blind pick (red-team rt5 and reviews: a re-mask first mixed per
    deck family and kept each group's places, so the place she named chose the
    group, and a group of faces she knew was hers to pick from).  A card an
    earlier 解危 of the same dying state showed (set aside, Tonks's 易容 copy
    and Hermione's both asked) cannot be shown again: it healed twice.
29. 捉弄: each seat with a replacing skill is asked once per judgement, in order
    from the current player; the played card becomes the judgement card and the
    old one is discarded.  嘲哂: Draco's card must differ in suit from every card
    discarded in that phase; not offered when nothing was discarded.
30. 呼神: any two red hand cards in a 呼神护卫 window.  月圆's HP loss is at TURN_END.
31. 缄默: Flitwick's instant spells (his 咒立停 and 呼神护卫 included) open no 咒立停
    window at all.

The Hogwarts staff (``chars_staff``: 邓布利多, 麦格, 斯内普, 海格, 特里劳妮, 费尔奇)
 Checked against 001 and 000: the two agree, and the digest renders them faithfully; its
 "Note (ambiguity)" items are decided here.  Core hooks this block added: the play-phase
 skill action ``{"type": "skill", ...}`` (``Skill.play_offers``), ``Skill.witness`` and
 ``Skill.automatic``, the points JUDGE_BEFORE / JUDGE_RESULT, DAMAGE_BEFORE "prevented" and
 DAMAGE_CAUSED "amount" read back by DamageTask, ``HpshaState.all_skills`` / ``can_use``,
 and the card spec ``category:<type>``.  Prompts: ``point_duel`` (action ``duel``, both
 sides at once), ``skill:<key>`` (also 亲和's give and 禁闭's picks, ``choose``).
H1. 仁爱 is offered whenever Dumbledore is the source of damage about to be dealt
    (DAMAGE_BEFORE: after locked prevention such as 万幸, before the 呼神护卫 window ※).
    "Two of their cards" are the target's own cards, hand or equipment (judgement-area
    cards belong to no one, §8.5), discarded one at a time, Dumbledore choosing the zone
    (a hand card is a random one); with fewer, what there is — the damage is prevented anyway.
H2. 亲和: Dumbledore names the giver (a living character with hand cards, himself
    included) and the receiver (any other living character); the giver chooses the card.
    It is opened when given (it is used at once), enters the receiver's hand and is used
    from there as 清水如泉 on every living character, the receiver being its user (※).
    "Once per phase" (亲和, 魔药, 诘难, 巨力) is kept per turn: their only play phase.
H3. 变形 works wherever 复制成双 can be used (the play phase).
H4. 斥责: "if this spell deals damage" = damage dealt by that spell (its own damage,
    e.g. not the 爆破咒 of 灵魂出窍) to anyone — the ※ speaks of a spell dealing damage
    several times, which only a multi-target spell does.  Offered once when the spell has
    resolved (CARD_RESOLVED), if the caster is alive with equipment; not for her own spells.
H5. 魔药: the character must be wounded (at full HP nothing can be recovered, as with
    凤凰眼泪); any living character, Snape included.
H6. 诘难: the type named is basic / spell / equipment (the 羽毛笔 ruling's types); the
    target is another living character; it plays (打出) a hand card of that type or passes
    (※ even holding one); then Snape discards one of its cards (random hand card or an
    equipped card; none: nothing).
H7. 巨力: 拼点 (§8.14, as ``moves.PointDuelTask``: one Decide of both sides opening
    nothing, then one Reveal of both) with another character with hand cards; both cards
    are then discarded.  Won: range + the difference, automatically ("may" is never
    worse); not won: range 1 for the rest of the turn, whatever weapon (※).  Both effects
    last through 禁闭's option 1 (continuous effects).
H8. 鲁莽 is checked at DAMAGE_CAUSED (after 呼神护卫 and 柳木's +1).  "需…否则" is read as
    a choice: Hagrid is always asked and may pass even holding a basic card.  Declined:
    the damage becomes 1 and every other character within distance 1 measured from the
    target (※; Hagrid included) takes 1 sourceless damage, in order from the current
    player, before the main damage goes on; nobody within 1: only the extra is void (※).
H9. 预言: JUDGE_BEFORE fires before every judgement (delayed spells and skills alike).
    The card is revealed (亮出: a Reveal; it stays in her hand and so stays open, §8.15 ※);
    at JUDGE_RESULT — the final judgement card, after any 捉弄 replacement, whether or not
    the effect then happens (※) — the colour is compared and she draws, with no second question.
H10. 惶恐 is counted when each phase would begin; while her judgement phase is skipped the
    delayed spells stay in her judgement area (阿瓦达索命 neither strikes nor moves on).
H11. 巡视: any character, Filch included, turning from face up to face down; turning face
    up again (before the skipped turn) is no trigger.
H12. 禁闭: after the damage (DAMAGE_AFTER, any dying resolved), once per damage (※); the
    discarded card is any of his own (hand or equipment).  Option 1: the current player's
    non-locked skills cannot be activated until the end of this turn (locked skills outrank
    an ordinary skill, §8.12; effects already in force go on, ※).  Option 2 needs a living
    damage source other than Filch: its whole hand is shown to Filch alone (Show), who picks
    ⌊n/2⌋ of those slots one at a time (which slots is public, their faces stay hidden); this
    turn they cannot be used or played (conversions, 羽毛笔 and a 拼点 — it plays a card —
    included, unless a 拼点 finds no other hand card) but may be discarded, given, revealed
    or shown (※).  Since the slots are public, a hand holding a card whose face another seat
    may know (rule 19's list) is re-masked before the look, as before a random pick, or every
    seat would learn whether that very card was sealed (red-team rt5).

The students (``chars_students``: 罗恩, 纳威, 金妮, 弗雷德&乔治, 克拉布&高尔, 卢娜)
 Checked against 001 and 000: the two agree, and the digest renders them faithfully (its
 "Note (ambiguity)" items are decided here; Ron's 熄灯 marker belongs to an expansion and is not
 implemented).  Core hooks this block added: the point PHASE_BEFORE (fired by TurnTask before
 each regular phase's skip check), ``Skill.turn_redirect`` (GameLoopTask, each turn slot),
 ``Skill.on_own_death`` (``HpshaState.kill``), CARD_MOVED with how "replace" when an equipment
 card replaces another (UseCardTask), and no equipping into a slot flagged ``covered:<slot>``.
 Prompts: ``skill:chess_mastery`` (``move`` / pass), ``arrange_top``, ``skill:gluttony``
 (``take`` / pass), ``nargles_more`` (``discard`` / pass), ``point_duel``.
S1. 棋艺: a play-phase action when Ron holds exactly one hand card (a 禁闭-sealed one too: it
    is discarded, not used — the 费尔奇 ruling's own example); then, only if a legal move
    exists (public), he may move one field card: equipment into the same, empty, uncovered
    slot of another living character (not out of a 持家 owner's area), a delayed spell into
    another living character's judgement area without one of that name (a 搞怪 card keeps
    its 统统石化 role).  A move is not a use: no range, no 咒立停.  Repeatable (※).
S2. 急才: at TURN_END, hand empty and HP ≥ 1.
S3. 勇气 is asked at PHASE_BEFORE of his play phase, only if that phase is not already
    skipped (※ 统统石化) and both sides have hand cards; the target is any other living
    character with hand cards.  Both 拼点 cards (opened) go to his hand.  Won: the discard
    phase is skipped; not won: he is flipped (his next turn is lost).
S4. 健忘 keeps the §12.3 markers in flags (``fg``, ``fg_due``), counted at his TURN_END with
    no decision: one per play phase skipped in that turn (统统石化, 勇气, any cause); the
    markers of earlier turns fall due at that TURN_END and he is asked once — carry the extra
    play phase out (decision 9: right after the turn) or give it up; either way they are
    spent.  A turn lost to a flip has no TURN_END: it neither adds nor spends one (※).  The
    extra play phase has no PHASE_BEFORE, so 勇气 cannot pay with it (§12.3).  The skill's
    "next turn" and the ruling's "after this turn" are read as the digest does: a play phase
    skipped in turn N gives the extra phase at the end of his next real turn.
S5. 羞赧: asked at CARD_RESOLVED of a 爆破咒 she used from her hand when no damage from it
    reached its target (dodged, 分院帽, 呼神护卫, 万幸, ...).  Answered 爆破咒 (灵魂出窍, 游走球's
    follow-up) are already in the discard pile and are not covered; the 羽毛笔's face-down card
    never is (※).  A 游走球 follow-up that hits counts as a hit of the first one too.
S6. 蝠咒: "area" = one equipment slot (weapon, armour, +1, −1) of any living character,
    herself included, named after the card is placed.  The spade (opened) and the covered card
    leave every zone (no owner, no effect, untouchable; nothing can be equipped or moved
    there, ※).  It ends when her next real turn starts (a flipped-away turn is none, as for
    擅飞) or when she dies: the spade goes to the discard pile, the covered card back to its
    slot (to the discard pile if its character died).  持家 does not stop it (covering is not
    moving, discarding, obtaining or replacing).  One cover at a time; "once per phase" is
    kept per turn (only 纳威 gets extra play phases).
S7. 逃课 is asked at PHASE_BEFORE of the draw phase, unless the discard phase is skipped
    anyway; the discard phase is then carried out there (own PHASE_START / PHASE_END, so 嘲哂
    applies; the limit is the HP at that moment) and is not carried out again after the play
    phase (moved, not added).
S8. 搞怪 is a play-phase action (no conversion in responses): a diamond as 统统石化, a heart as
    修复如初, normal targets, each once per phase (per turn); the card keeps its own suit.
S9. 尾随: "within distance 1 of you" = distance from them ≤ 1, themselves included (distance
    0, the literal reading); they draw one after another in turn order from them.
S10. 贪吃: asked at PHASE_BEFORE of the draw phase when hand ≤ max HP (3; 4 as minister when the
    minister gets +1, i.e. with 5+ players — in a 4-player game §4.4 gives no +1).  The look is
    a Show to them alone, the arrangement one Decide; the take is always asked (only they know
    whether suits repeat): whole groups of a shared suit, one or several, or none (※); taken
    cards are opened (展示) and obtained, the rest stay on top in the arranged order.  More hand
    cards than max HP then: the draw phase is skipped.
S11. 反调: in her end phase (PHASE_START), with a hand card, two other living characters, no
    swap pending; the pair first, then the card to discard.  B is the one whose turn comes
    first from her, A the other (§12.2).  When B's turn slot comes, A's turn is taken, then B's,
    then play goes on after B; at A's own place A is skipped (if A is face down there, it turns
    face up in that same, already paid, slot).  Swap before flip (※): a face-down A or B turns
    face up and skips at its swapped place.  A or B dead before the swap: the effect ends (※).
    A swap under way is completed even if Luna dies.
S12. 蝻钩: "replace" = equipping into an occupied slot (the old card is discarded), in her own
    turn; she discards one card at a time (each opened), at least one, then draws as many.

The Dark Mark and the Order of the Phoenix (``chars_adults``: 伏地魔, 卢修斯, 小矮星, 贝拉特里克斯,
亚瑟, 莫丽, 小天狼星, 唐克斯)
 Checked against 001 and 000: the two agree (script aside), and the digest renders them
 faithfully.  The original contradicts itself once: 司法's text asks for "the same suit and the
 same kind", its ※ says "the same type is enough" — the ruling is followed (A10).  Core hooks this
 block added: the point DYING_BEFORE (DyingTask, before ENTER_DYING; the character may be dead
 after it), the Skill hooks ``spell_void`` (SpellTask per target, UseCardTask for delayed
 spells, WindowTask for 呼神护卫), ``prevents_damage_from`` and ``damage_source`` (DamageTask,
 with the locked prevention), ``locks_equipment`` (PickCardTask, 槭木魔杖), ``treat_as``
 (``HpshaState.as_card``, read by AskCard and the play phase) and ``undodgeable``
 (BombardaTask); ``SpellTask.colour``; ``HpshaState.skills``/``all_skills`` add the skill 易容
 lends.  Prompts: ``skill:<key>`` (易容's and 富有's choices are ``choose``), ``wealth:continue``
 and ``wealth:colour`` (``choose``); 复活 and 阴谋 are play-phase ``skill`` actions.
A1. The colour of a card used is its card's, or its cards' when a conversion uses several of
    one colour (酷刑's spade 钻心剜骨 is black); mixed colours and the 羽毛笔's face-down card
    are colourless (§15.23).
A2. 黑暗 concerns spell cards used on a character: an instant spell's targets (灵魂出窍: A, not
    B), a delayed spell's target, the character a 呼神护卫 protects.  咒立停 aims at a spell, not
    at a character, and is never affected (all three 咒立停 are black: the other reading would
    make every spell on him uncounterable).  Void on a character: no 咒立停 window there, no
    effect ("无需结算", ※); a void delayed spell is spent into the discard pile instead of the
    judgement area; a void 呼神护卫 is spent, the damage stands and the seats after its user may
    still respond.  阿瓦达索命 reaching him has no user then (first used by someone on itself,
    ※): judged as usual.
A3. 复活 is a play-phase action; he chooses the hand cards; HP becomes the HP lost before.
A4. 富有 is asked at PHASE_START of his start phase.  The displayed deck top (a Reveal) is no
    judgement card; every later card is a JudgeTask judgement (JUDGE_BEFORE / JUDGE_RESULT,
    捉弄 may replace it).  After each judgement card of the other colour he chooses to go on or
    stop; stopping early, every card so far may be taken.  A card of the previous card's
    colour ends the chain: a judgement card, never obtained (※).  He then names a colour
    present among the takeable cards (no question with one colour), obtains those and
    discards the rest.  All of them wait in the processing zone (no reshuffle takes them);
    no card left to reveal ends the chain.
A5. 阴谋: a hand card given is opened (everyone must see it is equipment); it goes into the
    receiver's hand; he recovers 1 (nothing at full HP).  "Once per phase" is kept per turn.
A6. 自残 fires at DYING_BEFORE: HP has just dropped to 0 or below (damage or HP loss: the text
    covers any dying, the ※ describes the damage case; 呼神护卫's window is long past) and the
    character has not entered the dying state (before 解危 and 凤凰眼泪).  Pettigrew may use it
    at any HP.  His own dying state first, then the other dies at once with no dying state,
    even if he died (※).  Killer: Pettigrew (rewards and penalties if he is alive).
A7. 藏匿: "lowest on the field" among the living; checked with the locked prevention (before
    DAMAGE_BEFORE and 呼神护卫), as the source's distance to him; sourceless damage is never
    stopped.
A8. 纵火 at DAMAGE_AFTER of 爆破咒 damage whose card is red (A1), anyone's, hers included (莫丽's
    share of that damage too: it is that 爆破咒's damage).
A9. 着迷's card stays in the processing zone (no one's, ※) until his turn, extra phases
    included, is over — even if he died in it — then is discarded.  His hand cards of its suit
    count as that card name for every use, play and answer in his turn (keeping their suit,
    rank and colour) and no longer as their printed name; a revealed 幻影移形 / 咒立停 / 呼神护卫
    makes them answers only.  Equipment or a delayed spell: no effect (※).
A10. 司法: the previous hand card used is counted at CARD_USED in his turn (basic cards and
    instant spells, answers included; equipment and delayed spells are placed, not resolved,
    and do not count).  "The same" = the same card name as used (any suit, ※; a name given by
    着迷 or a conversion counts).  Offered for a 爆破咒 or an instant spell (nothing else can be
    answered).  "Takes effect directly" (undefined) = it cannot be answered: no 咒立停 window
    for it, and a 爆破咒 cannot be dodged; the card's own effect (神锋无影's 幻影移形, 昏昏倒地's
    choice, 钻心剜骨's duel) is unchanged.  The discarded card differs in suit from every card
    used as it.
A11. 持家 stops every effect by which another character takes, discards or moves her equipped
    cards: 除你武器, 摄神取念, 灵魂出窍, 仁爱, 诘难 (PickCardTask), 槭木魔杖, 棋艺 (S1).  Cards she
    loses on her death or by her own choice are not protected.
A12. 忧心: (1) at DAMAGE_CAUSED (after 呼神护卫 ※, 分院帽 and 柳木's +1), amount above 1: she
    draws 1, the damage loses 1 point, and she takes 1 damage with the same source and
    attribute (※) as a damage of its own (its own timing points and 呼神护卫 window), before
    the rest.  (2) at DEATH (identity opened, cards not yet discarded): she discards a red hand
    card (opened) and deals 1 damage to any living character, herself included.
A13. 冤狱 at DAMAGE_AFTER: "that character" is the damage's source (after 易容); nothing if it
    has died.  The judgement may be replaced (捉弄).
A14. 流亡 is asked at PHASE_BEFORE of his play phase (the last moment a phase can be skipped),
    not when that phase is already skipped (as 勇气, ※ 统统石化), with odd HP and someone in his
    attack range; the target is named then.  The HP loss (and its dying state) first, then the
    flip — even if he died (as 自残's ※).
A15. 易容 is compulsory ("你获得"): at TURN_START she names one skill of another living character
    (locked skills too — they then bind her; the standard set has no limited or awakening
    skill); one option: no question.  She holds a copy (key ``disguise:<key>``, per-turn marks
    of its own) until her turn, extra phases included, is over.  A turn-start skill obtained
    does not fire that turn.  "Used" = activated, or a card converted by it used or played;
    from then on every damage she deals in this turn has that character as its source
    (sourceless if it has died) — not only damage by the skill itself (※).  Weapon effects of
    a 爆破咒 then read the new source's weapon (the source changes before anything reads it).
A16. 苦恋 counts every damage dealt in her turn (any source and target, any phase, ※) at
    DAMAGE_AFTER; offered after each damage while the total exceeds 1, once per turn; the
    card is any of hers (hand or equipment); the character is of the other sex (data
    genders), any, even at full HP.

The magical-creature pack (``creatures``, ``creature_data``; option ``creatures``, issue 15)
 Checked against 001 (§11 of the digest renders it faithfully; 000's Phoenix line says 禁止 for 屏蔽, the
 same meaning).  The printed card faces are not in the rulebook (§15.6): every effect marked "our choice"
 below is ours.  All eleven are played (``creatures`` ≤ 11).  Core hooks
 (``creature_marks``): DeathTask's SELECTION stage (``damage.AFTER_DEATH``), DamageTask's Phoenix check
 (with the locked prevention) and BITE stage, the Thestral in ``HpshaState.distance`` and the
 creature-held slot checks (the Thestral's −1 broom, the Gnome's slot: play, 棋艺, 蝠咒's return), the
 Werewolf, the Salamander and the Centaur in ``HpshaState.skills``, the Centaur's seat in
 ``raw_distance``, the Salamander's activation, the Acromantula's bite and the dragon egg's card at TURN
 start and the Acromantula's passing at the turn's end (TurnTask),
 the Acromantula in ``HpshaState.recover`` and DyingTask; creature state is snapshot only when the
 option is on (``creatures``, ``cr``) and the extra stages are entered only then, so games without
 creatures hash as before.
C1. Set-up, after the starting hands: a public-composition Shuffle of the playable creatures whose first
    N slots are revealed (§11.1: "draw … and show them"; unrevealed slots stay closed), then the N shuffled
    face down into fresh slots.  Card ids: 139 + the creature's place among all eleven (rulebook order).
C2. Selection on every death the game survives, after the rewards: first the creatures the dead one held
    go back (C5), then the character whose turn it is — its next living player when it is dead (§11.3
    Gnome, "下同") — turns over the top creature (a Reveal).  Empty creature deck: no selection.
C3. A creature that does not stay (独角兽, 人鱼, 蛇怪, and any selection made void) goes back at once; each
    return reshuffles the whole creature deck into fresh slots (composition public, order unknown).
C4. Deck cards a creature turns over are plain reveals, not judgements (no 预言 / 捉弄), then discarded.
C5. Creatures that stay (凤凰, 夜骐) stay with their holder until it dies, then return (§15.6: the rulebook
    does not say how they come back).  "Has killed a character" counts every death with a killer (decision
    15) since the start of the game.
C6. 独角兽 (our choice): the killer turns over the deck top — ♥ recover 1 (draw 1 at full HP), ♦ draw 1,
    ♠ lose 1 HP, ♣ a random hand card (joint Randomness) discarded.  No killer, or a dead one: void.
C7. 凤凰: executor among the living who never killed, lowest current HP; ties: 比点, each tied character in
    turn order from the current player turns over the deck top, highest rank wins, the tied-for-highest
    go again (the cards are discarded; no card left anywhere: the first of them, our choice).  Its holder
    takes no fire damage (none exists in the standard set) and no 阿瓦达索命 damage, every time (our choice).
C8. 人鱼 (our choice): rank A–6 flips the executor (翻面, as 昏昏倒地's flip); 7–K nothing.
C9. 蛇怪 (our choice): count the rank in turn order (decision 1: our "counter-clockwise") among the living,
    the executor being 1 (wrapping); that character takes 1 sourceless damage (呼神护卫 may stop it).
C10. 夜骐: the executor's −1 broom (火弩箭 included) is discarded; its distance to others is −2 (in place of a
    −1 broom; min 1 as always); no −1 broom can be equipped or moved (棋艺) into that slot while it stays.
C11. 狼人: the executor's character skills are all lost while it holds the werewolf (locked and continuous
    ones — distance and range — too; lasting effects already in force, e.g. 蝠咒's cover, go on and still
    end as they would); "until a new substitute appears" is read as until the holder dies (our choice).
    The bite (our choice): each time the holder's 爆破咒 deals damage, the target's next living player,
    unless it is the holder, takes 1 sourceless damage.  HP and max HP are unchanged.
C12. 火蜥蜴 (our choice): obtained face down; it is activated (turned face up) when its holder's next turn
    starts.  While it is activated, every living character (the holder need not be itself, §11 "does not
    have to be on your own character card") may in its own play phase, once per turn, discard a red hand
    card to make a wounded character recover 1 HP.  A 狼人 may too (the heal is no character skill).
C13. 巨蜘蛛: goes to the next living player of the character whose turn it is (C2's reading).  "Covers the
    HP card … may make it impossible to recover HP" (our choice): its holder recovers no HP by any means,
    and when it is dying nobody is asked for 凤凰眼泪 (they could not help).  At its holder's turn start
    (with TURN_START; a flipped-away turn has none) it turns over the deck top: ♠ = 1 sourceless damage to
    the holder, anything else nothing (our choice); when that turn is over it passes to the next living
    player.  It goes back to the creature deck only when a holder dies (C5).
C14. 地精: the character whose turn it is must equip it: it chooses an empty slot (weapon, armour, +1 or −1
    broom), or with none an equipped card it replaces (discarded, like a replaced equipment).  Slots out of
    the game (金妮's 蝠咒) or held by the 夜骐 are neither; no slot at all: void.  That slot takes no card
    while the gnome stays (playing, 棋艺, a 蝠咒 cover coming back — that card is discarded), and the gnome
    itself does nothing there.  Its advantage, "temporarily obtain one equipment card on the field and use it
    in your own turn" (our choice of how, the rulebook gives no card face): once per turn, in its own play
    phase, the holder borrows one equipment card of another living character into its own matching slot if
    that slot is free (not the gnome's, not 蝠咒-covered, not the 夜骐's) and uses it as its own for the rest
    of the turn; at its TURN_END the card goes back to the slot it came from, or to the discard pile if that
    slot took another card meanwhile or its owner died.  A card that left meanwhile (disarmed, discarded) is
    not returned; a holder who dies in its own turn loses the borrowed card with its equipment.
C15. 马人 (our choice throughout; "executor: none" — it makes no difference who): the character whose turn it
    is keeps it, and it takes a seat right after that character, before its next living player: a place
    counted by every distance across that gap, both ways (HpshaState.raw_distance).  明置: its holder, once
    per turn in its own play phase, may place a hand card face up — shown to everyone, it stays in the hand
    (face down again when a random pick mixes that hand, decision 19) — to look at the top 3 deck cards alone
    and put them back in any order.  It returns when its holder dies.
C16. 火龙 (our choice throughout): the 12th pack card is read as the 龙蛋 dragon egg, and the dragon card itself
    stands for it, kept by the character whose turn it is (no deck card is set aside).  Before every turn
    (with its TURN_START; a flipped-away turn has none) the character whose turn it is turns over the deck
    top (C4): ♥ the egg's holder recovers 1 HP, ♦ the egg goes to the character whose turn it is, ♠ its
    holder is burned — 1 sourceless fire damage (凤凰 shields it) — ♣ its holder discards a random hand card
    (joint Randomness).  It returns to the creature deck when its holder dies (C5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from p2php.bots import RandomBot
from p2php.engine.contract import Bot, CardId, Game, OptionError, OptionSpec
from p2php.engine.registry import register
from p2php.games.hpsha.creature_data import CREATURE_END, PLAYED
from p2php.games.hpsha.data import UNIVERSE, card_label
from p2php.games.hpsha.state import HpshaState

__all__ = ["GAME", "HpshaGame", "HpshaState"]


MAX_TURNS_LIMIT = 10_000
"""The highest turn limit a table may set.  The host's ``max_turns`` binds every seat; unbounded, a host and
one ally could keep the others at a table that never ends (a game here lasts tens of turns; 1 000 is the
default)."""


class HpshaGame(Game):
    """Harry Potter Sha for 4–10 players (hidden identities)."""

    name: ClassVar[str] = "hpsha"
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 10
    options: ClassVar[Mapping[str, OptionSpec]] = {
        "roles": OptionSpec("standard", ("standard", "alt"), "role-table row: standard | alt (4, 6, 8 players)"),
        "max_turns": OptionSpec(1000, None, f"turn limit, 1 to {MAX_TURNS_LIMIT}: the game ends with no winner after "
                                            "this many turns"),
        "creatures": OptionSpec(0, None, f"magical creatures in play, 0 (off) to {len(PLAYED)} ({', '.join(PLAYED)})"),
    }
    bot_kinds: ClassVar[tuple[str, ...]] = ("random", "heuristic")

    def _opts(self, options: Mapping[str, object]) -> dict[str, str | int | bool]:
        opts = self.parse_options(dict(options))
        if not 1 <= int(opts["max_turns"]) <= MAX_TURNS_LIMIT:
            raise OptionError(f"option max_turns: 1 to {MAX_TURNS_LIMIT}")
        if not 0 <= int(opts["creatures"]) <= len(PLAYED):
            raise OptionError(f"option creatures: 0 to {len(PLAYED)} (the creatures played: {', '.join(PLAYED)})")
        return opts

    def new_state(self, players: int, options: Mapping[str, object]) -> HpshaState:
        self.check_players(players)
        return HpshaState(players, self._opts(options))

    def card_name(self, card: CardId, options: Mapping[str, object]) -> str:
        if card >= self.universe_size(options):  # the creature cards exist only with the option on
            raise ValueError(f"no card {card} in Harry Potter Sha with these options")
        return card_label(card)

    def universe_size(self, options: Mapping[str, object]) -> int:
        return CREATURE_END if int(str(options.get("creatures", 0))) else UNIVERSE

    def make_bot(self, kind: str, seed: bytes | str | int) -> Bot:
        if kind == "random":
            return RandomBot(seed)
        if kind == "heuristic":
            from p2php.games.hpsha.bots import HeuristicBot

            return HeuristicBot(seed)
        raise OptionError(f"hpsha has no {kind!r} bot (kinds: {', '.join(self.bot_kinds)})")


GAME = register(HpshaGame())

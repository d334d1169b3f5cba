"""Chinese lines for Harry Potter Sha events: the same kinds as :mod:`.words_en`, in the rules' terms.

``w`` is a :class:`~p2php.games.hpsha.words.Speaker` in Chinese (seats as 「n号位 人物」,
cards as 「名称花色点数」).  Nothing here is hashed.
"""

from __future__ import annotations

from collections.abc import Callable

from p2php.games.hpsha.creature_data import CREATURES
from p2php.games.hpsha.data import CHARACTER_BASE, KINDS

_VERB = {"use": "使用", "play": "打出", "discard": "弃置"}
_PHASE = {"prepare": "准备", "judge": "判定", "draw": "摸牌", "play": "出牌", "discard": "弃牌", "finish": "结束"}
_CATEGORY = {"basic": "基本牌", "spell": "魔咒牌", "equipment": "装备牌"}
_AREA = {"weapon": "武器", "armour": "防具", "plus": "+1坐骑", "minus": "-1坐骑"}
_COLOUR = {"red": "红色", "black": "黑色"}
_CONTRA_END = {"died": "指定的角色在交换前死亡"}


def _ph(ph: str) -> str:
    return _PHASE.get(ph, ph)


ZH: dict[str, Callable[..., str]] = {
    # turn flow
    "characters": lambda w, hps: "人物：" + "；".join(
        f"{x}号位 {w.character(w.chars[x])} 体力{hp}" for x, hp in enumerate(hps)),
    "minister": lambda w, s: f"{s}号位是部长",
    "minister_picks": lambda w, card: f"部长选择了{w.character(card - CHARACTER_BASE)}",
    "turn": lambda w, no, s, hp, mx: f"—— 第{no}回合：{w.who(s)}（体力{hp}/{mx}）",
    "skips": lambda w, s, ph: f"{w.who(s)}跳过{_ph(ph)}阶段",
    "extra_phase": lambda w, s, ph: f"{w.who(s)}执行一个额外的{_ph(ph)}阶段",
    "face_up_skip": lambda w, s: f"{w.who(s)}翻回正面并跳过本回合",
    "flipped": lambda w, s, down: f"{w.who(s)}的人物牌翻至{'背面' if down else '正面'}",
    # cards moving
    "draws": lambda w, s, n: f"{w.who(s)}摸{n}张牌",
    "discards": lambda w, s, c: f"{w.who(s)}弃置{w.cards(c)}",
    "discarded": lambda w, why, c: f"{w.frag(why)}：{w.cards(c)}被弃置",
    "reshuffle": lambda w, n: f"弃牌堆（{n}张）洗成新的牌堆",
    "remask": lambda w, s, n: f"{w.who(s)}的手牌（{n}张）在随机抽取前重新洗混",
    "takes": lambda w, s, c: f"{w.who(s)}获得{w.cards(c)}",
    "obtains": lambda w, s, c: f"{w.who(s)}获得{w.cards(c)}",
    "picks": lambda w, ch, c, o, src:
        f"{w.who(ch)}获得{w.who(o)}的{w.cards(c) if c else '一张手牌'}（{w.reason(src)}）",
    "duel": lambda w, a, b: f"拼点：{w.cards(a)} 对 {w.cards(b)}",
    # using and playing cards
    "uses": lambda w, u, k, c, sk, tg: f"{w.who(u)}" + (f"发动{w.skill(sk)}，" if sk else "")
    + f"使用{w.kind(k)}（{w.cards(c)}）" + (f"→ {w.whos(tg)}" if tg else ""),
    "card": lambda w, s, mode, c, k, sk, note: f"{w.who(s)}{_VERB[mode]}{w.cards(c)}"
    + (f"（发动{w.skill(sk)}当{w.kind(k)}）" if sk else "") + w.frag(note),
    "void": lambda w, k, t, why: f"{w.kind(k)}对{w.who(t)}无效（{w.reason(why)}）",
    "cancelled": lambda w, k, on: f"对{w.who(on)}的{w.kind(k)}被抵消",
    "patronus_void": lambda w, on, why: f"呼神护卫对{w.who(on)}无效（{w.reason(why)}）",
    "dodged": lambda w, t: f"{w.who(t)}躲开了爆破咒",
    "quill": lambda w, u, t: f"{w.who(u)}对{w.who(t)}暗置一张牌（羽毛笔）",
    "guess": lambda w, t, g, c, right: f"{w.who(t)}猜{_CATEGORY.get(g, g)}：此牌是{w.cards(c)}——"
    + ("猜对，此牌无效" if right else "猜错，不能被躲开"),
    "aguamenti": lambda w, c: f"清水如泉亮出{w.cards(c)}",
    "bind": lambda w, s: f"统统石化：{w.who(s)}跳过出牌阶段",
    "impediment": lambda w, s: f"障碍重重：本出牌阶段{w.who(s)}与其他角色的距离+1",
    "avada": lambda w, s: f"阿瓦达索命击中{w.who(s)}",
    "avada_on": lambda w, s: f"阿瓦达索命移至{w.who(s)}",
    "judgement": lambda w, s, why, c: f"{w.who(s)}的判定（{w.reason(why)}）：{w.cards(c)}",
    "judgement_now": lambda w, c: f"判定牌现在是{w.cards(c)}",
    # equipment
    "vine": lambda w, t, u: f"葡萄藤木魔杖：{w.who(t)}弃置一张手牌，或令{w.who(u)}摸一张牌",
    "walnut": lambda w: "胡桃木魔杖反噬：此爆破咒未造成伤害",
    "willow": lambda w: "柳木魔杖：没有手牌，伤害+1",
    "maple": lambda w, s, c: f"槭木魔杖：{w.who(s)}弃置{w.cards(c)}",
    "hat": lambda w, s, t: f"分院帽：{w.who(s)}（同一学院）不能对{w.who(t)}造成伤害",
    # damage, HP, death
    "damage": lambda w, t, n, src, via, hp: (f"{w.who(t)}受到{w.who(src)}造成的{n}点伤害" if src >= 0
                                             else f"{w.who(t)}受到{n}点无来源伤害") + f"［{w.kind(via)}］→ 体力{hp}",
    "no_more_damage": lambda w, t: f"{w.who(t)}本回合不能再受到伤害（锁定技）",
    "no_damage_from": lambda w, t, s: f"{w.who(t)}不能受到{w.who(s)}造成的伤害（锁定技）",
    "prevented": lambda w, t: f"对{w.who(t)}的伤害被防止",
    "patronus_cancel": lambda w, t: f"对{w.who(t)}的伤害被呼神护卫抵消",
    "lose_hp": lambda w, s, n, why, hp: f"{w.who(s)}流失{n}点体力（{w.skill_name(why)}）→ 体力{hp}",
    "recovers": lambda w, s, hp: f"{w.who(s)}回复至体力{hp}",
    "rescued": lambda w, s, hp, by: f"{w.who(by)}救回{w.who(s)}，体力{hp}",
    "dying": lambda w, s, hp: f"{w.who(s)}进入濒死状态（体力{hp}）",
    "dies": lambda w, s, k, role: f"☠ {w.who(s)}" + (f"被{w.who(k)}杀死" if k >= 0 else "死亡")
    + f"：{w.role(role)}",
    "dark_bounty": lambda w, k: f"{w.who(k)}杀死了黑巫师：摸三张牌",
    "auror_penalty": lambda w, k: f"部长杀死了傲罗：{w.who(k)}弃置所有手牌和装备牌",
    # skills in general
    "triggers": lambda w, s, key: f"{w.who(s)}的{w.skill(key)}被触发",
    "skill": lambda w, s, key: f"{w.who(s)}发动{w.skill(key)}",
    # the characters' skills
    "flyer": lambda w, t: f"擅飞：{w.who(t)}获得标记",
    "rescue_show": lambda w, h, c, o: f"解危：{w.who(h)}展示{w.who(o)}手牌中的{w.cards(c)}",
    "mock": lambda w, s, c, got: f"嘲哂：{w.who(s)}弃置{w.cards(c)}并获得{w.cards(got)}",
    "rebirth": lambda w, s, n, hp: f"{w.who(s)}发动复活：弃置{n}张牌，体力回复至{hp}",
    "rich_show": lambda w, s, c: f"富有：{w.who(s)}亮出{w.cards(c)}",
    "rich_take": lambda w, s, take, rest: f"富有：{w.who(s)}获得{w.cards(take)}"
    + (f"，弃置{w.cards(rest)}" if rest else ""),
    "scheme": lambda w, s, c, t: f"{w.who(s)}发动阴谋：将{w.cards(c)}交给{w.who(t)}",
    "self_harm_dies": lambda w, s: f"自残：{w.who(s)}立即死亡",
    "fasc_void": lambda w, c: f"着迷：{w.cards(c)}是装备牌或延时魔咒：无效果",
    "fasc": lambda w, s, suit, k: f"着迷：本回合{w.who(s)}的{suit}手牌视为{KINDS[k].zh}",
    "justice": lambda w, s, c, k: f"司法：{w.who(s)}弃置{w.cards(c)}；此{KINDS[k].zh}直接生效",
    "worry_take": lambda w, s, t: f"忧心：{w.who(s)}承受对{w.who(t)}的1点伤害",
    "worry_hit": lambda w, s, c, t: f"忧心：{w.who(s)}弃置{w.cards(c)}，对{w.who(t)}造成1点伤害",
    "wrongful_none": lambda w: "冤狱：无事发生",
    "disguise": lambda w, s, o, key: f"易容：本回合{w.who(s)}获得{w.who(o)}的{w.skill(key)}",
    "unrequited": lambda w, s, t: f"苦恋：{w.who(s)}弃置一张牌，令{w.who(t)}回复1点体力",
    "benevolence": lambda w, s, t: f"仁爱：{w.who(s)}防止对{w.who(t)}的伤害，并弃置其两张牌",
    "affinity": lambda w, s, a, b: f"{w.who(s)}发动亲和：{w.who(a)}交给{w.who(b)}一张手牌",
    "affinity_give": lambda w, g, c, b: f"{w.who(g)}将{w.cards(c)}交给{w.who(b)}（亲和）",
    "rebuke": lambda w, s, c, u: f"斥责：{w.who(s)}获得{w.who(u)}装备区的{w.cards(c)}",
    "potions": lambda w, s, t: f"{w.who(s)}对{w.who(t)}发动魔药",
    "interrogation": lambda w, s, t, ty: f"{w.who(s)}发动诘难：{w.who(t)}须打出一张{_CATEGORY.get(ty, ty)}",
    "giant": lambda w, s, t: f"{w.who(s)}发动巨力：与{w.who(t)}拼点",
    "giant_result": lambda w, s, d: f"巨力：{w.who(s)}"
    + (f"赢：本回合攻击范围+{d}" if d else "没赢：本回合攻击范围为1"),
    "reckless": lambda w, near: "鲁莽：额外伤害无效；1点无来源伤害给"
    + (w.whos(near) if near else "无人"),
    "prophecy": lambda w, s, c: f"预言：{w.who(s)}亮出{w.cards(c)}",
    "prophecy_result": lambda w, colour, same: f"预言：判定牌为{_COLOUR.get(colour, colour)}，"
    + ("颜色相同：摸一张牌" if same else "颜色不同"),
    "detention_seal": lambda w, s: f"禁闭：本回合结束前{w.who(s)}不能发动技能",
    "detention": lambda w, s, src, k: f"禁闭：{w.who(s)}观看{w.who(src)}的手牌并暗置其中{k}张",
    "chess": lambda w, s, c, frm, to: f"棋艺：{w.who(s)}将{w.cards(c)}从{w.who(frm)}移至{w.who(to)}",
    "courage": lambda w, s, t: f"勇气：{w.who(s)}跳过出牌阶段，与{w.who(t)}拼点",
    "courage_get": lambda w, s, c: f"勇气：{w.who(s)}获得{w.cards(c)}",
    "courage_won": lambda w, s: f"勇气：{w.who(s)}赢，将跳过弃牌阶段",
    "shy": lambda w, s, c: f"羞赧：{w.who(s)}收回{w.cards(c)}",
    "bat": lambda w, c, t, area, eq: f"蝠咒：{w.cards(c)}覆盖{w.who(t)}的{_AREA.get(area, area)}区"
    + (f"，连同{w.cards(eq)}" if eq else "") + "（移出游戏）",
    "bat_end": lambda w, t, area, eq, back: f"蝠咒结束：{w.who(t)}的{_AREA.get(area, area)}区恢复"
    + ("" if back < 0 else f"；{w.cards(eq)}放回" if back else f"；{w.cards(eq)}被弃置"),
    "truant": lambda w, s: f"逃课：{w.who(s)}在摸牌阶段前执行弃牌阶段",
    "greedy": lambda w, s, c: f"贪吃：{w.who(s)}展示并获得{w.cards(c)}",
    "greedy_skip": lambda w, s: f"贪吃：{w.who(s)}手牌数大于体力上限，跳过摸牌",
    "contra": lambda w, a, b: f"反调：{w.who(a)}在{w.who(b)}之前进行回合",
    "contra_skip": lambda w, a: f"反调：{w.who(a)}已进行过此回合，跳过",
    "contra_end": lambda w, why: f"反调结束：{_CONTRA_END.get(why, why)}",
    "contra_marks": lambda w, b, a: f"反调：B标记给{w.who(b)}，A标记给{w.who(a)}",
    "hook": lambda w, s, c: f"蝻钩：{w.who(s)}弃置{w.cards(c)}",
    # fragments
    "n_vine": lambda w: "（葡萄藤木魔杖；不弃则使用者摸牌）",
    "n_holly": lambda w: "（冬青木魔杖：不能被躲开）",
    "n_dodge": lambda w, i: "以躲开" + (f"（第{i}张，共2张，橡木魔杖）" if i else ""),
    "n_bludger": lambda w: "（游走球：再次对同一目标）",
    "n_against": lambda w, k: f"响应{w.kind(k)}",
    "n_against_on": lambda w, k, on: f"响应对{w.who(on)}的{w.kind(k)}",
    "n_out_of_body": lambda w, b: f"对{w.who(b)}（灵魂出窍）",
    "n_crucio": lambda w: "（钻心剜骨）",
    "n_save": lambda w, s: f"救{w.who(s)}",
    "n_replace_judgement": lambda w: "替换判定牌",
    "n_skill": lambda w, key: f"（{w.skill_name(key)}）",
    "n_reckless": lambda w: "（鲁莽：否则额外伤害无效）",
    "skill_name": lambda w, key: w.skill_name(key),
    "n_chess": lambda w, s: f"棋艺：{w.who(s)}",
    "n_cards_of": lambda w, s: f"{w.who(s)}的牌",
    "n_penalty": lambda w: "惩罚",
    "n_pick": lambda w, ch, src, o: f"{w.who(ch)}（{w.reason(src)}）→ {w.who(o)}",
    # 魔法生物包 (creatures.py)
    "creatures": lambda w, keys: "参与判选的魔法生物：" + "、".join(_cr(k) for k in keys),
    "creatures_back": lambda w, s, keys: f"{w.who(s)}的{'、'.join(_cr(k) for k in keys)}返回魔法生物牌堆",
    "no_creature": lambda w: "魔法生物牌堆已空",
    "creature_turned": lambda w, s, k: f"{w.who(s)}翻开魔法生物【{_cr(k)}】",
    "creature_kept": lambda w, s, k: f"{w.who(s)}获得【{_cr(k)}】",
    "creature_void": lambda w, k: f"【{_cr(k)}】无人符合条件，此次判选无效",
    "creature_card": lambda w, k, c: f"【{_cr(k)}】翻开{w.cards(c)}",
    "rank_off": lambda w, seats, c: f"{w.whos(seats)}比点：{w.cards(c)}",
    "basilisk_gaze": lambda w, s: f"蛇怪的致命凝视落在{w.who(s)}身上",
    "phoenix_blocks": lambda w, s: f"凤凰为{w.who(s)}抵挡了伤害",
    "werewolf_bite": lambda w, s: f"狼人的撕咬波及{w.who(s)}",
    "salamander_wakes": lambda w, s: f"{w.who(s)}的火蜥蜴翻为正面：激活",
    "acromantula_passes": lambda w, s, t: f"巨蜘蛛从{w.who(s)}传给{w.who(t)}",
    "no_recovery": lambda w, s: f"巨蜘蛛覆盖了{w.who(s)}的体力：无法回复",
    "gnome_borrows": lambda w, s, t, c: f"{w.who(s)}借地精之力取用{w.who(t)}的{w.card(c)}",
    "gnome_gives_back": lambda w, s, t, c: f"{w.who(s)}将{w.card(c)}归还{w.who(t)}",
    "gnome_loan_discarded": lambda w, s, c: f"{w.who(s)}无法归还{w.card(c)}，将其弃置",
    "centaur_shows": lambda w, s, c: f"{w.who(s)}明置{w.cards(c)}：马人观看牌堆",
    "egg_moves": lambda w, s, t: f"龙蛋从{w.who(s)}转到{w.who(t)}",
    "gnome_slot": lambda w, s, sub: f"地精占据了{w.who(s)}的{_SLOT_ZH.get(sub, sub)}栏",
    "n_creature": lambda w, k: _cr(k),
}


def _cr(key: str) -> str:
    c = CREATURES.get(key)
    return c.zh if c is not None else key


_SLOT_ZH: dict[str, str] = {"weapon": "武器", "armour": "防具", "plus": "+1坐骑", "minus": "-1坐骑"}

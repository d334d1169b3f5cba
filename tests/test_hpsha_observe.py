"""HP Sha's observation as plain data (``seats``, ``hand_cards``): what clients draw, and nothing hidden in it."""

from __future__ import annotations

from p2php.engine.contract import GameOver
from p2php.engine.local import LocalTable
from p2php.games.hpsha import GAME
from p2php.games.hpsha.observe import card_words


def test_seat_facts_follow_the_game_and_never_show_a_hidden_identity_or_hand() -> None:
    st = GAME.new_state(5, {})
    table = LocalTable(st, 11)
    bots = {s: GAME.make_bot("heuristic", f"11/{s}") for s in range(5)}
    checked = 0
    for _ in range(400):
        step = table.run_chance()
        if isinstance(step, GameOver):
            break
        obs = st.observation(0, table.knowledge(0))
        seats = obs["seats"]
        assert [f["seat"] for f in seats] == list(range(5)) and seats[0]["you"]
        for s, facts in enumerate(seats):
            assert facts["hand_count"] == len(st.hands[s]) and facts["hp"] == st.hp[s]
            if s != 0 and s not in st.roles:
                assert facts["identity"] is None  # only a revealed identity (or our own) is named
            assert [e["card"] for e in facts["equipment"]] == [st.pub[x] for x in st.equip[s].values()]
            if st.char[s] >= 0:
                assert facts["character"]["id"] == st.char[s]
        assert seats[0]["identity"] == obs["identity"]
        assert [c["slot"] for c in obs["hand_cards"]] == list(st.hands[0])
        assert all(c["card"] == table.knowledge(0).face(c["slot"]) for c in obs["hand_cards"])
        checked += 1
        answers = []
        for seat in step.seats:
            kn = table.knowledge(seat)
            answers.append((seat, bots[seat].choose(st, seat, kn, st.legal_actions(seat, kn))))
        table.act(answers)
    assert checked > 50


def test_card_words_split_the_bilingual_label() -> None:
    words = card_words(0)
    assert words["label"].startswith(words["zh"].split(" ")[0])
    assert words["en"].split(" ")[-1] == words["zh"].split(" ")[-1]  # the suit and rank in both
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in words["en"])

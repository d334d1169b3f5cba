"""A Year at Hogwarts' data (issue 12, increment 1): it loads, holds hogwarts-data.md's counts and §7 checks,
refuses doctored copies with one clear line, and is what the extractor makes of the document."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from p2php.games.hogwarts import data
from p2php.games.hogwarts.checks import check
from p2php.games.hogwarts.errors import HogwartsDataError
from p2php.games.hogwarts.missions import GREAT_HALL, CardNeed

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT.parent / "shared" / "rules" / "hogwarts-data.md"


def _raw() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(resources.files("p2php.games.hogwarts").joinpath("hogwarts_data.json")
                                     .read_bytes())
    return raw


def test_the_data_holds_the_documents_counts() -> None:
    d = data.load()
    assert len(d.cells) == 191
    assert {b: len(d.cells_of(b)) for b in ("main", "board1", "board2")} == {"main": 126, "board1": 23, "board2": 42}
    sizes = {name: d.deck_size(name) for name in ("battle", "spell", "potion", "book", "action", "event", "duel",
                                                  "quidditch")}
    assert sizes == {"battle": 30, "spell": 40, "potion": 36, "book": 30, "action": 24, "event": 18, "duel": 18,
                     "quidditch": 14}
    assert sum(sizes.values()) == 210
    assert len(d.missions) == 30 and [m.number for m in d.missions] == list(range(1, 31))
    assert len(d.object_tokens) == 30
    assert len(d.students) == len(d.death_eaters) == 9
    assert len(d.pitch.grid) == 41 and len(d.pitch.circuit) == 24 and d.pitch.tokens.total == 32
    assert sum(1 for c in d.cells.values() if c.kind == "tower") == 18
    assert sum(1 for c in d.cells.values() if c.kind == "star") == 30
    assert len(d.special_links) == 8 and len(d.cell_effects) == 17
    assert len(d.event_battles) == 3 and len(d.battle_vocabulary) >= 20
    assert [r.id for r in d.resolutions][:2] == ["C-1", "C-2"] and len(d.resolutions) == 53
    assert data.load() is d  # cached


def test_lookups_and_the_rulebooks_own_examples() -> None:
    d = data.load()
    six = d.mission(6)
    assert (six.title, six.location, six.battle_card, six.reward) == (
        "Destroy the First Horcrux: Tom Riddle's Diary", "chamber_of_secrets", "BA06", 200)
    assert six.qualified_cards == (CardNeed(deck="spell", use="attack"), CardNeed(deck="spell", use="attack"),
                                   CardNeed(card="polyjuice_potion"))
    assert d.mission(30).location == GREAT_HALL
    assert d.great_hall_cells() == ("gh_e", "gh_n", "gh_s", "gh_w")
    assert d.hand_card("polyjuice_potion").deck == "potion" and d.hand_card("accio").use == "start"
    assert d.battle_cards["BA06"].abilities == ("reveal:lose(2)", "after:lose(3)")
    assert d.cells["hospital_wing"].life_points == 4 and d.cells["m010"].life_points is None
    assert d.cell_effects["potions_classroom"].take == (("potion", 2),)
    assert d.cell_effects["hagrids_hut"].take == (("potion", 1), ("spell", 1))
    assert d.cell_effects["zonkos_joke_shop"].action_draws == 1
    assert d.cell_effects["charms_classroom"].exam == "charms"
    assert d.students[0].name == "Harry Potter" and dict(d.students[0].start_cards) == {"spell": 4, "potion": 2,
                                                                                       "book": 2}
    assert d.return_of_voldemort.horcruxes["nagini"] == "clock_tower"
    assert d.pitch.quaffle_start == "q_4_2" and dict(d.pitch.bludger_start) == {"A": "q_2_2", "B": "q_6_2"}
    assert d.pitch.formation["B"].keeper == "q_8_1"
    assert d.setup[0].modes["underage"] == "2"
    with pytest.raises(KeyError):
        d.mission(31)


def test_records_are_frozen() -> None:
    d = data.load()
    with pytest.raises(FrozenInstanceError):
        d.cells["start"].kind = "tower"  # type: ignore[misc]
    with pytest.raises(TypeError):
        d.cells["m999"] = d.cells["start"]  # type: ignore[index]


def _load_doctored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, raw: dict[str, Any]) -> None:
    (tmp_path / "hogwarts_data.json").write_text(json.dumps(raw), encoding="utf-8")
    monkeypatch.setattr(resources, "files", lambda package: tmp_path)
    data.load.cache_clear()
    try:
        data.load()
    finally:
        monkeypatch.undo()
        data.load.cache_clear()


def _cell(raw: dict[str, Any], cell_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in raw["cells"] if c["id"] == cell_id)
    return found


def _one_way(raw: dict[str, Any]) -> None:
    _cell(raw, "two_hands_cell")["neighbours"].remove("m001")


def _no_such_neighbour(raw: dict[str, Any]) -> None:
    _cell(raw, "m070")["neighbours"].append("m999")


def _recounted(raw: dict[str, Any]) -> None:
    _cell(raw, "m001")["kind"] = "event"


def _twice(raw: dict[str, Any]) -> None:
    raw["cells"].append(dict(_cell(raw, "m001")))


def _more_stupefy(raw: dict[str, Any]) -> None:
    raw["spells"][0]["copies"] = 7


def _unknown_token(raw: dict[str, Any]) -> None:
    raw["missions"][2]["tokens"].append("sorcerers_stone")


def _typo(raw: dict[str, Any]) -> None:
    raw["spells"][0]["effect"] = ["damgae(3)"]


def _weaker_riddle(raw: dict[str, Any]) -> None:
    raw["battle_cards"][5]["lp"] = 8


def _longer_example(raw: dict[str, Any]) -> None:
    raw["movement_examples"]["distances"][0]["steps"] = 5


def _lopsided_pitch(raw: dict[str, Any]) -> None:
    raw["pitch"]["grid"][0]["neighbours"].append("q_2_2")


def _kindless(raw: dict[str, Any]) -> None:
    del raw["cells"][0]["kind"]


DOCTORED: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (_one_way, "cell m001: neighbour two_hands_cell does not list it back"),
    (_no_such_neighbour, "cell m070: neighbour m999 does not exist"),
    (_recounted, "kind action on main: §1.8 says 8 cells, the board has 7"),
    (_twice, "cell m001: the id is used twice"),
    (_more_stupefy, "deck spell: §2.1 says 40 cards"),
    (_unknown_token, "mission 3: token sorcerers_stone does not exist"),
    (_typo, "card stupefy: term 'damgae(3)' is not in the battle vocabulary"),
    (_weaker_riddle, "battle card BA06: the rulebook prints"),
    (_longer_example, "movement example leaky_cauldron -> gringotts: the rulebook says 5 steps, the graph gives 4"),
    (_lopsided_pitch, "pitch cell q_0_1: neighbour q_2_2 does not exist or does not list it back"),
    (_kindless, "malformed"),
]


@pytest.mark.parametrize(("doctor", "message"), DOCTORED, ids=[d.__name__.strip("_") for d, _ in DOCTORED])
def test_a_doctored_file_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                doctor: Callable[[dict[str, Any]], None], message: str) -> None:
    raw = _raw()
    doctor(raw)
    with pytest.raises(HogwartsDataError) as caught:
        _load_doctored(monkeypatch, tmp_path, raw)
    text = str(caught.value)
    assert message in text and "\n" not in text and text.startswith("hogwarts_data.json")


def test_the_real_file_still_loads_after_doctored_ones(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _load_doctored(monkeypatch, tmp_path, _raw())
    check(data.decode(_raw()))
    assert len(data.load().cells) == 191


def _extractor() -> ModuleType:
    path = ROOT / "tools" / "extract_hogwarts_data.py"
    spec = importlib.util.spec_from_file_location("extract_hogwarts_data", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not SOURCE.exists(), reason="shared/rules/hogwarts-data.md is not checked out")
def test_the_json_is_a_fresh_deterministic_extraction() -> None:
    fresh = _extractor().extract(SOURCE)
    shipped = resources.files("p2php.games.hogwarts").joinpath("hogwarts_data.json").read_bytes()
    assert shipped == fresh, "p2php/games/hogwarts/hogwarts_data.json is stale: run tools/extract_hogwarts_data.py"
    assert _extractor().extract(SOURCE) == fresh


@pytest.mark.skipif(not SOURCE.exists(), reason="shared/rules/hogwarts-data.md is not checked out")
def test_the_extractor_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    extractor = _extractor()
    (tmp_path / "short.md").write_text("## 1. Board graph\n\nnothing here\n", encoding="utf-8")
    with pytest.raises(extractor.ExtractError, match="sections missing"):
        extractor.extract(tmp_path / "short.md")
    text = SOURCE.read_text(encoding="utf-8").replace("| `BK18` | potions | Magical Draughts and Potions (Arsenius "
                                                      "Jigger) | 10 |", "| `BK18` | potions | Magical Draughts | ten |")
    (tmp_path / "bad.md").write_text(text, encoding="utf-8")
    with pytest.raises(extractor.ExtractError, match="whole number"):
        extractor.extract(tmp_path / "bad.md")


@pytest.mark.skipif(not SOURCE.exists(), reason="shared/rules/hogwarts-data.md is not checked out")
def test_the_extractors_check_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    extractor = _extractor()
    shipped = ROOT / "p2php" / "games" / "hogwarts" / "hogwarts_data.json"
    assert extractor.main(["--check", "--out", str(shipped)]) == 0
    stale = tmp_path / "stale.json"
    stale.write_text("{}\n", encoding="utf-8")
    assert extractor.main(["--check", "--out", str(stale)]) == 1
    assert extractor.main(["--out", str(stale)]) == 0 and stale.read_bytes() == shipped.read_bytes()
    assert "stale" in capsys.readouterr().out

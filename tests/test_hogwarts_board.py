"""Movement over A Year at Hogwarts' board graph (issue 12, increment 1): the rulebook's examples (data §1.9),
every kind of stop, secret passages, moves between boards, the trips that are not movement, and properties
of every move (within the roll, never re-entering a cell, checked the same way it was found, deterministic)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2php.games.hogwarts import data
from p2php.games.hogwarts.board import (
    FREE_MOVE,
    Constraints,
    Ending,
    Walk,
    buckbeak_destinations,
    can_use_flying_powder,
    classify,
    destinations,
    distance,
    flying_powder_destinations,
    portal_destination,
    shortest_path,
    walks,
    walks_up_to,
)

GRAPH = data.graph()
CELLS = tuple(sorted(c for c in GRAPH.steps if c in GRAPH.enterable))


def _walk(path: tuple[str, ...], roll: int, rules: Constraints = FREE_MOVE) -> Walk:
    found = [w for w in walks(GRAPH, path[0], roll, rules) if w.path == path]
    assert found, f"{' -> '.join(path)} is not a legal move of {roll}"
    return found[0]


# ----------------------------------------------------------------------------- the rulebook's examples (§1.9)

def test_the_rulebooks_distances() -> None:
    assert distance(GRAPH, "leaky_cauldron", "gringotts") == 4
    assert distance(GRAPH, "gringotts", "borgin_and_burkes") == 4
    assert distance(GRAPH, "gringotts", "ollivanders") == 4
    assert distance(GRAPH, "honeydukes", "hogs_head") == 3


def test_the_printed_paths_are_the_shortest_and_legal_moves() -> None:
    for example in data.load().movement_examples:
        assert shortest_path(GRAPH, example.source, example.target) == example.path
        assert _walk(example.path, example.steps).ending is Ending.EXACT


def test_harrys_ten_step_turn_from_the_start() -> None:
    path = ("start", "two_hands_cell", "hogwarts_crest_cell", "clock_tower", "m005", "m006", "m007", "m008", "m009",
            "hufflepuff_common_room", "m010")
    assert data.load().harry_turn == path
    walk = _walk(path, 10)
    assert (walk.steps, walk.ending, walk.end) == (10, Ending.EXACT, "m010")
    assert data.load().cells["m006"].kind == "star"  # "on the way ... you do pick up an object token"
    assert data.load().cells["m010"].kind == "spell"  # 2 spell cards by Harry's ability (H-1, C-50)
    # "Here, as in any tower of the castle, you could stop": the Clock Tower is a voluntary stop on the way
    assert _walk(path[:4], 10).ending is Ending.VOLUNTARY
    # the common room too ("When you reach the Hufflepuff common room, you decide to go one more cell")
    assert _walk(path[:10], 10).ending is Ending.VOLUNTARY


def test_from_the_two_hands_into_the_castle_or_towards_diagon_alley() -> None:
    assert destinations(GRAPH, "two_hands_cell", 1) == ("hogwarts_crest_cell", "m001", "start")
    assert _walk(("two_hands_cell", "m001", "m002", "leaky_cauldron"), 3).ending is Ending.EXACT


# ----------------------------------------------------------------------------- stops

def test_a_figure_or_death_eater_on_the_way_ends_the_move() -> None:
    rules = Constraints(occupied=frozenset({"m006"}))
    through = [w for w in walks(GRAPH, "clock_tower", 7, rules) if "m006" in w.path]
    assert through and all(w.end == "m006" and w.ending is Ending.FORCED and w.steps == 2 for w in through)
    assert _walk(("clock_tower", "m005", "m006"), 2, rules).ending is Ending.EXACT


def test_an_occupied_start_cell_never_stops_a_move() -> None:
    rules = Constraints(occupied=frozenset({"start"}))
    assert _walk(("two_hands_cell", "start", "m003"), 2, rules).ending is Ending.EXACT


def test_the_quidditch_pitch_ends_the_move_unless_cho_passes() -> None:
    onto = [w for w in walks(GRAPH, "m022", 6) if "quidditch_pitch" in w.path]
    assert onto == [Walk(("m022", "m023", "quidditch_pitch"), 2, Ending.FORCED)]
    cho = Constraints(pitch_ends_move=False)
    assert _walk(("m022", "m023", "quidditch_pitch", "m024", "m025"), 4, cho).ending is Ending.EXACT


def test_dead_ends_lose_the_rest_of_the_roll() -> None:
    for origin, dead_end in (("m032", "snapes_office"), ("m039", "chamber_of_secrets"), ("m054", "mirror_chamber"),
                             ("m065", "dumbledores_office"), ("o014", "the_cave")):
        ends = {w.end: w for w in walks(GRAPH, origin, 12)}
        assert ends[dead_end].ending is Ending.DEAD_END, dead_end


def test_voluntary_stops_only_where_the_rules_allow() -> None:
    early = {w.end for w in walks(GRAPH, "m003", 8) if w.ending is Ending.VOLUNTARY}
    assert "boathouse_tower" in early and "black_lake" in early
    assert "m021" in early and not {"m004", "m020"} & early  # a +2 LP cell yes; an event and a star cell no
    assert not any(GRAPH.kinds[c] in ("star", "event", "corridor", "bridge") for c in early)
    assert "m020" in {w.end for w in walks(GRAPH, "m003", 8, Constraints(stop_anywhere=True))
                      if w.ending is Ending.VOLUNTARY}
    mission_here = Constraints(stop_also=frozenset({"m004"}))
    assert Walk(("m003", "m004"), 1, Ending.VOLUNTARY) in walks(GRAPH, "m003", 8, mission_here)


def test_impassable_cells_and_the_great_hall_are_never_entered() -> None:
    rules = Constraints(impassable=frozenset({"clock_tower"}))
    assert all("clock_tower" not in w.path for w in walks(GRAPH, "hogwarts_crest_cell", 6, rules))
    assert all("great_hall" not in w.path for c in ("gh_s", "gh_e", "gh_n", "gh_w") for w in walks(GRAPH, c, 4))
    assert distance(GRAPH, "start", "great_hall") is None


# ----------------------------------------------------------------------------- passages and boards

def test_secret_passages_cost_no_step_and_movement_goes_on() -> None:
    assert _walk(("m049", "one_eyed_witch_statue", "honeydukes", "o001"), 2).ending is Ending.EXACT
    assert _walk(("m049", "one_eyed_witch_statue", "honeydukes"), 1).ending is Ending.EXACT  # 0 steps left
    assert _walk(("m025", "whomping_willow", "shrieking_shack", "o007"), 2).ending is Ending.EXACT
    assert _walk(("m061", "room_of_requirement", "hogs_head", "o002"), 2).ending is Ending.EXACT
    assert _walk(("o002", "hogs_head", "room_of_requirement", "m062"), 2).ending is Ending.EXACT  # two-way
    assert distance(GRAPH, "one_eyed_witch_statue", "honeydukes") == 0


def test_moves_between_boards() -> None:
    assert GRAPH.boards["m002"] == "main" and GRAPH.boards["leaky_cauldron"] == "board1"
    assert distance(GRAPH, "m002", "leaky_cauldron") == 1 and distance(GRAPH, "hogsmeade_road", "honeydukes") == 1
    assert distance(GRAPH, "gringotts", "gringotts_vaults") == 0  # "requires no movement"
    assert distance(GRAPH, "ministry_of_magic", "hall_of_prophecy") == 0
    assert _walk(("d013", "ministry_of_magic", "hall_of_prophecy", "o024"), 2).ending is Ending.EXACT
    assert _walk(("d001", "d002", "flourish_and_blotts", "gringotts", "gringotts_vaults", "o026"), 4).ending \
        is Ending.EXACT


def test_a_cell_is_crossed_once_so_a_link_never_leads_back() -> None:
    assert all(len(set(w.path)) == len(w.path) for w in walks(GRAPH, "gringotts", 6))
    assert classify(GRAPH, ("gringotts", "gringotts_vaults", "gringotts", "d003"), 1) is None
    assert classify(GRAPH, ("m005", "m006", "m005"), 2) is None


# ----------------------------------------------------------------------------- trips that are not movement

def test_the_portal_is_a_trip_from_the_pitch_only() -> None:
    assert portal_destination(GRAPH, "quidditch_pitch") == "little_hangleton_graveyard"
    assert portal_destination(GRAPH, "m023") is None
    assert all("little_hangleton_graveyard" not in w.path for c in CELLS if c != "little_hangleton_graveyard"
               for w in walks(GRAPH, c, 3))
    assert walks(GRAPH, "little_hangleton_graveyard", 7) == (Walk(("little_hangleton_graveyard",), 0,
                                                                  Ending.DEAD_END),)


def test_flying_powder_and_buckbeak() -> None:
    towers = [c for c in CELLS if can_use_flying_powder(GRAPH, c)]
    assert len(towers) == 18 and not can_use_flying_powder(GRAPH, "m005")
    powder = flying_powder_destinations(GRAPH)
    assert len(powder) == 41 and "little_hangleton_graveyard" not in powder
    assert {GRAPH.boards[c] for c in powder} == {"board2"}
    buckbeak = buckbeak_destinations(GRAPH)
    assert len(buckbeak) == 65 and "little_hangleton_graveyard" in buckbeak and buckbeak == tuple(sorted(buckbeak))


def test_the_invisibility_cloak_escapes_up_to_five_steps() -> None:
    escapes = walks_up_to(GRAPH, "m008", 5)
    assert {w.steps for w in escapes} == {1, 2, 3, 4, 5}
    assert escapes == tuple(sorted(escapes)) and all(len(w.path) > 1 for w in escapes)


def test_classify_refuses_what_is_not_a_move() -> None:
    assert classify(GRAPH, ("m005", "m007"), 1) is None  # not adjacent
    assert classify(GRAPH, ("m005", "m006"), 3) is None  # a star cell is no voluntary stop
    assert classify(GRAPH, ("m005", "m006", "m007", "m008"), 2) is None  # too long
    rules = Constraints(occupied=frozenset({"m006"}))
    assert classify(GRAPH, ("m005", "m006", "m007"), 2, rules) is None  # past a forced stop
    assert classify(GRAPH, (), 2) is None and classify(GRAPH, ("nowhere",), 2) is None
    assert classify(GRAPH, ("m005",), 0) is Ending.EXACT and classify(GRAPH, ("m005",), 2) is None


# ----------------------------------------------------------------------------- properties

origins = st.sampled_from(CELLS)
rolls = st.integers(min_value=0, max_value=12)
occupied = st.frozensets(st.sampled_from(CELLS), max_size=6)


@settings(max_examples=150, deadline=None)
@given(origins, rolls, occupied)
def test_every_move_stays_within_the_roll_and_checks_out(origin: str, roll: int, taken: frozenset[str]) -> None:
    rules = Constraints(occupied=taken)
    found = walks(GRAPH, origin, roll, rules)
    assert found and found == tuple(sorted(found)) and found == walks(GRAPH, origin, roll, rules)
    for w in found:
        assert w.path[0] == origin and len(set(w.path)) == len(w.path)
        assert w.steps <= roll and (w.steps == roll) == (w.ending is Ending.EXACT)
        far = distance(GRAPH, origin, w.end)
        assert far is not None and far <= w.steps
        assert classify(GRAPH, w.path, roll, rules) is w.ending
        assert all(c not in taken or GRAPH.kinds[c] == "start" for c in w.path[1:-1])
    assert destinations(GRAPH, origin, roll, rules) == tuple(sorted({w.end for w in found}))


@settings(max_examples=100, deadline=None)
@given(origins, rolls)
def test_a_cell_exactly_a_roll_away_is_a_destination(origin: str, roll: int) -> None:
    """A shortest path is a simple walk, so its end takes exactly that roll (unless it crosses the pitch)."""
    ends = set(destinations(GRAPH, origin, roll))
    for target in CELLS:
        path = shortest_path(GRAPH, origin, target)
        if path is None or target == origin or distance(GRAPH, origin, target) != roll:
            continue
        assert target in ends or any(GRAPH.kinds[c] == "quidditch_pitch" for c in path[1:-1]), target


@settings(max_examples=100, deadline=None)
@given(origins)
def test_neighbours_are_symmetric_and_sorted(cell: str) -> None:
    assert GRAPH.steps[cell] == tuple(sorted(GRAPH.steps[cell]))
    for n in GRAPH.steps[cell]:
        assert cell in GRAPH.steps[n] and distance(GRAPH, cell, n) == distance(GRAPH, n, cell) == 1
    for f in GRAPH.free[cell]:
        assert cell in GRAPH.free[f] and distance(GRAPH, cell, f) == 0


def _simple_paths(origin: str, roll: int) -> list[tuple[tuple[str, ...], int]]:
    """Every path that enters no cell twice and spends at most ``roll`` steps, stops ignored: the candidates."""
    found: list[tuple[tuple[str, ...], int]] = []

    def grow(path: tuple[str, ...], steps: int) -> None:
        found.append((path, steps))
        hops = [(n, 1) for n in GRAPH.steps[path[-1]]] + [(f, 0) for f in GRAPH.free[path[-1]]]
        for nxt, cost in hops:
            if nxt not in path and nxt in GRAPH.enterable and steps + cost <= roll:
                grow((*path, nxt), steps + cost)

    grow((origin,), 0)
    return found


def _stops(cell: str, taken: frozenset[str]) -> bool:
    return (cell in taken and GRAPH.kinds[cell] != "start") or GRAPH.kinds[cell] == "quidditch_pitch"


def _legal(path: tuple[str, ...], steps: int, roll: int, taken: frozenset[str]) -> bool:
    """The rules of data §1.2 and rules §9 restated on their own, to check :func:`walks` against."""
    if any(_stops(c, taken) for c in path[1:-1]):
        return False
    end = path[-1]
    can_go_on = not (len(path) > 1 and _stops(end, taken)) and (
        any(n not in path and n in GRAPH.enterable for n in GRAPH.free[end])
        or (steps < roll and any(n not in path and n in GRAPH.enterable for n in GRAPH.steps[end])))
    if len(path) == 1:
        return roll == 0 or not can_go_on
    return steps == roll or _stops(end, taken) or not can_go_on or end in GRAPH.voluntary


@settings(max_examples=120, deadline=None)
@given(origins, st.integers(min_value=0, max_value=6), occupied)
def test_walks_are_exactly_the_legal_paths(origin: str, roll: int, taken: frozenset[str]) -> None:
    expected = sorted(path for path, steps in _simple_paths(origin, roll) if _legal(path, steps, roll, taken))
    assert [w.path for w in walks(GRAPH, origin, roll, Constraints(occupied=taken))] == expected

"""The load-time checks of A Year at Hogwarts' data: the counts of hogwarts-data.md (§1.8, §2.1) and every
consistency check of its §7, plus the few facts the rulebook prints (the Tom Riddle card, Harry's sheet, …).

Each check raises :class:`HogwartsDataError` with one line naming the item and what is wrong.  The numbers
below are the rulebook's (210 cards, 30 missions, 30 tokens, 18 towers, 6 classrooms, 9 sheets, 14 LP at
most, 40–300 points a mission) or the document's own sizes; the per-kind and per-deck tables are read from
the data file itself and compared with the records.  Checks marked "ours" go beyond §7 and guard what the
engine relies on (every effect term is in the battle vocabulary, ids are unique across the game).
"""

from __future__ import annotations

from collections import Counter

from .board import Ending, Graph, classify, distance
from .cards import term_head
from .cells import BOARDS, PORTAL, kind_template
from .errors import DATA_FILE, HogwartsDataError
from .missions import GREAT_HALL
from .tables import HogwartsData

__all__ = ["check"]

BOARD_SIZES = {"main": 126, "board1": 23, "board2": 42}
STAR_CELLS = {"main": 18, "board1": 3, "board2": 9}
TOWERS, CLASSROOMS, COMMON_ROOMS, GREAT_HALL_CELLS = 18, 6, 4, 4
CARD_DECKS = ("battle", "spell", "potion", "book", "action", "event", "duel", "quidditch")
TOTAL_CARDS, MISSIONS, OBJECT_TOKENS, SPECIAL_TOKENS = 210, 30, 30, 6
MISSION_REWARDS = (40, 300)
MISSION_REWARD_SUM = 4920  # data §3.3
BOOK_POINTS = (5, 5, 10, 15, 20)  # per subject, data §2.5
HAND_CARD_USES = {"spell": {"attack": 25, "defence": 10, "start": 5},  # data §2.3 notes
                  "potion": {"attack": 16, "defence": 14, "start": 6}}  # data §2.4 notes
SHEETS, MAX_LP = 9, 14
PITCH_GRID, CIRCUIT, PITCH_TOKENS = 41, 24, 32
LINK_TYPES = ("passage1", "passage2", "passage3", "free", PORTAL)
IMMUNITIES = ("spells", "potions")
START, BLOCKED = "start", "blocked"


def _fail(item: str, what: str) -> HogwartsDataError:
    return HogwartsDataError(f"{DATA_FILE}: {item}: {what}")


def _cells(data: HogwartsData) -> None:
    """Kinds and boards known; walk edges exist, symmetric, no self-loops; links exist and free ones two-way (§7)."""
    cells = data.cells
    for c in cells.values():
        if c.board not in BOARDS:
            raise _fail(f"cell {c.id}", f"unknown board {c.board!r}")
        if kind_template(c.kind) not in data.cell_kinds:
            raise _fail(f"cell {c.id}", f"unknown kind {c.kind!r} (§1.1)")
        for n in c.neighbours:
            if n == c.id:
                raise _fail(f"cell {c.id}", "is its own neighbour")
            if n not in cells:
                raise _fail(f"cell {c.id}", f"neighbour {n} does not exist")
            if c.id not in cells[n].neighbours:
                raise _fail(f"cell {c.id}", f"neighbour {n} does not list it back (walk edges are two-way)")
            if cells[n].kind == BLOCKED:
                raise _fail(f"cell {c.id}", f"neighbour {n} cannot be entered")
        for link in c.links:
            if link.type not in LINK_TYPES:
                raise _fail(f"cell {c.id}", f"unknown link type {link.type!r}")
            if link.to not in cells or link.to == c.id:
                raise _fail(f"cell {c.id}", f"{link.type} link target {link.to} does not exist")
            if link.is_free and all(back.to != c.id or back.type != link.type for back in cells[link.to].links):
                raise _fail(f"cell {c.id}", f"{link.type} link to {link.to} is not listed back (free links are 2-way)")
        if c.kind == BLOCKED and (c.neighbours or c.links):
            raise _fail(f"cell {c.id}", "cannot be entered but has edges")


def _special_links(data: HogwartsData) -> None:
    """§1.6 and the cells agree: each row is an edge or link of its type, two-way where it says so, and back."""
    cells = data.cells
    listed: set[tuple[str, str]] = set()
    for row in data.special_links:
        item = f"special link {row.source} -> {row.target}"
        if row.source not in cells or row.target not in cells:
            raise _fail(item, "names a cell that does not exist")
        if row.type.startswith("walk"):
            if row.target not in cells[row.source].neighbours or row.cost != 1:
                raise _fail(item, "should be a 1-step walk edge between the two cells")
            continue
        forward = any(link.type == row.type and link.to == row.target for link in cells[row.source].links)
        back = any(link.type == row.type and link.to == row.source for link in cells[row.target].links)
        if not forward or back != row.two_way:
            raise _fail(item, f"the cells' {row.type} links do not match (two-way: {row.two_way})")
        if (row.type == PORTAL) != (row.cost is None) or (row.cost not in (None, 0)):
            raise _fail(item, "free links cost 0 and the portal is not movement")
        listed |= {(row.source, row.target), (row.target, row.source)}
    for c in cells.values():
        for link in c.links:
            if (c.id, link.to) not in listed:
                raise _fail(f"cell {c.id}", f"{link.type} link to {link.to} is not in the §1.6 table")


def _counts(data: HogwartsData) -> None:
    """Board sizes, the §1.8 table, towers, classrooms, common rooms, star cells, the Great Hall (§7)."""
    counted = Counter((c.kind, c.board) for c in data.cells.values())
    per_board = Counter(c.board for c in data.cells.values())
    for board, size in BOARD_SIZES.items():
        if per_board[board] != size or data.cell_counts["all"][board] != size:
            raise _fail(f"board {board}", f"should have {size} cells, has {per_board[board]} (§1.8: "
                                          f"{data.cell_counts['all'][board]})")
    kinds = {k for k, _ in counted}
    if kinds != set(data.cell_counts) - {"all"}:
        odd = sorted(kinds ^ (set(data.cell_counts) - {"all"}))
        raise _fail("§1.8 counts", f"the kinds counted differ from the cells' kinds: {odd}")
    for kind, row in data.cell_counts.items():
        if sum(row[b] for b in BOARDS) != row["total"]:
            raise _fail(f"§1.8 counts {kind}", "boards do not add up to the total")
        for board in BOARDS:
            got = per_board[board] if kind == "all" else counted[kind, board]
            if got != row[board]:
                raise _fail(f"kind {kind} on {board}", f"§1.8 says {row[board]} cells, the board has {got}")
    if data.cell_counts["tower"]["total"] != TOWERS or data.cell_counts["tower"]["main"] != TOWERS:
        raise _fail("towers", f"there are {TOWERS} towers, all on the main board")
    for kind, expected in (("classroom", CLASSROOMS), ("common_room", COMMON_ROOMS), (START, 1)):
        if data.cell_counts[kind]["total"] != expected:
            raise _fail(f"kind {kind}", f"expected {expected} cells, got {data.cell_counts[kind]['total']}")
    for board, stars in STAR_CELLS.items():
        if counted["star", board] != stars:
            raise _fail(f"star cells on {board}", f"expected {stars}, got {counted['star', board]}")
    if len(data.great_hall_cells()) != GREAT_HALL_CELLS:
        raise _fail("Great Hall", f"expected {GREAT_HALL_CELLS} gh cells, got {len(data.great_hall_cells())}")


def _reachable(data: HogwartsData) -> None:
    """Every cell but the blocked Great Hall reachable from the start over walk, free and portal links (§7)."""
    starts = [c.id for c in data.cells.values() if c.kind == START]
    seen, todo = set(starts), list(starts)
    while todo:
        c = data.cells[todo.pop()]
        for n in (*c.neighbours, *(link.to for link in c.links)):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    unreached = sorted(c.id for c in data.cells.values() if c.id not in seen and c.kind != BLOCKED)
    if unreached:
        raise _fail(f"cell {unreached[0]}", f"cannot be reached from the start ({len(unreached)} cells cannot)")


def _cell_effects(data: HogwartsData) -> None:
    """§1.7 rows name classrooms and special cells, one each, taking from real decks; classrooms hold exams."""
    wanted = {c.id for c in data.cells.values() if c.kind in ("classroom", "special")}
    for effect in data.cell_effects.values():
        item = f"cell effect {effect.cell}"
        if effect.cell not in wanted:
            raise _fail(item, "is not a classroom or special cell")
        if any(deck not in data.decks for deck, _ in effect.take):
            raise _fail(item, f"takes from an unknown deck: {effect.take}")
        if (data.cells[effect.cell].kind == "classroom") != (effect.exam is not None):
            raise _fail(item, "classrooms, and only they, hold exams")
    missing = sorted(wanted - set(data.cell_effects))
    if missing:
        raise _fail(f"cell {missing[0]}", "has no §1.7 effect")


def _movement_examples(data: HogwartsData) -> None:
    """The rulebook's distances (§1.9) hold on the graph; Harry's 10-step turn is a simple legal move (§7)."""
    graph = Graph.of(data)
    for ex in data.movement_examples:
        item = f"movement example {ex.source} -> {ex.target}"
        got = distance(graph, ex.source, ex.target)
        if got != ex.steps:
            raise _fail(item, f"the rulebook says {ex.steps} steps, the graph gives {got}")
        if classify(graph, ex.path, ex.steps) is not Ending.EXACT:
            raise _fail(item, f"the printed path is not a legal {ex.steps}-step move")
    harry = data.harry_turn
    if len(set(harry)) != len(harry) or classify(graph, harry, 10) is not Ending.EXACT:
        raise _fail("Harry's example turn", "is not a simple legal 10-step move from the start")
    if data.cells[harry[5]].kind != "star" or data.cells[harry[9]].kind != "common_room" or \
            data.cells[harry[10]].kind != "spell":
        raise _fail("Harry's example turn", "step 5 should be a star, 9 the common room, 10 a spell cell (C-50)")


def _decks(data: HogwartsData) -> None:
    """§2.1 deck sizes and distinct counts; 210 cards in all and 30 missions (R)."""
    for name in CARD_DECKS:
        row = data.decks.get(name)
        if row is None:
            raise _fail(f"deck {name}", "is missing from the §2.1 table")
        if data.deck_size(name) != row.cards or len(data.deck(name)) != row.distinct:
            raise _fail(f"deck {name}", f"§2.1 says {row.cards} cards ({row.distinct} distinct), the data has "
                                        f"{data.deck_size(name)} ({len(data.deck(name))})")
    total = sum(data.decks[name].cards for name in CARD_DECKS)
    if total != TOTAL_CARDS:
        raise _fail("decks", f"the rulebook's {TOTAL_CARDS} cards, but the decks hold {total}")
    if len(data.missions) != MISSIONS or data.decks["mission"].cards != MISSIONS:
        raise _fail("missions", f"expected {MISSIONS} mission cards, got {len(data.missions)}")
    for deck, uses in HAND_CARD_USES.items():
        cards = data.spells if deck == "spell" else data.potions
        got = {use: sum(c.copies for c in cards.values() if c.use == use) for use in uses}
        if got != uses or any(c.deck != deck for c in cards.values()):
            raise _fail(f"{deck} cards", f"copies by use should be {uses}, got {got} (ours)")


def _vocabulary(data: HogwartsData) -> None:
    """Every battle effect and enemy ability is a term of the battle vocabulary (§2.2) (ours)."""
    heads = {t.head for t in data.battle_vocabulary}
    hand = [(c.id, c.effect) for c in (*data.spells.values(), *data.potions.values())]
    enemies = (*data.duels.values(), *data.battle_cards.values(), *data.event_battles.values())
    for card_id, effect_terms in (*hand, *((e.id, e.abilities) for e in enemies)):
        for term in effect_terms:
            if term_head(term) not in heads:
                raise _fail(f"card {card_id}", f"term {term!r} is not in the battle vocabulary (§2.2)")
    for enemy in enemies:
        if any(i not in IMMUNITIES for i in enemy.immune):
            raise _fail(f"card {enemy.id}", f"unknown immunity {enemy.immune}")


def _books(data: HogwartsData) -> None:
    """Five books per classroom subject, worth 5, 5, 10, 15 and 20 points (§2.5, §7)."""
    subjects = {e.exam for e in data.cell_effects.values() if e.exam}
    for subject in sorted(subjects | {b.subject for b in data.books.values()}):
        points = tuple(sorted(b.points for b in data.books.values() if b.subject == subject))
        if subject not in subjects or points != BOOK_POINTS:
            raise _fail(f"book subject {subject}", f"needs a classroom and books worth {BOOK_POINTS}, has {points}")


def _events(data: HogwartsData) -> None:
    """Event battles name a §2.7 enemy; events that move players name a cell (or the Great Hall)."""
    for event in data.events.values():
        for term in event.effect:
            if term.startswith("group_battle(") and term[len("group_battle("):-1] not in data.event_battles:
                raise _fail(f"event {event.id}", f"{term}: no such event enemy")
            if term.startswith("all: move_to("):
                target = term[len("all: move_to("):-1]
                if target != "gh" and target not in data.cells:
                    raise _fail(f"event {event.id}", f"{term}: no such cell")


def _ids(data: HogwartsData) -> None:
    """30 object tokens, 6 special; every id unique across cells, tokens and cards (data §0) (ours)."""
    if len(data.object_tokens) != OBJECT_TOKENS:
        raise _fail("object tokens", f"expected {OBJECT_TOKENS}, got {len(data.object_tokens)}")
    special = sum(1 for t in data.object_tokens.values() if t.group == "special")
    if special != SPECIAL_TOKENS:
        raise _fail("object tokens", f"expected {SPECIAL_TOKENS} special tokens, got {special}")
    seen: Counter[str] = Counter([*data.cells, *data.object_tokens, *data.event_battles])
    for name in CARD_DECKS:
        seen.update(list(data.deck(name)))
    twice = sorted(i for i, n in seen.items() if n > 1)
    if twice:
        raise _fail(f"id {twice[0]}", "names two things (ids are unique across the game)")


def _missions(data: HogwartsData) -> None:
    """Missions 1–30: locations, tokens, battle cards and named cards exist; rewards 40–300; every token used."""
    used: set[str] = set()
    for index, m in enumerate(data.missions, start=1):
        item = f"mission {m.number}"
        if m.number != index:
            raise _fail(item, f"is in place {index} (missions are numbered 1..{MISSIONS} in order)")
        if m.location != GREAT_HALL and m.location not in data.cells:
            raise _fail(item, f"location {m.location} is not a cell")
        for token in m.tokens:
            if token not in data.object_tokens:
                raise _fail(item, f"token {token} does not exist")
        used.update(m.tokens)
        if m.battle_card != f"BA{m.number:02d}" or m.battle_card not in data.battle_cards:
            raise _fail(item, f"battle card {m.battle_card} should be BA{m.number:02d}, one per mission")
        if not MISSION_REWARDS[0] <= m.reward <= MISSION_REWARDS[1]:
            raise _fail(item, f"reward {m.reward} is outside {MISSION_REWARDS[0]}-{MISSION_REWARDS[1]}")
        for need in m.qualified_cards:
            if need.card is not None and need.card not in data.spells and need.card not in data.potions:
                raise _fail(item, f"card {need.card} is not a spell or potion card")
            if need.card is None and not any(c.use == need.use for c in data.deck(str(need.deck)).values()
                                             if hasattr(c, "use")):
                raise _fail(item, f"no {need.use} {need.deck} card exists")
    unused = sorted(set(data.object_tokens) - used)
    if unused:
        raise _fail(f"object token {unused[0]}", "is used by no mission")
    total = sum(m.reward for m in data.missions)
    if total != MISSION_REWARD_SUM:
        raise _fail("missions", f"rewards add up to {total}, the document says {MISSION_REWARD_SUM}")


def _sheets(data: HogwartsData) -> None:
    """Nine sheets, LP at most 14; the rulebook's Harry, Hermione, Luna and Lucius; duel cards match fronts."""
    for side, sheets in (("front", data.students), ("back", data.death_eaters)):
        if [s.sheet for s in sheets] != list(range(1, SHEETS + 1)):
            raise _fail(f"sheet {side}s", f"expected sheets 1..{SHEETS} in order")
        for s in sheets:
            if not 1 <= s.lp <= MAX_LP:
                raise _fail(f"sheet {s.sheet} {side} {s.name}", f"LP {s.lp} is not 1..{MAX_LP}")
    harry, hermione, luna = data.students[0], data.students[2], data.students[4]
    lucius = data.death_eaters[7]
    printed = ((harry.name, harry.lp, 7), (harry.name, dict(harry.start_cards), {"book": 2, "potion": 2, "spell": 4}),
               (hermione.name, hermione.res, 4), (luna.name, luna.attack_dice, 4), (lucius.name, lucius.attack_dice, 4))
    for name, got, expected in printed:
        if got != expected:
            raise _fail(f"sheet {name}", f"the rulebook prints {expected}, the data has {got}")
    students = sorted(d.name for d in data.duels.values() if "student" in d.tags)
    if students != sorted(s.name for s in data.students):
        raise _fail("duel cards", f"the student duel cards {students} should be the nine fronts")


def _return_of_voldemort(data: HogwartsData) -> None:
    """§4.4 names real tokens, cells and Death Eater backs; the six Horcruxes are the horcrux tokens."""
    rv = data.return_of_voldemort
    horcrux_tokens = sorted(t.id for t in data.object_tokens.values() if t.group == "horcrux")
    if sorted(rv.horcruxes) != horcrux_tokens:
        raise _fail("Return of Lord Voldemort", f"Horcruxes {sorted(rv.horcruxes)} should be {horcrux_tokens}")
    for token, cell in rv.horcruxes.items():
        if cell not in data.cells:
            raise _fail(f"Horcrux {token}", f"cell {cell} does not exist")
    for token in (*rv.random_tokens, *rv.set_aside, *rv.voldemort_side_tokens, *rv.hero_side_tokens):
        if token not in data.object_tokens:
            raise _fail("Return of Lord Voldemort", f"token {token} does not exist")
    backs = {s.name for s in data.death_eaters}
    for name in rv.death_eaters:
        if name not in backs:
            raise _fail("Return of Lord Voldemort", f"Death Eater {name!r} is not a sheet back")


def _pitch(data: HogwartsData) -> None:
    """41 grid cells, orthogonal and symmetric adjacency; a 24-cell circuit ring; formation cells; 32 tokens (§7)."""
    pitch = data.pitch
    grid = pitch.grid
    if len(grid) != PITCH_GRID:
        raise _fail("Quidditch grid", f"expected {PITCH_GRID} cells, got {len(grid)}")
    for c in grid.values():
        for n in c.neighbours:
            other = grid.get(n)
            if other is None or c.id not in other.neighbours:
                raise _fail(f"pitch cell {c.id}", f"neighbour {n} does not exist or does not list it back")
            if abs(other.col - c.col) + abs(other.row - c.row) != 1:
                raise _fail(f"pitch cell {c.id}", f"neighbour {n} is not orthogonally adjacent")
    ring = [c.id for c in pitch.circuit]
    nexts = [c.next for c in pitch.circuit]
    if len(ring) != CIRCUIT or nexts != ring[1:] + ring[:1]:
        raise _fail("seeker circuit", f"should be a ring of {CIRCUIT} cells, each leading to the next")
    for side, f in pitch.formation.items():
        for cell in (f.keeper, *f.beaters, *f.chasers, pitch.bludger_start[side]):
            if cell not in grid:
                raise _fail(f"formation {side}", f"cell {cell} is not on the pitch")
        if grid[f.keeper].zone != f"goal_{side}":
            raise _fail(f"formation {side}", f"the Keeper starts outside its goal zone on {f.keeper}")
    tokens = pitch.tokens
    total = tokens.houses * sum(tokens.pieces.values()) + sum(tokens.balls.values())
    if total != tokens.total or total != PITCH_TOKENS:
        raise _fail("Quidditch tokens", f"expected {PITCH_TOKENS}, the split gives {total}")


def _rulebook_facts(data: HogwartsData) -> None:
    """The few values the rulebook prints (data §2–§3 marked R) are the data's."""
    riddle = data.battle_cards["BA06"]
    facts = (
        ("battle card BA06", (riddle.name, riddle.lp, riddle.res, riddle.immune),
         ("Tom Riddle", 9, 5, ("spells",))),
        ("potion madam_pomfreys_restorative_draught", data.potions["madam_pomfreys_restorative_draught"].effect,
         ("heal(5)",)),
        ("potion strengthening_solution", data.potions["strengthening_solution"].effect, ("damage(5)",)),
        ("book BK18", (data.books["BK18"].subject, data.books["BK18"].points), ("potions", 10)),
        ("cell hospital_wing", data.cells["hospital_wing"].kind, "life:4"),
        ("mission 6", (data.missions[5].location, data.missions[5].tokens, data.missions[5].reward),
         ("chamber_of_secrets", ("basilisk_fang", "tom_riddles_diary"), 200)),
    )
    for item, got, expected in facts:
        if got != expected:
            raise _fail(item, f"the rulebook prints {expected}, the data has {got}")


def _resolutions(data: HogwartsData) -> None:
    ids = [r.id for r in data.resolutions]
    if not ids or len(set(ids)) != len(ids) or any(not r.resolution for r in data.resolutions):
        raise _fail("§6 resolutions", "ids must be unique and every resolution said")


def check(data: HogwartsData) -> None:
    """Run every check; the first failure raises HogwartsDataError (the order puts the graph first)."""
    for step in (_cells, _special_links, _counts, _reachable, _cell_effects, _movement_examples, _decks, _vocabulary,
                 _books, _events, _ids, _missions, _sheets, _return_of_voldemort, _pitch, _rulebook_facts,
                 _resolutions):
        try:
            step(data)
        except KeyError as err:
            raise _fail(step.__doc__.split(":")[0].split(";")[0] if step.__doc__ else step.__name__,
                        f"refers to {err} which does not exist") from None

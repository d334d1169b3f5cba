// A Year at Hogwarts' table: where everyone is (cell by name, what lies there), each figure's LP, house points
// and tokens, your hand and missions as cards (help on each), the cells the roll reaches as buttons, and the
// legal moves in words. Names come from the help (/help/hogwarts.json, built from the game's data); the view
// is the game's structured observation. Uses app.js's el, act, helpOn, state, strip.
"use strict";

window.p2phpViews = window.p2phpViews || {};

(() => {
  let last = null;  // the last [view, playable]: redrawn once the help (names) has arrived

  const entry = (key) => (window.P2Help ? window.P2Help.lookup(key) : null);
  const named = (key, fallback) => { const e = entry(key); return e ? e.title : fallback; };
  const cellName = (id) => named(`cell:${id}`, String(id).replace(/_/g, " "));
  const sheetName = (n) => named(`sheet:${n}`, `sheet ${n}`);
  const tokenName = (id) => named(`token:${id}`, String(id).replace(/_/g, " "));
  const cardName = (id) => (id ? named(id, String(id).replace(/_/g, " ")) : "hidden card");
  const who = (s) => state.names[s] || `seat ${s}`;

  function chip(text, key, cls) { return helpOn(el("span", "chip " + (cls || ""), text), key); }

  function slotFaces(view) {
    const me = (view.players || [])[state.seat] || {};
    const faces = new Map();
    (me.hand_slots || []).forEach((slot, i) => faces.set(slot, (me.hand[i] || [])[1]));
    (me.mission_slots || []).forEach((slot, i) => faces.set(slot, (me.missions || [])[i]));
    return faces;
  }

  const WORDS = { no_start: "no start card", done: "done", stay: "stay here", end: "end the turn", pass: "pass",
                  draw: "draw", roll: "roll", skip: "skip", decline: "decline", accept: "accept" };

  // What each decision asks, in words (the game names its decisions by short ids).
  const PROMPTS = {
    character: "choose your student", start_card: "play a start-of-turn card, or not", move: "move: pick a cell the roll reaches",
    tokens: "take the object tokens on your way, or not", trip: "fly from here (flying powder, a portal, Buckbeak), or stay",
    defend: "battle: defend (or not)", attack: "battle: attack", dodge: "dodge the dice?", flee: "flee?",
    reroll: "re-roll?", mission: "attempt a mission here?", exam: "take an exam?", prize: "you won: take a prize",
    opponent: "choose whom to battle", hand_in: "hand in tokens", action_card: "action card", event_card: "event card",
    common_room: "common room", duel_refuse: "refuse the duel?", return_card: "give a card back",
    search_deck: "choose a deck to search", search_take: "take a card from the deck", place_used: "place a used token",
    time_turner: "use the Time-Turner?", challenge: "Quidditch challenge", house: "choose a house",
    formation: "Quidditch: your formation", quidditch: "Quidditch: your move", place_quaffle: "place the Quaffle",
    quidditch_card: "play a Quidditch card?", reroll_die: "re-roll a die?", choose_deck: "choose a deck",
    event_cell: "event cell", exchange_offer: "an exchange is offered", cloak: "use the Invisibility Cloak before the duel?", cloak_move: "Invisibility Cloak: move",
    eater: "move a Death Eater, or done", eater_move: "move the Death Eater: pick where it goes",
    place_eater: "place a Death Eater", gift: "take a flying powder or a portal token",
    place_stone: "place the Resurrection Stone", place_wand: "place the Elder Wand",
    mission_cards: "show the spell and potion cards the mission needs",
    spy: "Rookwood spies: put one of the hand's cards under its deck",
    death_eater: "place a Death Eater token on a tower", death_eaters: "place a Death Eater token on a tower",
  };

  // The game's modes in words (the option's values are ids).
  const MODES = { underage: "Underage Wizard", qualified: "Qualified Wizard", team: "team game", solo: "solo game",
                  return_of_voldemort: "The Return of Lord Voldemort" };

  // The game's own words for each decision (its describe()) are the buttons' text; a few get the page's names.
  function label(action, faces, fallback) {
    const t = action.type;
    if (t === "character") return `play ${sheetName(action.sheet)}`;
    if ("slot" in action && faces.has(action.slot) && t === "card") return `play ${cardName(faces.get(action.slot))}`;
    return fallback;
  }

  function seatBox(view, p, s) {
    const box = el("div", "seat hogwarts" + (s === view.turn ? " current" : "") + (s === state.seat ? " me" : ""));
    const head = box.appendChild(el("div", "who", `${who(s)}: `));
    head.appendChild(p.sheet ? chip(p.name || sheetName(p.sheet), `sheet:${p.sheet}`, "sheet") : el("span", "", "no sheet yet"));
    const at = box.appendChild(el("div", "where", "at "));
    at.appendChild(chip(cellName(p.cell), `cell:${p.cell}`, "cell"));
    box.appendChild(el("div", "hp", `${p.lp} LP · ${p.points} house points`));
    box.appendChild(el("div", "", `powder ${p.powder} · portals ${p.portals} · ${p.hand_size} cards` +
      (view.return ? "" : ` · missions ${(p.done || []).length} done, ${p.missions_left} to go`)));
    if ((p.tokens || []).length) {
      const tokens = box.appendChild(el("div", "tokens", "tokens: "));
      p.tokens.forEach((t) => tokens.appendChild(chip(tokenName(t), `token:${t}`, "token")));
    }
    return box;
  }

  function board(view) {
    const box = el("div", "board");
    const rows = new Map();
    (view.players || []).forEach((p, s) => {
      if (!rows.has(p.cell)) rows.set(p.cell, { seats: [], tokens: [] });
      rows.get(p.cell).seats.push(s);
    });
    const eaters = new Map();  // The Return of Lord Voldemort: the Death Eaters on the board
    for (const [name, cell] of (view.return && view.return.eaters) || []) {
      if (!rows.has(cell)) rows.set(cell, { seats: [], tokens: [] });
      eaters.set(cell, [...(eaters.get(cell) || []), name]);
    }
    for (const [cell, tokens] of view.tokens || []) {
      if (!rows.has(cell)) rows.set(cell, { seats: [], tokens: [] });
      rows.get(cell).tokens.push(...tokens);
    }
    box.appendChild(el("h3", "", "Where everyone is"));
    const list = box.appendChild(el("ul", "cells"));
    const ordered = [...rows].sort((a, b) => b[1].seats.length - a[1].seats.length);
    for (const [cell, row] of ordered) {
      const item = list.appendChild(el("li", row.seats.length ? "occupied" : ""));
      item.appendChild(chip(cellName(cell), `cell:${cell}`, "cell"));
      if (row.seats.length) item.appendChild(el("span", "here", " " + row.seats.map(who).join(", ")));
      for (const name of eaters.get(cell) || []) item.appendChild(el("span", "chip eater", `Death Eater ${name}`));
      row.tokens.forEach((t) => item.appendChild(chip(tokenName(t), `token:${t}`, "token")));
    }
    return box;
  }

  function choices(title, moves, text) {
    const box = el("div", "reach");
    box.appendChild(el("span", "reach-title", title));
    const seen = new Set();
    const shown = new Map();  // label -> times used: several cells share a name ("Hogsmeade"): number them
    for (const m of moves) {
      const cell = m.action.type === "move" ? m.action.path[m.action.path.length - 1] : m.action.to;
      if (seen.has(cell)) continue;  // several paths to one cell: one button, the first path
      seen.add(cell);
      const words = text(m.action);
      shown.set(words, (shown.get(words) || 0) + 1);
      const b = helpOn(el("button", "cell-choice", shown.get(words) > 1 ? `${words} #${shown.get(words)}` : words),
        `cell:${cell}`);
      b.type = "button";
      b.dataset.cell = cell;
      b.addEventListener("click", () => act(m.index));
      box.appendChild(b);
    }
    return box;
  }

  function matchLine(m) {
    const sides = (m.seats || []).map((s, i) => `${who(s)} (${(m.houses || [])[i] || "?"})`).join(" against ");
    let text = `Quidditch: ${sides}, phase ${m.phase}`;
    if (m.phase === 1) text += ` · goals ${(m.goals || []).join("–")} · ${m.actions} actions left`;
    if (m.phase === 2) text += ` · Seekers ${(m.progress || []).join(" / ")} of 24`;
    return el("div", "match", text);
  }

  function battleLine(b) {
    const box = el("div", "battle");
    if (b.kind === "players") {
      box.appendChild(el("span", "", `Battle: ${who(b.mover)} against ${b.opponent >= 0 ? who(b.opponent) : "?"} · ` +
        `hits ${(b.hits || []).join("–")} · ${b.stage}`));
      return box;
    }
    if (b.kind === "sides") {  // qualified: a player battle or a Death Eater battle, attacks in turn
      const other = b.seats[1] >= 0 ? who(b.seats[1]) : `the Death Eater ${b.eater || "?"}`;
      const turn = b.current >= 0 ? who(b.current) : `the Death Eater`;
      box.appendChild(el("span", "", `Battle: ${who(b.seats[0])} (${b.lp[0]} LP) against ${other} (${b.lp[1]} LP) · ` +
        `${turn} attacks · ${b.stage}` + ((b.dice || []).length ? ` · dice ${b.dice.join(" ")}` : "")));
      return box;
    }
    if (b.kind === "sheets") {  // the Return: fighters are "seat:N" or "eater:NAME"
      const name = (f) => (f.startsWith("seat:") ? who(Number(f.slice(5))) : `the Death Eater ${f.slice(6)}`);
      box.appendChild(el("span", "", `Battle: ${b.fighters.map(name).join(" against ")} · ${name(b.attacker)} ` +
        `attacks · ${b.stage}` + ((b.dice || []).length ? ` · dice ${b.dice.join(" ")}` : "")));
      return box;
    }
    box.appendChild(el("span", "", `Battle (${b.kind}) against `));
    box.appendChild(chip(cardName(b.enemy), b.enemy, "enemy"));
    box.appendChild(el("span", "", ` ${b.lp}/${b.start_lp} LP · ${(b.participants || []).map(who).join(", ")} ` +
      `fighting · ${who(b.current)}'s round · ${b.stage}` + ((b.dice || []).length ? ` · dice ${b.dice.join(" ")}` : "")));
    return box;
  }

  // The Return of Lord Voldemort: who is the villain, the Horcruxes destroyed, each side's goal, the Death Eaters.
  function returnPanel(r) {
    const box = el("div", "return-panel");
    box.appendChild(el("h3", "", "The Return of Lord Voldemort"));
    const role = r.returned ? "Lord Voldemort" : "Peter Pettigrew (Voldemort has not returned yet)";
    box.appendChild(el("div", "villain", r.villain === state.seat ? `You play ${role}: stop the heroes` :
      `${who(r.villain)} plays ${role}; you are one of the heroes`));
    const horcruxes = box.appendChild(el("div", "horcruxes", `Horcruxes destroyed ${(r.destroyed || []).length} of ${r.horcruxes}: `));
    if (!(r.destroyed || []).length) horcruxes.appendChild(el("span", "", "none yet"));
    (r.destroyed || []).forEach((t) => horcruxes.appendChild(chip(tokenName(t), `token:${t}`, "token")));
    box.appendChild(el("div", "goals", `Goals: Voldemort ${r.villain_goal ? "holds the Elder Wand" : "does not hold the Elder Wand yet"}` +
      ` · heroes ${r.hero_goal ? "are ready (Horcruxes destroyed and the Stone)" : "not ready yet"}`));
    const eaters = box.appendChild(el("ul", "eaters"));
    for (const [name, cell, lp, cards] of r.eaters || []) {
      const item = eaters.appendChild(el("li", "", `Death Eater ${name}: ${lp} LP, ${cards} cards, at `));
      item.appendChild(chip(cellName(cell), `cell:${cell}`, "cell"));
    }
    if ((r.retry || []).length) box.appendChild(el("div", "", `trying a Horcrux again: ${r.retry.map(who).join(", ")}`));
    return box;
  }

  function render(view, playable) {
    last = [view, playable];
    const faces = slotFaces(view);
    $("seats").replaceChildren(...(view.players || []).map((p, s) => seatBox(view, p, s)));
    const centre = [el("div", "", `A Year at Hogwarts · ${MODES[view.mode] || view.mode} · ${view.length} game · turn ${view.turns}` +
      (view.turn >= 0 ? ` · ${who(view.turn)} to play` : ""))];
    if (view.return) centre.push(returnPanel(view.return));
    if (view.match) centre.push(matchLine(view.match));
    if (view.battle) centre.push(battleLine(view.battle));
    if ((view.qualified || []).length) centre.push(el("div", "", `goal reached by ${view.qualified.map(who).join(", ")}`));
    const moves = playable.filter((p) => p.action.type === "move" && Array.isArray(p.action.path));
    if (moves.length) {
      const roll = moves[0].action.roll;
      centre.push(choices(`Cells your roll${roll ? " of " + roll : ""} reaches:`, moves,
        (a) => `${cellName(a.path[a.path.length - 1])} (${a.path.length - 1})`));
    }
    const flights = playable.filter((p) => p.action.type === "fly");
    if (flights.length) centre.push(choices("Fly to:", flights, (a) => cellName(a.to)));
    centre.push(board(view));
    $("centre").replaceChildren(...centre);

    const me = (view.players || [])[state.seat] || {};
    const hand = (me.hand || []).map(([deck, face], i) => {
      const slot = (me.hand_slots || [])[i];
      const move = playable.find((p) => p.action.slot === slot && slot !== undefined);
      const node = el(move ? "button" : "span", `card hog ${deck}` + (move ? " playable" : ""));
      node.appendChild(el("span", "card-deck", deck));
      node.appendChild(el("span", "card-name", cardName(face)));
      if (move) { node.type = "button"; node.addEventListener("click", () => act(move.index)); }
      return helpOn(node, face);
    });
    const missions = (me.missions || []).map((face, i) => {
      const slot = (me.mission_slots || [])[i];
      const move = playable.find((p) => p.action.slot === slot && slot !== undefined);
      const node = el(move ? "button" : "span", "card hog mission" + (move ? " playable" : ""));
      node.appendChild(el("span", "card-deck", "mission"));
      node.appendChild(el("span", "card-name", cardName(face)));
      if (move) { node.type = "button"; node.addEventListener("click", () => act(move.index)); }
      return helpOn(node, face);
    });
    const handBox = [];
    if (hand.length) handBox.push(el("span", "zone-title", "Your hand"), ...hand);
    if (missions.length) handBox.push(el("span", "zone-title", "Your missions"), ...missions);
    $("hand").replaceChildren(...handBox);

    if (state.turn && state.turn.prompt && playable.length) {
      const p = String(state.turn.prompt);
      $("prompt").textContent = `Your turn: ${PROMPTS[p] || p.replace(/_/g, " ")}`;
    }
    const legal = playable.map((p) => p.action);
    for (const b of $("actions").querySelectorAll("button[data-index]")) {
      const a = legal[Number(b.dataset.index)];
      if (a) b.textContent = label(a, faces, b.textContent);
      if (a && (a.type === "fly" || (a.type === "move" && Array.isArray(a.path)))) b.hidden = true;  // the cell buttons
    }
  }

  // Log lines name cells, tokens and sheets by id ("moves 3 cells to boathouse_tower", "take (cell=m003,
  // token=dragon_egg)"): shown by their names.
  function logWords(text) {
    return String(text).replace(/\bsheet=(\d+)/g, (m, n) => sheetName(n))
      .replace(/\b(cells? to|to=|cell=) ?([a-z][a-z0-9_]*)/g, (m, how, w) => (entry(`cell:${w}`) ? `${how.replace("=", "")} ${cellName(w)}` : m))
      .replace(/\b[a-z][a-z0-9_]*\b/g, (w) => {
      if (entry(`cell:${w}`) && (w.includes("_") || /\d/.test(w))) return cellName(w);
      if (entry(`token:${w}`) && w.includes("_")) return tokenName(w);
      if (w.includes("_") && entry(w)) return cardName(w);
      return w;
    }).replace(/=/g, " ");
  }

  document.addEventListener("p2help-loaded", (e) => {
    if (e.detail === "hogwarts" && last && state.game === "hogwarts") render(...last);
  });
  window.p2phpViews.hogwarts = render;
  window.p2phpLog = window.p2phpLog || {};
  window.p2phpLog.hogwarts = logWords;
})();

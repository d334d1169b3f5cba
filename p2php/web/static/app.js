// p2php's browser client: the bridge's JSON messages (docs/bridge.md) over a WebSocket to `p2php web`.
// Everything the table says is shown with textContent (never as HTML): names and log lines come from peers.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { ws: null, games: [], seat: null, names: [], rawNames: [], game: null, turn: null, timer: null, lang: "en",
                timeout: 30, viewAsked: false };

// The game's "中文 English" names, one language at a time (served by p2php web at /words/GAME.json).
const words = { tables: null, pattern: null };

function loadWords(game) {
  words.tables = null;
  fetch(`/words/${encodeURIComponent(game)}.json`).then((r) => (r.ok ? r.json() : null)).then((t) => {
    words.tables = t;
    setPattern();
  }).catch(() => {});
}

function setPattern() {
  const table = words.tables && words.tables[state.lang];
  const keys = table ? Object.keys(table).sort((a, b) => b.length - a.length) : [];
  words.pattern = keys.length ? new RegExp(keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g") : null;
}

function tr(text) {
  const table = words.tables && words.tables[state.lang];
  return words.pattern && table ? text.replace(words.pattern, (m) => table[m]) : text;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = tr(String(text));
  return node;
}

// Help on a card, character or skill (help.js); a no-op where help.js is not loaded.
function helpOn(node, key) { return window.P2Help ? window.P2Help.on(node, key) : node; }

function send(cmd) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(cmd));
}

// The game's text of a line: seats by their names, ids by a game's own names (hogwarts.js). Never a line holding a
// peer's name: withNames turned a remote seat that calls itself "seat 0" into yours (red-team rt10-web).
function gameText(text) {
  const words = (window.p2phpLog || {})[state.game];
  return withNames(words ? words(text) : text).replace(/\byou's\b/g, "your");
}

// A line of the table: a step's line starts with the name the bridge gives its seat ("NAME: plays red 5"); the page
// shows that seat by its own name for it (tableNames) and reads only the rest as game text. "you: plays red 5" →
// "you play red 5" for your own seat alone: another seat may call itself "you".
function log(text, cls) {
  const line = String(text);
  const seats = (state.rawNames || []).map((name, seat) => seat).filter((seat) => line.startsWith(`${state.rawNames[seat]}: `));
  const seat = seats.sort((a, b) => state.rawNames[b].length - state.rawNames[a].length)[0];
  if (seat === undefined) { note(line.startsWith("· ") ? dotLine(line) : gameText(line), cls); return; }
  const rest = gameText(line.slice(state.rawNames[seat].length + 2));
  const [verb, ...more] = rest.split(" ");
  note(seat === state.seat && state.names[seat] === "you" && IMPERATIVE[verb]
    ? ["you", IMPERATIVE[verb], ...more].join(" ") : `${state.names[seat]}: ${rest}`, cls);
}

// A step's "·" line (a deal, a shuffle, a look or a show) names its seats mid-line, by the names the bridge gives them:
// each is shown as the page names that seat, and only the rest read as game text (review rv10-web: withNames turned a
// seat named "seat 0" into yours, "7 cards to alice, 7 cards to alice, 7 cards to you"). Its names are names already:
// no "seat N" in it is a seat's number. The deal's "(you got: …)" is yours and names nobody.
function dotLine(line) {
  const words = (window.p2phpLog || {})[state.game];
  const text = (part) => (words ? words(part) : part);
  const raw = state.rawNames || [];
  const seats = raw.map((name, seat) => seat).filter((seat) => raw[seat]).sort((a, b) => raw[b].length - raw[a].length);
  const cut = line.indexOf("  (you got: ");
  const head = cut < 0 ? line : line.slice(0, cut);
  const tail = cut < 0 ? "" : text(line.slice(cut));
  const escape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const parts = seats.length ? head.split(new RegExp(`(${seats.map((seat) => escape(raw[seat])).join("|")})`)) : [head];
  const shown = parts.map((part, i) => (i % 2 ? state.names[raw.indexOf(part)] : text(part))).join("") + tail;
  return state.names[state.seat] === "you" ? shown.replace(/(^|[^\w])you's\b/g, "$1your") : shown;
}

// A line of ours that names seats by the names their peers chose: shown as it is, never read as game text.
function note(line, cls) {
  const item = el("li", cls || "", line);
  const list = $("log");
  list.appendChild(item);
  while (list.children.length > 400) list.removeChild(list.firstChild);
  item.scrollIntoView({ block: "nearest" });
}

function setStatus(text, cls) {
  const s = $("status");
  s.textContent = text;
  s.className = "status " + (cls || "");
}

// ---------------------------------------------------------------- lobby

function optionsFrom(text) {
  const out = {};
  for (const pair of text.split(/\s+/).filter(Boolean)) {
    const [key, ...rest] = pair.split("=");
    const value = rest.join("=");
    out[key] = /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}

// The games by the names on their boxes (the bridge names them by short ids).
const GAME_TITLES = { uno: "UNO", hpsha: "HP Sha (Harry Potter Sanguosha)", tcg: "Harry Potter Trading Card Game",
                      hogwarts: "A Year at Hogwarts" };
const gameTitle = (name) => GAME_TITLES[name] || name;
// What each game is about, in a sentence: enough to start; hover or focus anything on the table for its rules.
const GAME_BLURBS = {
  uno: "Play a card that matches the top card by colour or number (or a Wild); empty your hand first to score " +
       "the others' cards.",
  hpsha: "Hidden roles: use cards and your character's skills to cut the others' HP. The Minister (known to all) " +
         "and the Aurors win when every Dark Wizard and Spy is out, the Dark Wizards when the Minister falls; the " +
         "Spy wants to be the last one standing.",
  tcg: "Play one Lesson or card a turn to build Power, then spells and creatures to damage your opponent: every " +
       "point of damage discards a card from their deck, and you win when their deck runs out.",
  hogwarts: "Roll and move round the castle and Diagon Alley, collect cards and object tokens, pass exams and " +
            "complete your missions for house points; the first to the goal wins the Hogwarts Cup. The Return of " +
            "Lord Voldemort (mode) pits the heroes hunting Horcruxes against Voldemort.",
};

function showGames(games) {
  state.games = games;
  const select = $("game");
  select.replaceChildren(...games.map((g) => {
    const option = el("option", "", gameTitle(g.name));
    option.value = g.name;
    return option;
  }));
  describeGame();
}

function describeGame() {
  const g = state.games.find((x) => x.name === $("game").value);
  if (!g) return;
  const names = Object.keys(g.options || {});
  const help = $("game-help");
  help.replaceChildren(el("p", "blurb", GAME_BLURBS[g.name] || ""),
    el("span", "", `${gameTitle(g.name)}: ${g.min_players}–${g.max_players} players` +
    (names.length ? "; options (type them in Options as name=value, or click a value):" : "; no options")));
  const list = help.appendChild(el("ul", "option-list"));
  for (const name of names) {  // each option, what it does, and its values as buttons that fill the field
    const spec = g.options[name] || {};
    const item = list.appendChild(el("li", "", `${name}: ${spec.help || ""} (default ${spec.default}) `));
    for (const value of spec.choices || []) {
      const b = item.appendChild(el("button", "option-choice", `${name}=${value}`));
      b.type = "button";
      b.addEventListener("click", () => {
        const kept = $("options").value.split(/\s+/).filter((x) => x && !x.startsWith(`${name}=`));
        $("options").value = [...kept, `${name}=${value}`].join(" ");
      });
    }
  }
  $("bots").max = String(g.max_players - 1);
  $("bots").min = String(Math.max(1, g.min_players - 1));
}

function startTable(op) {
  const cmd = { op, game: $("game").value, name: $("name").value || "you", options: optionsFrom($("options").value) };
  if (op === "demo") cmd.bots = Number($("bots").value) || 1;
  if (op === "host") { cmd.players = (Number($("bots").value) || 1) + 1; cmd.bots = 0; cmd.port = 0; }
  if (op === "join") { delete cmd.game; delete cmd.options; cmd.address = $("address").value; }
  cmd.timeout = state.timeout;
  if (typeof tableLifeCommand === "function") tableLifeCommand(cmd);  // table-life.js: bot speed
  if (typeof onlineCommand === "function") onlineCommand(cmd);  // online.js: host online, join by invite code
  $("log").replaceChildren();
  send(cmd);
}

// ---------------------------------------------------------------- table views

function pickLang(zh, en) { return state.lang === "zh" ? (zh || en) : (en || zh); }

function unoCard(name, onClick) {
  const words = String(name || "?").split(" ");
  const colour = ["red", "green", "blue", "yellow"].includes(words[0]) ? words[0] : "wild";
  const face = colour === "wild" ? name : words.slice(1).join(" ");
  const card = el(onClick ? "button" : "span", `card uno ${colour}`, face);
  card.title = name;
  helpOn(card, name);
  if (onClick) { card.type = "button"; card.addEventListener("click", onClick); }
  return card;
}

function renderUno(view, playable) {
  const seats = $("seats");
  seats.replaceChildren();
  (view.hand_counts || []).forEach((count, s) => {
    const box = el("div", "seat" + (s === view.turn ? " current" : "") + (s === state.seat ? " me" : ""));
    box.appendChild(el("div", "who", state.names[s] || `seat ${s}`));
    box.appendChild(el("div", "", `${count} cards · ${(view.scores || [])[s] || 0} pts`));
    seats.appendChild(box);
  });
  const centre = $("centre");
  centre.replaceChildren(el("span", "", "top: "), unoCard(view.top || "—"),
    el("span", "", ` colour ${view.colour || "—"} · direction ${view.direction} · draw pile ${view.draw_pile}`));
  const hand = $("hand");
  hand.replaceChildren(...(view.hand || []).map((h) => {
    const index = playable.findIndex((a) => a.action.slot === h.slot && a.action.type === "play");
    return unoCard(h.name, index >= 0 ? () => act(playable[index].index) : null);
  }));
}

function renderHpsha(view) {
  const seats = $("seats");
  seats.replaceChildren(...(view.seats || []).map((f) => {
    const box = el("div", "seat" + (f.current ? " current" : "") + (f.you ? " me" : "") + (f.alive ? "" : " dead"));
    const who = f.character ? pickLang(f.character.zh, f.character.en) : "—";
    const head = box.appendChild(el("div", "who", `${state.names[f.seat] || "seat " + f.seat}: `));
    head.appendChild(f.character ? helpOn(el("span", "name", who), `character:${f.character.key}`) : el("span", "", who));
    box.appendChild(el("div", "hp", f.alive ? `HP ${f.hp}/${f.max_hp}` : "dead"));
    box.appendChild(el("div", "", `${f.identity || "identity hidden"} · ${f.hand_count} in hand`));
    if (f.skills && f.skills.length) {
      const skills = box.appendChild(el("div", "skills"));
      f.skills.forEach((k) => skills.appendChild(helpOn(el("span", "skill",
        pickLang(k.zh, k.en) + (k.locked ? pickLang("（锁定技）", " (locked)") : "")), `skill:${k.key}`)));
    }
    if (f.equipment && f.equipment.length) {
      const equip = box.appendChild(el("div", "equip", "equipped: "));
      f.equipment.forEach((e) => equip.appendChild(helpOn(el("span", "skill", pickLang(e.zh, e.en)), e.en)));
    }
    if (f.judgement && f.judgement.length) {
      const judge = box.appendChild(el("div", "judge", "judgement: "));
      f.judgement.forEach((j) => judge.appendChild(helpOn(el("span", "skill", j), j)));
    }
    if (f.distance !== null && f.distance !== undefined) {
      box.appendChild(el("div", "", `distance ${f.distance}${f.in_range ? " (in range)" : ""}`));
    }
    return box;
  }));
  $("centre").replaceChildren(el("span", "", `turn ${view.turn_no} · ${view.phase} phase · deck ${view.deck}` +
    (view.discard_top ? ` · discard pile top: ${view.discard_top}` : "")));
  $("hand").replaceChildren(...(view.hand_cards || []).map((c) =>
    helpOn(el("span", "card hpsha" + (c.usable ? "" : " sealed"), pickLang(c.zh, c.en)), c.en)));
}

function renderGeneric(view) {
  $("seats").replaceChildren();
  const pre = el("pre", "generic", JSON.stringify(view, null, 1).slice(0, 6000));
  $("centre").replaceChildren(pre);
  $("hand").replaceChildren();
}

function render(view, legal) {
  const playable = (legal || []).map((action, index) => ({ action, index }));
  const own = (window.p2phpViews || {})[state.game];  // hogwarts.js, tcg.js: a game's table in its own file
  if (own) own(view, playable);
  else if (state.game === "uno") renderUno(view, playable);
  else if (state.game === "hpsha") renderHpsha(view);
  else renderGeneric(view);
}

// ---------------------------------------------------------------- turns

// A button says what you do: "plays red 5" → "play red 5" (the terminal's menus say the same).
const IMPERATIVE = { plays: "play", draws: "draw", keeps: "keep", passes: "pass", calls: "call", takes: "take",
                     challenges: "challenge", admits: "admit", uses: "use", gives: "give", ends: "end", stops: "stop",
                     aims: "aim", moves: "move", stays: "stay", discards: "discard", chooses: "choose",
                     answers: "answer", attacks: "attack", shows: "show", solves: "solve", searches: "search" };

function strip(label) {
  // "seat 0 plays red 5" / "seat 0 哈利·波特: pass" → "play red 5" / "pass": the buttons are about you
  const text = String(label);
  const named = text.match(new RegExp(`^seat ${state.seat}(?: [^\\s:]+)?: (.+)$`));
  const own = `seat ${state.seat} `;
  const rest = named ? named[1] : text.startsWith(own) ? text.slice(own.length) : text;
  const [verb, ...more] = rest.split(" ");
  return withNames(IMPERATIVE[verb] ? [IMPERATIVE[verb], ...more].join(" ") : rest);
}

// "→ seat 2 Neville Longbottom" → "→ bot2 Neville Longbottom": people are named, not numbered.
// A name is each peer's own word, checked by nobody: another seat that calls itself "you", or takes your name or
// another seat's, is shown with its seat number, so nobody's moves or win read as yours.
// A name that reads as a seat ("seat 0"; the bridge's own " (seat N)" of a clash aside) is shown with its seat too.
// Letters drawn alike, as p2php.text._DRAWN_ALIKE (to the Latin letter each reads as; 0, O and o to o; I, l, 1 to l).
const DRAWN_ALIKE = {
  A: "\u0410\u0391", B: "\u0412\u0392", C: "\u0421", E: "\u0415\u0395", H: "\u04ba\u041d\u0397",
  J: "\u0408\u03f3\u037f", K: "\u041a\u039a", M: "\u041c\u039c", N: "\u039d", P: "\u0420\u03a1", Q: "\u051a",
  S: "\u0405", T: "\u0422\u03a4", W: "\u051c", X: "\u0425\u03a7", Y: "\u04ae\u03a5", Z: "\u0396", a: "\u0430\u0251",
  c: "\u03f2\u0441", d: "\u0501", e: "\u0435", g: "\u0261", h: "\u04bb", i: "\u0456\u0131\u03b9", j: "\u0458",
  p: "\u0440\u03c1", q: "\u051b", s: "\u0455", u: "\u03c5", v: "\u03bd", w: "\u051d", x: "\u0445\u03c7", y: "\u0443",
  l: "Il1|\u0406\u04c0\u04cf\u0399", o: "0Oo\u041e\u043e\u039f\u03bf"
};
const DRAWN = new Map(Object.entries(DRAWN_ALIKE).flatMap(([to, from]) => Array.from(from, (c) => [c, to])));

function tableNames(names, own) {
  const key = (name) => String(name).trim().toLowerCase();
  // What a name reads as (review rv10-web: "sеat 0" with a Cyrillic "е", "yоu" with a Cyrillic "о" were not seen as a
  // seat or as you): case and compatibility forms folded, and letters drawn alike mapped to one, as the terminal does.
  const reads = (name) => {
    const folded = String(name).replace(/(?:\s*\(seat \d+\))+\s*$/, "").trim().normalize("NFKC");
    return [folded.toLowerCase(), Array.from(folded, (c) => DRAWN.get(c) || c).join("").toLowerCase()];
  };
  const seatLike = (name) => reads(name).some((text) => /\bseat\s*(?:\d|[ol]+\b)/.test(text));
  const youLike = (name) => reads(name).some((text) => ["you", "your"].includes(text));
  return names.map((name, seat) => {
    if (seat === own || String(name).endsWith(` (seat ${seat})`)) return name;  // (the bridge's own, of a clash)
    const clash = youLike(name) || seatLike(name) ||
      names.some((other, i) => i !== seat && key(other) === key(name));
    return clash ? `${name} (seat ${seat})` : name;
  });
}

function withNames(text) {
  return String(text).replace(/\bseat (\d+)\b/g, (m, n) => state.names[Number(n)] || m);
}

// What each game's decision asks, in words (the games name their decisions by short ids; hogwarts.js has its own).
const PROMPT_WORDS = {
  uno: { turn: "play a card, or draw", drawn: "you drew a card: play it or keep it",
         catch: "someone did not call UNO: catch them?", "respond:skip": "you are being skipped: answer or take it",
         "respond:draw_two": "a Draw Two is played at you: answer or take it",
         "respond:wild_draw_four": "a Wild Draw Four is played at you: challenge, answer or take it",
         "respond:sorting_hat": "the Sorting Hat is played at you", "respond:moody": "Moody is played at you",
         "respond:howler": "a Howler is played at you", sorting: "the Sorting Hat sorts you",
         stone: "someone went out: play the Resurrection Stone?", stone_uno: "Resurrection Stone: call UNO?",
         verdict: "was that Wild Draw Four legal?", first_colour: "name the colour of the first card" },
  hpsha: { identity: "identities are dealt: the minister reveals, everyone else says so",
           pick_character: "pick your character", play: "your play phase: use a card or a skill, or end the phase",
           discard: "discard down to your hand limit", respond: "answer {} with a card, or pass", skill: "use the skill {}?",
           weapon: "weapon effect: {}", pick: "pick a card ({})", arrange_top: "arrange the top of the deck",
           point_duel: "point duel: choose a card", nargles_more: "Nargles: take one more?",
           stupefy: "Stupefy: choose", reparo: "Reparo: take a card", aguamenti: "Aguamenti: take a card",
           quill_guess: "Quill: guess the face-down card" },
  tcg: { action: "play a card, draw a card, or end the turn", second_lesson: "play a second lesson, or stop",
         creature: "choose a creature", discard_all: "discard", discard_item: "discard an item",
         discard_own: "discard one of your cards", draco: "Draco: choose", exam: "the exam: choose",
         in_play: "choose a card in play", keep: "choose a card to keep", lesson: "choose a lesson",
         muzzle: "Muzzle: choose", retrieve: "take a card back from your discard pile",
         reward: "the adventure's reward: choose", search: "search your deck for a card", show: "show a card, or not",
         solve: "solve the adventure?", target: "choose a target",
         homework: "Homework: put a Lesson from your hand into play, or stop" },
};

function promptWords(prompt) {
  const text = String(prompt || "decide");
  const table = PROMPT_WORDS[state.game] || {};
  if (table[text]) return table[text];
  const [kind, what] = text.split(":");
  if (what !== undefined && table[kind]) {
    const help = window.P2Help && (window.P2Help.lookup(`skill:${what}`) || window.P2Help.lookup(what));
    return table[kind].replace("{}", help ? help.title : what.replace(/_/g, " "));
  }
  return text.replace(/_/g, " ");
}

function act(index) {
  if (!state.turn) return;
  // The question's number, echoed: a click for a question withdrawn meanwhile is refused, not played on the next one.
  send({ op: "act", index, turn: state.turn.turn });
  state.turn = null;
  $("actions").replaceChildren();
  $("prompt").textContent = "";
  stopCountdown();
}

function startCountdown(seconds) {
  stopCountdown();
  const end = Date.now() + seconds * 1000;
  const tick = () => {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    $("countdown").textContent = `answer within ${left} s`;
    $("countdown").className = "countdown" + (left <= 5 ? " urgent" : "");
  };
  tick();
  state.timer = setInterval(tick, 500);
}

function stopCountdown() {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
  $("countdown").textContent = "";
}

function yourTurn(event) {
  state.turn = event;
  $("prompt").textContent = `Your turn: ${promptWords(event.prompt)}`;
  const buttons = (event.labels || []).map((label, index) => {
    const b = el("button", "action", strip(label));
    b.type = "button";
    b.dataset.index = String(index);
    b.addEventListener("click", () => act(index));
    return b;
  });
  $("actions").replaceChildren(...buttons);
  render(event.view || {}, event.legal);
  const shown = new Set();  // two copies of one card make two equal choices: one button
  for (const b of buttons) {
    if (shown.has(b.textContent)) b.hidden = true;
    shown.add(b.textContent);
  }
  startCountdown(state.timeout);
}

// ---------------------------------------------------------------- events

function onEvent(event) {
  switch (event.event) {
    case "ready": setStatus(`connected · bridge ${event.bridge} · p2php ${event.version}`, "ok"); send({ op: "games" }); break;
    case "games": showGames(event.games || []); break;
    case "started":
      $("seating").hidden = true;
      state.seat = event.seat; state.rawNames = (event.names || []).map(String);
      state.names = tableNames(state.rawNames, event.seat); state.game = event.game;
      loadWords(event.game);
      if (window.P2Help) window.P2Help.load(event.game);
      $("lobby").hidden = true; $("table").hidden = false; $("over").hidden = true;
      $("table-title").textContent = `${gameTitle(event.game)} · ${event.players} players · you are seat ${event.seat}`;
      $("safety").textContent = `safety code ${event.safety_code}`;
      note(`table started: ${state.names.join(", ")}; compare the safety code ${event.safety_code}`, "info");
      break;
    case "table_open": log(`table open on port ${event.port}: others join with HOST:${event.port}`, "info"); break;
    case "lobby": log(event.message, "info"); break;
    case "link":
      note(event.up ? `${state.names[event.seat] || event.name} is back` : `${state.names[event.seat] || event.name} ` +
        `lost the connection: the table waits up to ${Math.round(event.wait)} s for them to come back`,
        event.up ? "info" : "error");
      break;
    case "step":
      for (const line of event.lines || []) log(line);
      if (!state.turn && !state.viewAsked) { state.viewAsked = true; send({ op: "view" }); }
      break;
    case "view": state.viewAsked = false; if (!state.turn) render(event.view || {}, []); break;
    case "your_turn": yourTurn(event); break;
    case "game_over": {
      stopCountdown();
      state.turn = null;
      $("actions").replaceChildren();
      const over = $("over");
      over.hidden = false;
      const winners = (event.winners || []).map((w) => state.names[w] || `seat ${w}`);
      const scores = (event.scores || []).map((n, seat) => `${state.names[seat] || "seat " + seat} ${n}`).join(" · ");
      const youWin = (event.winners || []).length === 1 && event.winners[0] === state.seat;  // by seat, not by name
      const result = event.winners ? (winners.length ? `${youWin ? "You win" :
        "Winner" + (winners.length > 1 ? "s" : "") + ": " + winners.join(", ")}` : "No winner") : "";
      over.replaceChildren(el("h3", "", "Game over" + (result ? ` — ${result}` : "")),
        el("p", "scores", scores ? `scores: ${scores}` : ""),
        el("pre", "", withNames(event.text || event.summary || "").replace(/\n?audit: .*$/, "").replace(/\bseats ([\d, ]+)/g,
          (m, list) => list.split(/,\s*/).map((n) => state.names[Number(n)] || `seat ${n}`).join(", "))),
        el("p", event.clean ? "clean" : "fault", event.clean ? "audit: clean" : `audit: ${event.reason || "fault"}`));
      const again = el("button", "", "New table");
      again.type = "button";
      again.addEventListener("click", () => { $("table").hidden = true; $("lobby").hidden = false; });
      over.appendChild(again);
      log(event.clean ? "game over — audit clean" : `game over — ${event.reason}`, event.clean ? "info" : "error");
      break;
    }
    case "failed": $("seating").hidden = true; stopCountdown(); log(`the table stopped: ${event.message}`, "error"); $("lobby").hidden = false; break;
    case "error": log(`error: ${event.message}`, "error"); break;
    case "ok":
      if (event.op === "leave") { $("table").hidden = true; $("lobby").hidden = false; }
      if (event.op === "host" || event.op === "host_online") $("seating").hidden = false;  // until the start
      if (event.op === "remove") note(`${event.name} was sent away`, "info");
      break;
    default: break;
  }
  if (typeof tableLifeEvent === "function") tableLifeEvent(event);  // table-life.js: chat, rematch
  if (typeof onlineEvent === "function") onlineEvent(event);  // online.js: the invite code
}

function connect() {
  // The key p2php web put in the address it printed (#key=…): without it the server refuses the socket, so no
  // other program or user on this machine can play this seat.
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (!key) {
    setStatus("open the address `p2php web` printed: it ends with #key=…", "error");
    return;
  }
  const ws = new WebSocket(`ws://${location.host}/ws?key=${encodeURIComponent(key)}`);
  state.ws = ws;
  ws.addEventListener("message", (m) => {
    for (const line of String(m.data).split("\n")) {
      if (!line) continue;
      try { onEvent(JSON.parse(line)); } catch (err) { log(`bad message from the bridge: ${err}`, "error"); }
    }
  });
  ws.addEventListener("close", () => setStatus("disconnected: reload the page", "error"));
}

document.addEventListener("DOMContentLoaded", () => {
  $("game").addEventListener("change", describeGame);
  $("play-bots").addEventListener("click", () => startTable("demo"));
  $("host").addEventListener("click", () => startTable("host"));
  $("remove").addEventListener("click", () => send({ op: "remove", seat: Number($("remove-seat").value) }));
  $("join").addEventListener("click", () => startTable("join"));
  $("leave").addEventListener("click", () => send({ op: "leave" }));
  $("lang").addEventListener("change", () => {
    state.lang = $("lang").value;
    setPattern();
    if (state.turn) yourTurn(state.turn); else send({ op: "view" });
  });
  connect();
});

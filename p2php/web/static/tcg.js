// The Harry Potter TCG's table: both sides' zones as cards (type, cost, damage, help on each), your hand as
// cards with type and cost; a hand card you may play now is a button. Uses app.js's el, act, helpOn, state.
"use strict";

window.p2phpViews = window.p2phpViews || {};

(() => {
  const LESSON = { care_of_magical_creatures: "Creatures", charms: "Charms", potions: "Potions",
                   transfiguration: "Transfiguration" };

  function facts(name) {
    const entry = window.P2Help ? window.P2Help.lookup(name) : null;
    if (!entry) return "";
    const parts = [entry.type || ""];
    if (entry.cost !== null && entry.cost !== undefined) parts.push(`${entry.cost} ${LESSON[entry.lesson] || ""}`.trim());
    else if (entry.type === "lesson") parts.push(LESSON[entry.lesson] || "");
    return parts.filter(Boolean).join(" · ");
  }

  function card(name, extra, onClick) {
    const node = el(onClick ? "button" : "span", "card tcg" + (onClick ? " playable" : ""));
    node.appendChild(el("span", "card-name", name));
    const line = [facts(name), extra].filter(Boolean).join(" · ");
    if (line) node.appendChild(el("span", "card-facts", line));
    if (onClick) { node.type = "button"; node.addEventListener("click", onClick); }
    return helpOn(node, name);
  }

  function zone(title, cards) {
    const box = el("div", "zone");
    box.appendChild(el("span", "zone-title", title));
    const row = box.appendChild(el("div", "zone-cards"));
    if (!cards.length) row.appendChild(el("span", "muted", "—"));
    for (const c of cards) row.appendChild(c);
    return box;
  }

  function lessonsLine(lessons) {
    const counts = new Map();
    for (const n of lessons || []) counts.set(n, (counts.get(n) || 0) + 1);
    return [...counts].map(([n, k]) => card(n, k > 1 ? `×${k}` : ""));
  }

  let last = null;  // redrawn once the help (types, costs) has arrived

  function renderTcg(view, playable) {
    last = [view, playable];
    const sides = view.sides || [];
    const order = state.seat === 1 ? [0, 1] : [1, 0];  // the opponent first, then you
    $("seats").replaceChildren(...order.filter((s) => sides[s]).map((s) => {
      const side = sides[s];
      const box = el("div", "seat tcg" + (s === view.turn ? " current" : "") + (s === state.seat ? " me" : ""));
      const head = box.appendChild(el("div", "who", `${state.names[s] || "seat " + s}: `));
      head.appendChild(helpOn(el("span", "name", side.character), side.character));
      box.appendChild(el("div", "", `deck ${side.deck} · hand ${side.hand} · discard ${(side.discard || []).length}`));
      box.appendChild(zone("Lessons", lessonsLine(side.lessons)));
      box.appendChild(zone("Creatures", (side.creatures || []).map(([n, d]) => card(n, d ? `${d} damage on it` : ""))));
      box.appendChild(zone("Items", (side.items || []).map((n) => card(n))));
      box.appendChild(zone("Characters", (side.characters || []).map((n) => card(n))));
      if (side.adventure) box.appendChild(zone("Adventure", [card(side.adventure)]));
      return box;
    }));
    $("centre").replaceChildren(el("span", "", `turn ${view.turns} · ${state.names[view.turn] || "seat " + view.turn} to act`));
    const hand = view.hand_cards || (view.hand || []).map((name) => ({ name, slot: null }));
    $("hand").replaceChildren(...hand.map((c) => {
      const move = playable.find((p) => p.action.type === "play" && p.action.slot === c.slot);
      return card(c.name, "", move ? () => act(move.index) : null);
    }));
  }

  document.addEventListener("p2help-loaded", (e) => {
    if (e.detail === "tcg" && last && state.game === "tcg") renderTcg(...last);
  });
  window.p2phpViews.tcg = renderTcg;
})();

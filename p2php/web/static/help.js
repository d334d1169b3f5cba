// Help in the page: every card, character, skill, sheet and cell of the game, from /help/GAME.json (built by
// p2php.gamehelp from the game's own data — the same entries the terminal's "? NAME" prints).
// An element marked with P2Help.on(node, key) opens its entry on hover, keyboard focus or click; the
// panel is text only (textContent), closes with Escape or its × button.
"use strict";

window.P2Help = (() => {
  const tables = { game: null, byLang: {} };
  let panel = null;
  let pinned = false;

  const norm = (s) => String(s || "").normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

  function lang() {
    const select = document.getElementById("lang");
    return select && select.value === "zh" ? "zh" : "en";
  }

  function index(entries) {
    const byId = new Map();
    const byName = new Map();
    for (const e of entries) {
      byId.set(e.id, e);
      for (const n of e.names || []) if (!byName.has(norm(n))) byName.set(norm(n), e);
    }
    return { byId, byName };
  }

  function load(game) {
    tables.game = game;
    tables.byLang = {};
    return fetch(`/help/${encodeURIComponent(game)}.json`).then((r) => (r.ok ? r.json() : null)).then((t) => {
      if (!t || tables.game !== game) return;
      for (const l of Object.keys(t)) tables.byLang[l] = index(t[l] || []);
      document.dispatchEvent(new CustomEvent("p2help-loaded", { detail: game }));
    }).catch(() => {});
  }

  // An entry by id ("skill:natural_flyer"), by any of its names ("Bombarda", "爆破咒"), or by a shown name
  // with extras around it: "Bombarda ♠7" (suit and rank), "red draw two" (UNO's colour), "统统石化 Petrificus Totalus".
  function lookup(key) {
    const t = tables.byLang[lang()] || tables.byLang.en;
    if (!t || key === undefined || key === null) return null;
    const text = String(key);
    if (t.byId.has(text)) return t.byId.get(text);
    const tries = /^(red|green|blue|yellow)\s+\d$/.test(text) ? ["number"] : [];  // UNO's number cards
    tries.push(text, text.replace(/\s*[♠♣♥♦]\S*$/u, ""), text.replace(/^(red|green|blue|yellow)\s+/, ""),
               text.split(" ")[0], text.replace(/\s*\(.*\)$/, ""));
    for (const k of tries) {
      const found = t.byName.get(norm(k));
      if (found) return found;
    }
    return null;
  }

  function ensurePanel() {
    if (panel) return panel;
    panel = document.createElement("aside");
    panel.id = "help-panel";
    panel.className = "help-panel";
    panel.hidden = true;
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-live", "polite");
    document.body.appendChild(panel);
    return panel;
  }

  function show(key, pin) {
    const entry = lookup(key);
    if (!entry) return false;
    const box = ensurePanel();
    const close = document.createElement("button");
    close.type = "button";
    close.className = "help-close";
    close.textContent = "×";
    close.setAttribute("aria-label", "close help");
    close.addEventListener("click", hide);
    const title = document.createElement("h3");
    title.textContent = entry.title;
    const facts = document.createElement("p");
    facts.className = "help-facts";
    facts.textContent = entry.facts || "";
    const text = document.createElement("p");
    text.className = "help-text";
    text.textContent = entry.text || "";
    box.replaceChildren(close, title, facts, text);
    for (const id of entry.skills || []) {  // a character's skills, each one more click away
      const skill = lookup(id);
      if (!skill) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "help-link";
      b.textContent = skill.title;
      b.addEventListener("click", () => show(id, true));
      box.appendChild(b);
    }
    box.dataset.entry = entry.id;
    box.hidden = false;
    pinned = pinned || !!pin;
    return true;
  }

  function hide() {
    pinned = false;
    if (panel) panel.hidden = true;
  }

  // Mark a node as having help: hover or focus shows it, click pins it (for a node that is not itself a move).
  function on(node, key) {
    if (!node || key === undefined || key === null) return node;
    node.dataset.help = String(key);
    node.classList.add("has-help");
    if (!/^(BUTTON|A|INPUT|SELECT)$/.test(node.tagName)) {
      node.tabIndex = 0;
      node.setAttribute("role", "button");
    }
    if (!node.title) node.title = "help: click, hover or focus";
    return node;
  }

  document.addEventListener("mouseover", (e) => {
    const t = e.target.closest && e.target.closest("[data-help]");
    if (t && !pinned) show(t.dataset.help, false);
  });
  document.addEventListener("focusin", (e) => {
    const t = e.target.closest && e.target.closest("[data-help]");
    if (t) show(t.dataset.help, false);
  });
  document.addEventListener("click", (e) => {
    const t = e.target.closest && e.target.closest("[data-help]");
    if (t && t.tagName !== "BUTTON") { pinned = false; show(t.dataset.help, true); }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { hide(); return; }
    const t = e.target.closest && e.target.closest("[data-help]");
    if (t && t.tagName !== "BUTTON" && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      pinned = false;
      show(t.dataset.help, true);
    }
    if (t && (e.key === "?" || e.key === "h")) { pinned = false; show(t.dataset.help, true); }
  });

  return { load, lookup, show, hide, on };
})();

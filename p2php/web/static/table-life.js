// Table life in the page: chat between seats, a rematch button after the game, and the bots' speed.
// Loaded after app.js (both deferred) and uses its globals ($, send, log, state); app.js calls two hooks:
// tableLifeCommand(cmd) before it sends a new table's command, tableLifeEvent(event) after it handled an event.
// Chat text is another person's words: it is only ever set with textContent (docs/bridge.md, "chat").
"use strict";

const tableLife = { chatting: false, rematching: false };

function lifeNode(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = String(text);  // never innerHTML: names and lines are remote text
  return node;
}

function buildBotDelay() {
  const bots = $("bots");
  if (!bots || $("bot-delay")) return;
  const label = lifeNode("label", "", "Bot delay (seconds) ");
  const input = document.createElement("input");
  input.id = "bot-delay";
  input.type = "number";
  input.min = "0";
  input.max = "60";
  input.step = "0.1";
  input.value = "0";
  input.title = "How long each bot waits before it plays, so you can follow the game (0: at once)";
  label.appendChild(input);
  bots.closest("label").after(label);
}

function buildChat() {
  if ($("chat-box")) return;
  const box = lifeNode("section", "chat-box");
  box.id = "chat-box";
  box.hidden = true;
  box.appendChild(lifeNode("h2", "", "Chat"));
  const list = lifeNode("ol", "chat-list");
  list.id = "chat-list";
  list.setAttribute("aria-live", "polite");
  const form = lifeNode("form", "chat-form");
  form.id = "chat-form";
  const input = document.createElement("input");
  input.id = "chat-text";
  input.maxLength = 280;
  input.placeholder = "say something to the table";
  input.autocomplete = "off";
  input.setAttribute("aria-label", "chat message");
  const button = lifeNode("button", "", "Send");
  button.type = "submit";
  button.id = "chat-send";
  form.append(input, button);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || !tableLife.chatting) return;
    send({ op: "chat", text });
    input.value = "";
  });
  box.append(list, form);
  $("table").after(box);  // under the table, in the page's main column
}

function chatLine(text, cls) {
  const list = $("chat-list");
  const item = lifeNode("li", cls, text);
  list.appendChild(item);
  while (list.children.length > 200) list.removeChild(list.firstChild);
  item.scrollIntoView({ block: "nearest" });
}

function showRematch(event) {
  const over = $("over");
  if (!over || !event.rematch || $("rematch")) return;
  const button = lifeNode("button", "", "Rematch at this table");
  button.type = "button";
  button.id = "rematch";
  button.title = "Play again with the same seats: a fresh game starts when every player asked for it";
  button.addEventListener("click", () => {
    button.disabled = true;
    tableLife.rematching = true;
    send({ op: "rematch" });
    log("rematch asked: the new game starts when every seat asked for it (up to 120 s)", "info");
  });
  over.appendChild(button);
}

// The hooks app.js calls.

function tableLifeCommand(cmd) {
  const delay = $("bot-delay");
  if (delay && (cmd.op === "demo" || cmd.op === "host")) cmd.bot_delay = Math.min(60, Math.max(0, Number(delay.value) || 0));
}

function tableLifeEvent(event) {
  switch (event.event) {
    case "started":
      tableLife.chatting = true;
      tableLife.rematching = false;
      $("chat-box").hidden = false;
      if (event.game) chatLine(`— ${event.game}: ${(event.names || []).join(", ")} —`, "info");
      break;
    case "chat":
      chatLine(`${event.name}${event.own ? " (you)" : ""}: ${event.text}`, event.own ? "own" : "");
      break;
    case "chat_dropped":
      chatLine(`dropped a chat line from ${event.name} (seat ${event.seat}): ${event.reason}`, "dropped");
      break;
    case "game_over":
      tableLife.chatting = false;
      showRematch(event);
      break;
    case "ok":
      if (event.op === "leave") { tableLife.chatting = false; $("chat-box").hidden = true; }
      break;
    case "failed":
      tableLife.chatting = false;
      $("chat-box").hidden = true;
      if (tableLife.rematching) log("the rematch did not start: not every seat asked for it in time", "error");
      tableLife.rematching = false;
      break;
    default:
      break;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  buildBotDelay();
  buildChat();
});

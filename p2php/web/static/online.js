// Online tables in the page: host one and show its invite code (with Copy), or join one by its code
// (the bridge's host_online / join_online, docs/bridge.md). Loaded after app.js (both deferred) and uses its
// globals ($, startTable, log); app.js calls two hooks: onlineCommand(cmd) before it sends a new table's command,
// onlineEvent(event) after it handled an event. Every text is set with textContent (the code comes from the bridge).
"use strict";

const online = { joining: false };

function onlineNode(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function buildOnline() {
  const host = $("host");
  if (!host || $("online")) return;
  const box = onlineNode("label", "", " online (invite code) ");
  const check = document.createElement("input");
  check.type = "checkbox";
  check.id = "online";
  check.title = "Host over the internet: friends join with the invite code shown here (needs p2php[internet])";
  box.prepend(check);
  host.after(box);

  const relay = onlineNode("label", "", "Relay (optional) ");
  const relayInput = document.createElement("input");
  relayInput.id = "relay";
  relayInput.maxLength = 300;
  relayInput.placeholder = "/ip4/203.0.113.7/tcp/4001/p2p/12D3Koo…";
  relay.appendChild(relayInput);

  const invite = onlineNode("div", "invite");
  invite.id = "invite";
  invite.hidden = true;
  const code = onlineNode("code", "");
  code.id = "invite-code";
  const copy = onlineNode("button", "", "Copy");
  copy.type = "button";
  copy.id = "invite-copy";
  copy.addEventListener("click", () => copyInvite(code.textContent));
  invite.append(onlineNode("span", "", "Invite code: "), code, copy);

  const join = onlineNode("label", "", "Join by invite code ");
  const joinInput = document.createElement("input");
  joinInput.id = "invite-join";
  joinInput.maxLength = 2000;
  joinInput.placeholder = "p2php-…";
  join.appendChild(joinInput);
  const joinButton = onlineNode("button", "", "Join online");
  joinButton.type = "button";
  joinButton.id = "join-online";
  joinButton.addEventListener("click", () => { online.joining = true; startTable("join"); });
  const buttons = onlineNode("div", "buttons");
  buttons.appendChild(joinButton);

  const form = $("table-form");
  form.append(relay, invite, join, buttons);
}

function copyInvite(text) {
  const done = () => log("invite code copied", "info");
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(done, () => log("could not copy: select the code and copy it", "error"));
  } else {
    log("could not copy: select the code and copy it", "error");
  }
}

// startTable's command, made online: host → host_online when the box is ticked, join → join_online by code.
function onlineCommand(cmd) {
  const relay = ($("relay") && $("relay").value.trim()) || null;
  if (online.joining) {
    online.joining = false;
    for (const key of Object.keys(cmd)) if (!["name", "timeout"].includes(key)) delete cmd[key];
    cmd.op = "join_online";
    cmd.code = $("invite-join").value.trim();
    if (relay) cmd.relay = relay;
  } else if (cmd.op === "host" && $("online") && $("online").checked) {
    cmd.op = "host_online";
    delete cmd.port;
    if (relay) cmd.relay = relay;
  }
  if (cmd.op !== "host_online" && $("invite")) $("invite").hidden = true;
}

function onlineEvent(event) {
  if (event.event === "invite" && $("invite")) {
    $("invite-code").textContent = String(event.code || "");
    $("invite").hidden = false;
    $("lobby").hidden = false;  // the code stays in view while friends join
    log("table open online: send your friends the invite code", "info");
  } else if (event.event === "started" && $("invite")) {
    $("invite").hidden = true;
  }
}

document.addEventListener("DOMContentLoaded", buildOnline);

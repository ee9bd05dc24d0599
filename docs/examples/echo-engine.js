#!/usr/bin/env node
// A complete protocol-1 engine in 40 lines: it "answers" every event at once
// with one binding per triple (?s ?p ?o). Not an RSP engine, but every
// message of docs/engine-protocol.md is here; replace `answer` with a call
// into your engine.
"use strict";
const readline = require("node:readline");

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function answer(event) {
  return event.triples.map(([s, p, o]) => ({ s, p, o }));
}

send({ type: "hello", protocol: 1, name: "echo-js", version: "1.0.0",
       capabilities: { window: false } });

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "register":
      console.error(`echo-js: registered for ${message.streams.join(", ")}`);
      send({ type: "registered" });
      break;
    case "event":
      send({ type: "result", bindings: answer(message), time: message.time });
      break;
    case "end":
      send({ type: "done" });
      break;
    case "shutdown":
      input.close();
      break;
  }
});
// After 'shutdown' (or the end of stdin) nothing is left to do: node exits
// by itself once stdout is flushed.

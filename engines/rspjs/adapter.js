#!/usr/bin/env node
// pytest-rspbench protocol-1 adapter for rsp-js (npm, pinned in package.json).
//
// It drives rsp-js through its own API (RSPEngine, getStream, register) and
// adds nothing to its semantics: no extra reports at the end of the input, no
// repair of its window arithmetic. What it does besides relaying messages:
//   * console output of rsp-js (it logs on stdout) goes to stderr, so stdout
//     carries protocol lines only; its FILE logger writes to a temporary
//     folder that is removed at exit;
//   * the query is re-laid out for rsp-js's line-based parser (one clause per
//     line, ISO-8601 durations as ms): a dialect translation, see README.md;
//   * rsp-js emits one binding at a time with timestamps that are not its
//     windows (README.md, departure D5), so the adapter observes each
//     evaluation (the window instance that triggered it and the bindings
//     stream of that evaluation) and emits one relation per evaluation with
//     the window rsp-js actually evaluated.
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const readline = require("node:readline");

const out = process.stdout;
const send = (message) => out.write(JSON.stringify(message) + "\n");
const log = (...parts) => process.stderr.write(parts.join(" ") + "\n");
for (const level of ["log", "info", "warn", "error", "debug", "trace"]) console[level] = log;

const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "rspjs-"));
fs.mkdirSync(path.join(workdir, "logs"));
process.chdir(workdir);
process.on("exit", () => fs.rmSync(workdir, { recursive: true, force: true }));

const N3 = require("n3");
const { RSPEngine } = require("rsp-js");
const VERSION = require("rsp-js/package.json").version;

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";

function escapeLiteral(value) {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

function toNTriples(term) {
  switch (term.termType) {
    case "NamedNode": return `<${term.value}>`;
    case "BlankNode": return `_:${term.value}`;
    case "Literal": {
      const lexical = `"${escapeLiteral(term.value)}"`;
      if (term.language) return `${lexical}@${term.language}`;
      const datatype = term.datatype && term.datatype.value;
      return !datatype || datatype === XSD_STRING || datatype === RDF_LANG
        ? lexical : `${lexical}^^<${datatype}>`;
    }
    default: return `"${escapeLiteral(String(term.value))}"`;
  }
}

// ISO-8601 day-time durations (PT10S, PT0.5S, P1D) as milliseconds.
function isoToMs(text) {
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!m) return text;
  const [d, h, min, s] = m.slice(1).map((x) => Number(x || 0));
  return String(Math.round((((d * 24 + h) * 60 + min) * 60 + s) * 1000));
}

// One clause per line, as rsp-js's parser reads the query line by line.
function layout(query) {
  return query
    .replace(/\s+/g, " ")
    .replace(/\s*(PREFIX\s|REGISTER\s|SELECT\s|FROM NAMED WINDOW\s|WHERE\s*\{|WINDOW\s+\S+\s*\{|\})/g, "\n$1")
    .replace(/\[RANGE\s+(\S+)\s+(?:STEP|SLIDE)\s+(\S+?)\s*\]/g,
      (_, r, s) => `[RANGE ${isoToMs(r)} STEP ${isoToMs(s)}]`)
    .trim();
}

function quadsOf(triples) {
  const text = triples.map(([s, p, o]) => `${s} ${p} ${o} .`).join("\n");
  return new N3.Parser({ format: "N-Triples" }).parse(text);
}

function loadStatic(engine, file) {
  const format = /\.nt$/.test(file) ? "N-Triples" : "Turtle";
  for (const q of new N3.Parser({ format }).parse(fs.readFileSync(file, "utf8"))) {
    engine.addStaticData(q);
  }
}

class Adapter {
  constructor() { this.engine = null; this.pending = new Set(); this.triggers = new Map(); }

  register(message) {
    const engine = new RSPEngine(layout(message.query));
    for (const file of message.static || []) loadStatic(engine, file);
    // Our listener runs first: it notes which window instance reported.
    for (const window of engine.windows) {
      window.subscribe("RStream", (container) => {
        for (const [instance, content] of window.active_windows) {
          if (content === container) this.triggers.set(container, [instance.open, instance.close]);
        }
      });
    }
    this.observeEvaluations(engine);
    engine.register().on("RStream", () => {}); // rsp-js's own per-binding output
    this.engine = engine;
    send({ type: "registered" });
  }

  observeEvaluations(engine) {
    const r2r = engine.r2r;
    const execute = r2r.execute.bind(r2r);
    r2r.execute = async (container) => {
      const window = this.triggers.get(container) || null;
      this.triggers.delete(container);
      // Pending from the moment rsp-js starts the evaluation (synchronously,
      // inside the event that triggered it), not only once Comunica has
      // answered: otherwise an `end` that arrives while Comunica is still
      // planning finds nothing pending and `done` overtakes the results.
      let finish;
      const tracked = new Promise((resolve) => { finish = resolve; })
        .then(() => { this.pending.delete(tracked); });
      this.pending.add(tracked);
      let bindings;
      try {
        bindings = await execute(container);
      } catch (error) {
        finish();
        throw error;
      }
      const rows = [];
      bindings.on("data", (b) => {
        const row = {};
        for (const [variable, term] of b) row[variable.value] = toNTriples(term);
        rows.push(row);
      });
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        if (rows.length) send({ type: "result", bindings: rows, window });
        finish();
      };
      bindings.on("end", settle);
      bindings.on("error", (e) => { log("rsp-js evaluation error:", e); settle(); });
      return bindings;
    };
  }

  event(message) {
    const stream = this.engine.getStream(message.stream);
    if (!stream) {
      log(`rsp-js has no stream ${message.stream} (streams: ${this.engine.get_all_streams()})`);
      return;
    }
    for (const q of quadsOf(message.triples)) stream.add(q, message.time);
  }

  async end() {
    while (this.pending.size) await Promise.all([...this.pending]);
    send({ type: "done" });
  }
}

const adapter = new Adapter();
send({ type: "hello", protocol: 1, name: "rsp-js", version: VERSION,
       capabilities: { window: true, adapter: "engines/rspjs/adapter.js" } });

const input = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
input.on("line", (line) => {
  if (!line.trim()) return;
  queue = queue.then(async () => {
    const message = JSON.parse(line);
    try {
      if (message.type === "register") adapter.register(message);
      else if (message.type === "event") adapter.event(message);
      else if (message.type === "end") await adapter.end();
      else if (message.type === "shutdown") input.close();
    } catch (error) {
      send({ type: "error", message: `${message.type}: ${error && error.stack || error}`, fatal: true });
    }
  });
});

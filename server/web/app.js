// Moteur web page. Plain JavaScript, no build step, nothing fetched but the
// API of the server that served it. Everything that comes from the API or
// the user is inserted as text (textContent, text nodes), never as HTML.
//
// The page keeps no state the server does not have: a session is its
// events. Opening one replays them (GET …/events?after=0, then live ones),
// so a reloaded page shows the same transcript and the approvals still
// waiting. Event streams are read with fetch() because the key goes in a
// header, which EventSource cannot send.
"use strict";
(function () {
  const API = "/api/v1";
  const STR = window.MOTEUR_STRINGS;

  // ---- state -------------------------------------------------------------
  const state = {
    key: sessionStorage.getItem("moteur.key") || localStorage.getItem("moteur.key") || "",
    lang: localStorage.getItem("moteur.lang") || ((navigator.language || "fr").toLowerCase().startsWith("en") ? "en" : "fr"),
    agents: [], presets: [], tools: [], bases: [],
    chat: null,   // the session shown: see openSession
    sessionsNext: "",
    kbSelected: "",
    editing: null, // agent being edited (null: a new one)
  };

  // ---- helpers -----------------------------------------------------------
  const $ = (id) => document.getElementById(id);

  // h builds an element; string children become text nodes.
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  function t(key, vars) {
    const s = (STR[state.lang] && STR[state.lang][key]) || STR.fr[key] || key;
    return s.replace(/\{(\w+)\}/g, (_, k) => (vars && k in vars ? String(vars[k]) : ""));
  }

  function applyLang() {
    document.documentElement.lang = state.lang;
    $("lang").value = state.lang;
    for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const el of document.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  }

  function clip(s, n) {
    s = String(s || "");
    return s.length > n ? s.slice(0, n) + "…" : s;
  }

  function fmtTime(s) {
    const d = new Date(s);
    return isNaN(d) ? "" : d.toLocaleString(state.lang);
  }

  function setStatus(id, text, isError) {
    const el = $(id);
    el.textContent = text || "";
    el.classList.toggle("error", !!isError);
  }

  // ---- API ---------------------------------------------------------------
  class APIError extends Error {
    constructor(status, code, message) { super(message); this.status = status; this.code = code; }
  }

  function headers(extra) {
    return Object.assign({ "X-API-Key": state.key }, extra || {});
  }

  async function failure(res) {
    let code = "http_" + res.status, msg = res.status + " " + res.statusText;
    try {
      const body = await res.json();
      if (body && body.error) { code = body.error.code || code; msg = body.error.message || msg; }
    } catch (_) { /* not JSON */ }
    if (res.status === 401) signOut(msg);
    return new APIError(res.status, code, msg);
  }

  async function api(method, path, body) {
    const init = { method, headers: headers() };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(API + path, init);
    if (!res.ok) throw await failure(res);
    if (res.status === 204) return null;
    return res.json();
  }

  // firstList is the first array of a list response ({"agents": […]}…).
  function firstList(obj, name) {
    if (Array.isArray(obj)) return obj;
    if (obj && Array.isArray(obj[name])) return obj[name];
    for (const v of Object.values(obj || {})) if (Array.isArray(v)) return v;
    return [];
  }

  // readSSE calls onEvent({id, event, data}) for each event of a
  // text/event-stream response, until it ends.
  async function readSSE(res, onEvent) {
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = "", data = [], id = null, type = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        let line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if (line === "") {
          if (data.length) onEvent({ id, event: type || "message", data: data.join("\n") });
          data = []; id = null; type = "";
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "data") data.push(val);
        else if (field === "id") id = val;
        else if (field === "event") type = val;
      }
    }
  }

  // ---- sign in -----------------------------------------------------------
  async function signIn(key, remember) {
    state.key = key;
    try {
      await api("GET", "/sessions?limit=1");
    } catch (e) {
      state.key = "";
      throw e;
    }
    sessionStorage.setItem("moteur.key", key);
    if (remember) localStorage.setItem("moteur.key", key);
  }

  function signOut(msg) {
    state.key = "";
    sessionStorage.removeItem("moteur.key");
    localStorage.removeItem("moteur.key");
    if (state.chat) closeSession();
    $("nav").hidden = true;
    $("signout").hidden = true;
    showView("signin");
    if (msg) setStatus("signin-error", t("signin.invalid", { msg }), true);
  }

  // ---- views -------------------------------------------------------------
  function showView(name) {
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== "view-" + name;
    for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.dataset.view === name);
  }

  async function route() {
    if (!state.key) { showView("signin"); return; }
    $("nav").hidden = false;
    $("signout").hidden = false;
    const parts = location.hash.replace(/^#\/?/, "").split("/");
    const view = parts[0] || "chat";
    try {
      switch (view) {
        case "sessions": showView("sessions"); await loadSessions(false); break;
        case "kb": showView("kb"); await loadBases(); break;
        case "agents": showView("agents"); await loadAgentsView(); break;
        default:
          showView("chat");
          await loadChatOptions();
          if (parts[1]) {
            const id = decodeURIComponent(parts[1]);
            if (!state.chat || state.chat.id !== id) await openSession(id);
          } else if (state.chat) location.replace("#/chat/" + encodeURIComponent(state.chat.id));
          else await newSession();
      }
    } catch (e) {
      setStatus(view === "chat" ? "chat-status" : view + "-status", t("error.generic", { msg: e.message }), true);
    }
  }

  // ---- chat: options -----------------------------------------------------
  async function loadChatOptions() {
    const [agents, bases] = await Promise.all([
      api("GET", "/agents").then((r) => firstList(r, "agents")),
      api("GET", "/knowledge-bases").then((r) => firstList(r, "knowledge_bases")).catch(() => []),
    ]);
    state.agents = agents;
    state.bases = bases;
    const sel = $("chat-agent");
    const keep = sel.value;
    sel.replaceChildren(h("option", { value: "" }, t("chat.agent.default")),
      ...agents.map((a) => h("option", { value: a.id }, a.name || a.id)));
    if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
    const box = $("chat-bases");
    const checked = new Set(selectedBases());
    box.replaceChildren(...bases.map((b) => h("label", { class: "check" },
      h("input", { type: "checkbox", value: b.name, checked: checked.has(b.name), onchange: basesSummary }), " ", b.name)));
    basesSummary();
  }

  function selectedBases() {
    return [...document.querySelectorAll("#chat-bases input:checked")].map((i) => i.value);
  }

  function basesSummary() {
    const b = selectedBases();
    $("chat-bases-summary").textContent = b.length ? b.join(", ") : t("chat.bases.none");
  }

  function agentByID(id) { return state.agents.find((a) => a.id === id); }

  function onAgentChange() {
    const a = agentByID($("chat-agent").value);
    if (a && a.config) {
      const quick = a.config.agent_mode !== "smart-reasoning";
      $(quick ? "chat-mode-quick" : "chat-mode-smart").checked = true;
      $("chat-web").checked = !!a.config.web_search_enabled;
    }
  }

  // ---- chat: sessions ----------------------------------------------------
  async function newSession() {
    closeSession();
    const agent = $("chat-agent").value;
    const r = await api("POST", "/sessions", agent ? { agent_id: agent } : undefined);
    location.replace("#/chat/" + encodeURIComponent(r.id));
  }

  function closeSession() {
    const c = state.chat;
    if (!c) return;
    c.closed = true;
    $("chat-send").disabled = true; // until the next session is open
    if (c.follow) c.follow.abort();
    if (c.post) c.post.abort();
    state.chat = null;
  }

  // openSession shows session id: its stored events, then live ones, and
  // the approvals it waits for.
  async function openSession(id) {
    closeSession();
    const c = {
      id, lastSeq: 0, closed: false, follow: null, post: null, running: false,
      turn: null,          // the assistant block of the current turn
      calls: new Map(),    // call id → timeline item
      prompts: new Map(),  // prompt id → approval card
      refs: new Map(),     // alias → citation ref
      blocks: [],          // rendered blocks with their seq (rewinds fade them)
    };
    state.chat = c;
    $("nav").querySelector('[data-view="chat"]').href = "#/chat/" + encodeURIComponent(id);
    $("transcript").replaceChildren(h("p", { class: "muted empty" }, t("chat.empty")));
    $("chat-session").textContent = t("chat.session", { id });
    setStatus("chat-status", "");
    let info = null;
    try {
      info = await api("GET", "/sessions/" + encodeURIComponent(id));
    } catch (e) {
      if (e.status !== 404) throw e;
    }
    if (c.closed) return;
    if (!info) { setRunning(false); return; } // not stored yet: nothing to follow
    if (info.title) $("chat-session").textContent = info.title;
    if (info.agent_id && agentByID(info.agent_id)) { $("chat-agent").value = info.agent_id; onAgentChange(); }
    setRunning(!!info.running);
    follow(c);
    loadPrompts(c);
  }

  // reopen draws the session shown again from its events.
  function reopen() {
    if (!state.chat) return;
    const id = state.chat.id;
    closeSession();
    openSession(id).catch((e) => setStatus("chat-status", t("error.generic", { msg: e.message }), true));
  }

  async function loadPrompts(c) {
    try {
      const r = await api("GET", "/sessions/" + encodeURIComponent(c.id) + "/prompts");
      if (c.closed) return;
      for (const p of firstList(r, "prompts")) {
        if (p.state && p.state !== "pending") continue;
        approvalCard(c, p, p.live !== false);
      }
    } catch (e) {
      setStatus("chat-status", t("error.generic", { msg: e.message }), true);
    }
  }

  // follow reads the session's events after the last one seen, again after
  // a cut connection, until the session is closed or a turn is posted.
  async function follow(c) {
    const ctl = new AbortController();
    c.follow = ctl;
    let delay = 500;
    while (!c.closed && c.follow === ctl) {
      try {
        const res = await fetch(API + "/sessions/" + encodeURIComponent(c.id) + "/events?after=" + c.lastSeq,
          { headers: headers({ Accept: "text/event-stream" }), signal: ctl.signal });
        if (!res.ok) throw await failure(res);
        setStatus("chat-status", "");
        delay = 500;
        await readSSE(res, (m) => onSSE(c, m));
      } catch (e) {
        if (ctl.signal.aborted || c.closed) return;
        if (e.status && e.status < 500 && e.status !== 409) { setStatus("chat-status", t("error.generic", { msg: e.message }), true); return; }
      }
      if (ctl.signal.aborted || c.closed) return;
      setStatus("chat-status", t("chat.reconnecting"));
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 8000);
    }
  }

  async function ask(query) {
    const c = state.chat;
    if (!c || !query.trim()) return;
    if (c.follow) { c.follow.abort(); c.follow = null; }
    const quick = $("chat-mode-quick").checked;
    const body = { query, agent_id: $("chat-agent").value, knowledge_base_ids: selectedBases(), web_search_enabled: $("chat-web").checked };
    const ctl = new AbortController();
    c.post = ctl;
    setRunning(true);
    setStatus("chat-status", "");
    try {
      const res = await fetch(API + (quick ? "/knowledge-chat/" : "/agent-chat/") + encodeURIComponent(c.id), {
        method: "POST", signal: ctl.signal,
        headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
        body: JSON.stringify(body),
      });
      if (!res.ok) throw await failure(res);
      $("chat-input").value = "";
      await readSSE(res, (m) => onSSE(c, m));
    } catch (e) {
      if (!ctl.signal.aborted) setStatus("chat-status", t("chat.error", { msg: e.message }), true);
    } finally {
      if (c.post === ctl) c.post = null;
      if (!c.closed) { setRunning(false); follow(c); }
    }
  }

  function setRunning(on) {
    if (state.chat) state.chat.running = on;
    $("chat-stop").hidden = !on;
    $("chat-send").disabled = on;
    $("chat-rewind").disabled = on;
  }

  // ---- chat: rendering of events ----------------------------------------
  function onSSE(c, m) {
    if (c.closed) return;
    if (m.event === "error") {
      let msg = m.data;
      try { msg = JSON.parse(m.data).error.message; } catch (_) { /* raw */ }
      notice(c, 0, "error", t("chat.error", { msg }));
      return;
    }
    let ev;
    try { ev = JSON.parse(m.data); } catch (_) { return; }
    if (ev.seq > 0 && !ev.ephemeral) {
      if (ev.seq <= c.lastSeq) return; // seen on another stream
      c.lastSeq = ev.seq;
    }
    render(c, ev);
  }

  function transcript() {
    const el = $("transcript");
    const empty = el.querySelector(".empty");
    if (empty) empty.remove();
    return el;
  }

  function block(c, seq, el) {
    el.dataset.seq = String(seq || c.lastSeq);
    c.blocks.push(el);
    transcript().append(el);
    el.scrollIntoView({ block: "end" });
    return el;
  }

  function notice(c, seq, kind, text) {
    return block(c, seq, h("p", { class: "notice " + kind, role: kind === "error" ? "alert" : null }, text));
  }

  // turnBlock is the assistant block of the current turn, made on demand.
  function turnBlock(c, seq) {
    if (!c.turn) {
      const el = h("div", { class: "msg assistant" });
      c.turn = { el, rounds: new Map(), timeline: null };
      block(c, seq, el);
    }
    return c.turn;
  }

  // round is the part of the turn written by model response n: its
  // reasoning (folded) and its text.
  function round(c, seq, n) {
    const turn = turnBlock(c, seq);
    let r = turn.rounds.get(n);
    if (!r) {
      const reasoning = h("pre", { class: "reasoning-text" });
      const details = h("details", { class: "reasoning", hidden: true }, h("summary", {}, t("chat.reasoning")), reasoning);
      const text = h("div", { class: "text" });
      const el = h("div", { class: "round" }, details, text);
      r = { el, details, reasoning, text, streamed: "" };
      turn.rounds.set(n, r);
      turn.el.append(el);
    }
    return r;
  }

  function timeline(c, seq) {
    const turn = turnBlock(c, seq);
    if (!turn.timeline) {
      turn.timeline = h("ol", { class: "timeline" });
      turn.el.append(turn.timeline);
    } else if (turn.timeline !== turn.el.lastElementChild) {
      // A new round's calls follow its text.
      turn.timeline = h("ol", { class: "timeline" });
      turn.el.append(turn.timeline);
    }
    return turn.timeline;
  }

  function render(c, ev) {
    const p = ev.payload || {};
    if (ev.parent_call_id && ev.type !== "PermissionRequested" && ev.type !== "PermissionResolved") return;
    switch (ev.type) {
      case "UserMessage":
        c.turn = null;
        block(c, ev.seq, h("div", { class: "msg user" }, h("div", { class: "text" }, p.typed || p.text || "")));
        break;
      case "AssistantDelta": {
        const r = round(c, ev.seq, p.round || 0);
        r.streamed += p.text || "";
        r.text.textContent = r.streamed;
        r.text.classList.add("streaming");
        break;
      }
      case "ReasoningDelta": {
        const r = round(c, ev.seq, p.round || 0);
        r.details.hidden = false;
        r.reasoning.textContent += p.text || "";
        break;
      }
      case "AssistantMessage": assistantMessage(c, ev, p); break;
      case "ToolResult": toolResult(c, p); break;
      case "ToolProgress": {
        const li = c.calls.get(p.call_id);
        if (li) li.querySelector(".dur").textContent = p.total ? Math.round(100 * p.done / p.total) + " %" : (p.message || "");
        break;
      }
      case "KnowledgeRetrieved":
        addRefs(c, p.references);
        timeline(c, ev.seq).append(h("li", { class: "call retrieved" },
          t("chat.retrieved", { q: p.query || "", n: (p.references || []).length })));
        break;
      case "PermissionRequested": approvalCard(c, p, true); break;
      case "PermissionResolved": resolveCard(c, p); break;
      case "TurnCompleted":
        if (!ev.parent_call_id) {
          if (p.reason && p.reason !== "stop") notice(c, ev.seq, "warn", t("chat.stopped", { reason: p.reason }));
          for (const card of c.prompts.values()) if (!card.classList.contains("resolved")) gone(card);
          c.turn = null;
          setRunning(c.post !== null);
        }
        break;
      case "Error": notice(c, ev.seq, "error", t("chat.error", { msg: p.message || "" })); break;
      case "Warning": notice(c, ev.seq, "warn", t("chat.warning", { msg: p.message || "" })); break;
      case "Rewound": rewound(c, ev, p); break;
      default: break;
    }
  }

  function assistantMessage(c, ev, p) {
    const r = round(c, ev.seq, p.round || 0);
    if (p.reasoning) { r.details.hidden = false; r.reasoning.textContent = p.reasoning; }
    addRefs(c, p.citations);
    r.text.classList.remove("streaming");
    r.text.replaceChildren(...withCitations(c, p.text || ""));
    const calls = p.tool_calls || [];
    if (calls.length) {
      r.el.classList.add("thought");
      const list = timeline(c, ev.seq);
      for (const call of calls) list.append(toolItem(c, call));
    } else {
      r.el.classList.add("answer");
      if (p.citations && p.citations.length) r.el.append(sources(c, p.citations));
    }
  }

  function toolItem(c, call) {
    const args = prettyJSON(call.arguments);
    const li = h("li", { class: "call pending", dataset: { call: call.id } },
      h("div", { class: "call-head" },
        h("span", { class: "name" }, call.name), " ",
        h("span", { class: "dur muted" }, t("chat.tool.pending"))),
      h("details", { class: "args" }, h("summary", {}, t("chat.tool.args") + " ", h("code", {}, clip(oneLine(args), 80))), h("pre", {}, args)),
      h("details", { class: "result", hidden: true }, h("summary", {}, t("chat.tool.result") + " ", h("span", { class: "preview" })), h("pre", {})));
    c.calls.set(call.id, li);
    return li;
  }

  function toolResult(c, p) {
    addRefs(c, p.references);
    const li = c.calls.get(p.call_id);
    if (!li) return;
    li.classList.remove("pending");
    li.classList.toggle("failed", !!p.is_error);
    li.querySelector(".dur").textContent = (p.is_error ? t("chat.tool.error") + " · " : "") + t("chat.tool.ms", { n: p.duration_ms || 0 });
    const res = li.querySelector(".result");
    res.hidden = false;
    // The preview is the tool's own summary when it gives one; the
    // unfolded result is what the model read.
    const content = p.content || p.display || "";
    res.querySelector(".preview").textContent = clip(oneLine(p.display || content), 120);
    res.querySelector("pre").textContent = clip(content, 20000);
  }

  function prettyJSON(s) {
    try { return JSON.stringify(JSON.parse(s), null, 2); } catch (_) { return String(s || ""); }
  }

  function oneLine(s) { return String(s).replace(/\s+/g, " ").trim(); }

  // ---- citations ---------------------------------------------------------
  function addRefs(c, refs) {
    for (const r of refs || []) if (r && r.alias) c.refs.set(r.alias, r);
  }

  // withCitations splits text into text nodes and [cN] buttons.
  function withCitations(c, text) {
    const out = [];
    const re = /\[((?:[a-z]\d+)(?:\s*,\s*[a-z]\d+)*)\]/g;
    let last = 0, m;
    while ((m = re.exec(text))) {
      const aliases = m[1].split(/\s*,\s*/);
      if (!aliases.some((a) => c.refs.has(a))) continue;
      out.push(text.slice(last, m.index));
      aliases.forEach((a, i) => {
        if (i) out.push(" ");
        const ref = c.refs.get(a);
        out.push(ref ? citeButton(ref, "[" + a + "]") : "[" + a + "]");
      });
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out.filter((x) => x !== "");
  }

  function citeButton(ref, label) {
    return h("button", { type: "button", class: "cite", dataset: { alias: ref.alias }, title: ref.title || ref.path || ref.alias,
      onclick: () => openCitation(ref) }, label);
  }

  function sources(c, refs) {
    return h("div", { class: "sources" }, h("span", { class: "muted" }, t("chat.sources") + " "),
      h("ul", {}, refs.map((r) => h("li", {}, citeButton(r, "[" + r.alias + "]"), " ",
        [r.title, r.path, r.headings].filter(Boolean).join(" — ")))));
  }

  function dl(pairs) {
    return pairs.filter(([, v]) => v).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]);
  }

  // openCitation shows what [cN] stands for: the passage among its
  // neighbours, and the document it belongs to.
  async function openCitation(ref) {
    const panel = $("citation");
    panel.hidden = false;
    panel.dataset.alias = ref.alias;
    $("citation-title").textContent = t("cite.title", { alias: ref.alias });
    $("citation-meta").replaceChildren(...dl([[t("cite.base"), ref.base_name || ref.base], [t("cite.headings"), ref.headings]]));
    $("citation-passage").replaceChildren(h("p", { class: "muted" }, t("cite.loading")));
    $("citation-doc").replaceChildren(...dl([[t("cite.document"), ref.title], [t("cite.path"), ref.path]]));
    try {
      const r = await api("GET", "/passages/" + encodeURIComponent(ref.id || ref.alias) + "?context=2");
      if (panel.dataset.alias !== ref.alias) return;
      const p = r.passage || {}, doc = r.document || {};
      const part = (c, cls) => h("pre", { class: cls }, c.text || "");
      $("citation-passage").replaceChildren(...(r.before || []).map((c) => part(c, "context")), part(p, "cited"),
        ...(r.after || []).map((c) => part(c, "context")));
      $("citation-meta").replaceChildren(...dl([[t("cite.base"), doc.base_name || ref.base_name], [t("cite.headings"), p.headings || ref.headings]]));
      $("citation-doc").replaceChildren(...dl([[t("cite.document"), doc.title || ref.title], [t("cite.path"), doc.path || ref.path],
        [t("cite.format"), doc.format], [t("cite.size"), doc.size ? doc.size + " o" : ""], [t("cite.passages"), doc.chunks],
        [t("cite.ingested"), doc.ingested_at ? fmtTime(doc.ingested_at) : ""]]));
    } catch (e) {
      $("citation-passage").replaceChildren(h("p", { class: "error" }, t("cite.unavailable", { msg: e.message })));
    }
  }

  // ---- approvals ---------------------------------------------------------
  function approvalCard(c, p, live) {
    if (c.prompts.has(p.id)) return c.prompts.get(p.id);
    const reason = h("input", { type: "text", class: "reason", placeholder: t("approval.reason"), "aria-label": t("approval.reason") });
    const remember = h("input", { type: "checkbox", class: "remember" });
    const status = h("p", { class: "approval-status", role: "status" });
    const approve = h("button", { type: "button", class: "approve", onclick: () => answer(c, card, p.id, true) }, t("approval.approve"));
    const deny = h("button", { type: "button", class: "deny danger", onclick: () => answer(c, card, p.id, false) }, t("approval.deny"));
    const card = h("div", { class: "approval", dataset: { prompt: p.id }, role: "group", "aria-label": t("approval.title", { tool: p.tool }) },
      h("h3", {}, t("approval.title", { tool: p.tool || "" })),
      h("pre", { class: "summary" }, p.summary || ""),
      p.risk ? h("p", { class: "muted" }, t("approval.risk", { risk: p.risk })) : null,
      h("div", { class: "approval-actions" }, approve, deny, reason,
        h("label", { class: "check" }, remember, " ", t("approval.remember"))),
      status);
    c.prompts.set(p.id, card);
    const li = c.calls.get(p.call_id);
    if (li) li.append(card); else block(c, 0, card);
    card.scrollIntoView({ block: "center" });
    if (!live) gone(card);
    return card;
  }

  async function answer(c, card, id, allow) {
    for (const b of card.querySelectorAll("button")) b.disabled = true;
    const body = { allow, remember: card.querySelector(".remember").checked, reason: allow ? "" : card.querySelector(".reason").value, session_id: c.id };
    try {
      await api("POST", "/agent/prompts/" + encodeURIComponent(id), body);
      settle(card, allow, "", body.reason);
    } catch (e) {
      if (e.code === "not_pending") { gone(card); return; }
      for (const b of card.querySelectorAll("button")) b.disabled = false;
      card.querySelector(".approval-status").textContent = t("error.generic", { msg: e.message });
    }
  }

  function settle(card, allow, by, reason) {
    card.classList.add("resolved", allow ? "allowed" : "denied");
    for (const el of card.querySelectorAll("button, input")) el.disabled = true;
    card.querySelector(".approval-status").textContent =
      [allow ? t("approval.allowed") : t("approval.denied"), by && by !== "user" ? t("approval.by", { by }) : "", reason || ""].filter(Boolean).join(" · ");
  }

  function resolveCard(c, p) {
    const card = c.prompts.get(p.id);
    if (card) settle(card, p.allow, p.by, p.reason);
  }

  function gone(card) {
    if (card.classList.contains("resolved")) return;
    card.classList.add("resolved", "gone");
    for (const el of card.querySelectorAll("button, input")) el.disabled = true;
    card.querySelector(".approval-status").textContent = t("approval.gone");
  }

  // ---- rewind ------------------------------------------------------------
  function rewound(c, ev, p) {
    if (p.mode !== "code") for (const b of c.blocks) if (Number(b.dataset.seq) >= p.to_seq && Number(b.dataset.seq) < ev.seq) b.classList.add("undone");
    c.turn = null;
    notice(c, ev.seq, "info", t("chat.rewound", { seq: p.to_seq, mode: t("rewind." + (p.mode || "both")) }));
  }

  async function openRewind() {
    const c = state.chat;
    if (!c) return;
    const panel = $("rewind");
    panel.hidden = false;
    setStatus("rewind-status", "");
    const list = $("rewind-points");
    list.replaceChildren();
    try {
      // In the order of the conversation, whatever order the server gives.
      const points = firstList(await api("GET", "/sessions/" + encodeURIComponent(c.id) + "/points"), "points")
        .slice().sort((x, y) => x.seq - y.seq);
      if (!points.length) { setStatus("rewind-status", t("rewind.none")); return; }
      list.replaceChildren(...points.map((pt) => h("li", { dataset: { seq: pt.seq } },
        h("span", { class: "muted" }, "#" + pt.seq + " · " + fmtTime(pt.time)), " ",
        h("span", {}, clip(pt.prompt, 120)), " ",
        h("button", { type: "button", onclick: () => doRewind(c, pt.seq) }, t("rewind.go")))));
    } catch (e) {
      setStatus("rewind-status", t("error.generic", { msg: e.message }), true);
    }
  }

  async function doRewind(c, seq) {
    try {
      const r = await api("POST", "/sessions/" + encodeURIComponent(c.id) + "/rewind", { to_seq: seq, mode: $("rewind-mode").value });
      setStatus("rewind-status", t("rewind.done", { seq }));
      if (r && r.prompt && !$("chat-input").value) $("chat-input").value = r.prompt;
    } catch (e) {
      setStatus("rewind-status", t("error.generic", { msg: e.message }), true);
    }
  }

  // ---- sessions list -----------------------------------------------------
  async function loadSessions(more) {
    const q = more && state.sessionsNext ? "?cursor=" + encodeURIComponent(state.sessionsNext) : "";
    const r = await api("GET", "/sessions" + q);
    state.sessionsNext = r.next || "";
    const list = $("sessions-list");
    const items = firstList(r, "sessions").map(sessionRow);
    if (more) list.append(...items); else list.replaceChildren(...items);
    if (!list.children.length) list.append(h("li", { class: "muted" }, t("sessions.empty")));
    $("sessions-more").hidden = !state.sessionsNext;
  }

  function sessionRow(s) {
    const agent = agentByID(s.agent_id);
    const del = h("button", { type: "button", class: "danger", onclick: async () => {
      if (!del.classList.contains("confirm")) { del.classList.add("confirm"); del.textContent = t("sessions.confirm"); return; }
      try { await api("DELETE", "/sessions/" + encodeURIComponent(s.id)); li.remove(); } catch (e) { del.textContent = e.message; }
    } }, t("sessions.delete"));
    const li = h("li", { dataset: { session: s.id } },
      h("a", { href: "#/chat/" + encodeURIComponent(s.id), class: "title" }, s.title || t("sessions.untitled")),
      h("span", { class: "muted" }, [agent ? agent.name : s.agent_id, fmtTime(s.updated), t("sessions.events", { n: s.events })].filter(Boolean).join(" · ")),
      s.running ? h("span", { class: "badge" }, t("sessions.running")) : null,
      del);
    return li;
  }

  // ---- knowledge bases ---------------------------------------------------
  async function loadBases() {
    state.bases = firstList(await api("GET", "/knowledge-bases"), "knowledge_bases");
    const list = $("kb-list");
    list.replaceChildren(...state.bases.map((b) => h("li", { dataset: { base: b.name }, class: b.name === state.kbSelected ? "active" : "" },
      h("button", { type: "button", class: "link", onclick: () => selectBase(b.name) }, b.name),
      h("span", { class: "muted" }, [b.description, t("kb.docs.count", { d: b.documents || 0, c: b.chunks || 0 })].filter(Boolean).join(" · ")))));
    if (!state.bases.length) list.append(h("li", { class: "muted" }, t("kb.empty")));
    if (state.kbSelected && state.bases.some((b) => b.name === state.kbSelected)) await selectBase(state.kbSelected);
    else $("kb-detail").hidden = true;
  }

  async function selectBase(name) {
    state.kbSelected = name;
    for (const li of $("kb-list").children) li.classList.toggle("active", li.dataset.base === name);
    const b = state.bases.find((x) => x.name === name) || { name };
    $("kb-detail").hidden = false;
    $("kb-detail-name").textContent = name;
    $("kb-detail-count").textContent = t("kb.docs.count", { d: b.documents || 0, c: b.chunks || 0 });
    const del = $("kb-delete");
    del.classList.remove("confirm");
    del.textContent = t("kb.delete");
    try {
      const docs = firstList(await api("GET", "/knowledge-bases/" + encodeURIComponent(name) + "/documents"), "documents");
      $("kb-docs").replaceChildren(...docs.map((d) => h("li", {}, h("span", {}, d.title || d.path || d.id),
        h("span", { class: "muted" }, [d.path !== d.title ? d.path : "", d.chunks ? d.chunks + " ¶" : ""].filter(Boolean).join(" · ")))));
      if (!docs.length) $("kb-docs").append(h("li", { class: "muted" }, t("kb.docs.empty")));
    } catch (e) {
      $("kb-docs").replaceChildren(h("li", { class: "error" }, e.message));
    }
  }

  function upload(name, files) {
    return new Promise((resolve, reject) => {
      const fd = new FormData();
      for (const f of files) fd.append("files", f, f.name);
      const xhr = new XMLHttpRequest();
      xhr.open("POST", API + "/knowledge-bases/" + encodeURIComponent(name) + "/documents");
      xhr.setRequestHeader("X-API-Key", state.key);
      xhr.responseType = "json";
      const bar = $("kb-progress");
      bar.hidden = false;
      bar.value = 0;
      bar.dataset.events = "0";
      xhr.upload.onprogress = (e) => {
        if (!e.lengthComputable) return;
        bar.dataset.events = String(Number(bar.dataset.events) + 1);
        const pc = Math.round((100 * e.loaded) / e.total);
        bar.value = pc;
        setStatus("kb-upload-status", t("kb.upload.progress", { p: pc }));
      };
      xhr.onload = () => {
        bar.value = 100;
        const body = xhr.response || {};
        if (xhr.status >= 200 && xhr.status < 300) resolve(body);
        else reject(new APIError(xhr.status, body.error && body.error.code, (body.error && body.error.message) || String(xhr.status)));
      };
      xhr.onerror = () => reject(new APIError(0, "network", "network error"));
      xhr.send(fd);
    });
  }

  function uploadResults(body) {
    const rows = firstList(body, "files");
    $("kb-upload-results").replaceChildren(...rows.map((r) => h("li", { class: r.error ? "error" : "" },
      [r.path || r.name || r.file, r.outcome || r.status, r.chunks ? r.chunks + " ¶" : "", r.error].filter(Boolean).join(" · "))));
  }

  // ---- agents ------------------------------------------------------------
  async function loadAgentsView() {
    const [agents, presets, tools, bases] = await Promise.all([
      api("GET", "/agents").then((r) => firstList(r, "agents")),
      api("GET", "/agents/presets").then((r) => firstList(r, "presets")).catch(() => []),
      api("GET", "/agents/tools").then((r) => firstList(r, "tools")).catch(() => []),
      api("GET", "/knowledge-bases").then((r) => firstList(r, "knowledge_bases")).catch(() => []),
    ]);
    Object.assign(state, { agents, presets, tools, bases });
    const ps = $("agent-preset");
    ps.replaceChildren(h("option", { value: "" }, t("agents.preset.none")), ...presets.map((p) => h("option", { value: p.id, title: p.description }, p.name || p.id)));
    renderAgents();
  }

  function renderAgents() {
    $("agents-list").replaceChildren(...state.agents.map((a) => h("li", { dataset: { agent: a.id } },
      h("span", { class: "title" }, a.name || a.id), " ",
      h("span", { class: "badge" }, a.builtin ? t("agents.builtin") : t("agents.custom")), " ",
      h("span", { class: "muted" }, [a.config && a.config.agent_mode === "smart-reasoning" ? t("chat.mode.smart") : t("chat.mode.quick"), a.description].filter(Boolean).join(" · ")),
      a.builtin ? h("button", { type: "button", class: "copy", onclick: () => editAgent(a, true) }, t("agents.copy"))
        : h("button", { type: "button", class: "edit", onclick: () => editAgent(a, false) }, t("agents.edit")),
      a.builtin ? null : h("button", { type: "button", class: "danger", onclick: () => deleteAgent(a) }, t("agents.delete")))));
  }

  // applyPreset prefills config from preset p, as agentconfig.Preset.Apply.
  function applyPreset(cfg, p) {
    cfg.agent_mode = "smart-reasoning";
    cfg.agent_type = p.id;
    if (p.system_prompt_id) cfg.system_prompt_id = p.system_prompt_id;
    if (p.temperature !== undefined) cfg.temperature = p.temperature;
    if (p.max_iterations) cfg.max_iterations = p.max_iterations;
    if (p.allowed_tools !== undefined && p.allowed_tools !== null) cfg.allowed_tools = p.allowed_tools.slice();
    if (p.web_search_enabled !== undefined) cfg.web_search_enabled = p.web_search_enabled;
    if (p.supported_file_types) cfg.supported_file_types = p.supported_file_types.slice();
  }

  function newAgent() {
    const cfg = { agent_mode: "quick-answer", temperature: 0.7, max_completion_tokens: 0, max_iterations: 0, llm_call_timeout: 0, allowed_tools: null, web_search_enabled: false, multi_turn_enabled: true, kb_selection_mode: "all" };
    const p = state.presets.find((x) => x.id === $("agent-preset").value);
    if (p) applyPreset(cfg, p);
    state.editing = { id: "", name: "", description: "", config: cfg };
    fillAgentForm(state.editing);
  }

  function editAgent(a, copy) {
    const clone = JSON.parse(JSON.stringify(a));
    if (copy) { clone.id = ""; clone.builtin = false; clone.name = a.name + " (2)"; }
    state.editing = clone;
    fillAgentForm(clone);
  }

  function fillAgentForm(a) {
    const f = $("agent-form");
    const cfg = a.config || {};
    f.hidden = false;
    f.dataset.agent = a.id || "";
    setStatus("agent-form-error", "");
    f.elements.name.value = a.name || "";
    f.elements.description.value = a.description || "";
    f.elements.agent_mode.value = cfg.agent_mode || "quick-answer";
    f.elements.agent_type.value = cfg.agent_type || "";
    f.elements.model_id.value = cfg.model_id || "";
    f.elements.temperature.value = cfg.temperature ?? "";
    f.elements.max_completion_tokens.value = cfg.max_completion_tokens || "";
    f.elements.access_level.value = cfg.access_level || "auto_write";
    f.elements.max_iterations.value = cfg.max_iterations || "";
    f.elements.system_prompt.value = cfg.system_prompt || "";
    f.elements.kb_selection_mode.value = cfg.kb_selection_mode || "all";
    f.elements.web_search_enabled.checked = !!cfg.web_search_enabled;
    const kbs = new Set(cfg.knowledge_bases || []);
    $("agent-form-bases").replaceChildren(...state.bases.map((b) => h("label", { class: "check" },
      h("input", { type: "checkbox", name: "kb", value: b.name, checked: kbs.has(b.name) }), " ", b.name)));
    const chosen = Array.isArray(cfg.allowed_tools);
    f.querySelector(`input[name=tools_mode][value=${chosen ? "chosen" : "default"}]`).checked = true;
    const tools = new Set(chosen ? cfg.allowed_tools : state.tools.filter((x) => x.default).map((x) => x.name));
    $("agent-form-tools").replaceChildren(...state.tools.map((x) => h("label", { class: "check", title: x.description || "" },
      h("input", { type: "checkbox", name: "tool", value: x.name, checked: tools.has(x.name) }), " ", x.name)));
    f.elements.name.focus();
  }

  function readAgentForm() {
    const f = $("agent-form");
    const a = state.editing;
    const cfg = Object.assign({}, a.config);
    const num = (v, d) => (v === "" ? d : Number(v));
    cfg.agent_mode = f.elements.agent_mode.value;
    cfg.model_id = f.elements.model_id.value.trim();
    cfg.temperature = num(f.elements.temperature.value, -1);
    cfg.max_completion_tokens = num(f.elements.max_completion_tokens.value, 0);
    cfg.access_level = f.elements.access_level.value;
    cfg.max_iterations = num(f.elements.max_iterations.value, 0);
    cfg.system_prompt = f.elements.system_prompt.value;
    cfg.kb_selection_mode = f.elements.kb_selection_mode.value;
    cfg.knowledge_bases = cfg.kb_selection_mode === "selected" ? [...f.querySelectorAll("input[name=kb]:checked")].map((i) => i.value) : [];
    cfg.web_search_enabled = f.elements.web_search_enabled.checked;
    cfg.allowed_tools = f.querySelector("input[name=tools_mode]:checked").value === "chosen"
      ? [...f.querySelectorAll("input[name=tool]:checked")].map((i) => i.value) : null;
    return { name: f.elements.name.value.trim(), description: f.elements.description.value.trim(), config: cfg };
  }

  async function saveAgent(ev) {
    ev.preventDefault();
    const a = state.editing;
    const body = readAgentForm();
    try {
      const saved = a.id ? await api("PUT", "/agents/" + encodeURIComponent(a.id), Object.assign({ id: a.id }, body))
        : await api("POST", "/agents", body);
      $("agent-form").hidden = true;
      setStatus("agents-status", t("agents.saved", { name: (saved && saved.name) || body.name }));
      await loadAgentsView();
    } catch (e) {
      setStatus("agent-form-error", e.message, true);
    }
  }

  async function deleteAgent(a) {
    try {
      await api("DELETE", "/agents/" + encodeURIComponent(a.id));
      await loadAgentsView();
    } catch (e) {
      setStatus("agents-status", t("error.generic", { msg: e.message }), true);
    }
  }

  // ---- wiring ------------------------------------------------------------
  function wire() {
    $("lang").addEventListener("change", () => {
      state.lang = $("lang").value;
      localStorage.setItem("moteur.lang", state.lang);
      applyLang();
      // The transcript is drawn again in the new language.
      if (state.chat && !state.chat.post) reopen();
      route();
    });
    $("signin-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      setStatus("signin-error", "");
      try {
        await signIn($("signin-key").value.trim(), $("signin-remember").checked);
        $("signin-key").value = "";
        route();
      } catch (err) {
        setStatus("signin-error", t("signin.invalid", { msg: err.message }), true);
      }
    });
    $("signout").addEventListener("click", () => signOut(""));
    $("chat-form").addEventListener("submit", (e) => { e.preventDefault(); ask($("chat-input").value); });
    $("chat-input").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); ask($("chat-input").value); }
    });
    $("chat-agent").addEventListener("change", onAgentChange);
    $("chat-stop").addEventListener("click", async () => {
      if (!state.chat) return;
      try { await api("POST", "/sessions/" + encodeURIComponent(state.chat.id) + "/stop"); } catch (e) { setStatus("chat-status", e.message, true); }
    });
    $("chat-new").addEventListener("click", () => newSession().catch((e) => setStatus("chat-status", e.message, true)));
    $("chat-rewind").addEventListener("click", openRewind);
    $("rewind-close").addEventListener("click", () => {
      $("rewind").hidden = true;
      reopen();
    });
    $("citation-close").addEventListener("click", () => { $("citation").hidden = true; });
    $("sessions-more").addEventListener("click", () => loadSessions(true));
    $("kb-create").addEventListener("submit", async (e) => {
      e.preventDefault();
      const name = $("kb-name").value.trim();
      try {
        await api("POST", "/knowledge-bases", { name, description: $("kb-description").value.trim() });
        setStatus("kb-status", t("kb.created", { name }));
        $("kb-name").value = ""; $("kb-description").value = "";
        state.kbSelected = name;
        await loadBases();
      } catch (err) { setStatus("kb-status", t("error.generic", { msg: err.message }), true); }
    });
    $("kb-upload").addEventListener("submit", async (e) => {
      e.preventDefault();
      const files = $("kb-files").files;
      if (!files.length || !state.kbSelected) return;
      try {
        const body = await upload(state.kbSelected, files);
        setStatus("kb-upload-status", t("kb.upload.done"));
        uploadResults(body);
        $("kb-files").value = "";
        await loadBases();
      } catch (err) { setStatus("kb-upload-status", t("kb.upload.failed", { msg: err.message }), true); }
    });
    $("kb-delete").addEventListener("click", async () => {
      const del = $("kb-delete");
      if (!del.classList.contains("confirm")) { del.classList.add("confirm"); del.textContent = t("sessions.confirm"); return; }
      try {
        await api("DELETE", "/knowledge-bases/" + encodeURIComponent(state.kbSelected));
        state.kbSelected = "";
        await loadBases();
      } catch (err) { setStatus("kb-status", t("error.generic", { msg: err.message }), true); }
    });
    $("agent-new").addEventListener("click", newAgent);
    $("agent-form").addEventListener("submit", saveAgent);
    $("agent-cancel").addEventListener("click", () => { $("agent-form").hidden = true; });
    window.addEventListener("hashchange", route);
  }

  wire();
  applyLang();
  route();
})();

// The view's side of the MCP Apps bridge (SEP-1865): JSON-RPC 2.0 over postMessage to the host.
// The page makes no request of its own: every datum comes from the host (tool-result), and every
// action is a tools/call the host relays to memgate. Text from memory is set as textContent only.
"use strict";
const Bridge = (() => {
  let nextId = 1;
  const pending = new Map();
  const handlers = {};
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.id !== undefined && m.id !== null && !m.method) {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error.message || "the host refused the request"));
      else p.resolve(m.result);
      return;
    }
    if (m.method && handlers[m.method]) handlers[m.method](m.params || {});
    if (m.method && m.id !== undefined && m.id !== null) {
      // host -> view requests (ui/resource-teardown, ping): nothing to keep, answer at once
      window.parent.postMessage({ jsonrpc: "2.0", id: m.id, result: {} }, "*");
    }
  });
  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
    });
  }
  function notify(method, params) {
    window.parent.postMessage({ jsonrpc: "2.0", method, params: params || {} }, "*");
  }
  function applyHostStyles(context) {
    const vars = (context && context.styles && context.styles.variables) || {};
    for (const [key, value] of Object.entries(vars)) {
      if (key.startsWith("--") && typeof value === "string") document.documentElement.style.setProperty(key, value);
    }
    if (context && context.theme) document.documentElement.dataset.theme = context.theme;
  }
  async function connect(name, onResult) {
    handlers["ui/notifications/tool-result"] = onResult;
    handlers["ui/notifications/tool-input"] = () => {};
    handlers["ui/notifications/host-context-changed"] = applyHostStyles;
    const init = await request("ui/initialize", {
      appCapabilities: { availableDisplayModes: ["inline"] },
      appInfo: { name, version: "1.0.0" },
      protocolVersion: "2025-06-18",
    });
    applyHostStyles(init && init.hostContext);
    notify("ui/notifications/initialized", {});
    ready = true;
    resized();
    return init;
  }
  let lastHeight = 0;
  let ready = false; // nothing but ui/initialize goes to the host before the handshake is done
  function resized() {
    if (!ready) return;
    // the document's own height (not scrollHeight, which is at least the frame's), on every change
    const box = document.documentElement.getBoundingClientRect();
    const height = Math.ceil(box.height);
    if (height === lastHeight) return;
    lastHeight = height;
    notify("ui/notifications/size-changed", { width: Math.ceil(box.width), height });
  }
  if (typeof ResizeObserver === "function") new ResizeObserver(() => resized()).observe(document.documentElement);
  async function callTool(name, args) {
    const result = await request("tools/call", { name, arguments: args });
    if (result && result.isError) {
      const text = (result.content || []).map((c) => c.text || "").join(" ").trim();
      throw new Error(text || "the call failed");
    }
    return result;
  }
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("data-")) node.setAttribute(k, String(v));
      else node[k] = v;
    }
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
    return node;
  }
  return { connect, callTool, notify, resized, el };
})();

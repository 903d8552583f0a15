"""OpenCode: the plugin file ``memdir install opencode`` writes, and the payloads it sends to
``memdir hook opencode <event>``.

The plugin is one dependency-free ES module serving both plugin APIs:

* v1 — ``server(input)`` returns hooks ``chat.message`` (build the block for the prompt, then capture the
  prompt: one ``prompt`` call, so the prompt never recalls itself), ``tool.execute.after`` (capture a tool
  summary), ``experimental.chat.system.transform`` (push that block onto ``output.system`` of each request of
  the turn, never onto OpenCode's own title/summary requests) and ``event`` (``message.part.updated`` text
  parts of assistant messages, captured as the reply on ``session.idle``; ``session.created``/``session.updated``
  with a ``parentID`` mark a sub-agent's session, the task tool's child: its prompt is the parent agent's, its reply
  the task tool's output, so neither is captured there, and its requests still get the block);
* v2 — ``setup(ctx)`` registers ``session.hook("prompt")``, ``session.hook("context")`` (pushes
  ``{type: "text", text}`` onto ``event.system`` for primary requests, and hands the last two user texts to
  the capture fallback) and ``tool.hook("execute.after")`` (completed calls only).

The default export is ``{id, setup, server}`` (HOSTS.md: one file can serve both ⚠); ``legacy=True`` writes
``export const MemdirPlugin = server`` instead, for old v1 loaders that call every export as a function.
Each hook runs ``memdir hook opencode <event>`` in a child process, sends JSON on stdin and, for ``prompt``
and ``context``, reads the block as plain text from stdout (with a timeout); capture-only events (tool, reply)
run in a detached child that outlives ``opencode run``. Any failure or timeout means "no memory this
time"; the plugin never throws into the host and never touches ``event.messages`` or persisted history.

Payload (stdin) fields: ``sessionID``, ``directory``, ``text`` (prompt / last user text), ``messages``
(recent user texts, context only), ``messageID``, ``tool``, ``callID``, ``args``, ``output``, ``error``;
``stop``: ``text`` is the assistant reply.
"""

from __future__ import annotations

import json
from typing import Any

from memdir.hosts.adapters import HookCall, text_of

PLUGIN_ID = "memdir"
PLUGIN_MARK = "memdir-opencode-plugin"


def parse_payload(host: str, event: str, raw_event: str, p: dict[str, Any]) -> HookCall:
    """``HookCall`` for a payload sent by the plugin file (fields in the module docstring)."""
    call = HookCall(host=host, event=event, host_event=raw_event,
                    session=text_of(p.get("sessionID") or p.get("session_id")),
                    cwd=text_of(p.get("directory") or p.get("cwd")))
    if event in ("user-prompt", "context"):
        call.prompt = text_of(p.get("text") if p.get("text") is not None else p.get("prompt"))
        msgs = p.get("messages") or []
        call.messages = [m for m in (text_of(x) for x in msgs) if m] if isinstance(msgs, list) else []
    elif event == "post-tool-use":
        call.tool = text_of(p.get("tool"))
        call.tool_input = p.get("args")
        call.tool_output = p.get("output")
        call.call_id = text_of(p.get("callID") or p.get("call_id"))
        call.is_error = bool(p.get("error"))
    elif event == "stop":
        call.assistant = text_of(p.get("text") or p.get("assistant"))
    return call


PLUGIN_TEMPLATE = r"""// __MARK__ — written by `memdir install opencode`; delete this file (or run
// `memdir install opencode --uninstall`) to remove it. It serves OpenCode's v1 and v2 plugin APIs by running
// `memdir hook opencode <event>` with a timeout. It only adds a <memory> block to the system prompt of each
// request; it never edits messages or stored history, and any error means "no memory this time".
import { spawn } from "node:child_process";

const MEMDIR = __COMMAND__;
const TIMEOUT_MS = __TIMEOUT_MS__;
const blocks = new Map(); // sessionID -> {text, block}: the block built for the session's current prompt
const roles = new Map(); // messageID -> "user" | "assistant"
const replies = new Map(); // sessionID -> {messageID, parts: Map(partID -> text)} of the last assistant message
// sub-agent sessions (the task tool's child sessions, `parentID` set): their prompt is the parent agent's, not the
// user's words, and their reply comes back as the task tool's output: neither is captured, the block is still given
const children = new Set();
// requests of OpenCode's own helper agents (title, summary) get no memory
const HELPER_PROMPT = /^You are a title generator|Generate a (brief )?title|^Summarize (what was done|the following conversation)/;

function runMemdir(event, payload) {
  return new Promise((resolve) => {
    let out = "";
    let settled = false;
    let child;
    let timer;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(value);
    };
    try {
      child = spawn(MEMDIR[0], [...MEMDIR.slice(1), "hook", "opencode", event], {
        stdio: ["pipe", "pipe", "ignore"],
        windowsHide: true,
      });
    } catch (_) {
      return finish("");
    }
    timer = setTimeout(() => {
      try { child.kill(); } catch (_) {}
      finish("");
    }, TIMEOUT_MS);
    child.on("error", () => finish(""));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => { out += d; });
    child.on("close", (code) => finish(code === 0 ? out.trim() : ""));
    child.stdin.on("error", () => {});
    try { child.stdin.end(JSON.stringify(payload)); } catch (_) { finish(""); }
  });
}

// capture-only events: a detached child that outlives OpenCode (`opencode run` may exit right after)
function captureDetached(event, payload) {
  try {
    const child = spawn(MEMDIR[0], [...MEMDIR.slice(1), "hook", "opencode", event], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
      windowsHide: true,
    });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
    child.unref();
  } catch (_) {}
}

function textOf(parts) {
  if (!Array.isArray(parts)) return typeof parts === "string" ? parts : "";
  return parts
    .filter((p) => p && (p.type === undefined || p.type === "text") && typeof p.text === "string" && !p.synthetic)
    .map((p) => p.text)
    .join("\n");
}

function recentUserTexts(messages, n) {
  const out = [];
  if (!Array.isArray(messages)) return out;
  for (let i = messages.length - 1; i >= 0 && out.length < n; i--) {
    const m = messages[i] || {};
    const info = m.info || m;
    if (info.role !== "user") continue;
    const t = textOf(m.parts || m.content || info.parts);
    if (t) out.unshift(t);
  }
  return out;
}

// the prompt hook builds the block *before* it stores the prompt, so the prompt never recalls itself;
// every request of that prompt's turn reuses this block
async function promptBlock(sessionID, messageID, directory, text) {
  const block = await runMemdir("prompt", { sessionID, messageID, directory, text });
  blocks.set(sessionID, { text, block });
  return block;
}

async function contextBlock(sessionID, directory, text, messages) {
  const hit = blocks.get(sessionID);
  if (hit && (!text || hit.text === text)) return hit.block;
  if (children.has(sessionID)) messages = [];
  const block = await runMemdir("context", { sessionID, directory, text, messages });
  blocks.set(sessionID, { text, block });
  return block;
}

function isHelperRequest(system) {
  const first = Array.isArray(system) && system.length ? system[0] : "";
  const s = typeof first === "string" ? first : first?.text || "";
  return HELPER_PROMPT.test(s.trim());
}

function toolPayload(sessionID, directory, e, output) {
  return {
    sessionID, directory,
    tool: e.tool || e.name || "",
    callID: e.callID || e.callId || e.id || "",
    args: e.args ?? e.input ?? null,
    output: typeof output === "string" ? output : output?.output ?? e.output ?? e.result ?? null,
    error: e.status === "error" || Boolean(e.error),
  };
}

// assistant replies: text parts of assistant messages, handed to memdir when the session goes idle
function onEvent(directory, event) {
  const props = event?.properties || {};
  if ((event?.type === "session.created" || event?.type === "session.updated") && props.info?.parentID) {
    children.add(props.info.id);
  } else if (event?.type === "message.updated" && props.info?.id) {
    roles.set(props.info.id, props.info.role);
  } else if (event?.type === "message.part.updated" && props.part?.type === "text") {
    const part = props.part;
    if (roles.get(part.messageID) !== "assistant" || part.synthetic || typeof part.text !== "string") return;
    let r = replies.get(part.sessionID);
    if (!r || r.messageID !== part.messageID) {
      r = { messageID: part.messageID, parts: new Map() };
      replies.set(part.sessionID, r);
    }
    r.parts.set(part.id, part.text);
  } else if (event?.type === "session.idle" && props.sessionID) {
    const r = replies.get(props.sessionID);
    replies.delete(props.sessionID);
    blocks.delete(props.sessionID);
    const text = r ? [...r.parts.values()].join("\n").trim() : "";
    if (text && !children.has(props.sessionID)) captureDetached("stop", { sessionID: props.sessionID, messageID: r.messageID, directory, text });
  }
}

// ---- v1: a function returning hooks ------------------------------------------------------------------------
async function server(input) {
  const directory = input?.directory || input?.worktree || process.cwd();
  return {
    "chat.message": async (inp, out) => {
      try {
        const text = textOf(out?.parts);
        if (!text) return;
        if (children.has(inp?.sessionID)) return void (await contextBlock(inp?.sessionID, directory, text, []));
        await promptBlock(inp?.sessionID, inp?.messageID, directory, text);
      } catch (_) {}
    },
    "tool.execute.after": async (inp, out) => {
      try {
        captureDetached("tool", toolPayload(inp?.sessionID, directory, inp || {}, out?.output ?? out));
      } catch (_) {}
    },
    "experimental.chat.system.transform": async (inp, out) => {
      try {
        if (!inp?.sessionID || isHelperRequest(out?.system)) return;
        const block = await contextBlock(inp.sessionID, directory, "", []);
        if (block && Array.isArray(out?.system)) out.system.push(block);
      } catch (_) {}
    },
    event: async ({ event }) => {
      try { onEvent(directory, event); } catch (_) {}
    },
  };
}

// ---- v2: {id, setup} ----------------------------------------------------------------------------------------
async function setup(ctx) {
  const directory = ctx?.directory || ctx?.worktree || ctx?.project?.worktree || process.cwd();
  ctx.session.hook("prompt", async (e) => {
    try {
      const text = e?.text || textOf(e?.parts || e?.message?.parts);
      if (!text) return;
      if (children.has(e?.sessionID)) return void (await contextBlock(e?.sessionID, directory, text, []));
      await promptBlock(e?.sessionID, e?.messageID, directory, text);
    } catch (_) {}
  });
  ctx.session.hook("context", async (e) => {
    try {
      if (e?.kind !== undefined && e.kind !== "primary") return;
      const recent = recentUserTexts(e?.messages, 2); // read only: messages are never modified
      const text = recent[recent.length - 1] || "";
      const block = await contextBlock(e?.sessionID, directory, text, recent);
      if (block && Array.isArray(e?.system)) e.system.push({ type: "text", text: block });
    } catch (_) {}
  });
  ctx.tool.hook("execute.after", async (e) => {
    try {
      if (e?.status !== undefined && e.status !== "completed" && e.status !== "error") return;
      captureDetached("tool", toolPayload(e?.sessionID, directory, e || {}, e?.output));
    } catch (_) {}
  });
  try { ctx.event?.subscribe?.((ev) => { try { onEvent(directory, ev); } catch (_) {} }); } catch (_) {}
}

__EXPORTS__
"""

_EXPORTS_BOTH = 'export default { id: "%s", setup, server };' % PLUGIN_ID
_EXPORTS_LEGACY = "export const MemdirPlugin = server;"


def render_plugin(command: list[str], *, timeout_ms: int = 4000, legacy: bool = False) -> str:
    """The plugin file text.

    ``command``: argv prefix that runs memdir (e.g. ``["/home/me/.local/bin/memdir"]`` or
    ``[sys.executable, "-m", "memdir.cli"]``); ``hook opencode <event>`` is appended. ``timeout_ms``: the
    child-process timeout per call. ``legacy``: v1-only export for old OpenCode loaders.
    """
    if not command or not all(isinstance(c, str) and c for c in command):
        raise ValueError("the memdir command must be a non-empty list of strings")
    return (PLUGIN_TEMPLATE.replace("__MARK__", PLUGIN_MARK)
            .replace("__COMMAND__", json.dumps(command))
            .replace("__TIMEOUT_MS__", str(int(timeout_ms)))
            .replace("__EXPORTS__", _EXPORTS_LEGACY if legacy else _EXPORTS_BOTH))

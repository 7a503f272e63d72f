// Drives `auger acp` with Zed's TypeScript ACP SDK through a whole editor session, then loads
// the session in a second `auger acp` process. Prints one JSON summary line on stdout for
// tests/acp_peers/test_ts_client.py to check.
//
//   node session.mjs AUGER_COMMAND PROJECT_DIR
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [auger, project] = process.argv.slice(2);
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function start() {
  const child = spawn(auger, ["acp"], { cwd: project, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, stream };
}

function recorder() {
  const updates = [];
  const permissions = [];
  const waiters = [];
  const app = acp
    .client({ name: "auger-ts-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
      for (const w of waiters) if (w.test(params.update)) w.resolve(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const allow = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    });
  const waitFor = (test) =>
    new Promise((resolve) => {
      const seen = updates.find(test);
      if (seen) resolve(seen);
      else waiters.push({ test, resolve });
    });
  const text = (kind) =>
    updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");
  return { app, updates, permissions, waitFor, text };
}

async function firstProcess() {
  const { child, stream } = start();
  const rec = recorder();
  const out = await rec.app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const session = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    const sessionId = session.sessionId;
    const first = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write hello.txt" }],
    });
    const toolCalls = rec.updates.filter((u) => u.sessionUpdate === "tool_call");
    const statuses = rec.updates.filter((u) => u.sessionUpdate === "tool_call_update").map((u) => u.status);
    const reply = rec.text("agent_message_chunk");
    rec.updates.length = 0;
    const running = ctx.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "count to a lot" }],
    });
    await rec.waitFor((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text.includes("lorem"));
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    const cancelled = await running;
    let imageError = null; // the scripted model takes no images: refused, nothing sent
    try {
      await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "what is this?" }, { type: "image", mimeType: "image/png", data: PNG_1PX }],
      });
    } catch (error) {
      imageError = error.message ?? String(error);
    }
    return {
      image: { advertised: init.agentCapabilities.promptCapabilities.image, error: imageError },
      agent: init.agentInfo,
      loadSession: init.agentCapabilities.loadSession,
      sessionId,
      modes: session.modes.availableModes.map((m) => m.id),
      first: { stopReason: first.stopReason, toolCalls, statuses, permissions: rec.permissions, reply },
      cancel: { stopReason: cancelled.stopReason, partial: rec.text("agent_message_chunk").length },
    };
  });
  child.stdin.end();
  await new Promise((resolve) => child.on("exit", resolve));
  return out;
}

async function secondProcess(sessionId) {
  const { child, stream } = start();
  const rec = recorder();
  await rec.app.connectWith(stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
  });
  child.stdin.end();
  await new Promise((resolve) => child.on("exit", resolve));
  return {
    users: rec.updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text),
    reply: rec.text("agent_message_chunk"),
    toolCalls: rec.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.title),
  };
}

const first = await firstProcess();
const load = await secondProcess(first.sessionId);
process.stdout.write(JSON.stringify({ ...first, load }) + "\n");

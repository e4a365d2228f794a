// An editor's side of ACP on the official TypeScript library (which checks every message against the protocol's
// schema), run by tests/interop/test_acp_ts.py: it starts `agentui acp`, offering its files and drawing terminals,
// writes a file and runs a command through a prompt (allowing each when asked), lists, loads, resumes, forks and
// closes sessions, and prints one JSON line of what it saw.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

// The agent's command is a JSON list (`agentui acp`, or Zed's Claude Code adapter for the reference run); with
// "prompt-only", the session methods after the prompt are left out.
const [library, command, cwd, only] = process.argv.slice(2);
const [program, ...programArgs] = JSON.parse(command);
const acp = await import(pathToFileURL(library).href);
const seen = { updates: [], asked: [], errors: [], responses: {}, read: [], written: [] };
for (const level of ["error", "warn"]) {
  const original = console[level];
  console[level] = (...args) => {
    seen.errors.push(args.map(String).join(" "));
    original(...args);
  };
}
const child = spawn(program, programArgs, { cwd, env: process.env, stdio: ["pipe", "pipe", "inherit"] });
// Every line each way, as sent, for the test to check against the protocol's JSON schema.
const tee = (into) =>
  new TransformStream({
    transform(chunk, controller) {
      into.push(new TextDecoder().decode(chunk));
      controller.enqueue(chunk);
    },
  });
const fromAgent = [];
const toAgent = [];
const incoming = Readable.toWeb(child.stdout).pipeThrough(tee(fromAgent));
const outgoing = tee(toAgent);
outgoing.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
const stream = acp.ndJsonStream(outgoing.writable, incoming);
const app = acp
  .client({ name: "agentui-tests" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    seen.updates.push(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    seen.asked.push(params);
    const once = params.options.find((option) => option.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: once.optionId } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    seen.read.push(params.path);
    return { content: readFileSync(params.path, "utf8") };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    seen.written.push([params.path, params.content]);
    writeFileSync(params.path, params.content);
    return {};
  });
try {
  await app.connectWith(stream, async (ctx) => {
    const { methods } = acp;
    const call = async (name, method, params) => (seen.responses[name] = await ctx.request(method, params));
    await call("initialize", methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true } },
    });
    const session = await call("new", methods.agent.session.new, { cwd, mcpServers: [] });
    const prompt = [{ type: "text", text: "write hello.txt" }];
    await call("prompt", methods.agent.session.prompt, { sessionId: session.sessionId, prompt });
    if (only === "prompt-only") return;
    await call("list", methods.agent.session.list, { cwd });
    await call("load", methods.agent.session.load, { sessionId: session.sessionId, cwd, mcpServers: [] });
    await call("resume", methods.agent.session.resume, { sessionId: session.sessionId, cwd, mcpServers: [] });
    await call("fork", methods.agent.session.fork, { sessionId: session.sessionId, cwd, mcpServers: [] });
    await call("close", methods.agent.session.close, { sessionId: session.sessionId });
  });
} catch (error) {
  seen.errors.push(String(error && error.stack ? error.stack : error));
}
child.kill();
seen.fromAgent = fromAgent.join("").split("\n").filter((line) => line.trim());
seen.toAgent = toAgent.join("").split("\n").filter((line) => line.trim());
process.stdout.write(JSON.stringify(seen) + "\n");
process.exit(0);

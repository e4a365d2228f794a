// A program written for the TypeScript Agent SDK, run on agentui and on Claude Code by tests/interop/test_ts_sdk.py:
// it runs one query as the spec (argv[3], JSON) says and prints every message as a JSON line, then
// {"end": "done"} or {"end": "threw", "error": ...} if the SDK itself threw.
import { pathToFileURL } from "node:url";

const sdk = await import(pathToFileURL(process.argv[2]).href);
const spec = JSON.parse(process.argv[3]);
const print = (value) => process.stdout.write(JSON.stringify(value) + "\n");

function calculator() {
  // An in-process MCP server, announced in initialize (sdkMcpServers), not on the command line.
  const { z } = spec.zod;
  return sdk.createSdkMcpServer({
    name: "calc",
    tools: [
      sdk.tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
        print({ called: "add", a, b });
        return { content: [{ type: "text", text: String(a + b) }] };
      }),
    ],
  });
}

async function* prompts() {
  // Streaming input: each prompt is sent once the previous one's result arrived, unless `together`.
  // (`togetherFrom`: the prompts from that one on are sent at once, without waiting)
  for (const [at, text] of spec.prompts.entries()) {
    yield { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" };
    const together = spec.together || (spec.togetherFrom !== undefined && at >= spec.togetherFrom);
    if (!together) await new Promise((resolve) => (nextPrompt = resolve));
  }
}
let nextPrompt = () => {};

const options = {
  pathToClaudeCodeExecutable: spec.cli,
  cwd: spec.cwd,
  env: spec.env,
  model: "claude-sonnet-4-5",
  stderr: (data) => process.stderr.write(data),
  ...spec.options,
};
if (spec.calc) {
  spec.zod = await import(pathToFileURL(process.argv[4]).href);
  options.mcpServers = { calc: calculator() };
}
const stream = spec.prompts.length > 1 || spec.streaming;
let answered = 0;
if (spec.controls) spec.controlsAfter = { 1: spec.controls };
try {
  const run = sdk.query({ prompt: stream ? prompts() : spec.prompts[0], options });
  for await (const message of run) {
    print(message);
    if (message.type === "result") answered += 1;
    if (message.type === "result" && (spec.controlsAfter ?? {})[answered]) {
      // The Query's control methods, once that many answers are in: each one's value, or what it threw.
      for (const [name, ...args] of spec.controlsAfter[answered]) {
        try {
          print({ control: name, value: (await run[name](...args)) ?? null });
        } catch (error) {
          print({ control: name, error: String(error) });
        }
      }
    }
    if (message.type === "result") nextPrompt();
    if (spec.interruptOnDelta && message.type === "stream_event" && message.event.type === "content_block_delta") {
      spec.interruptOnDelta = false;
      await run.interrupt();
    }
  }
  print({ end: "done" });
} catch (error) {
  print({ end: "threw", error: String(error && error.stack ? error.stack : error) });
}
process.exit(0);

// The official MCP TypeScript SDK's client against `memlens mcp`: a client we did not write.
// Usage: node sdk_client.mjs MEMLENS ROOT SNAPSHOT  (the SDK resolved through NODE_PATH)
// Prints the summary tool's peak, the tool count and the session's checks; exits 1 on a miss.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [memlens, root, snapshot] = process.argv.slice(2);
const fail = (why) => {
  console.error("sdk_client: " + why);
  process.exit(1);
};

const transport = new StdioClientTransport({ command: memlens, args: ["mcp", "--root", root], stderr: "ignore" });
const client = new Client({ name: "memlens-sdk-test", version: "1.0.0" });
await client.connect(transport);

const version = client.getServerVersion();
if (version?.name !== "memlens") fail("server name " + JSON.stringify(version));
const { tools } = await client.listTools();
if (tools.length < 8) fail(tools.length + " tools");
for (const t of tools) if (t.inputSchema?.type !== "object") fail(t.name + " has no object schema");

const result = await client.callTool({ name: "summary", arguments: { path: snapshot } });
if (result.isError) fail("summary: " + JSON.stringify(result.content));
const peak = result.structuredContent?.device?.peak_active_bytes;
if (typeof peak !== "number") fail("no peak_active_bytes");

let refused = false;
try {
  await client.callTool({ name: "summary", arguments: { path: "/etc/hostname" } });
} catch (e) {
  refused = /outside/.test(String(e.message));
}
if (!refused) fail("a path outside the root was not refused");

console.log(JSON.stringify({ tools: tools.length, peak_active_bytes: peak }));
await client.close();

// tsclient drives cdpkit with the official TypeScript MCP SDK client, for
// tssdk_test.go. Usage:
//   node tsclient.mjs stdio <cdpkit binary> <page url>
//   node tsclient.mjs http <endpoint url> <page url>   (token in CDPKIT_TOKEN)
// It prints one JSON line describing what it saw; the Go test judges it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, where, page] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: where, args: ["mcp"], env: process.env, stderr: "inherit" });
} else {
  transport = new StreamableHTTPClientTransport(new URL(where), {
    requestInit: { headers: { Authorization: "Bearer " + process.env.CDPKIT_TOKEN } },
  });
}
const client = new Client({ name: "cdpkit-tssdk-test", version: "0" });
const out = {};
const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const call = async (name, args) => {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name} failed: ${text(res)}`);
  return res;
};
try {
  await client.connect(transport);
  out.server = client.getServerVersion()?.name;
  out.tools = (await client.listTools()).tools.map((t) => t.name);

  // The text is for models; programs read the structured content.
  const nav = (await call("navigate_page", { url: page })).structuredContent;
  out.title = nav.title;

  const snap = text(await call("take_snapshot", {}));
  const m = snap.match(/\b(e\d+) button "Go"/);
  out.ref = m ? m[1] : "";
  if (!m) throw new Error("no ref for the Go button in the snapshot:\n" + snap);

  const click = (await call("click", { uid: out.ref })).structuredContent;
  out.clickChanges = (click.changes?.elements ?? []).join("\n");

  const shot = await call("take_screenshot", {});
  const img = shot.content.find((c) => c.type === "image");
  out.imageType = img?.mimeType ?? "";
  out.imageBytes = img ? Buffer.from(img.data, "base64").length : 0;
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(out));

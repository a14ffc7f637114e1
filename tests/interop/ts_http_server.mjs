// A server on the official TypeScript SDK, over Streamable HTTP on 127.0.0.1.
//
//     node ts_http_server.mjs <sdk package dir>
//
// One stateful session (the SDK's StreamableHTTPServerTransport with session ids), as the
// SDK's examples serve it, with one tool: add. Listens on a free port, prints its URL on
// stdout once it accepts, and serves until it is stopped.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [sdkDir] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(sdkDir, 'dist', 'esm', path)).href);
const { McpServer } = await load('server/mcp.js');
const { StreamableHTTPServerTransport } = await load('server/streamableHttp.js');
const { z } = await import(pathToFileURL(join(sdkDir, '..', '..', 'zod', 'index.js')).href);

const server = new McpServer({ name: 'ts-sdk-server', version: '1.0.0' });
server.registerTool(
  'add',
  { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
);
const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
await server.connect(transport);

const listener = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString();
  await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
});
listener.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${listener.address().port}/mcp`);
});

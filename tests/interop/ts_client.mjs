// The official TypeScript SDK client against a toolwire server over Streamable HTTP.
//
//     node ts_client.mjs <sdk package dir> <server url>
//
// Connects with StreamableHTTPClientTransport (the SDK's latest legacy revision), lists and
// calls tools, calls an unknown tool and an unknown method, and calls a tool that lets its
// SSE connection go (the transport resumes with Last-Event-ID). Prints one JSON object
// with what it saw; the Python test judges it.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [sdkDir, url] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(sdkDir, 'dist', 'esm', path)).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport, StreamableHTTPError } = await load(
  'client/streamableHttp.js'
);
const { McpError, EmptyResultSchema } = await load('types.js');

// How a failed request surfaced: McpError (a JSON-RPC error) or a transport error.
function failure(error) {
  return {
    kind:
      error instanceof McpError
        ? 'McpError'
        : error instanceof StreamableHTTPError
          ? 'StreamableHTTPError'
          : error?.constructor?.name ?? typeof error,
    code: error?.code ?? null,
    message: String(error?.message ?? error)
  };
}

async function attempt(action) {
  try {
    return { ok: await action() };
  } catch (error) {
    return { error: failure(error) };
  }
}

const client = new Client({ name: 'ts-sdk-interop', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  reconnectionOptions: {
    initialReconnectionDelay: 50,
    maxReconnectionDelay: 500,
    reconnectionDelayGrowFactor: 1.5,
    maxRetries: 5
  }
});
const report = {};
try {
  await client.connect(transport);
  report.protocolVersion = transport.protocolVersion ?? null;
  report.server = client.getServerVersion();
  report.tools = (await client.listTools()).tools.map((tool) => tool.name);
  report.add = await attempt(() => client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
  report.unknownTool = await attempt(() =>
    client.callTool({ name: 'no_such_tool', arguments: {} })
  );
  report.unknownMethod = await attempt(() =>
    client.request({ method: 'no/such/method', params: {} }, EmptyResultSchema)
  );
  report.polled = await attempt(() =>
    client.callTool({ name: 'poll', arguments: {} }, undefined, { timeout: 10000 })
  );
} catch (error) {
  report.fatal = failure(error);
} finally {
  await transport.terminateSession().catch(() => {});
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + '\n');

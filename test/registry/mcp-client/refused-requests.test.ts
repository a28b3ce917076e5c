/**
 * Issue 23: an upstream's request of the client (sampling, elicitation, roots) made while it
 * answers something no call relays (resources/read, prompts/get, completion) is refused at once,
 * so the read fails or answers fast instead of hanging until its timeout; an upstream that keeps
 * asking is cut off. Real HTTP on 127.0.0.1.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnection } from '../../../lib/registry/mcp-client/connection.ts';
import { MAX_REFUSED_REQUESTS } from '../../../lib/registry/mcp-client/upstream-requests.ts';
import { startTestServer, type TestServer } from '../../helpers/http-server.ts';

let server: TestServer | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

const event = (message: unknown) => `data: ${JSON.stringify(message)}\n\n`;

/**
 * A legacy upstream whose resources/read first asks the client `asks` times for sampling (on the
 * read's own event stream), then answers with what the client said to the first question.
 */
async function askingUpstream(asks: number): Promise<string> {
  let open: { id: number; response: ServerResponse; waiting: number } | undefined;
  server = await startTestServer((request, response) => {
    const message = JSON.parse(request.body || '{}') as { id?: number | string; method?: string; error?: { message: string }; result?: unknown };
    if (message.method === 'resources/read' && typeof message.id === 'number') {
      open = { id: message.id, response, waiting: asks };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < asks; i++) response.write(event({ jsonrpc: '2.0', id: `ask-${i}`, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } }));
      return;
    }
    if (message.method === undefined && typeof message.id === 'string' && open) {
      response.writeHead(202).end();
      if (message.id === 'ask-0') {
        const said = message.error ? `refused: ${message.error.message}` : 'answered';
        open.response.end(event({ jsonrpc: '2.0', id: open.id, result: { contents: [{ uri: 'test://r', text: said }] } }));
      }
      return;
    }
    response.writeHead(202).end();
  });
  return `${server.url}/mcp`;
}

const connection = (url: string) => new McpConnection({ url, headers: {}, fetch: (input, init) => fetch(input, init) }, { era: 'legacy', protocolVersion: '2025-11-25' });

describe('an upstream that asks the client during a request no call relays', () => {
  it('is refused at once (-32601 with the reason), and the read gets its answer', async () => {
    const result = await connection(await askingUpstream(1)).request('resources/read', { uri: 'test://r' }, AbortSignal.timeout(20_000));
    expect(result).toEqual({ contents: [{ uri: 'test://r', text: 'refused: toolgate cannot relay sampling/createMessage to the client that made this call, so the tool cannot ask the model here' }] });
    const answers = server!.requests.filter((r) => r.body.includes('"ask-0"'));
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ id: 'ask-0', error: { code: -32601 } });
  });

  it(`is cut off after ${MAX_REFUSED_REQUESTS} refused requests`, async () => {
    const read = connection(await askingUpstream(MAX_REFUSED_REQUESTS + 1)).request('resources/read', { uri: 'test://r' }, AbortSignal.timeout(20_000));
    await expect(read).rejects.toThrow(`it sent more than ${MAX_REFUSED_REQUESTS} requests of the client during one request`);
  });
});

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLoad, jsonTemplate } from '../../bench/load-generator.ts';

/**
 * The benchmarks' load generator shares the cores with the servers it loads, so it must cost
 * every target the same per request (issue 23): bodies serialized once with their ids spliced in,
 * header lines joined once. What it sends must still be exactly the request a client sends, and
 * every wrong answer must still be counted.
 */

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let port = 0;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (received.length < 1000) received.push({ headers: request.headers, body });
      const parsed = JSON.parse(body) as { id: number };
      // Every third answer is wrong: the generator must count those.
      const answer = JSON.stringify({ echoed: parsed.id % 3 === 0 ? 'wrong' : 'ok' });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      response.end(answer);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

describe('jsonTemplate', () => {
  it('makes exactly the text JSON.stringify makes of the same value, each value escaped as JSON', () => {
    const body = jsonTemplate((slot) => ({ jsonrpc: '2.0', id: slot(2), method: 'tools/call', params: { name: 'echo', arguments: { text: 'a "quoted" é' }, _meta: { thread: slot(0), call: slot(1) } } }));
    for (const [thread, call, id] of [['t-1', 'call_1', 1], ['t "odd"\n\\', 'c\u0000all', 0], ['', 'é😀', 123456]] as const) {
      const expected = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a "quoted" é' }, _meta: { thread, call } } });
      expect(body(thread, call, id)).toBe(expected);
    }
  });

  it('takes the values in slot order wherever the slots sit, and a slot used twice twice', () => {
    const body = jsonTemplate((slot) => ({ b: slot(1), a: [slot(0), slot(1)] }));
    expect(JSON.parse(body('x', 7))).toEqual({ b: 7, a: ['x', 7] });
  });
});

describe('generateLoad', () => {
  it('sends every header and a Content-Length that matches the body, and counts wrong answers', async () => {
    received.length = 0;
    const body = jsonTemplate((slot) => ({ id: slot(0), text: 'héllo' }));
    const result = await generateLoad({
      port,
      path: '/mcp',
      body: (_connection, sequence) => body(sequence),
      headers: { accept: 'application/json, text/event-stream', authorization: 'Bearer k' },
      connections: 2,
      warmupMs: 50,
      durationMs: 300,
      inspect: (text) => (JSON.parse(text) as { echoed: string }).echoed === 'ok',
    });
    expect(result.requests).toBeGreaterThan(10);
    expect(result.non2xx).toBe(0);
    // A third of the answers were wrong, give or take the window's edges.
    expect(result.rejected).toBeGreaterThan(result.requests / 4);
    expect(result.rejected).toBeLessThan(result.requests / 2);
    expect(received.length).toBeGreaterThan(10);
    for (const { headers, body: text } of received) {
      expect(headers).toMatchObject({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer k' });
      expect(Number(headers['content-length'])).toBe(Buffer.byteLength(text));
      expect(JSON.parse(text)).toEqual({ id: expect.any(Number), text: 'héllo' });
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeGateway } from '../../lib/http/runtime-gateway.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { validManifest } from '../helpers/manifests.ts';
import { startOtlpReceiver } from '../telemetry/otlp-receiver.ts';

const KEY = 'tg_otel_attack_names_key_0123456789';

/**
 * A model (or anyone reaching the gateway) chooses tool names, methods and paths: none of them
 * may become an unbounded set of span names, or an attribute of any length, in the operator's collector.
 */
describe('attack: span names and attribute sizes from callers', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('keeps made-up tool names, methods and long paths out of span names and bounded', async () => {
    const manifest = validManifest({ tenant: 'acme', tools: [{ name: 'echo', executor: { kind: 'builtin' } }] });
    const env = { TOOLGATE_DEMO_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const gateway = createRuntimeGateway({ runtime: 'node', env, manifests: [manifest], store: new MemoryStore(), log: () => {} });
    await gateway.ready;
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const made = Array.from({ length: 20 }, (_, i) => `made_up_tool_${i}`);
    const dispatched = await gateway.fetch(
      new Request('http://127.0.0.1/v1/dispatch', { method: 'POST', headers, body: JSON.stringify({ thread_id: 't-names', calls: made.map((name, i) => ({ call_id: `c${i}`, name, arguments: {} })) }) }),
    );
    expect(((await dispatched.json()) as { results: { status: string }[] }).results.map((r) => r.status)).toEqual(made.map(() => 'unknown_tool'));
    for (const [i, name] of made.slice(0, 5).entries()) {
      const response = await gateway.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: {} } }) }));
      expect(response.status).toBe(200);
    }
    for (const method of ['FROBNICATE1', 'FROBNICATE2']) await gateway.fetch(new Request('http://127.0.0.1/v1/dispatch', { method, headers }));
    await gateway.fetch(new Request(`http://127.0.0.1/${'p'.repeat(8000)}`, { headers }));
    await gateway.tracer!.shutdown();

    const spans = receiver.spans();
    const names = new Set(spans.map((span) => span.name));
    for (const name of made) expect([...names].some((spanName) => spanName.includes(name)), name).toBe(false);
    expect([...names].some((name) => name.includes('FROBNICATE'))).toBe(false);
    // The tool name stays on the span as an attribute.
    expect(spans.filter((span) => span.name === 'execute_tool').map((span) => span.attributes['gen_ai.tool.name'])).toEqual(expect.arrayContaining(made));
    for (const span of spans) for (const value of Object.values(span.attributes)) expect(String(value).length).toBeLessThanOrEqual(201);
  });
});

import { describe, expect, it, vi } from 'vitest';
import type { ToolCallEvent } from '../../lib/dispatch/events.ts';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { ToolError } from '../../lib/registry/errors.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';

const citySchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

function weatherRouter(handler = vi.fn(async (args: { city?: unknown }) => `sunny in ${String(args.city)}`)) {
  const router = new ToolRouter();
  router.register('get_weather', { description: 'Weather for a city', input_schema: citySchema }, handler as never);
  return { router, handler };
}

describe('ToolRouter.execute', () => {
  it('runs a valid call and returns an ok result', async () => {
    const { router } = weatherRouter();
    const result = await router.execute({ call_id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(result).toMatchObject({ call_id: 'c1', name: 'get_weather', status: 'ok', is_error: false, content: 'sunny in Oslo', truncated: false });
    expect(result.error).toBeUndefined();
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('accepts arguments as a raw JSON string', async () => {
    const { router } = weatherRouter();
    const result = await router.execute({ call_id: 'c1', name: 'get_weather', arguments: '{"city": "Lima"}' });
    expect(result.content).toBe('sunny in Lima');
  });

  it('a bad JSON string is invalid_arguments with the parse position, and the executor never runs', async () => {
    const { router, handler } = weatherRouter();
    const result = await router.execute({ call_id: 'c1', name: 'get_weather', arguments: '{"city": "Lima",}' });
    expect(result.status).toBe('invalid_arguments');
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/^arguments are not valid JSON: .* at position 16 \(line 1, column 17\)\. Send the arguments as one JSON object\.$/);
    expect(result.error?.details).toEqual({ position: 16, line: 1, column: 17 });
    expect(handler).not.toHaveBeenCalled();
  });

  it('schema violations never reach the executor and name every problem', async () => {
    const { router, handler } = weatherRouter();
    const result = await router.execute({ call_id: 'c1', name: 'get_weather', arguments: { town: 'Oslo' } });
    expect(result.status).toBe('invalid_arguments');
    expect(result.content).toBe(
      'Invalid arguments for tool `get_weather`:\n- missing required argument `city`\n- unexpected argument `town` is not allowed (allowed: city)\nFix the arguments and call the tool again.',
    );
    expect(handler).not.toHaveBeenCalled();
  });

  it('an unknown tool is a result listing the available tools, not a throw', async () => {
    const { router } = weatherRouter();
    const result = await router.execute({ call_id: 'c9', name: 'get_wether', arguments: {} });
    expect(result).toMatchObject({ call_id: 'c9', status: 'unknown_tool', is_error: true, content: 'Unknown tool `get_wether`. Available tools: get_weather.' });
  });

  it('times out, and the handler sees its signal abort', async () => {
    let sawAbort = false;
    const router = new ToolRouter(undefined, 5000);
    router.register('slow', {}, (_args, ctx) => new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => { sawAbort = true; });
      setTimeout(() => resolve('late'), 1000);
    }));
    const result = await router.execute({ call_id: 'c1', name: 'slow', arguments: {} }, {}, 50);
    expect(result).toMatchObject({ status: 'timeout', is_error: true, content: 'Tool `slow` timed out after 50 ms and was cancelled.' });
    expect(result.error?.details).toEqual({ timeout_ms: 50 });
    expect(sawAbort).toBe(true);
  });

  it('uses the default timeout when none is given', async () => {
    const router = new ToolRouter(undefined, 30);
    router.register('slow', {}, () => new Promise((resolve) => setTimeout(() => resolve('late'), 500)));
    expect((await router.execute({ call_id: 'c1', name: 'slow' })).status).toBe('timeout');
  });

  it('a thrown error becomes an error result; a ToolError keeps its code and details', async () => {
    const router = new ToolRouter();
    router.register('boom', {}, () => { throw new TypeError('kaput'); });
    router.register('down', {}, async () => { throw new ToolError('unavailable', 'backend down', { retry_after: 3 }); });
    const boom = await router.execute({ call_id: 'c1', name: 'boom' });
    expect(boom).toMatchObject({ status: 'error', is_error: true, content: 'Tool `boom` failed: kaput', error: { code: 'error', details: { error: 'TypeError' } } });
    const down = await router.execute({ call_id: 'c2', name: 'down' });
    expect(down).toMatchObject({ status: 'unavailable', content: 'backend down', error: { code: 'unavailable', details: { retry_after: 3 } } });
  });

  it('serialises JSON outputs', async () => {
    const router = new ToolRouter();
    router.register('json', {}, () => ({ a: [1, 2], b: null }));
    expect((await router.execute({ call_id: 'c1', name: 'json' })).content).toBe('{"a":[1,2],"b":null}');
  });

  it('never throws, even when a stage itself fails', async () => {
    const router = new ToolRouter(undefined, 5000, { governor: { decide: () => { throw new Error('policy engine exploded'); } } });
    router.register('t', {}, () => 'x');
    const result = await router.execute({ call_id: 'c1', name: 't' });
    expect(result).toMatchObject({ status: 'error', content: 'Internal error while dispatching `t`: policy engine exploded' });
  });
});

describe('governance and scopes', () => {
  it('denies write and execute tools by default, and runs them when the policy grants', async () => {
    const handler = vi.fn(() => 'written');
    const strict = new ToolRouter();
    strict.register('save', { tier: 'write' }, handler);
    const denied = await strict.execute({ call_id: 'c1', name: 'save' });
    expect(denied).toMatchObject({ status: 'denied', content: 'Tool `save` needs human approval (approval required: policy for tier "write" is review), and approvals are not enabled for this tenant.' });
    expect(handler).not.toHaveBeenCalled();

    const refusing = new ToolRouter(undefined, 5000, { policy: { execute: 'deny' } });
    refusing.register('run', { tier: 'execute' }, handler);
    expect((await refusing.execute({ call_id: 'c1', name: 'run' })).content).toBe('Tool `run` is denied by policy: policy for tier "execute" is deny.');

    const granting = new ToolRouter(undefined, 5000, { policy: { write: 'grant' } });
    granting.register('save', { tier: 'write' }, handler);
    expect((await granting.execute({ call_id: 'c1', name: 'save' })).status).toBe('ok');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('a caller without a required scope gets forbidden, naming the scope', async () => {
    const router = new ToolRouter();
    router.register('billing', { scopes: ['billing:read'] }, () => 'ok');
    const result = await router.execute({ call_id: 'c1', name: 'billing' }, { scopes: ['other'] });
    expect(result).toMatchObject({ status: 'forbidden', content: 'Tool `billing` requires scope `billing:read`, which this API key does not have.', error: { details: { missing_scope: 'billing:read' } } });
    expect((await router.execute({ call_id: 'c2', name: 'billing' }, { scopes: ['billing:read'] })).status).toBe('ok');
  });
});

describe('batches', () => {
  it('parallel: results in request order with ids unchanged, despite uneven delays', async () => {
    const finished: string[] = [];
    const router = new ToolRouter();
    router.register('wait', { input_schema: { type: 'object', properties: { ms: { type: 'integer' } } } }, async (args) => {
      await new Promise((r) => setTimeout(r, Number(args.ms)));
      finished.push(String(args.ms));
      return `waited ${String(args.ms)}`;
    });
    const calls = [120, 10, 60, 0].map((ms, i) => ({ call_id: `id-${i}`, name: 'wait', arguments: { ms } }));
    const started = performance.now();
    const results = await router.dispatch(calls, { parallel: true });
    expect(results.map((r) => r.call_id)).toEqual(['id-0', 'id-1', 'id-2', 'id-3']);
    expect(results.map((r) => r.content)).toEqual(['waited 120', 'waited 10', 'waited 60', 'waited 0']);
    expect(finished).toEqual(['0', '10', '60', '120']);
    expect(performance.now() - started).toBeLessThan(120 + 10 + 60 + 100);
  });

  it('sequential: one call after another, in order', async () => {
    const order: string[] = [];
    const router = new ToolRouter();
    router.register('step', {}, async (args) => {
      order.push(`start ${String(args.n)}`);
      await new Promise((r) => setTimeout(r, 20 - Number(args.n) * 5));
      order.push(`end ${String(args.n)}`);
      return String(args.n);
    });
    const results = await router.dispatch([1, 2, 3].map((n) => ({ call_id: `s${n}`, name: 'step', arguments: { n } })));
    expect(results.map((r) => r.content)).toEqual(['1', '2', '3']);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });
});

describe('events and truncation', () => {
  it('emits start and end; end carries the full output while the result is truncated', async () => {
    const events: ToolCallEvent[] = [];
    const router = new ToolRouter(undefined, 5000, { events: (e) => events.push(e) });
    const long = 'x'.repeat(300);
    router.register('big', { output: { max_chars: 100, mode: 'tail' } }, () => long);
    const result = await router.execute({ call_id: 'c1', name: 'big', arguments: {} }, { thread_id: 'th' });
    expect(result.truncated).toBe(true);
    expect(result.content).toBe(`[WARNING: Tool output was truncated. First 200 characters were removed. The full output is available in the event stream.]\n\n${'x'.repeat(100)}`);
    expect(events.map((e) => e.type)).toEqual(['tool_call.start', 'tool_call.end']);
    expect(events[0]).toMatchObject({ call_id: 'c1', name: 'big', thread_id: 'th', arguments: {} });
    const end = events[1];
    expect(end.type === 'tool_call.end' && end.output).toBe(long);
    expect(end.type === 'tool_call.end' && end.result).toEqual(result);
  });

  it('emits end for failures too', async () => {
    const events: ToolCallEvent[] = [];
    const router = new ToolRouter(undefined, 5000, { events: (e) => events.push(e) });
    await router.execute({ call_id: 'c1', name: 'missing' });
    expect(events.map((e) => e.type)).toEqual(['tool_call.start', 'tool_call.end']);
    expect(events[1].type === 'tool_call.end' && events[1].result.status).toBe('unknown_tool');
  });
});

describe('idempotency', () => {
  function counterRouter(idempotency: 'call' | 'content') {
    let runs = 0;
    const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store: new MemoryStore() });
    router.register('charge', { tier: 'write', idempotency, input_schema: { type: 'object', properties: { amount: { type: 'number' } } } }, async () => `charged #${++runs}`);
    return { router, runs: () => runs };
  }

  it('call mode: a retried call replays the stored result; other arguments under the same id conflict', async () => {
    const { router, runs } = counterRouter('call');
    const first = await router.execute({ call_id: 'pay-1', name: 'charge', arguments: { amount: 5 } });
    const retry = await router.execute({ call_id: 'pay-1', name: 'charge', arguments: { amount: 5.0 } });
    expect(first.content).toBe('charged #1');
    expect(retry).toMatchObject({ content: 'charged #1', replayed: true, status: 'ok' });
    expect(first.replayed).toBeUndefined();
    const changed = await router.execute({ call_id: 'pay-1', name: 'charge', arguments: { amount: 6 } });
    expect(changed.status).toBe('conflict');
    expect((await router.execute({ call_id: 'pay-2', name: 'charge', arguments: { amount: 5 } })).content).toBe('charged #2');
    expect((await router.execute({ call_id: 'pay-1', name: 'charge', arguments: { amount: 5 } }, { thread_id: 'other' })).content).toBe('charged #3');
    expect(runs()).toBe(3);
  });

  it('content mode: the same arguments in a thread run once, whatever the call id', async () => {
    const { router, runs } = counterRouter('content');
    await router.execute({ call_id: 'a', name: 'charge', arguments: { amount: 5 } });
    const again = await router.execute({ call_id: 'b', name: 'charge', arguments: { amount: 5 } });
    expect(again).toMatchObject({ call_id: 'b', content: 'charged #1', replayed: true });
    await router.execute({ call_id: 'c', name: 'charge', arguments: { amount: 7 } });
    expect(runs()).toBe(2);
  });

  it('a concurrent duplicate sees in_progress while the first still runs', async () => {
    let release!: () => void;
    const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store: new MemoryStore() });
    router.register('slow_write', { tier: 'write' }, () => new Promise<string>((r) => { release = () => r('done'); }));
    const first = router.execute({ call_id: 'x', name: 'slow_write' });
    await new Promise((r) => setTimeout(r, 10));
    const second = await router.execute({ call_id: 'x', name: 'slow_write' });
    expect(second.status).toBe('in_progress');
    release();
    expect((await first).content).toBe('done');
    expect(await router.execute({ call_id: 'x', name: 'slow_write' })).toMatchObject({ content: 'done', replayed: true });
  });

  it('stores error and timeout results too: a retry replays them instead of re-running', async () => {
    let runs = 0;
    const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store: new MemoryStore() });
    router.register('flaky', { tier: 'write' }, () => { runs++; throw new Error('disk full'); });
    await router.execute({ call_id: 'f', name: 'flaky' });
    const retry = await router.execute({ call_id: 'f', name: 'flaky' });
    expect(retry).toMatchObject({ status: 'error', replayed: true, content: 'Tool `flaky` failed: disk full' });
    expect(runs).toBe(1);
  });

  it('an unavailable result releases the claim, so a retry runs the tool', async () => {
    let runs = 0;
    const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, store: new MemoryStore() });
    router.register('remote', { tier: 'write' }, () => {
      runs++;
      if (runs === 1) throw new ToolError('unavailable', 'environment unreachable');
      return 'ran';
    });
    expect((await router.execute({ call_id: 'r', name: 'remote' })).status).toBe('unavailable');
    expect(await router.execute({ call_id: 'r', name: 'remote' })).toMatchObject({ status: 'ok', content: 'ran' });
  });
});

describe('stage order', () => {
  it('checks scopes before validating: a caller without the scope learns nothing about the arguments', async () => {
    const router = new ToolRouter();
    router.register('billing', { scopes: ['billing:read'], input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }, () => 'ok');
    const result = await router.execute({ call_id: 'c1', name: 'billing', arguments: { wrong: 1 } }, { scopes: [] });
    expect(result.status).toBe('forbidden');
  });
});

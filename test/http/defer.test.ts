import { Hono } from 'hono';
import type { ExecutionContext } from 'hono';
import { describe, expect, it } from 'vitest';
import { deferFor } from '../../lib/http/defer.ts';

/** What deferFor answers inside a request served with (Workers) or without (Node) an execution context. */
async function deferOf(executionCtx?: ExecutionContext) {
  const seen: { defer?: ReturnType<typeof deferFor> } = {};
  const app = new Hono();
  app.get('/', (c) => {
    seen.defer = deferFor(c);
    return c.text('ok');
  });
  await app.fetch(new Request('http://gateway.test/'), {}, executionCtx);
  if (!('defer' in seen)) throw new Error('the route did not run');
  return seen.defer;
}

describe('deferFor', () => {
  it('hands work to waitUntil where the runtime gives an execution context', async () => {
    const handed: Promise<unknown>[] = [];
    const context = { waitUntil: (work: Promise<unknown>) => handed.push(work), passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const defer = await deferOf(context);
    expect(typeof defer).toBe('function');
    defer!(Promise.reject(new Error('a deferred failure is swallowed, not unhandled')));
    expect(handed).toHaveLength(1);
    await expect(handed[0]).resolves.toBeUndefined();
  });

  it("is undefined for serve's execution context, which has no waitUntil (the caller awaits inline)", async () => {
    expect(await deferOf({} as ExecutionContext)).toBeUndefined();
  });

  it('is undefined without one (the caller awaits inline), and leaves Error.stackTraceLimit as it was', async () => {
    const before = Error.stackTraceLimit;
    expect(await deferOf()).toBeUndefined();
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('still has a stack').stack?.split('\n').length).toBeGreaterThan(1);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { makeSandbox, processesMentioning, SLOW_SEARCH_PATTERN, slowSearchText, waitUntil, type Sandbox } from './helpers.ts';

const SECRET = 'rpc-cancel-secret-0123456789abcdef0123456789';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

/**
 * Issue 22, finding 11: when the gateway gave up on a call (here its per-tool timeout), the work
 * went on in the exec-server: ripgrep until its own 20 s kill, a command until its own timeout,
 * each holding CPU and a slot. Now the gateway drops the request, the exec-server notices its
 * client gone and kills the command's process group, or ripgrep, and frees the slot.
 */
describe('attack: the gateway stops waiting, the exec-server keeps working', () => {
  async function gatewayGivingUpAfter(timeoutMs: number, server: { url: string }) {
    const tools = ['shell', 'grep', 'glob'].map((name) => ({ name, executor: { kind: 'builtin' }, timeout_ms: timeoutMs }));
    const manifest = validManifest({ tenant: 'acme', profile: 'openai', policy: { read: 'grant', write: 'grant', execute: 'grant' }, execution_environment: { url: server.url, secret: 'env:EXEC_SECRET' }, tools });
    return testGateway([manifest], { k: { tenant: 'acme' } }, { env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'acme:EXEC_SECRET' } });
  }

  /** Dispatches one call; answers its status once seen running (`marker` in a process's command line) and answered. */
  async function dispatchWhileWatching(gw: Awaited<ReturnType<typeof gatewayGivingUpAfter>>, call: { name: string; arguments: Record<string, unknown> }, marker: string) {
    const answered = gw.request('/v1/dispatch', { key: 'k', json: { thread_id: 'cancel', calls: [{ call_id: 'c1', ...call }] } });
    const seenRunning = await waitUntil(() => processesMentioning(marker).length > 0, 10_000);
    const { results } = (await (await answered).json()) as { results: Array<{ status: string; content: string }> };
    return { seenRunning, status: results[0].status };
  }

  it('a command: its process group is killed and its slot freed soon after the gateway gave up', async () => {
    const logged: Array<{ event: string; fields: Record<string, unknown> }> = [];
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0, log: (event, fields) => logged.push({ event, fields }) });
    try {
      const gw = await gatewayGivingUpAfter(1_500, server);
      const marker = `cancel-me-${randomBytes(8).toString('hex')}`;
      const call = { name: 'shell', arguments: { command: `sleep 300; echo ${marker}`, timeout_ms: 600_000 } };
      expect(await dispatchWhileWatching(gw, call, marker)).toEqual({ seenRunning: true, status: 'timeout' });
      expect(await waitUntil(() => processesMentioning(marker).length === 0, 15_000)).toBe(true);
      const health = async () => ((await (await fetch(`${server.url}/healthz`)).json()) as { commands_running?: number }).commands_running;
      let running: number | undefined;
      for (let tries = 0; tries < 100 && (running = await health()) !== 0; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(running).toBe(0);
      expect(logged.find((entry) => entry.event === 'exec.rpc.completed')?.fields).toMatchObject({ method: 'execCommand', outcome: 'cancelled' });
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a grep: ripgrep is killed soon after the gateway gave up, long before its own 20 s limit', async () => {
    await Promise.all([1, 2, 3].map((seed) => writeFile(join(sandbox.root, `big-${seed}.txt`), slowSearchText(seed))));
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0 });
    try {
      const gw = await gatewayGivingUpAfter(1_500, server);
      const marker = `zq${randomBytes(8).toString('hex')}`;
      const call = { name: 'grep', arguments: { pattern: `${SLOW_SEARCH_PATTERN}|${marker}`, path: '.' } };
      expect(await dispatchWhileWatching(gw, call, marker)).toEqual({ seenRunning: true, status: 'timeout' });
      expect(await waitUntil(() => processesMentioning(marker).length === 0, 8_000)).toBe(true);
      // The file operation slot it held is free again: the next search answers.
      const quick = await gw.request('/v1/dispatch', { key: 'k', json: { thread_id: 'after', calls: [{ call_id: 'c2', name: 'grep', arguments: { pattern: 'nothing-matches-this', path: '.', glob_filter: '*.md' } }] } });
      expect(((await quick.json()) as { results: Array<{ status: string }> }).results[0].status).toBe('ok');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a glob: its walk and matching stop soon after the gateway gave up, long before its own 10 s limit, and free the slot', async () => {
    const folder = join(sandbox.root, 'deep', costlyName(1), costlyName(2));
    await mkdir(folder, { recursive: true });
    for (let start = 0; start < COSTLY_FILES; start += 1_000) {
      await Promise.all(Array.from({ length: 1_000 }, (_, i) => writeFile(join(folder, costlyName(start + i + 3)), '')));
    }
    // One file operation at a time: the next glob gets the slot only once the abandoned one let go of it.
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0, maxFileOperations: 1, fileOperationWaitMs: 1_000 });
    try {
      const gw = await gatewayGivingUpAfter(1_500, server);
      const dispatch = async (thread: string, pattern: string) => {
        const response = await gw.request('/v1/dispatch', { key: 'k', json: { thread_id: thread, calls: [{ call_id: 'c1', name: 'glob', arguments: { pattern } }] } });
        return ((await response.json()) as { results: Array<{ status: string; content: string }> }).results[0];
      };
      expect((await dispatch('costly', COSTLY_GLOB)).status).toBe('timeout');
      const next = await dispatch('after', '*.md');
      expect(next.content).not.toContain('busy');
      expect(next.status).toBe('ok');
    } finally {
      await server.close();
    }
  }, 60_000);
});

/** Files whose paths (about 750 characters) each cost COSTLY_GLOB about a millisecond to check: some 16 s in all, past glob's 10 s limit. */
const COSTLY_FILES = 16_000;

/** 250 letters a and b, different for each seed: the matcher's threads never repeat, so its cache does not help. */
function costlyName(seed: number): string {
  let state = seed * 2_654_435_761 + 1;
  return Array.from({ length: 250 }, () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return (state >>> 16) & 1 ? 'a' : 'b';
  }).join('');
}

/** An `a` followed by 200 more characters in the file's name: matches none of them, after following a thread from every `a`. */
const COSTLY_GLOB = `**/*a${'?'.repeat(200)}x`;

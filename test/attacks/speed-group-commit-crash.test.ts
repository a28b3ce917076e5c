import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runNode, spawnNode, type Spawned } from '../helpers/processes.ts';

const KEY = 'group-commit-crash-key';
const ADMIN_KEY = 'group-commit-crash-admin-key';

/**
 * Group commit (lib/stores/sqlite/sqlite-store.ts) answers a batch of calls after one COMMIT and one WAL sync.
 * Attack: SIGKILL `toolgate serve` while many calls are in flight, restart it on the same file,
 * and look for an answered call that is gone: its retry must replay the very answer (not run
 * again), its thread's audit must hold its result, and every hash chain must verify.
 */
describe('attack: SIGKILL of serve under concurrent load with group commit (sqlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-group-crash-'));
  const manifestPath = join(dataDir, 'manifest.json');
  writeFileSync(manifestPath, JSON.stringify({
    format: 'toolgate.manifest/v1', tenant: 'demo', version: '1', profile: 'openai', policy: { read: 'grant' },
    tools: [{ name: 'echo', tier: 'read', idempotency: 'call', executor: { kind: 'builtin' } }],
  }));
  const env = { TOOLGATE_DATA_DIR: dataDir, TOOLGATE_DEMO_KEY: KEY, TOOLGATE_DEMO_ADMIN_KEY: ADMIN_KEY, TOOLGATE_MANIFEST: manifestPath };
  let gateway: Spawned | undefined;
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<string> {
    const port = await freePort();
    gateway = spawnNode(['bin/toolgate.js', 'serve'], { env: { ...env, PORT: String(port) } });
    await gateway.waitFor(/toolgate listening on/);
    return `http://127.0.0.1:${port}`;
  }
  const dispatch = (url: string, i: number) =>
    fetch(`${url}/v1/dispatch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ thread_id: `t-${i % 8}`, calls: [{ call_id: `c-${i}`, name: 'echo', arguments: { text: `answer ${i}` } }] }),
    }).then(async (r) => ({ i, status: r.status, result: ((await r.json()) as { results: Array<Record<string, unknown>> }).results[0] }));

  it('every answered call survives: replayed with its answer, audited, chains intact', async () => {
    let url = await start();
    const answered: Array<{ i: number; result: Record<string, unknown> }> = [];
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const i = next++;
        try {
          const reply = await dispatch(url, i);
          if (reply.status === 200 && !killed) answered.push(reply);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    while (answered.length < 150) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    gateway!.child.kill('SIGKILL');
    await Promise.all(workers);
    await new Promise((r) => gateway!.child.exitCode !== null || gateway!.child.signalCode !== null ? r(undefined) : gateway!.child.once('exit', r));

    url = await start();
    for (const { i, result } of answered) {
      expect(result).toMatchObject({ status: 'ok', content: `answer ${i}` });
      const again = await dispatch(url, i);
      expect({ i, ...again.result }).toMatchObject({ i, status: 'ok', content: `answer ${i}`, replayed: true });
    }
    for (let t = 0; t < 8; t++) {
      const ids = new Set<string>();
      for (let cursor = ''; ;) {
        const page = (await (await fetch(`${url}/v1/audit?thread_id=t-${t}&limit=100${cursor}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json()) as { envelopes: Array<{ type: string; call_id: string }>; next_cursor?: string };
        for (const e of page.envelopes) if (e.type === 'tool.call.result') ids.add(e.call_id);
        if (page.next_cursor === undefined) break;
        cursor = `&cursor=${page.next_cursor}`;
      }
      const mine = answered.filter((a) => a.i % 8 === t);
      expect(mine.filter(({ i }) => !ids.has(`c-${i}`))).toEqual([]);
      const verified = await runNode(['bin/toolgate.js', 'audit', 'verify', '--thread', `t-${t}`], { env });
      expect(verified.code).toBe(0);
    }
  }, 120_000);
});

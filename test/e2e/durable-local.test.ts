import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT, runNode, spawnNode } from '../helpers/processes.ts';

/** Stop and restart `toolgate serve` on its SQLite file: idempotency and audit survive. */
describe('durable state across a restart (sqlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-durable-'));
  const env = { TOOLGATE_DATA_DIR: dataDir, TOOLGATE_DEMO_KEY: 'durable-key', TOOLGATE_DEMO_ADMIN_KEY: 'durable-admin-key', TOOLGATE_MANIFEST: join(REPO_ROOT, 'test/fixtures/durable-manifest.json') };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function withGateway<T>(work: (url: string) => Promise<T>): Promise<T> {
    const port = await freePort();
    const gateway = spawnNode(['bin/toolgate.js', 'serve'], { env: { ...env, PORT: String(port) } });
    try {
      await gateway.waitFor(/toolgate listening on/);
      return await work(`http://127.0.0.1:${port}`);
    } finally {
      await gateway.stop();
    }
  }
  const dispatch = async (url: string, calls: unknown[]) =>
    (await (await fetch(`${url}/v1/dispatch`, { method: 'POST', headers: { authorization: 'Bearer durable-key' }, body: JSON.stringify({ thread_id: 'durable-1', calls }) })).json()) as { results: Array<Record<string, unknown>> };
  const noteCall = { call_id: 'note-1', name: 'note', arguments: { text: 'remember the milk', password: 'hunter2' } };

  it('a call repeated after a restart replays, and the audit chain still verifies', async () => {
    const first = await withGateway((url) => dispatch(url, [noteCall, { call_id: 'e1', name: 'echo', arguments: { text: 'read' } }]));
    expect(first.results[0]).toMatchObject({ status: 'ok', content: 'remember the milk' });
    expect(first.results[0].replayed).toBeUndefined();

    const second = await withGateway(async (url) => {
      const again = await dispatch(url, [noteCall]);
      const audit = await (await fetch(`${url}/v1/audit?thread_id=durable-1&limit=4`, { headers: { authorization: 'Bearer durable-admin-key' } })).json();
      return { again, audit };
    });
    expect(second.again.results[0]).toMatchObject({ status: 'ok', content: 'remember the milk', replayed: true });
    expect(second.audit.envelopes.map((e: { type: string }) => e.type)).toEqual(['tool.call.request', 'tool.call.decision', 'tool.call.result', 'tool.call.request']);
    expect(second.audit.next_cursor).toBe('4');
    // Sensitive arguments are stored as their hash only.
    expect(second.audit.envelopes[0].data.arguments).toEqual({ text: 'remember the milk', password: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });

    const verify = await runNode(['bin/toolgate.js', 'audit', 'verify', '--thread', 'durable-1'], { env });
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^thread "durable-1": 9 envelopes, chain intact \(head [0-9a-f]{64}\)\n$/);
  });

  it('tampering with one stored envelope makes `toolgate audit verify` name it', async () => {
    const db = new DatabaseSync(join(dataDir, 'toolgate.db'));
    const row = db.prepare("SELECT envelope FROM audit WHERE thread_id = 'durable-1' AND seq = 3").get() as { envelope: string };
    const envelope = JSON.parse(row.envelope);
    envelope.data.output = 'forget the milk';
    db.prepare("UPDATE audit SET envelope = ? WHERE thread_id = 'durable-1' AND seq = 3").run(JSON.stringify(envelope));
    db.close();
    const verify = await runNode(['bin/toolgate.js', 'audit', 'verify', '--thread', 'durable-1'], { env });
    expect(verify.code).toBe(1);
    expect(verify.stderr).toBe(`thread "durable-1": chain broken at seq 3 (envelope ${envelope.id}): content does not match its hash: the envelope was changed after it was written\n`);
  });
});

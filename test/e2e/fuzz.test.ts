import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzRequests, type FuzzContext, type FuzzRequest } from '../helpers/fuzz-requests.ts';
import { prng } from '../helpers/prng.ts';
import { freePort, REPO_ROOT, spawnNode, type Spawned } from '../helpers/processes.ts';
import { rawRequest, type RawOutcome } from '../helpers/raw-http.ts';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.ts';

/**
 * `toolgate serve` on SQLite, as npm start runs it, under a seeded fuzz of every route and
 * method, then under DNS rebinding. TOOLGATE_FUZZ_SEED replays a run; TOOLGATE_FUZZ_ROUNDS and
 * TOOLGATE_FUZZ_REQUESTS make it longer. Bounded: a few seconds of requests on two cores.
 */
const SEED = Number(process.env.TOOLGATE_FUZZ_SEED ?? 0x7001);
const ROUNDS = Number(process.env.TOOLGATE_FUZZ_ROUNDS ?? 4);
const PER_ROUND = Number(process.env.TOOLGATE_FUZZ_REQUESTS ?? 300);
const CONCURRENCY = 6;
const ADMIN_KEY = 'fuzz-admin-key';
const SLACK_SECRET = 'fuzz-slack-signing-secret';
const APPROVER = 'U0FUZZ';
const MB = 1024 * 1024;

describe('toolgate serve under fuzz and DNS rebinding', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-fuzz-'));
  let slack: FakeSlack;
  let gateway: Spawned;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const send = (req: FuzzRequest) => rawRequest(port, req, { agent });
  const json = async (method: string, path: string, body?: unknown, key = ADMIN_KEY) => {
    const outcome = await send({ method, path, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) });
    if ('error' in outcome) throw new Error(`${method} ${path}: ${outcome.error}`);
    return { status: outcome.status, body: JSON.parse(outcome.body) };
  };

  beforeAll(async () => {
    slack = await startFakeSlack();
    port = await freePort();
    gateway = spawnNode(['bin/toolgate.js', 'serve'], {
      env: {
        PORT: String(port), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_WORKSPACE: join(dataDir, 'workspace'), TOOLGATE_EXEC_PORT: '0', TOOLGATE_DEMO_KEY: 'fuzz-agent-key', TOOLGATE_DEMO_ADMIN_KEY: ADMIN_KEY,
        SLACK_BOT_TOKEN: slack.token, SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_API_URL: slack.url,
        TOOLGATE_DEMO_SLACK_CHANNEL: 'C0FUZZ', TOOLGATE_DEMO_SLACK_APPROVERS: APPROVER,
      },
    });
    await gateway.waitFor(/toolgate listening on http:\/\/127\.0\.0\.1:\d+/);
  });
  afterAll(async () => {
    agent.destroy();
    await gateway?.stop();
    await slack?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The gateway process's resident memory (Linux), in bytes. */
  const rss = () => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8'))![1]) * 1024;

  it('answers every random and adversarial request below 500, stays alive, and its memory stays flat', async () => {
    // Real material to bend: a reader key, parked calls (approval ids), threads with audit trails.
    const reader = await json('POST', '/v1/admin/keys', { principal: 'fuzz-reader', scopes: ['approvals:read', 'audit:read'] });
    const callIds = ['w1', 'w2', 'e1'];
    const parked = await json('POST', '/v1/dispatch', {
      thread_id: 'fuzz',
      calls: [
        { call_id: 'w1', name: 'write_file', arguments: { file_path: 'fuzz-1.txt', content: 'one' } },
        { call_id: 'w2', name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: fuzz-2.txt\n+two\n*** End Patch' } },
        { call_id: 'e1', name: 'echo', arguments: { text: 'hello' } },
      ],
    });
    const approvalIds = parked.body.results.flatMap((r: { error?: { details?: { approval_id?: string } } }) => r.error?.details?.approval_id ?? []);
    expect(approvalIds).toHaveLength(2);
    const ctx: FuzzContext = {
      adminKey: ADMIN_KEY,
      readerKey: reader.body.key,
      approvalIds,
      callIds,
      threadIds: ['fuzz', 'readme-1', '_manifests', 'mcp:demo-admin'],
      slackSecret: SLACK_SECRET,
      slackApprover: APPROVER,
      manifest: JSON.parse(readFileSync(join(REPO_ROOT, 'examples/demo/manifest.json'), 'utf8')),
    };

    const next = fuzzRequests(prng(SEED), ctx);
    const statuses = new Map<number, number>();
    const failures: Array<{ request: string; outcome: RawOutcome }> = [];
    let sent = 0;
    let unsendable = 0;
    let transport = 0;
    const rssAfter: number[] = [];
    let wedged = false;
    const rssBefore = rss();
    for (let round = 0; round < ROUNDS && !wedged; round++) {
      const batch = Array.from({ length: PER_ROUND }, next);
      const workers = Array.from({ length: CONCURRENCY }, async () => {
        for (let req = batch.shift(); req && !wedged; req = batch.shift()) {
          const outcome = await send(req);
          const shown = `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers).slice(0, 200)} ${req.body?.toString('utf8').slice(0, 300) ?? ''}`;
          if ('error' in outcome) {
            if (outcome.error.startsWith('not sent')) unsendable++;
            else {
              // The server may close a connection on a request it refuses mid-body (413); a hang is a
              // failure, and the end of the run: a wedged gateway answers nothing after it.
              transport++;
              if (/timed out/.test(outcome.error)) {
                wedged = true;
                failures.push({ request: shown, outcome });
              }
            }
            continue;
          }
          sent++;
          statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
          if (outcome.status >= 500) failures.push({ request: shown, outcome: { status: outcome.status, body: outcome.body.slice(0, 500) } });
        }
      });
      await Promise.all(workers);
      expect(gateway.child.exitCode, `the gateway exited during round ${round + 1}:\n${gateway.output().slice(-3000)}`).toBeNull();
      rssAfter.push(rss());
    }

    const health = await send({ method: 'GET', path: '/healthz', headers: {} });
    const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
    console.log(
      `fuzz (seed ${SEED}): ${sent} requests answered in ${ROUNDS} rounds, ${serverErrors} 5xx, ${transport} closed by the server, ${unsendable} not sendable; ` +
        `statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; ` +
        `RSS before ${(rssBefore / MB).toFixed(1)} MB, after each round ${rssAfter.map((b) => (b / MB).toFixed(1)).join(' / ')} MB`,
    );
    expect(failures, JSON.stringify(failures.slice(0, 5), null, 2)).toEqual([]);
    expect(serverErrors).toBe(0);
    expect(health).toMatchObject({ status: 200 });
    expect(sent).toBeGreaterThan(ROUNDS * PER_ROUND * 0.9);
    // Memory, not time: after the first round warmed caches up, later rounds do not keep growing.
    expect(rssAfter.at(-1)!).toBeLessThan(rssAfter[0] * 1.5 + 32 * MB);
  }, 120_000);

  it('refuses a DNS-rebinding page on its loopback port (Host or Origin of another site); nothing runs', async () => {
    const dispatch = (headers: Record<string, string>) =>
      send({ method: 'POST', path: '/v1/dispatch', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify({ thread_id: 'rebind', calls: [{ call_id: 'r1', name: 'echo', arguments: { text: 'hi' } }] })) });
    const refused: Array<Record<string, string>> = [{ host: `attacker.example:${port}` }, { host: `127.0.0.1:${port + 1}` }, { host: `rebind.attacker.example` }, { origin: 'http://attacker.example' }, { origin: `https://127.0.0.1:${port}` }, { origin: `http://localhost:${port}` }];
    for (const headers of refused) {
      const outcome = await dispatch(headers);
      expect(outcome, JSON.stringify(headers)).toMatchObject({ status: 403, body: expect.stringContaining('"code":"forbidden_origin"') });
    }
    const mcp = await send({ method: 'POST', path: '/mcp', headers: { host: `attacker.example:${port}`, authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}') });
    expect(mcp).toMatchObject({ status: 403 });
    expect((await json('GET', '/v1/audit?thread_id=rebind')).body.envelopes).toEqual([]);
    // Its own names with its port keep working, and so does a page of its own origin (MCP's DNS-rebinding check sends one).
    const own: Array<Record<string, string>> = [{ host: `127.0.0.1:${port}` }, { host: `localhost:${port}` }, { host: `[::1]:${port}` }, { origin: `http://127.0.0.1:${port}` }];
    for (const headers of own) {
      expect(await dispatch(headers), JSON.stringify(headers)).toMatchObject({ status: 200 });
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { ToolError } from '../../lib/registry/errors.ts';
import { testGateway } from '../helpers/gateway.ts';
import { closedPort, startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * The exec-server (or a proxy in front of it) can fail after a request reached it: a change it
 * was making may have happened. Such a call must never be run again silently (issue 10, item 7):
 * it answers `indeterminate`, stored under the call's key, while a failure that provably sent
 * nothing stays `unavailable` (released, so a retry runs it).
 */
const SECRET = 'lost-answers-secret-0123456789abcdef';
const TENANT = 'acme';

let upstream: TestServer | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** An "exec-server" that takes the request, then drops the connection without answering (it died mid-command). */
const hangingUp = () => startTestServer((_request, response) => void response.socket?.destroy());
/** One that answers as a failing proxy would. */
const badGateway = () => startTestServer((_request, response) => void response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway'));

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('RemoteExecutionEnvironment when no answer comes back', () => {
  it('a change that may have run is indeterminate; a read is unavailable', async () => {
    for (const start of [hangingUp, badGateway]) {
      upstream = await start();
      const remote = new RemoteExecutionEnvironment({ url: upstream.url, secret: SECRET, tenant: TENANT });
      // One call at a time: a call started early could fail before anything awaits it.
      const changes = [() => remote.execCommand('touch x'), () => remote.writeFile('a.txt', new TextEncoder().encode('a')), () => remote.deleteFile('a.txt'), () => remote.moveFile('a', 'b')];
      for (const change of changes) {
        const error = await failure(change());
        expect(error.code).toBe('indeterminate');
        expect(error.message).toContain('it may have run');
      }
      for (const read of [() => remote.readFile('a.txt'), () => remote.stat('a.txt'), () => remote.grep('x', '.')]) expect((await failure(read())).code).toBe('unavailable');
      expect(upstream.requests).toHaveLength(7);
      await upstream.close();
      upstream = undefined;
    }
  });

  it('a connection refused sent nothing: unavailable, even for a command', async () => {
    const remote = new RemoteExecutionEnvironment({ url: `http://127.0.0.1:${await closedPort()}`, secret: SECRET, tenant: TENANT });
    const error = await failure(remote.execCommand('touch x'));
    expect(error.code).toBe('unavailable');
  });
});

describe('a granted command whose exec-server died mid-call, through the gateway', () => {
  it('answers indeterminate, and the same call sent again is told so instead of running again', async () => {
    upstream = await hangingUp();
    const manifest = validManifest({
      tenant: TENANT,
      profile: 'openai',
      policy: { read: 'grant', write: 'grant', execute: 'grant' },
      execution_environment: { url: upstream.url, secret: 'env:ACME_EXEC_SECRET' },
      tools: [],
    });
    const gateway = await testGateway([manifest], { k: { tenant: TENANT } }, { env: { ACME_EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: `${TENANT}:ACME_EXEC_SECRET` } });
    const send = async () => {
      const response = await gateway.request('/v1/dispatch', { key: 'k', json: { thread_id: 't1', calls: [{ call_id: 'c1', name: 'shell', arguments: { command: 'echo ran >> side-effect.log' } }] } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { results: Array<{ status: string; replayed?: boolean; content: string }> }).results[0];
    };
    const first = await send();
    expect(first.status).toBe('indeterminate');
    expect(first.content).toContain('it may have run');
    const again = await send();
    expect(again).toMatchObject({ status: 'indeterminate', replayed: true });
    expect(upstream.requests).toHaveLength(1);
  });
});

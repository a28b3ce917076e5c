import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../../lib/audit/verify.ts';
import type { StoredEnvelope } from '../../../lib/stores/store.ts';
import { REPO_ROOT } from '../../helpers/processes.ts';
import { blockActionsPayload, signedInteraction } from '../../support/fake-slack.ts';
import { APPROVER, DEMO_ADMIN_KEY, DEMO_KEY, SIGNING_SECRET, startScenarioFixtures, type RuntimeTarget, type ScenarioFixtures } from './fixtures.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies in tests

/**
 * The same end-to-end scenarios on every runtime: formats, dispatch outcomes, coding tools
 * through the remote exec-server, idempotent replay, a write approved through Slack, the audit
 * chain, and the manifest lifecycle. `open` starts the runtime with the fixtures' env.
 */
export function runtimeScenarios(name: string, open: (fixtures: ScenarioFixtures) => Promise<RuntimeTarget>, options: { skip?: string } = {}) {
  describe.skipIf(options.skip !== undefined)(`${name}: end-to-end`, () => {
    let fixtures: ScenarioFixtures;
    let target: RuntimeTarget;

    beforeAll(async () => {
      if (options.skip) return;
      fixtures = await startScenarioFixtures();
      target = await open(fixtures);
    }, 180_000);
    afterAll(async () => {
      await target?.stop();
      await fixtures?.stop();
    });

    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> => {
      const response = await target.fetch(new Request(`http://gateway${path}`, {
        method,
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }));
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
    };
    const dispatch = async (thread_id: string, calls: unknown[]) => (await call('POST', '/v1/dispatch', { thread_id, calls })).body;
    /** As the demo's operator (the agent's key reads no audit and publishes nothing). */
    const asAdmin = { authorization: `Bearer ${DEMO_ADMIN_KEY}` };

    it('lists the tools in every provider format', async () => {
      const own = await call('GET', '/v1/tools');
      expect(own.status).toBe(200);
      expect(own.body.tools.map((t: Json) => t.name)).toEqual(['read_file', 'write_file', 'apply_patch', 'shell', 'grep', 'glob', 'echo', 'sleep']);
      expect((await call('GET', '/v1/tools?format=openai')).body.tools[0]).toMatchObject({ type: 'function', function: { name: 'read_file' } });
      expect((await call('GET', '/v1/tools?format=anthropic')).body.tools[0]).toMatchObject({ name: 'read_file', input_schema: { type: 'object' } });
      expect((await call('GET', '/v1/tools?format=gemini')).body.tools[0].functionDeclarations).toHaveLength(8);
      expect((await call('GET', '/v1/tools?format=mcp')).body.tools.find((t: Json) => t.name === 'shell').annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    });

    it('dispatches ok, invalid, unknown and timeout in one batch', async () => {
      const body = await dispatch('e2e-basic', [
        { call_id: 'ok', name: 'echo', arguments: { text: `hello from ${name}` } },
        { call_id: 'bad', name: 'echo', arguments: '{"text": 5}' },
        { call_id: 'nope', name: 'send_fax', arguments: {} },
        { call_id: 'slow', name: 'sleep', arguments: { ms: 5000 } },
      ]);
      expect(body.results.map((r: Json) => r.status)).toEqual(['ok', 'invalid_arguments', 'unknown_tool', 'timeout']);
      expect(body.results[0].content).toBe(`hello from ${name}`);
      expect(body.results[1].content).toContain('`text` must be a string, got number 5');
    });

    it('runs coding tools through the remote exec-server', async () => {
      const body = await dispatch('e2e-coding', [
        { call_id: 'r', name: 'read_file', arguments: { file_path: 'greet.sh' } },
        { call_id: 'l', name: 'shell', arguments: { command: 'ls' } },
        { call_id: 'g', name: 'grep', arguments: { pattern: 'Hello' } },
      ]);
      expect(body.results.map((r: Json) => r.status)).toEqual(['ok', 'ok', 'ok']);
      expect(body.results[0].content).toContain('   4 | echo "Hello, $name!"');
      expect(body.results[1].content).toMatch(/--- stdout ---\ngreet\.sh\n/);
      expect(body.results[2].content).toBe('greet.sh:4:echo "Hello, $name!"');
    });

    it('rule conditions mean the same here: a threshold parks, a path prefix grants a write under docs/ only', async () => {
      const body = await dispatch('e2e-conditions', [
        { call_id: 'short', name: 'sleep', arguments: { ms: 1 } },
        { call_id: 'long', name: 'sleep', arguments: { ms: 40000 } },
        { call_id: 'doc', name: 'write_file', arguments: { file_path: `docs/${name.replace(/\W+/g, '-')}.md`, content: 'notes\n' } },
        { call_id: 'src', name: 'write_file', arguments: { file_path: `src/${name.replace(/\W+/g, '-')}.ts`, content: '' } },
      ]);
      expect(body.results.map((r: Json) => r.status)).toEqual(['ok', 'pending_approval', 'ok', 'pending_approval']);
    });

    it('replays an idempotent call on retry, and refuses other arguments under its id', async () => {
      const first = await dispatch('e2e-replay', [{ call_id: 'ls-1', name: 'shell', arguments: { command: 'ls' } }]);
      const retry = await dispatch('e2e-replay', [{ call_id: 'ls-1', name: 'shell', arguments: { command: 'ls' } }]);
      expect(first.results[0].replayed).toBeUndefined();
      expect(retry.results[0]).toMatchObject({ status: 'ok', replayed: true, content: first.results[0].content });
      const changed = await dispatch('e2e-replay', [{ call_id: 'ls-1', name: 'shell', arguments: { command: 'pwd' } }]);
      expect(changed.results[0].status).toBe('conflict');
    });

    it('parks a write, approves it through a signed Slack click, and runs it once', async () => {
      const parked = (await dispatch('e2e-slack', [{ call_id: 'w', name: 'write_file', arguments: { file_path: `out/${name.replace(/\W+/g, '-')}.txt`, content: 'approved\n' } }])).results[0];
      expect(parked.status).toBe('pending_approval');
      const approvalId = parked.error.details.approval_id;
      const posted = fixtures.slack.calls.find((c) => c.method === 'chat.postMessage' && JSON.stringify(c.body).includes(approvalId));
      expect(posted).toBeDefined();
      const click = await signedInteraction({ signingSecret: SIGNING_SECRET, payload: blockActionsPayload({ decision: 'approve', approvalId, user: { id: APPROVER } }) });
      const clicked = await target.fetch(new Request('http://gateway/v1/slack/interactions', { method: 'POST', headers: click.headers, body: click.body }));
      expect(clicked.status).toBe(200);
      const polled = await call('GET', '/v1/calls/w?thread_id=e2e-slack&wait=20');
      expect(polled.body).toMatchObject({ status: 'ok', result: { content: `Wrote 9 bytes to out/${name.replace(/\W+/g, '-')}.txt` } });
      expect(readFileSync(join(fixtures.workspace, `out/${name.replace(/\W+/g, '-')}.txt`), 'utf8')).toBe('approved\n');
      const again = await target.fetch(new Request('http://gateway/v1/slack/interactions', { method: 'POST', headers: click.headers, body: click.body }));
      expect(again.status).toBe(200);
      const resent = (await dispatch('e2e-slack', [{ call_id: 'w', name: 'write_file', arguments: { file_path: `out/${name.replace(/\W+/g, '-')}.txt`, content: 'approved\n' } }])).results[0];
      expect(resent).toMatchObject({ status: 'ok', replayed: true });
      for (let i = 0; i < 50 && !fixtures.slack.calls.some((c) => c.method === 'chat.update' && JSON.stringify(c.body).includes(approvalId)); i++) await new Promise((r) => setTimeout(r, 100));
      expect(fixtures.slack.calls.some((c) => c.method === 'chat.update' && JSON.stringify(c.body).includes(approvalId))).toBe(true);
    });

    it("verifies a thread's audit chain", async () => {
      const envelopes: StoredEnvelope[] = [];
      let cursor: string | undefined;
      do {
        const page = await call('GET', `/v1/audit?thread_id=e2e-slack&limit=2${cursor ? `&cursor=${cursor}` : ''}`, undefined, asAdmin);
        envelopes.push(...page.body.envelopes);
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(envelopes.map((e) => e.type)).toEqual(['tool.call.request', 'tool.call.decision', 'tool.call.result', 'tool.call.approval', 'tool.call.result', 'tool.call.request', 'tool.call.decision', 'tool.call.result']);
      expect(await verifyChain(envelopes)).toMatchObject({ ok: true, count: 8 });
    });

    it('serves the tools over MCP to the official client: list, call, errors, approval through Slack, replay', async () => {
      const mcp = new Client({ name: 'e2e', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL('http://gateway/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${DEMO_KEY}`, 'x-toolgate-thread': 'e2e-mcp' } },
        fetch: (input, init) => target.fetch(new Request(input, init)),
      }));
      try {
        const { tools } = await mcp.listTools();
        expect(tools.find((t) => t.name === 'read_file')?.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
        const text = (r: Json) => r.content[0].text as string;
        expect(text(await mcp.callTool({ name: 'echo', arguments: { text: 'via mcp' } }))).toBe('via mcp');
        expect(await mcp.callTool({ name: 'echo', arguments: {} })).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'invalid_arguments' } });
        expect(await mcp.callTool({ name: 'fly', arguments: {} })).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'unknown_tool' } });
        const file = `mcp/${name.replace(/\W+/g, '-')}.txt`;
        const write = { name: 'write_file', arguments: { file_path: file, content: 'via mcp\n' } };
        const parked = await mcp.callTool(write);
        expect(parked._meta?.['toolgate/status']).toBe('pending_approval');
        const approvalId = String(parked._meta?.['toolgate/approval_id']);
        const click = await signedInteraction({ signingSecret: SIGNING_SECRET, payload: blockActionsPayload({ decision: 'approve', approvalId, user: { id: APPROVER } }) });
        expect((await target.fetch(new Request('http://gateway/v1/slack/interactions', { method: 'POST', headers: click.headers, body: click.body }))).status).toBe(200);
        let outcome = await mcp.callTool(write);
        for (let i = 0; i < 50 && outcome._meta?.['toolgate/status'] !== 'ok'; i++) {
          await new Promise((r) => setTimeout(r, 100));
          outcome = await mcp.callTool(write);
        }
        expect(outcome).toMatchObject({ isError: false, _meta: { 'toolgate/status': 'ok', 'toolgate/replayed': true } });
        expect(text(outcome)).toBe(`Wrote 8 bytes to ${file}`);
        expect(readFileSync(join(fixtures.workspace, file), 'utf8')).toBe('via mcp\n');
      } finally {
        await mcp.close();
      }
    });

    it('serves MCP 2026-07-28 to the SDK v2 client pinned to it: discovery, the list, a call, an error', async () => {
      const mcp = new ClientV2({ name: 'e2e-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await mcp.connect(new StreamableHTTPClientTransportV2(new URL('http://gateway/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${DEMO_KEY}`, 'x-toolgate-thread': 'e2e-mcp-2026' } },
        fetch: (input, init) => target.fetch(new Request(input, init)),
      }));
      try {
        expect(mcp.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        const { tools } = await mcp.listTools();
        expect(tools.map((tool) => tool.name)).toContain('read_file');
        const echoed = await mcp.callTool({ name: 'echo', arguments: { text: 'via 2026-07-28' } });
        expect(echoed).toMatchObject({ isError: false, content: [{ type: 'text', text: 'via 2026-07-28' }], _meta: { 'toolgate/status': 'ok' } });
        expect(await mcp.callTool({ name: 'echo', arguments: {} })).toMatchObject({ isError: true, _meta: { 'toolgate/status': 'invalid_arguments' } });
      } finally {
        await mcp.close();
      }
    });

    it('serves the console: sign in with a form, an audit page with its chain verified, sign out', async () => {
      // As a browser on the console's own pages sends a form (Sec-Fetch-Site; the runtime's own URL is not http://gateway).
      const form = (path: string, fields: Record<string, string>, cookie?: string) => target.fetch(new Request(`http://gateway${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...(cookie ? { cookie } : {}) },
        body: new URLSearchParams(fields).toString(),
      }));
      const signedIn = await form('/console/sign-in', { credential: DEMO_ADMIN_KEY });
      expect(signedIn.status).toBe(303);
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
      expect(cookie.startsWith('__Secure-toolgate_console=')).toBe(true);
      await dispatch('e2e-console', [{ call_id: 'c', name: 'echo', arguments: { text: 'audited' } }]);
      const audit = await target.fetch(new Request('http://gateway/console/audit?thread_id=e2e-console', { headers: { cookie } }));
      expect(audit.status).toBe(200);
      expect(audit.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const page = await audit.text();
      expect(page).toContain('data-chain="intact"');
      const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(page)![1];
      const signedOut = await form('/console/sign-out', { _csrf: csrf }, cookie);
      expect(signedOut.status).toBe(303);
      expect(signedOut.headers.get('set-cookie')).toMatch(/^__Secure-toolgate_console=; Max-Age=0/);
    });

    it('publishes, activates, serves and rolls back a manifest version', async () => {
      const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'examples/demo/manifest.json'), 'utf8'));
      const v2 = { ...demo, version: 'e2e-2', tools: [demo.tools[0]] };
      expect((await call('POST', '/v1/admin/manifests', v2, asAdmin)).status).toBe(201);
      expect((await call('POST', '/v1/admin/manifests', { ...v2, tools: [] }, asAdmin)).status).toBe(409);
      expect((await call('POST', '/v1/admin/manifests/e2e-2/activate', undefined, asAdmin)).body).toEqual({ from: '1', to: 'e2e-2' });
      const served = await call('GET', '/v1/tools');
      expect(served.body.version).toBe('e2e-2');
      expect(served.body.tools.map((t: Json) => t.name)).not.toContain('sleep');
      expect((await call('POST', '/v1/admin/manifests/rollback', undefined, asAdmin)).body).toEqual({ from: 'e2e-2', to: '1' });
      expect((await call('GET', '/v1/tools')).body.version).toBe('1');
      expect(existsSync(fixtures.workspace)).toBe(true);
    });
  });
}

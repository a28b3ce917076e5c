import { describe, expect, it } from 'vitest';
import { createGateway } from '../../lib/http/gateway.ts';
import { localOriginPolicy, OriginPolicyError } from '../../lib/http/origin-policy.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * DNS rebinding, as the attack runs: a page on attacker.example re-points its name at the
 * gateway's address and talks to the gateway as if it were its own site. The browser still says
 * who is asking: Host is attacker.example, and a POST carries Origin: http://attacker.example.
 */
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

async function gatewayWith(env: Record<string, string>) {
  let runs = 0;
  const acme = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'grant', execute: 'deny' }, tools: [{ name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' } }] });
  const gw = await testGateway([acme], { key: { tenant: 'acme', principal: 'p', scopes: ['audit:read'] } }, { env });
  const runtime = (await gw.tenants.runtime('acme'))!;
  const tool = runtime.registry.get('publish')!;
  runtime.registry.register({ ...tool, execute: async (args, ctx) => { runs++; return tool.execute(args, ctx); } }, { replace: true });
  const dispatch = (headers: Record<string, string>) =>
    gw.request('/v1/dispatch', { key: 'key', headers, json: { thread_id: 'rebind', calls: [{ call_id: 'c1', name: 'publish', arguments: { text: 'hi' } }] } });
  const audited = async () => (await (await gw.request('/v1/audit?thread_id=rebind', { key: 'key', headers: { host: 'gateway.example' } })).json()).envelopes?.length ?? 0;
  return { gw, dispatch, audited, runs: () => runs };
}

async function expectRefused(response: Response, message: RegExp) {
  const text = await response.text();
  expect(response.status, text).toBe(403);
  expect(JSON.parse(text).error).toMatchObject({ code: 'forbidden_origin', message: expect.stringMatching(message) });
}

describe('Origin', () => {
  it('a request from a web page (any Origin not listed) is refused on /v1 and /mcp before its key is checked; nothing runs', async () => {
    const { gw, dispatch, audited, runs } = await gatewayWith({});
    await expectRefused(await dispatch({ origin: 'http://attacker.example' }), /^Origin "http:\/\/attacker\.example" may not call this gateway .* add it to TOOLGATE_ALLOWED_ORIGINS to allow it$/);
    await expectRefused(await gw.request('/mcp', { key: 'key', method: 'POST', headers: { ...MCP_HEADERS, origin: 'http://attacker.example:8787' }, body: JSON.stringify(LIST_TOOLS) }), /^Origin /);
    await expectRefused(await gw.request('/v1/tools', { key: 'not-even-a-key', headers: { origin: 'null' } }), /^Origin "null"/);
    await expectRefused(await gw.request('/v1/tools', { key: 'key', headers: { origin: '' } }), /^Origin ""/);
    expect(runs()).toBe(0);
    expect(await audited()).toBe(0);
    // Agents and SDKs send no Origin: unchanged.
    expect((await (await dispatch({})).json()).results[0].status).toBe('ok');
    expect(runs()).toBe(1);
    expect((await gw.request('/healthz', { headers: { origin: 'http://attacker.example' } })).status).toBe(200);
  });

  it('TOOLGATE_ALLOWED_ORIGINS lets the listed origins through, compared as origins (scheme, host, port)', async () => {
    const { gw, dispatch } = await gatewayWith({ TOOLGATE_ALLOWED_ORIGINS: 'https://App.example.com/, http://localhost:3000' });
    expect((await dispatch({ origin: 'https://app.example.com' })).status).toBe(200);
    expect((await dispatch({ origin: 'https://app.example.com:443' })).status).toBe(200);
    expect((await gw.request('/v1/tools', { key: 'key', headers: { origin: 'http://localhost:3000' } })).status).toBe(200);
    await expectRefused(await dispatch({ origin: 'http://app.example.com' }), /^Origin "http:\/\/app\.example\.com"/);
    await expectRefused(await dispatch({ origin: 'http://localhost:3001' }), /^Origin/);
    await expectRefused(await dispatch({ origin: 'https://app.example.com.attacker.example' }), /^Origin/);
  });

  it('the Slack route is not subject to it (Slack sends no Origin): its own signature still refuses a forgery', async () => {
    const { gw } = await gatewayWith({ TOOLGATE_ALLOWED_HOSTS: 'gateway.example', SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'secret' });
    const forged = await gw.request('/v1/slack/interactions', { method: 'POST', headers: { host: 'tunnel.example', origin: 'http://attacker.example', 'content-type': 'application/x-www-form-urlencoded' }, body: 'payload=%7B%7D' });
    expect(forged.status).toBe(401);
    expect((await forged.json()).error.message).toMatch(/^Slack signature rejected/);
  });
});

describe('Host', () => {
  it('with TOOLGATE_ALLOWED_HOSTS, a request for another name (a rebinding page) is refused; nothing runs', async () => {
    const { gw, dispatch, audited, runs } = await gatewayWith({ TOOLGATE_ALLOWED_HOSTS: 'gateway.example, 127.0.0.1:8787, [::1]:8787' });
    await expectRefused(await dispatch({ host: 'attacker.example:8787' }), /^Host "attacker\.example:8787" is not a name this gateway answers to .* add this one to TOOLGATE_ALLOWED_HOSTS$/);
    await expectRefused(await dispatch({ host: '127.0.0.1:9999' }), /^Host "127\.0\.0\.1:9999"/);
    await expectRefused(await dispatch({ host: 'gateway.example.attacker.example' }), /^Host/);
    await expectRefused(await dispatch({ host: 'attacker.example@gateway.example' }), /^Host/);
    await expectRefused(await dispatch({}), /^the request has no Host header/);
    await expectRefused(await gw.request('/mcp', { key: 'key', method: 'POST', headers: { ...MCP_HEADERS, host: 'attacker.example' }, body: JSON.stringify(LIST_TOOLS) }), /^Host/);
    expect(runs()).toBe(0);
    expect(await audited()).toBe(0);
    // A name without a port allows any port; a name with one, only that port; case does not matter.
    expect((await dispatch({ host: 'GATEWAY.example:8443' })).status).toBe(200);
    expect((await gw.request('/v1/tools', { key: 'key', headers: { host: '127.0.0.1:8787' } })).status).toBe(200);
    expect((await gw.request('/v1/tools', { key: 'key', headers: { host: '[::1]:8787' } })).status).toBe(200);
    expect((await gw.request('/mcp', { key: 'key', method: 'POST', headers: { ...MCP_HEADERS, host: 'gateway.example' }, body: JSON.stringify(LIST_TOOLS) })).status).toBe(200);
    // Health checks come from load balancers under any name.
    expect((await gw.request('/healthz', { headers: { host: '10.0.0.7:8787' } })).status).toBe(200);
  });

  it('with TOOLGATE_ALLOWED_HOSTS, an Origin that is the request\'s own (its scheme and allowed Host) is served; no other Origin is', async () => {
    const { gw, dispatch, runs } = await gatewayWith({ TOOLGATE_ALLOWED_HOSTS: 'gateway.example, 127.0.0.1:8787, localhost:8787' });
    const initialize = (headers: Record<string, string>) =>
      gw.request('/mcp', { key: 'key', method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rebinding-check', version: '1' } } }) });
    // MCP's DNS-rebinding check: a local client names the server's own origin.
    expect((await initialize({ host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' })).status).toBe(200);
    expect((await dispatch({ host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' })).status).toBe(200);
    expect((await dispatch({ host: 'GATEWAY.example:8443', origin: 'http://gateway.example:8443' })).status).toBe(200);
    expect(runs()).toBe(1); // the same call twice: the second is its replay
    // Anything else stays refused: another scheme, port or allowed name, a look-alike, a rebinding page's own name.
    await expectRefused(await dispatch({ host: '127.0.0.1:8787', origin: 'https://127.0.0.1:8787' }), /^Origin "https:\/\/127\.0\.0\.1:8787" may not call/);
    await expectRefused(await dispatch({ host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8788' }), /^Origin/);
    await expectRefused(await dispatch({ host: '127.0.0.1:8787', origin: 'http://localhost:8787' }), /^Origin/);
    await expectRefused(await dispatch({ host: 'gateway.example', origin: 'http://gateway.example.attacker.example' }), /^Origin/);
    await expectRefused(await dispatch({ host: 'gateway.example', origin: 'null' }), /^Origin "null"/);
    await expectRefused(await initialize({ host: 'attacker.example', origin: 'http://attacker.example' }), /^Host "attacker\.example"/);
    // Without a host list any name is served, so a rebinding page's Origin, equal to its Host, proves nothing.
    const open = await gatewayWith({});
    await expectRefused(await open.dispatch({ host: 'attacker.example', origin: 'http://attacker.example' }), /^Origin "http:\/\/attacker\.example"/);
    expect(open.runs()).toBe(0);
  });

  it('without a list (deployed runtimes) any Host is served; a bad entry stops the gateway from being built', async () => {
    const { gw } = await gatewayWith({});
    expect((await gw.request('/v1/tools', { key: 'key', headers: { host: 'whatever.example' } })).status).toBe(200);
    expect(() => createGateway({ store: new MemoryStore(), env: { TOOLGATE_ALLOWED_HOSTS: 'ok.example, http://bad.example/' } })).toThrow(new OriginPolicyError('TOOLGATE_ALLOWED_HOSTS: "http://bad.example/" is not a host name or host:port (for IPv6 write [::1]:8787)'));
    // No wildcard, and never "null" (what any sandboxed page or local file sends).
    for (const entry of ['*', 'null', 'file:///x', 'app.example.com']) {
      expect(() => createGateway({ store: new MemoryStore(), env: { TOOLGATE_ALLOWED_ORIGINS: entry } }), entry).toThrow(new OriginPolicyError(`TOOLGATE_ALLOWED_ORIGINS: "${entry}" is not an http(s) origin such as https://app.example.com; list each allowed origin`));
    }
  });

  it('a server on loopback defaults to its loopback names and port; TOOLGATE_ALLOWED_HOSTS overrides; other addresses get no default', () => {
    expect(localOriginPolicy({}, '127.0.0.1', 8787).allowedHosts).toEqual(['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']);
    expect(localOriginPolicy({}, 'localhost', 9000).allowedHosts).toEqual(['127.0.0.1:9000', 'localhost:9000', '[::1]:9000']);
    expect(localOriginPolicy({}, '::1', 1).allowedHosts).toHaveLength(3);
    // On port 80 clients leave the port out of Host.
    expect(localOriginPolicy({}, '127.0.0.1', 80).allowedHosts).toEqual(['127.0.0.1:80', '127.0.0.1', 'localhost:80', 'localhost', '[::1]:80', '[::1]']);
    expect(localOriginPolicy({ TOOLGATE_ALLOWED_HOSTS: 'dev.example' }, '127.0.0.1', 8787).allowedHosts).toEqual(['dev.example']);
    expect(localOriginPolicy({}, '0.0.0.0', 8787).allowedHosts).toBeUndefined();
  });
});

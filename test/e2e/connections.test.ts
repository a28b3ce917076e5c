import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as cliMain } from '../../lib/cli/main.ts';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { CONNECTIONS_THREAD } from '../../lib/connections/connection-audit.ts';
import { sharedMcpSessionPool } from '../../lib/registry/executors/mcp-session-pool.ts';
import { launchChromium, signIn, startConsoleGateway, submit, type ConsoleGateway } from '../console/harness.ts';
import { Keyring } from '../../lib/connections/keyring.ts';
import { providerBinding } from '../../lib/connections/provider-binding.ts';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { baseManifest } from '../helpers/manifests.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.ts';

/**
 * Tools that act as the end user, end to end: a real authorization server (oidc-provider) on
 * 127.0.0.1, the gateway as `toolgate serve` runs it (SQLite), headless Chromium as each user's
 * browser, and two upstreams that accept only the provider's tokens and answer whose they are: an
 * http tool and an MCP server.
 */
const RESOURCE = 'https://upstream.acme.example/';
const ACCESS_TOKEN_TTL = 62;
const KEY = Buffer.alloc(32, 7).toString('base64url');

let browser: Browser;
let gw: ConsoleGateway;
let oauth: OAuthServer;
let httpTool: TestServer;
let mcp: McpUpstream;

/** The upstream's view of a bearer token: whose it is, or why not. */
const whose = async (authorization: string | undefined) => {
  try {
    return (await oauth.verify((authorization ?? '').replace(/^Bearer /, ''))).sub;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
};

const manifest = () =>
  baseManifest({
    tenant: 'acme',
    version: '1',
    policy: { read: 'grant', write: 'deny', execute: 'deny' },
    connections: { idp: { issuer: oauth.issuer, client_id: oauth.clientId, client_secret: 'env:ACME_IDP_SECRET', scopes: ['repo'], resource: RESOURCE } },
    tools: [
      { name: 'whoami', description: 'whose token reached the http tool', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'http', url: `${httpTool.url}/whoami`, secret: 'env:ACME_TOOL_SECRET', auth: { connection: 'idp' } } },
      { name: 'whoami_mcp', description: 'whose token reached the MCP server', tier: 'read', input_schema: { type: 'object' }, executor: { kind: 'mcp', url: mcp.url, tool: 'whoami', auth: { connection: 'idp' } } },
    ],
  });

beforeAll(async () => {
  browser = await launchChromium();
  httpTool = await startTestServer(async (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sub: await whose(request.headers.authorization) }));
  });
  mcp = await startMcpUpstream();
  mcp.tools.push({ tool: { name: 'whoami', inputSchema: { type: 'object' } }, run: async (_args, { authorization }) => ({ content: [{ type: 'text', text: `sub=${await whose(authorization)}` }] }) });
  gw = await startConsoleGateway([], {
    tg_admin: { tenant: 'acme', principal: 'admin', scopes: ['admin', 'audit:read'] },
    tg_alice: { tenant: 'acme', principal: 'alice' },
    tg_bob: { tenant: 'acme', principal: 'bob' },
    tg_carol: { tenant: 'acme', principal: 'carol' },
    tg_dave: { tenant: 'acme', principal: 'dave' },
  }, { TOOLGATE_CONNECTION_KEYS: `k1:${KEY}`, TOOLGATE_TENANT_SECRETS: 'acme:ACME_IDP_SECRET,ACME_TOOL_SECRET', ACME_IDP_SECRET: 'toolgate-client-secret-0123456789abcdef', ACME_TOOL_SECRET: 'tool-hmac-secret' });
  oauth = await startOAuthServer({ redirectUris: [`${gw.url}/connect/acme/idp/callback`], resource: RESOURCE, accessTokenTtl: ACCESS_TOKEN_TTL });
  const published = await gw.api('/v1/admin/manifests', { key: 'tg_admin', json: manifest() });
  expect(published.status, await published.clone().text()).toBe(201);
  expect((await gw.api('/v1/admin/manifests/1/activate', { key: 'tg_admin', json: {} })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await oauth?.close();
  await httpTool?.close();
  await mcp?.close();
  sharedMcpSessionPool.clear();
});

let calls = 0;
async function call(key: string, name = 'whoami', call_id = `c${calls++}`) {
  const answer = await (await gw.api('/v1/dispatch', { key, json: { thread_id: 'th-connections', calls: [{ call_id, name, arguments: {} }] } })).json();
  return answer.results[0];
}

/** A call by a user with no grant: the typed answer and its link. */
async function linkFor(key: string, call_id?: string): Promise<string> {
  const result = await call(key, 'whoami', call_id);
  expect(result).toMatchObject({ status: 'authorization_required', is_error: true, error: { code: 'authorization_required', details: { connection: 'idp' } } });
  const url = result.error.details.authorization_url as string;
  expect(url).toMatch(new RegExp(`^${gw.url}/connect/acme/idp\\?link=[\\w-]{43}$`));
  expect(result.content).toContain(url);
  return url;
}

/** A user's browser (its own cookies). */
async function userBrowser(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.createBrowserContext();
  return { context, page: await context.newPage() };
}

/** Follows a connect link and consents at the provider as `login`; returns the page the gateway shows at the end. */
async function consent(page: Page, link: string, login: string, decision: 'allow' | 'deny' = 'allow'): Promise<string> {
  await page.goto(link);
  await page.waitForSelector('#login');
  await page.type('#login', login);
  await Promise.all([page.waitForNavigation(), page.click(`#${decision}`)]);
  return page.$eval('body', (body) => body.textContent ?? '');
}

/** Consents, but stops the browser before it reaches the gateway's callback: the callback URL (code, state, iss). */
async function consentUpToCallback(page: Page, link: string, login: string): Promise<URL> {
  await page.setRequestInterception(true);
  let reached: URL | undefined;
  const listener = (request: import('puppeteer-core').HTTPRequest) => {
    if (request.url().startsWith(`${gw.url}/connect/acme/idp/callback`)) {
      reached = new URL(request.url());
      void request.abort();
    } else void request.continue();
  };
  page.on('request', listener);
  await page.goto(link);
  await page.waitForSelector('#login');
  await page.type('#login', login);
  await page.click('#allow');
  for (let i = 0; i < 100 && !reached; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  page.off('request', listener);
  await page.setRequestInterception(false);
  expect(reached).toBeDefined();
  return reached!;
}

const pageText = (page: Page) => page.$eval('body', (body) => body.textContent ?? '');

describe('connections: the user connects once, and the tools act as that user', () => {
  it('asks, the user consents in the browser, and the re-sent calls reach both upstreams with that user\'s token', async () => {
    const link = await linkFor('tg_alice', 'first-call');
    expect(httpTool.requests).toHaveLength(0);
    const { context, page } = await userBrowser();
    expect(await consent(page, link, 'alice@idp')).toContain('"idp" is connected for alice');
    // The browser binding lived for the consent only.
    expect((await context.cookies()).filter((cookie) => cookie.name.startsWith('toolgate_connect_'))).toEqual([]);
    // The same call sent again (same call id) runs now: asking stored no outcome for it.
    expect(await call('tg_alice', 'whoami', 'first-call')).toMatchObject({ status: 'ok', content: JSON.stringify({ sub: 'alice@idp' }) });
    expect(await call('tg_alice', 'whoami_mcp')).toMatchObject({ status: 'ok', content: 'sub=alice@idp' });
    expect(oauth.tokenRequests).toEqual(['authorization_code']);
    await context.close();
  });

  it('a second user gets their own flow and their own token; the first keeps theirs', async () => {
    const { context, page } = await userBrowser();
    expect(await consent(page, await linkFor('tg_bob'), 'bob@idp')).toContain('connected for bob');
    expect(await call('tg_bob')).toMatchObject({ status: 'ok', content: JSON.stringify({ sub: 'bob@idp' }) });
    expect(await call('tg_bob', 'whoami_mcp')).toMatchObject({ status: 'ok', content: 'sub=bob@idp' });
    expect(await call('tg_alice', 'whoami_mcp')).toMatchObject({ status: 'ok', content: 'sub=alice@idp' });
    await context.close();
  });

  it('grants are audited and sealed: no token in the store or the audit trail, and the API shows none', async () => {
    const audit = await (await gw.api(`/v1/audit?thread_id=${CONNECTIONS_THREAD}`, { key: 'tg_admin' })).json();
    expect(audit.envelopes.map((e: { type: string; data: { principal: string } }) => `${e.type}:${e.data.principal}`)).toEqual(['connection.granted:alice', 'connection.granted:bob']);
    const rows = gw.read(`SELECT data FROM records WHERE key LIKE 'conn-grant/%'`);
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(rows) + JSON.stringify(gw.read('SELECT envelope FROM audit'));
    expect(dump).not.toMatch(/eyJ[\w-]+\.eyJ/);
    // Each call's result names the connection and the grant its token came from.
    await call('tg_alice');
    await call('tg_bob');
    const grants = (await (await gw.api('/v1/connections?all=1', { key: 'tg_admin' })).json()).connections as Array<{ principal: string; grant_id: string }>;
    const calls = await (await gw.api('/v1/audit?thread_id=th-connections&limit=200', { key: 'tg_admin' })).json();
    const used = calls.envelopes.filter((e: { type: string; data: { status: string } }) => e.type === 'tool.call.result' && e.data.status === 'ok').map((e: { principal: string; data: { connections: unknown } }) => [e.principal, e.data.connections]);
    const last = (principal: string) => used.filter(([who]: [string]) => who === principal).at(-1);
    expect(last('alice')).toEqual(['alice', [{ connection: 'idp', grant_id: grants.find((g) => g.principal === 'alice')!.grant_id }]]);
    expect(last('bob')).toEqual(['bob', [{ connection: 'idp', grant_id: grants.find((g) => g.principal === 'bob')!.grant_id }]]);
  });

  it('refreshes a token about to expire once, however many calls need it at the same time', async () => {
    // The provider's access tokens live 62 s; toolgate refreshes one within 60 s of its expiry.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const refreshes = () => oauth.tokenRequests.filter((grant) => grant === 'refresh_token').length;
    const before = refreshes();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => call('tg_alice', i % 2 ? 'whoami' : 'whoami_mcp')));
    for (const result of results) expect(result).toMatchObject({ status: 'ok' });
    expect(refreshes()).toBe(before + 1);
    expect(oauth.tokenRequests).not.toContain('refresh_token:error');
  });
});

describe('connections: what is refused', () => {
  it('a connect link works once, and not once expired', async () => {
    const link = await linkFor('tg_carol');
    const { context, page } = await userBrowser();
    await page.goto(link);
    await page.waitForSelector('#login');
    const again = await page.goto(link);
    expect(again?.status()).toBe(410);
    expect(await pageText(page)).toContain('does not work any more');
    const late = await linkFor('tg_carol');
    gw.tamper(`UPDATE records SET expires_at = 1 WHERE key = ?`, `conn-link/${new URL(late).searchParams.get('link')}`);
    expect((await page.goto(late))?.status()).toBe(410);
    await context.close();
  });

  it('a forged state, a replayed state, and a callback from another browser store nothing', async () => {
    const { context, page } = await userBrowser();
    const forged = await page.goto(`${gw.url}/connect/acme/idp/callback?code=x&state=${'A'.repeat(43)}&iss=${encodeURIComponent(oauth.issuer)}`);
    expect(forged?.status()).toBe(400);
    expect(await pageText(page)).toContain('not one toolgate started');
    const callback = await consentUpToCallback(page, await linkFor('tg_carol'), 'carol@idp');
    const elsewhere = await userBrowser();
    expect((await elsewhere.page.goto(callback.href))?.status()).toBe(400);
    expect(await pageText(elsewhere.page)).toContain('started in another browser');
    // That attempt used the state up: the right browser cannot finish with it either.
    expect((await page.goto(callback.href))?.status()).toBe(400);
    expect(await pageText(page)).toContain('not one toolgate started');
    expect((await call('tg_carol')).status).toBe('authorization_required');
    await Promise.all([context.close(), elsewhere.context.close()]);
  });

  it('a wrong iss is refused (RFC 9207 mix-up), and a user who denies gets no grant', async () => {
    const { context, page } = await userBrowser();
    const callback = await consentUpToCallback(page, await linkFor('tg_carol'), 'carol@idp');
    expect(callback.searchParams.get('iss')).toBe(oauth.issuer);
    callback.searchParams.set('iss', 'https://evil.example');
    expect((await page.goto(callback.href))?.status()).toBe(400);
    expect(await pageText(page)).toContain('came from another provider');
    // A new browser: this one's session at the provider would skip the consent page.
    const other = await userBrowser();
    expect(await consent(other.page, await linkFor('tg_carol'), 'carol@idp', 'deny')).toContain('Access was not granted');
    expect((await call('tg_carol')).status).toBe('authorization_required');
    await Promise.all([context.close(), other.context.close()]);
  });

  it('a code issued for another principal\'s consent is refused (PKCE binds it to its own)', async () => {
    const mallory = await userBrowser();
    const malloryCallback = await consentUpToCallback(mallory.page, await linkFor('tg_carol'), 'mallory@idp');
    const victim = await userBrowser();
    const victimCallback = await consentUpToCallback(victim.page, await linkFor('tg_dave'), 'dave@idp');
    // The code Mallory got (through Carol's link) injected into Dave's consent (Dave's state, Dave's browser): Dave would act as Mallory.
    victimCallback.searchParams.set('code', malloryCallback.searchParams.get('code')!);
    expect((await victim.page.goto(victimCallback.href))?.status()).toBe(400);
    expect(await pageText(victim.page)).toContain('did not accept the code');
    expect((await call('tg_dave')).status).toBe('authorization_required');
    expect((await call('tg_carol')).status).toBe('authorization_required');
    await Promise.all([mallory.context.close(), victim.context.close()]);
  });
});

describe('connections: people stay in control', () => {
  it('the API lists a principal its own grants (an admin every principal\'s), never a token', async () => {
    const own = await (await gw.api('/v1/connections', { key: 'tg_alice' })).json();
    expect(own.connections.map((g: { principal: string }) => g.principal)).toEqual(['alice']);
    expect(own.connections[0]).toMatchObject({ principal: 'alice', connection: 'idp', refreshable: true });
    expect(JSON.stringify(own)).not.toMatch(/token"|eyJ/);
    expect((await (await gw.api('/v1/connections?all=1', { key: 'tg_bob' })).json()).connections.map((g: { principal: string }) => g.principal)).toEqual(['bob']);
    expect((await (await gw.api('/v1/connections?all=1', { key: 'tg_admin' })).json()).connections.map((g: { principal: string }) => g.principal).sort()).toEqual(['alice', 'bob']);
    // Bob cannot revoke Alice's grant: to him it does not exist.
    expect((await gw.api('/v1/connections/idp?principal=alice', { key: 'tg_bob', method: 'DELETE' })).status).toBe(404);
    expect((await call('tg_alice')).status).toBe('ok');
  });

  it('a user revokes their grant in the console (at the provider too); the next call asks again; an admin revokes another\'s', async () => {
    const { context, page } = await signIn(browser, gw.url, 'tg_alice');
    await page.goto(`${gw.url}/console/connections`);
    expect(await page.$$eval('tr[data-principal]', (rows) => rows.map((row) => row.getAttribute('data-principal')))).toEqual(['alice']);
    const revocations = oauth.tokenRequests.filter((request) => request === 'revoke').length;
    await submit(page, 'tr[data-principal="alice"] button[data-role="revoke"]');
    expect(await page.$eval('.notice', (node) => node.textContent)).toContain('is revoked');
    expect(oauth.tokenRequests.filter((request) => request === 'revoke')).toHaveLength(revocations + 1);
    expect((await call('tg_alice')).status).toBe('authorization_required');

    const admin = await signIn(browser, gw.url, 'tg_admin');
    await admin.page.goto(`${gw.url}/console/connections`);
    expect(await admin.page.$$eval('tr[data-principal]', (rows) => rows.map((row) => row.getAttribute('data-principal')))).toEqual(['bob']);
    await submit(admin.page, 'tr[data-principal="bob"] button[data-role="revoke"]');
    expect((await call('tg_bob')).status).toBe('authorization_required');
    const audit = await (await gw.api(`/v1/audit?thread_id=${CONNECTIONS_THREAD}`, { key: 'tg_admin' })).json();
    const revokes = audit.envelopes.filter((e: { type: string }) => e.type === 'connection.revoked').map((e: { principal: string; data: { principal: string; provider_revoked?: boolean } }) => [e.principal, e.data.principal, e.data.provider_revoked]);
    expect(revokes).toEqual([['alice', 'alice', true], ['admin', 'bob', true]]);
    await Promise.all([context.close(), admin.context.close()]);
  });

  it('a refresh the provider refuses (invalid_grant) drops the grant, is audited, and the call asks to connect again', async () => {
    const { context, page } = await userBrowser();
    expect(await consent(page, await linkFor('tg_dave'), 'dave@idp')).toContain('connected for dave');
    expect((await call('tg_dave')).status).toBe('ok');
    // Dave's refresh token revoked at the provider behind the gateway's back (as when the user removes the app there).
    const [row] = gw.read(`SELECT data FROM records WHERE key = 'conn-grant/acme/dave/idp'`) as Array<{ data: string }>;
    const sealed = JSON.parse(row!.data).sealed as string;
    const { refresh_token } = JSON.parse((await Keyring.parse(`k1:${KEY}`).open(`acme/dave/idp\n${providerBinding(manifest(), 'idp')}\n${JSON.stringify({ kind: 'key' })}`, sealed)).plaintext);
    const revoked = await fetch(`${oauth.issuer}/token/revocation`, { method: 'POST', headers: { authorization: `Basic ${btoa(`${oauth.clientId}:${oauth.clientSecret}`)}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: refresh_token, token_type_hint: 'refresh_token' }) });
    expect(revoked.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const result = await call('tg_dave');
    expect(result).toMatchObject({ status: 'authorization_required', error: { details: { connection: 'idp' } } });
    expect(gw.read(`SELECT key FROM records WHERE key = 'conn-grant/acme/dave/idp'`)).toEqual([]);
    const audit = await (await gw.api(`/v1/audit?thread_id=${CONNECTIONS_THREAD}`, { key: 'tg_admin' })).json();
    expect(audit.envelopes.at(-1)).toMatchObject({ type: 'connection.refresh_failed', data: { principal: 'dave', error: 'invalid_grant', removed: true } });
    await context.close();
  });

  it('toolgate connections list|revoke does the same from the command line', async () => {
    const { context, page } = await userBrowser();
    expect(await consent(page, await linkFor('tg_carol'), 'carol@idp')).toContain('connected for carol');
    const cli = async (...args: string[]) => {
      const out = vi.spyOn(console, 'log').mockImplementation(() => {});
      const err = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        const code = await cliMain(['connections', ...args]);
        return { code, out: out.mock.calls.flat().join('\n'), err: err.mock.calls.flat().join('\n') };
      } finally {
        out.mockRestore();
        err.mockRestore();
      }
    };
    const listed = await cli('list', '--all', '--url', gw.url, '--key', 'tg_admin');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^idp\tcarol\tgranted .*\trenews\tkey k1/m);
    expect(listed.out).not.toMatch(/eyJ/);
    expect(await cli('revoke', 'idp', '--principal', 'carol', '--url', gw.url, '--key', 'tg_bob')).toMatchObject({ code: 1, err: expect.stringContaining('404') });
    expect(await cli('revoke', 'idp', '--principal', 'carol', '--url', gw.url, '--key', 'tg_admin')).toMatchObject({ code: 0, out: 'revoked "idp" for carol (and at the provider)' });
    expect((await call('tg_carol')).status).toBe('authorization_required');
    await context.close();
  });

  it('a manifest that re-points the connection elsewhere gets no user\'s token: the grant does not open, the user is asked again', async () => {
    const { context, page } = await userBrowser();
    expect(await consent(page, await linkFor('tg_carol'), 'carol@idp')).toContain('connected for carol');
    expect((await call('tg_carol')).status).toBe('ok');
    // A tenant admin points the connection's token endpoint at a server of its own (to be sent the refresh tokens).
    const catcher = await startTestServer((_request, response) => void response.writeHead(400).end('{"error":"invalid_grant"}'));
    const repointed = { ...manifest(), version: '2' };
    repointed.connections!.idp = { ...repointed.connections!.idp!, token_endpoint: `${catcher.url}/token` };
    expect((await gw.api('/v1/admin/manifests', { key: 'tg_admin', json: repointed })).status).toBe(201);
    expect((await gw.api('/v1/admin/manifests/2/activate', { key: 'tg_admin', json: {} })).status).toBe(200);
    const before = httpTool.requests.length;
    expect((await call('tg_carol')).status).toBe('authorization_required');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await call('tg_carol')).status).toBe('authorization_required');
    expect(catcher.requests).toEqual([]);
    expect(httpTool.requests).toHaveLength(before);
    await Promise.all([context.close(), catcher.close()]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { validManifest } from '../helpers/manifests.ts';
import { launchChromium, signIn, startConsoleGateway, submit, text, type ConsoleGateway } from './harness.ts';

/**
 * The console's flows in a real headless Chromium against a gateway on 127.0.0.1 (SQLite store,
 * @hono/node-server). One browser for the file; each user signs in in a new incognito context.
 */
const publishTool = { name: 'publish', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: { type: 'object', properties: { text: { type: 'string' }, token: { type: 'string', 'x-sensitive': true } }, required: ['text'] } };
const fourEyesTool = { ...publishTool, name: 'publish_four_eyes', approvals: { quorum: 2 } };
const manifest = (version: string, extra: unknown[] = []) => validManifest({ tenant: 'acme', version, policy: { read: 'grant', write: 'review', execute: 'review' }, tools: [{ name: 'echo', executor: { kind: 'builtin' } }, publishTool, fourEyesTool, ...extra] });

let browser: Browser;
let gw: ConsoleGateway;

beforeAll(async () => {
  browser = await launchChromium();
  gw = await startConsoleGateway([manifest('1')], {
    'tg_agent_key': { tenant: 'acme', principal: 'agent' },
    'tg_alice_key': { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide', 'audit:read', 'admin'] },
    'tg_bob_key': { tenant: 'acme', principal: 'bob', scopes: ['approvals:decide'] },
    'tg_reader_key': { tenant: 'acme', principal: 'reader', scopes: ['approvals:read'] },
    'tg_carol_key': { tenant: 'acme', principal: 'carol', scopes: ['approvals:decide'] },
  });
});

afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** The agent's call of `publish`, parked for approval; returns the approval id. */
async function park(thread_id: string, call_id: string, args: Record<string, unknown> = { text: `ran ${call_id}` }, name = 'publish'): Promise<string> {
  const answer = await (await gw.api('/v1/dispatch', { key: 'tg_agent_key', json: { thread_id, calls: [{ call_id, name, arguments: args }] } })).json();
  expect(answer.results[0].status).toBe('pending_approval');
  return answer.results[0].error.details.approval_id;
}

/** The agent's long-poll for its call's outcome (started before the human decides). */
const longPoll = (thread_id: string, call_id: string) => gw.api(`/v1/calls/${call_id}?thread_id=${thread_id}&wait=25`, { key: 'tg_agent_key' }).then((r) => r.json());

const approvalState = async (id: string) => (await (await gw.api(`/v1/approvals/${id}`, { key: 'tg_alice_key' })).json()).state;

/** Submits a form built in the page (as a hostile or stale page would), from the page's own origin. */
async function postForm(page: Page, action: string, fields: Record<string, string>) {
  const [response] = await Promise.all([
    page.waitForNavigation(),
    page.evaluate((target, values) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = target;
      for (const [name, value] of Object.entries(values)) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    }, action, fields),
  ]);
  return response!;
}

const formToken = (page: Page) => page.$eval('input[name="_csrf"]', (input) => (input as HTMLInputElement).value);

describe('console in Chromium', () => {
  it('signs in with a key held in an HttpOnly, Secure, SameSite=Strict cookie for /console; signs out', async () => {
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    expect(new URL(page.url()).pathname).toBe('/console/approvals');
    expect(await text(page, '.who')).toContain('Signed in as alice');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: '__Secure-toolgate_console', httpOnly: true, secure: true, sameSite: 'Strict', path: '/console' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await submit(page, 'form[action="/console/sign-out"] button');
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(await context.cookies()).toEqual([]);
    await page.goto(`${gw.url}/console/approvals`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await context.close();
  });

  it('a wrong key is refused at sign-in', async () => {
    const { context, page } = await signIn(browser, gw.url, 'tg_not_a_key');
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(await text(page, '.notice.bad')).toContain('Sign-in refused: invalid API key');
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it("approving a parked call in the page: the agent's long-poll returns the result", async () => {
    const id = await park('th-approve', 'c-approve', { text: 'shipped', token: 'tok-SECRET' });
    const poll = longPoll('th-approve', 'c-approve');
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    const card = `[data-approval="${id}"]`;
    await page.waitForSelector(card);
    const shown = await text(page, `${card} pre`);
    expect(shown).toContain('"token": "••••••"');
    expect(await page.content()).not.toContain('tok-SECRET');
    expect(await text(page, `${card} time[data-countdown]`)).toMatch(/^in \d+ min \d+ s$/);
    await page.type(`${card} textarea[name="reason"]`, 'looks right');
    await submit(page, `${card} button[value="approve"]`);
    expect(new URL(page.url()).pathname).toBe(`/console/approvals/${id}`);
    expect(await text(page, '[data-role="state"]')).toBe('executed');
    // The approver's reason reaches the model as a note after the tool's output.
    const content = 'shipped\n\n[Approved by alice: "looks right"]';
    expect(await text(page, '[data-role="result"]')).toBe(content);
    const polled = await poll;
    expect(polled).toMatchObject({ call_id: 'c-approve', status: 'ok', result: { status: 'ok', content } });
    await context.close();
  });

  it("rejecting with a reason: the reason is in the agent's result", async () => {
    const id = await park('th-reject', 'c-reject');
    const poll = longPoll('th-reject', 'c-reject');
    const { context, page } = await signIn(browser, gw.url, 'tg_bob_key');
    const card = `[data-approval="${id}"]`;
    await page.waitForSelector(card);
    await page.type(`${card} textarea[name="reason"]`, 'wrong customer: use the staging account');
    await submit(page, `${card} button[value="reject"]`);
    expect(await text(page, '[data-role="state"]')).toBe('rejected');
    expect(await text(page, '[data-role="decision-reason"]')).toBe('wrong customer: use the staging account');
    const polled = await poll;
    expect(polled.status).toBe('denied');
    expect(polled.result.content).toContain('A human (bob) rejected this call of `publish`: wrong customer: use the staging account. It did not run.');
    await context.close();
  });

  it('a quorum of two: two approvers sign in separately; the call runs after the second approval', async () => {
    const id = await park('th-quorum', 'c-quorum', { text: 'four eyes' }, 'publish_four_eyes');
    const poll = longPoll('th-quorum', 'c-quorum');
    const alice = await signIn(browser, gw.url, 'tg_alice_key');
    const card = `[data-approval="${id}"]`;
    await alice.page.waitForSelector(card);
    expect(await text(alice.page, `${card} [data-role="quorum"]`)).toBe('Approvals: 0 of 2');
    await submit(alice.page, `${card} button[value="approve"]`);
    expect(await text(alice.page, '[data-role="state"]')).toBe('pending');
    expect(await text(alice.page, '[data-role="quorum"]')).toBe('Approvals: 1 of 2 (alice)');
    expect(await alice.page.$('button[value="approve"]')).toBeNull();
    expect(await approvalState(id)).toBe('pending');
    const bob = await signIn(browser, gw.url, 'tg_bob_key');
    await bob.page.waitForSelector(card);
    expect(await text(bob.page, `${card} [data-role="quorum"]`)).toBe('Approvals: 1 of 2 (alice)');
    await submit(bob.page, `${card} button[value="approve"]`);
    expect(await text(bob.page, '[data-role="state"]')).toBe('executed');
    expect(await text(bob.page, '[data-role="quorum"]')).toBe('Approvals: 2 of 2 (alice, bob)');
    expect(await poll).toMatchObject({ call_id: 'c-quorum', status: 'ok', result: { content: 'four eyes' } });
    await alice.context.close();
    await bob.context.close();
  });

  it('the audit page shows "chain intact", then "broken" where an envelope was changed in the store', async () => {
    const id = await park('th-audit', 'c-audit');
    expect((await gw.api(`/v1/approvals/${id}`, { key: 'tg_bob_key', json: { decision: 'reject' } })).status).toBe(200);
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    await page.goto(`${gw.url}/console/audit?thread_id=th-audit`);
    expect(await page.$eval('[data-role="chain"]', (e) => e.getAttribute('data-chain'))).toBe('intact');
    expect(await text(page, '[data-role="chain"]')).toContain('Chain intact');
    const rows = await page.$$eval('tr[data-seq]', (trs) => trs.map((tr) => Number(tr.getAttribute('data-seq'))));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows).toEqual(rows.map((_, i) => i + 1));
    gw.tamper(`UPDATE audit SET envelope = json_set(envelope, '$.principal', 'mallory') WHERE thread_id = 'th-audit' AND seq = 2`);
    await page.reload();
    expect(await page.$eval('[data-role="chain"]', (e) => e.getAttribute('data-chain'))).toBe('broken');
    expect(await text(page, '[data-role="chain"]')).toMatch(/Chain broken at seq 2 .*content does not match its hash/);
    expect(await page.$eval('[data-role="broken-row"]', (tr) => tr.getAttribute('data-seq'))).toBe('2');
    await context.close();
  });

  it('a key without a scope sees only its pages; a page or POST beyond its scopes is refused server-side', async () => {
    const id = await park('th-scope', 'c-scope');
    const { context, page } = await signIn(browser, gw.url, 'tg_reader_key');
    expect(await page.$$eval('nav a', (links) => links.map((a) => a.textContent))).toEqual(['Approvals', 'Connections']);
    await page.waitForSelector(`[data-approval="${id}"]`);
    expect(await page.$(`[data-approval="${id}"] form[data-role="decide"]`)).toBeNull();
    for (const path of ['/console/audit?thread_id=th-scope', '/console/manifests', '/console/keys']) {
      const response = await page.goto(`${gw.url}${path}`);
      expect(response!.status(), path).toBe(403);
      expect(await text(page, '.notice.bad')).toContain('your key lacks the scope');
    }
    await page.goto(`${gw.url}/console/approvals`);
    const refused = await postForm(page, `/console/approvals/${id}`, { _csrf: await formToken(page), decision: 'approve' });
    expect(refused.status()).toBe(403);
    expect(await text(page, '.notice.bad')).toBe('your key lacks the scope "approvals:decide" needed to decide approvals');
    const activate = await postForm(page, '/console/manifests/1/activate', { _csrf: await formToken(page) });
    expect(activate.status()).toBe(403);
    expect(await approvalState(id)).toBe('pending');
    await context.close();
  });

  it('a form without the session\'s token, or posted from another origin, is refused', async () => {
    const id = await park('th-csrf', 'c-csrf');
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    const token = await formToken(page);
    const missing = await postForm(page, `/console/approvals/${id}`, { decision: 'approve' });
    expect(missing.status()).toBe(403);
    expect(await text(page, '.notice.bad')).toContain('the form token is missing or does not belong to this session');
    await page.goto(`${gw.url}/console/approvals`);
    const wrong = await postForm(page, `/console/approvals/${id}`, { _csrf: 'f'.repeat(64), decision: 'approve' });
    expect(wrong.status()).toBe(403);
    // A page on another port of 127.0.0.1 is the same site (the SameSite=Strict cookie goes along)
    // but another origin: even holding the session's token, its form is refused by the Origin check.
    const attacker: TestServer = await startTestServer((_, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<form method="post" action="${gw.url}/console/approvals/${id}"><input name="_csrf" value="${token}"><input name="decision" value="approve"><button id="go">go</button></form>`);
    });
    try {
      await page.goto(attacker.url);
      const [crossSite] = await Promise.all([page.waitForNavigation(), page.click('#go')]);
      expect(crossSite!.status()).toBe(403);
      expect(await text(page, '.notice.bad')).toContain('this form was sent from another site');
    } finally {
      await attacker.close();
    }
    expect(await approvalState(id)).toBe('pending');
    await context.close();
  });

  it('manifest versions: a diff, activate a new version, roll back (the API follows)', async () => {
    const v2 = manifest('2', [{ name: 'extra_tool', executor: { kind: 'builtin', name: 'echo' } }]);
    expect((await gw.api('/v1/admin/manifests', { key: 'tg_alice_key', json: v2 })).status).toBe(201);
    const toolNames = async () => (await (await gw.api('/v1/tools', { key: 'tg_agent_key' })).json()).tools.map((t: { name?: string; function?: { name: string } }) => t.function?.name ?? t.name);
    expect(await toolNames()).not.toContain('extra_tool');
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    await page.goto(`${gw.url}/console/manifests`);
    expect(await page.$('[data-version="1"] [data-role="active"]')).not.toBeNull();
    await submit(page, 'form[action="/console/manifests"] button');
    expect(await text(page, '[data-role="diff"]')).toContain('+ extra_tool');
    await submit(page, '[data-version="2"] button[data-role="activate"]');
    expect(await text(page, '.notice.ok')).toBe('Version 2 is now active.');
    expect(await page.$('[data-version="2"] [data-role="active"]')).not.toBeNull();
    expect(await toolNames()).toContain('extra_tool');
    await submit(page, 'button[data-role="rollback"]');
    expect(await text(page, '.notice.ok')).toBe('Rolled back: version 1 is active again.');
    expect(await page.$('[data-version="1"] [data-role="active"]')).not.toBeNull();
    expect(await toolNames()).not.toContain('extra_tool');
    await context.close();
  });

  it('keys: create (shown once), rotate, revoke; a revoked key is refused by the API and its console session ends', async () => {
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    await page.goto(`${gw.url}/console/keys`);
    await page.type('form[data-role="create-key"] input[name="principal"]', 'ci-bot');
    await page.type('form[data-role="create-key"] input[name="scopes"]', 'approvals:read');
    await page.select('form[data-role="create-key"] select[name="expires_in_days"]', '30');
    const created = await Promise.all([page.waitForNavigation(), page.click('form[data-role="create-key"] button')]).then(([r]) => r!);
    expect(created.status()).toBe(201);
    const key = await text(page, '[data-role="new-key"] [data-role="key"]');
    expect(key).toMatch(/^tg_[0-9a-f]{48}$/);
    expect((await gw.api('/v1/approvals', { key })).status).toBe(200);
    await page.goto(`${gw.url}/console/keys`);
    expect(await page.content()).not.toContain(key);
    const row = `tr[data-prefix="${key.slice(0, 11)}"]`;
    expect(await text(page, `${row} [data-role="state"]`)).toBe('active');
    expect(await text(page, row)).toContain('approvals:read');

    // Rotate with no grace: the old key stops at once, the new one works.
    await page.select(`${row} select[name="grace_seconds"]`, '0');
    await submit(page, `${row} button[data-role="rotate"]`);
    const rotated = await text(page, '[data-role="new-key"] [data-role="key"]');
    expect(rotated).not.toBe(key);
    expect((await gw.api('/v1/approvals', { key })).status).toBe(401);
    expect((await gw.api('/v1/approvals', { key: rotated })).status).toBe(200);

    // The new key signs in to the console; revoking it in alice's page refuses it in the API and ends its session.
    const bot = await signIn(browser, gw.url, rotated);
    expect(new URL(bot.page.url()).pathname).toBe('/console/approvals');
    await page.goto(`${gw.url}/console/keys`);
    const newRow = `tr[data-prefix="${rotated.slice(0, 11)}"]`;
    await submit(page, `${newRow} button[data-role="revoke"]`);
    expect(await text(page, '.notice.ok')).toContain('is revoked');
    expect(await text(page, `${newRow} [data-role="state"]`)).toBe('revoked');
    expect((await gw.api('/v1/approvals', { key: rotated })).status).toBe(401);
    await bot.page.reload();
    expect(new URL(bot.page.url()).pathname).toBe('/console/sign-in');
    expect(await text(bot.page, '.notice.bad')).toContain('Your session ended');
    await bot.context.close();
    await context.close();
  });

  it('the approvals walkthrough: the approver signs in and sees Approve; on a call of your own, "waiting for another approver" and no buttons', async () => {
    // carol may decide approvals and makes a call herself, as the demo walkthrough's calls are the agent's.
    const answer = await (await gw.api('/v1/dispatch', { key: 'tg_carol_key', json: { thread_id: 'th-own', calls: [{ call_id: 'c-own', name: 'publish', arguments: { text: 'mine' } }] } })).json();
    const id = answer.results[0].error.details.approval_id as string;
    const card = `[data-approval="${id}"]`;
    const requester = await signIn(browser, gw.url, 'tg_carol_key');
    await requester.page.waitForSelector(card);
    expect(await text(requester.page, `${card} [data-role="waiting"]`)).toBe('You requested this call: waiting for another approver.');
    expect(await requester.page.$$(`${card} button`)).toEqual([]);
    await requester.page.goto(`${gw.url}/console/approvals/${id}`);
    expect(await text(requester.page, `${card} [data-role="waiting"]`)).toContain('waiting for another approver');
    expect(await requester.page.$$(`${card} button`)).toEqual([]);
    const approver = await signIn(browser, gw.url, 'tg_alice_key');
    await approver.page.waitForSelector(card);
    expect(await approver.page.$(`${card} [data-role="waiting"]`)).toBeNull();
    await submit(approver.page, `${card} button[value="approve"]`);
    expect(await text(approver.page, '[data-role="state"]')).toBe('executed');
    await requester.context.close();
    await approver.context.close();
  });

  it('the manifest diff shows each changed value old → new', async () => {
    const tool = (timeout_ms?: number) => ({ name: 'lookup', tier: 'read', executor: { kind: 'builtin', name: 'echo' }, ...(timeout_ms ? { timeout_ms } : {}) });
    for (const [version, timeout] of [['d1', 3000], ['d2', 5000]] as const) {
      expect((await gw.api('/v1/admin/manifests', { key: 'tg_alice_key', json: { ...manifest(version, [tool(timeout)]), description: `version ${version}` } })).status).toBe(201);
    }
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    await page.goto(`${gw.url}/console/manifests?from=d1&to=d2`);
    const diff = await text(page, '[data-role="diff"]');
    expect(diff).toContain('~ lookup changed:timeout_ms: 3000 → 5000');
    expect(diff).toContain('settings changed:description: "version d1" → "version d2"');
    await context.close();
  });

  it('the key rotation\'s grace selector is labelled and wide enough to show its choice', async () => {
    const { context, page } = await signIn(browser, gw.url, 'tg_alice_key');
    for (const width of [1280, 390]) {
      await page.setViewport({ width, height: 844 });
      await page.goto(`${gw.url}/console/keys`);
      const form = 'form[action$="/rotate"]';
      expect(await text(page, `${form} label`)).toBe('Old key keeps working');
      expect(await page.$eval(form, (element) => [...element.querySelectorAll('option')].map((o) => o.textContent))).toEqual(['no', '1 hour', '1 day', '7 days']);
      // Each choice's text, in the select's own font, fits the select beside its arrow.
      const room = await page.$eval(`${form} select`, (select) => {
        const probe = document.createElement('span');
        probe.style.font = getComputedStyle(select).font;
        probe.style.position = 'absolute';
        const widths = [...(select as HTMLSelectElement).options].map((option) => {
          probe.textContent = option.textContent;
          document.body.append(probe);
          const width = probe.getBoundingClientRect().width;
          probe.remove();
          return width;
        });
        return select.getBoundingClientRect().width - Math.max(...widths);
      });
      expect(room, `at ${width} px`).toBeGreaterThanOrEqual(28);
    }
    await context.close();
  });

  it('every page fits a 390 px wide phone screen (and a 1280 px desktop) without sideways scrolling', async () => {
    await park('th-phone', 'c-phone-with-a-rather-long-call-identifier-that-must-wrap', { text: 'x'.repeat(300), token: 't' });
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.goto(`${gw.url}/console/sign-in`);
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.type('input[name="credential"]', 'tg_alice_key');
    await submit(page, 'form[action="/console/sign-in"] button');
    for (const width of [390, 1280]) {
      await page.setViewport({ width, height: 844, isMobile: width < 600, hasTouch: width < 600 });
      for (const path of ['/console/approvals', '/console/audit?thread_id=th-phone', '/console/manifests?from=1&to=1', '/console/keys']) {
        await page.goto(`${gw.url}${path}`);
        expect(await overflow(), `${path} at ${width} px`).toBeLessThanOrEqual(0);
      }
    }
    await context.close();
  });
});

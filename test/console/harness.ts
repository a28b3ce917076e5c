import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { serve, type ServerType } from '@hono/node-server';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { createApiKey } from '../../lib/governance/api-keys.ts';
import { createGateway } from '../../lib/http/gateway.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import { LOOPBACK_EGRESS_ALLOW, type TestKey } from '../helpers/gateway.ts';

/** Debian's chromium, or CHROMIUM_PATH; a missing browser fails the suite with what to install (never a silent skip). */
export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(`the console's browser tests need Chromium at ${path}: install the Debian package chromium (apt-get install chromium), or set CHROMIUM_PATH to a Chromium or Chrome binary`);
  }
  return path;
}

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

export interface ConsoleGateway {
  url: string;
  store: SqliteStore;
  gateway: ReturnType<typeof createGateway>;
  /** An API request as an agent or admin would send it. */
  api(path: string, init?: { key: string; json?: unknown; method?: string }): Promise<Response>;
  /** Another connection to the store's file, as someone with disk access would tamper with it. */
  tamper(sql: string, ...params: Array<string | number>): void;
  /** Reads the store's file as someone with disk access would. */
  read(sql: string, ...params: Array<string | number>): unknown[];
  close(): Promise<void>;
}

/** The gateway as `toolgate serve` runs it: a SQLite file, @hono/node-server on 127.0.0.1 (free port). */
export async function startConsoleGateway(manifests: Manifest[], keys: Record<string, TestKey>, env: Record<string, string> = {}): Promise<ConsoleGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
  const dbPath = join(dir, 'toolgate.db');
  const store = new SqliteStore(dbPath);
  for (const [key, principal] of Object.entries(keys)) {
    await createApiKey(store, { tenant: principal.tenant, principal: principal.principal ?? `${principal.tenant}-user`, scopes: principal.scopes ?? [] }, key);
  }
  const gateway = createGateway({ manifests, store, env: { TOOLGATE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW, ...env }, manifestCacheMs: 0 });
  await gateway.ready;
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: gateway.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    store,
    gateway,
    api: (path, init) => {
      const headers: Record<string, string> = { authorization: `Bearer ${init?.key}` };
      if (init?.json !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${url}${path}`, { method: init?.method ?? (init?.json !== undefined ? 'POST' : 'GET'), headers, body: init?.json !== undefined ? JSON.stringify(init.json) : undefined });
    },
    tamper: (sql, ...params) => {
      const db = new DatabaseSync(dbPath);
      try {
        db.prepare(sql).run(...params);
      } finally {
        db.close();
      }
    },
    read: (sql, ...params) => {
      const db = new DatabaseSync(dbPath);
      try {
        return db.prepare(sql).all(...params);
      } finally {
        db.close();
      }
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new incognito context (its own cookies) signed in with `key`; returns its page on the landing page. */
export async function signIn(browser: Browser, url: string, key: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.goto(`${url}/console/sign-in`);
  await page.type('input[name="credential"]', key);
  await Promise.all([page.waitForNavigation(), page.click('form[action="/console/sign-in"] button[type="submit"]')]);
  return { context, page };
}

/** Clicks a submit button and waits for the page it leads to. */
export async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

export async function text(page: Page, selector: string): Promise<string> {
  await page.waitForSelector(selector);
  return page.$eval(selector, (element) => element.textContent ?? '');
}

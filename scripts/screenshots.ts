/**
 * `npm run screenshots`: starts a gateway on 127.0.0.1 with demo data (a memory store: keys,
 * parked calls, an audited thread, two manifest versions), signs in to the console in headless
 * Chromium (Debian's chromium, or CHROMIUM_PATH) and writes a PNG of each page at desktop and
 * phone width to docs/console/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import puppeteer, { type Page } from 'puppeteer-core';
import { apiCaller, createDemoGateway, DEMO_KEYS, seedDemo } from './console-demo.ts';

const OUT = 'docs/console';
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800, isMobile: false },
  { name: 'phone', width: 390, height: 844, isMobile: true },
];
function chromium(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`no Chromium at ${path}: install the Debian package chromium (apt-get install chromium), or set CHROMIUM_PATH`);
  return path;
}

async function startGateway() {
  const { gateway } = await createDemoGateway();
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: gateway.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

async function shoot(page: Page, url: string, name: string) {
  for (const viewport of VIEWPORTS) {
    await page.setViewport({ width: viewport.width, height: viewport.height, isMobile: viewport.isMobile, deviceScaleFactor: 1 });
    await page.goto(url, { waitUntil: 'load' });
    const file = join(OUT, `${name}-${viewport.name}.png`);
    await page.screenshot({ path: file as `${string}.png`, fullPage: true });
    process.stdout.write(`wrote ${file}\n`);
  }
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const { url, server } = await startGateway();
  const browser = await puppeteer.launch({ executablePath: chromium(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--force-color-profile=srgb'] });
  try {
    await seedDemo(apiCaller((path, init) => fetch(`${url}${path}`, init)), { pending: 2, auditedCalls: 1, versions: 2 });
    const page = await (await browser.createBrowserContext()).newPage();
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await shoot(page, `${url}/console/sign-in`, 'sign-in');
    await page.type('input[name="credential"]', DEMO_KEYS.alice);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/console/sign-in"] button')]);
    await shoot(page, `${url}/console/approvals`, 'approvals');
    await shoot(page, `${url}/console/audit?thread_id=support-42`, 'audit');
    await shoot(page, `${url}/console/manifests?from=1&to=2`, 'manifests');
    await shoot(page, `${url}/console/keys`, 'keys');
  } finally {
    await browser.close();
    server.close();
  }
}

await main();

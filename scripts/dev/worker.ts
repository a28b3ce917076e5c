// `npm run dev:worker`: functions/worker.ts in workerd under `wrangler dev`, on the local stand-ins.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runDev } from './supervise.ts';

const WRANGLER = resolve(import.meta.dirname, '../../node_modules/wrangler/bin/wrangler.js');

await runDev({
  label: 'Cloudflare Workers (wrangler dev, workerd)',
  command(standIns, port) {
    // The bindings go in a private file, not on the command line (visible to every user in `ps`)
    // nor in wrangler.toml or .dev.vars; with --env-file wrangler reads only this file, and its
    // values override wrangler.toml's [vars] (TOOLGATE_STORE becomes upstash).
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-dev-worker-'));
    const envFile = join(dir, 'bindings.env');
    writeFileSync(envFile, dotenv(standIns.env), { mode: 0o600 });
    return {
      file: process.execPath,
      args: [WRANGLER, 'dev', '--port', String(port), '--ip', '127.0.0.1', '--env-file', envFile],
      // No telemetry, and no fetch of Request.cf from workers.cloudflare.com: dev runs offline.
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: 'true' },
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});

/** dotenv lines; JSON's double-quoted strings are valid dotenv values whatever they contain. */
function dotenv(variables: Record<string, string>): string {
  return Object.entries(variables).map(([name, value]) => `${name}=${JSON.stringify(value)}\n`).join('');
}

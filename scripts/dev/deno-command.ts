import { resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** The `deno` npm package's binary (a devDependency), so no system Deno is needed. */
export const DENO_BIN = resolve(REPO_ROOT, 'node_modules/.bin/deno');

/**
 * `deno run` for functions/deno.ts, as dev:deno and the Deno e2e suite start it. Deno resolves
 * our npm dependencies through package.json and the node_modules npm installed
 * (`--node-modules-dir=manual`: read it, never write or fetch into it). `--cached-only` and
 * `--no-remote` make anything that would need a download (deno.land, jsr, the npm registry) fail
 * instead, so it runs offline; `--no-lock` keeps it from writing a deno.lock into the repo;
 * `--no-prompt` turns a missing permission into an error rather than a question on the terminal.
 * Only network and environment access are granted: modules load without `--allow-read`.
 */
export function denoRunArgs(entry = 'functions/deno.ts'): string[] {
  return ['run', '--node-modules-dir=manual', '--cached-only', '--no-remote', '--no-lock', '--no-prompt', '--allow-net', '--allow-env', entry];
}

/** Variables for the Deno process: its cache in `denoDir` (not $HOME), and no update check (offline). */
export function denoProcessEnv(denoDir: string): Record<string, string> {
  return { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: '1' };
}

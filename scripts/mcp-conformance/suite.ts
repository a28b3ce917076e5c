import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../test/helpers/processes.ts';
import { runBoundedNode } from './bounded-process.ts';

/**
 * Runs the official MCP conformance suite's server scenarios against a URL and reads what each
 * scenario found (the checks.json it writes per scenario). A scenario fails, as the suite's own
 * baseline check counts it, when any of its checks is a FAILURE or a WARNING.
 */

/** Where the suite is installed: the release the baseline is for, or the 2026 prerelease (an npm alias). */
export const SUITES = {
  release: 'node_modules/@modelcontextprotocol/conformance/dist/index.js',
  next: 'node_modules/@modelcontextprotocol/conformance-next/dist/index.js',
} as const;
export type SuiteName = keyof typeof SUITES;

export interface ScenarioOutcome {
  scenario: string;
  passed: number;
  failed: number;
  warnings: number;
  /** Each FAILURE or WARNING check: `id: message`. */
  problems: string[];
}

export interface SuiteRun {
  /** The suite's exit code (with a baseline: 0 exactly when the failing scenarios are the baseline's). */
  code: number | null;
  output: string;
  scenarios: ScenarioOutcome[];
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  description?: string;
}

export const failing = (outcome: ScenarioOutcome) => outcome.failed > 0 || outcome.warnings > 0;

export function isSuiteInstalled(suite: SuiteName): boolean {
  return existsSync(join(REPO_ROOT, SUITES[suite]));
}

/** `server --url <url> <args> -o <outDir>`, bounded by `seconds`. */
export async function runSuite(suite: SuiteName, url: string, args: string[], outDir: string, seconds: number): Promise<SuiteRun> {
  if (!isSuiteInstalled(suite)) throw new Error(`${SUITES[suite]} is missing: run \`npm ci\``);
  const ran = await runBoundedNode([SUITES[suite], 'server', '--url', url, ...args, '-o', outDir], { seconds });
  return { code: ran.code, output: ran.stdout + ran.stderr, scenarios: readOutcomes(outDir) };
}

/** Each `server-<scenario>-<timestamp>/checks.json` under `outDir`, in the order the suite ran them. */
export function readOutcomes(outDir: string): ScenarioOutcome[] {
  if (!existsSync(outDir)) return [];
  return readdirSync(outDir)
    .map((name) => ({ name, match: /^server-(.+)-(\d{4}-\d\d-\d\dT[\d-]+Z)$/.exec(name) }))
    .filter((entry) => entry.match && existsSync(join(outDir, entry.name, 'checks.json')))
    .sort((a, b) => a.match![2].localeCompare(b.match![2]))
    .map(({ name, match }) => outcomeOf(match![1], JSON.parse(readFileSync(join(outDir, name, 'checks.json'), 'utf8')) as Check[]));
}

function outcomeOf(scenario: string, checks: Check[]): ScenarioOutcome {
  const count = (status: Check['status']) => checks.filter((c) => c.status === status).length;
  const problems = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
  return { scenario, passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING'), problems };
}

/** The scenario names of an expected-failures file (`server:` list, one `- name  # why` a line). */
export function readBaseline(file: string): string[] {
  const names: string[] = [];
  let inServer = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inServer = /^server:\s*(#.*)?$/.test(line);
    const entry = /^\s+-\s+([\w./-]+)/.exec(line);
    if (inServer && entry) names.push(entry[1]);
  }
  return names;
}

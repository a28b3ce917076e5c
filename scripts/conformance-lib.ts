/**
 * Measures the validation engines against the official JSON-Schema-Test-Suite (draft 2020-12).
 * Used by scripts/conformance.ts (the report) and test/validation/conformance.test.ts (the
 * guarantees the product relies on).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonSchema } from '../lib/registry/json.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import type { CompiledSchema, EngineName, EngineOptions, SchemaResource, SchemaValidator } from '../lib/validation/validator.ts';
import { GAVE_UP_KEYWORD } from '../lib/validation/violations.ts';

export const ENGINES: readonly EngineName[] = ['ajv', 'cfworker'];

/** Where the suite lives: ../shared/conformance/json-schema from the repository root. */
export const corpusRoot = fileURLToPath(new URL('../../shared/conformance/json-schema', import.meta.url));

/** The suite's remote documents are served from here in its own harness. */
const REMOTE_BASE = 'http://localhost:1234/';

export interface SuiteTest {
  description: string;
  data: unknown;
  valid: boolean;
}

export interface SuiteGroup {
  description: string;
  schema: JsonSchema;
  tests: SuiteTest[];
}

/** One file of the suite; its name (without .json) is the keyword it covers. */
export interface SuiteFile {
  /** "type", "ref", "optional/format/email", ... */
  keyword: string;
  optional: boolean;
  groups: SuiteGroup[];
}

export interface TestFailure {
  group: string;
  /** Absent when the whole group failed (its schema did not compile). */
  test?: string;
  reason: string;
}

export interface KeywordResult {
  keyword: string;
  optional: boolean;
  passed: number;
  failed: number;
  failures: TestFailure[];
}

export interface Totals {
  passed: number;
  failed: number;
}

export interface EngineReport {
  engine: EngineName;
  keywords: KeywordResult[];
  required: Totals;
  optional: Totals;
}

function listJsonFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listJsonFiles(path);
      return name.endsWith('.json') ? [path] : [];
    });
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** All files of tests/draft2020-12, required ones first, then optional/ (format/ included). */
export function loadSuite(root: string = corpusRoot): SuiteFile[] {
  const dir = join(root, 'tests', 'draft2020-12');
  const files = listJsonFiles(dir).map((path) => {
    const keyword = relative(dir, path).split(sep).join('/').replace(/\.json$/, '');
    return { keyword, optional: keyword.startsWith('optional/'), groups: readJson(path) as SuiteGroup[] };
  });
  return [...files.filter((f) => !f.optional), ...files.filter((f) => f.optional)];
}

/**
 * The remote documents a 2020-12 run may reach: the draft's own folder, plus the draft-neutral
 * files at the top. Other drafts' folders are left out: the product registers 2020-12 schemas
 * only, and ajv's 2020-12 class refuses a document whose `$schema` is another draft's
 * meta-schema, so optional/cross-draft fails on both engines (by design, not by accident).
 */
export function loadRemotes(root: string = corpusRoot): SchemaResource[] {
  const dir = join(root, 'remotes');
  return listJsonFiles(dir)
    .map((path) => relative(dir, path).split(sep).join('/'))
    .filter((name) => !name.includes('/') || name.startsWith('draft2020-12/') || !/^(draft|v\d)/.test(name))
    .map((name) => ({ uri: REMOTE_BASE + name, schema: readJson(join(dir, name)) as JsonSchema }));
}

/**
 * Builds the engine exactly as the product does (same factory, same formats: ajv-formats for
 * ajv, the library's own format checks for cfworker), with two harness-only differences: the
 * suite's remotes are registered, and the lint is off. The lint is toolgate's policy for tool
 * schemas (local $defs refs only, ...), deliberately stricter than JSON Schema; leaving it on
 * would measure the policy, not the engine. test/validation/messages.test.ts covers the lint.
 */
export function createEngine(engine: EngineName, remotes: readonly SchemaResource[]): SchemaValidator {
  // Fresh copies: cfworker annotates schema objects in place, and ajv keys documents by $id.
  const options: EngineOptions = { schemas: structuredClone(remotes), lint: false };
  return engine === 'ajv' ? createAjvValidator(options) : createCfworkerValidator(options);
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];

function runTest(validate: CompiledSchema, test: SuiteTest): string | undefined {
  try {
    const outcome = validate(test.data);
    // A refusal because the engine gave up (its stack overflowed) is no verdict on the data.
    if (!outcome.valid && outcome.violations[0]?.keyword === GAVE_UP_KEYWORD) return `gave up while validating: ${outcome.violations[0].message}`;
    if (outcome.valid === test.valid) return undefined;
    return outcome.valid ? 'accepted invalid data' : `rejected valid data: ${outcome.violations[0]?.message ?? '(no message)'}`;
  } catch (error) {
    return `threw while validating: ${message(error)}`;
  }
}

function runGroup(group: SuiteGroup, engine: EngineName, remotes: readonly SchemaResource[], result: KeywordResult): void {
  let validate: CompiledSchema;
  try {
    // One engine per group: groups in a file reuse `$id`s, which one ajv instance refuses.
    validate = createEngine(engine, remotes).compile(structuredClone(group.schema));
  } catch (error) {
    result.failed += group.tests.length;
    result.failures.push({ group: group.description, reason: `schema did not compile: ${message(error)}` });
    return;
  }
  for (const test of group.tests) {
    const reason = runTest(validate, test);
    if (reason === undefined) result.passed += 1;
    else {
      result.failed += 1;
      result.failures.push({ group: group.description, test: test.description, reason });
    }
  }
}

function sum(results: KeywordResult[]): Totals {
  return results.reduce((t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed }), { passed: 0, failed: 0 });
}

export function measureFile(engine: EngineName, file: SuiteFile, remotes: readonly SchemaResource[]): KeywordResult {
  const result: KeywordResult = { keyword: file.keyword, optional: file.optional, passed: 0, failed: 0, failures: [] };
  for (const group of file.groups) runGroup(group, engine, remotes, result);
  return result;
}

export function measureEngine(engine: EngineName, suite: readonly SuiteFile[], remotes: readonly SchemaResource[]): EngineReport {
  const keywords = suite.map((file) => measureFile(engine, file, remotes));
  return {
    engine,
    keywords,
    required: sum(keywords.filter((k) => !k.optional)),
    optional: sum(keywords.filter((k) => k.optional)),
  };
}

export const corpusExists = (root: string = corpusRoot) => existsSync(join(root, 'tests', 'draft2020-12'));

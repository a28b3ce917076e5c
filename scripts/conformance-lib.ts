/**
 * Measures the validation engines against the official JSON-Schema-Test-Suite (drafts 2020-12
 * and 7: SUITE_DRAFTS), and where the two engines' verdicts differ.
 * Used by scripts/conformance.ts (the report) and test/validation/conformance.test.ts (the
 * guarantees the product relies on).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonSchema } from '../lib/registry/json.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import type { SchemaDraft } from '../lib/validation/schema-drafts.ts';
import { lintSchema } from '../lib/validation/schema-lint.ts';
import type { CompiledSchema, EngineName, EngineOptions, SchemaResource, SchemaValidator } from '../lib/validation/validator.ts';
import { GAVE_UP_KEYWORD } from '../lib/validation/violations.ts';

export const ENGINES: readonly EngineName[] = ['ajv', 'cfworker'];

/** A draft of the suite: its folder under tests/ (and remotes/), and the draft its schemas are validated by. */
export interface SuiteDraft {
  folder: string;
  draft: SchemaDraft;
}

/** The drafts of the suite the corpus holds (its schemas declare no `$schema`: the harness names the draft). */
export const SUITE_DRAFTS: readonly SuiteDraft[] = [
  { folder: 'draft2020-12', draft: '2020-12' },
  { folder: 'draft7', draft: 'draft-07' },
];
export const DRAFT_2020_12 = SUITE_DRAFTS[0];

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

/** What an engine said of one test's data: its verdict, or that it could not give one. */
export type Verdict = 'valid' | 'invalid' | 'no verdict';

export interface KeywordResult {
  keyword: string;
  optional: boolean;
  passed: number;
  failed: number;
  failures: TestFailure[];
  /** Every test's verdict, in the file's order (groups, then tests): to compare engines. */
  verdicts: Verdict[];
}

export interface Totals {
  passed: number;
  failed: number;
}

export interface EngineReport {
  engine: EngineName;
  draft: SchemaDraft;
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

/** All files of tests/<draft folder>, required ones first, then optional/ (format/ included). */
export function loadSuite(draft: SuiteDraft = DRAFT_2020_12, root: string = corpusRoot): SuiteFile[] {
  const dir = join(root, 'tests', draft.folder);
  const files = listJsonFiles(dir).map((path) => {
    const keyword = relative(dir, path).split(sep).join('/').replace(/\.json$/, '');
    return { keyword, optional: keyword.startsWith('optional/'), groups: readJson(path) as SuiteGroup[] };
  });
  return [...files.filter((f) => !f.optional), ...files.filter((f) => f.optional)];
}

/**
 * The remote documents a run of one draft may reach: the draft's own folder, plus the
 * draft-neutral files at the top. Other drafts' folders are left out: a schema is validated by
 * one draft throughout (an engine refuses a document whose `$schema` is another draft's
 * meta-schema), so optional/cross-draft fails on both engines (by design, not by accident).
 */
export function loadRemotes(draft: SuiteDraft = DRAFT_2020_12, root: string = corpusRoot): SchemaResource[] {
  const dir = join(root, 'remotes');
  return listJsonFiles(dir)
    .map((path) => relative(dir, path).split(sep).join('/'))
    .filter((name) => !name.includes('/') || name.startsWith(`${draft.folder}/`) || !/^(draft|v\d)/.test(name))
    .map((name) => ({ uri: REMOTE_BASE + name, schema: readJson(join(dir, name)) as JsonSchema }));
}

/**
 * Builds the engine exactly as the product does (same factory, same formats: ajv-formats for
 * ajv, the library's own format checks for cfworker), with two harness-only differences: the
 * suite's remotes are registered, and the lint is off. The lint is toolgate's policy for tool
 * schemas (local $defs refs only, ...), deliberately stricter than JSON Schema; leaving it on
 * would measure the policy, not the engine. test/validation/messages.test.ts covers the lint.
 */
export function createEngine(engine: EngineName, remotes: readonly SchemaResource[], draft: SchemaDraft = '2020-12'): SchemaValidator {
  // Fresh copies: cfworker annotates schema objects in place, and ajv keys documents by $id.
  const options: EngineOptions = { schemas: structuredClone(remotes), lint: false, defaultDraft: draft };
  return engine === 'ajv' ? createAjvValidator(options) : createCfworkerValidator(options);
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];

/** The engine's verdict on one test, and why the test failed (undefined when it passed). */
function runTest(validate: CompiledSchema, test: SuiteTest): { verdict: Verdict; reason?: string } {
  try {
    const outcome = validate(test.data);
    // A refusal because the engine gave up (its stack overflowed) is no verdict on the data.
    if (!outcome.valid && outcome.violations[0]?.keyword === GAVE_UP_KEYWORD) return { verdict: 'no verdict', reason: `gave up while validating: ${outcome.violations[0].message}` };
    const verdict = outcome.valid ? 'valid' : 'invalid';
    if (outcome.valid === test.valid) return { verdict };
    return { verdict, reason: outcome.valid ? 'accepted invalid data' : `rejected valid data: ${outcome.violations[0]?.message ?? '(no message)'}` };
  } catch (error) {
    return { verdict: 'no verdict', reason: `threw while validating: ${message(error)}` };
  }
}

function runGroup(group: SuiteGroup, engine: EngineName, remotes: readonly SchemaResource[], draft: SchemaDraft, result: KeywordResult): void {
  let validate: CompiledSchema;
  try {
    // One engine per group: groups in a file reuse `$id`s, which one ajv instance refuses.
    validate = createEngine(engine, remotes, draft).compile(structuredClone(group.schema));
  } catch (error) {
    result.failed += group.tests.length;
    result.failures.push({ group: group.description, reason: `schema did not compile: ${message(error)}` });
    for (const _ of group.tests) result.verdicts.push('no verdict');
    return;
  }
  for (const test of group.tests) {
    const { verdict, reason } = runTest(validate, test);
    result.verdicts.push(verdict);
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

export function measureFile(engine: EngineName, file: SuiteFile, remotes: readonly SchemaResource[], draft: SchemaDraft = '2020-12'): KeywordResult {
  const result: KeywordResult = { keyword: file.keyword, optional: file.optional, passed: 0, failed: 0, failures: [], verdicts: [] };
  for (const group of file.groups) runGroup(group, engine, remotes, draft, result);
  return result;
}

export function measureEngine(engine: EngineName, suite: readonly SuiteFile[], remotes: readonly SchemaResource[], draft: SchemaDraft = '2020-12'): EngineReport {
  const keywords = suite.map((file) => measureFile(engine, file, remotes, draft));
  return {
    engine,
    draft,
    keywords,
    required: sum(keywords.filter((k) => !k.optional)),
    optional: sum(keywords.filter((k) => k.optional)),
  };
}

/** One test on which the engines' verdicts differ. */
export interface Disagreement {
  keyword: string;
  optional: boolean;
  group: string;
  test: string;
  verdicts: Record<EngineName, Verdict>;
  /** Whether toolgate's tool-schema lint accepts the group's schema (else no such schema reaches an engine). */
  lintAccepts: boolean;
}

/** Every test of the suite on which two engines' reports (of the same suite) give different verdicts. */
export function disagreements(suite: readonly SuiteFile[], a: EngineReport, b: EngineReport): Disagreement[] {
  const found: Disagreement[] = [];
  suite.forEach((file, f) => {
    let i = 0;
    for (const group of file.groups) {
      const lintAccepts = lintSchema(group.schema, { defaultDraft: a.draft }).length === 0;
      for (const test of group.tests) {
        const [va, vb] = [a.keywords[f].verdicts[i], b.keywords[f].verdicts[i]];
        if (va !== vb) found.push({ keyword: file.keyword, optional: file.optional, group: group.description, test: test.description, verdicts: { [a.engine]: va, [b.engine]: vb } as Record<EngineName, Verdict>, lintAccepts });
        i++;
      }
    }
  });
  return found;
}

export const corpusExists = (folder: string = DRAFT_2020_12.folder, root: string = corpusRoot) => existsSync(join(root, 'tests', folder));

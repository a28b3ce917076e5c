import manifestSchema from '../../../schema/manifest.v1.json' with { type: 'json' };
import { checkPattern } from '../../patterns/index.ts';
import { createCfworkerValidator } from '../../validation/cfworker-engine.ts';
import { findJsonInputProblem } from '../../validation/json-input.ts';
import type { CompiledSchema, SchemaValidator } from '../../validation/validator.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import type { ExecutorKind, ExecutorKindContext, ManifestProblem } from '../executors/kind.ts';
import type { Manifest, ManifestTool } from './manifest.ts';
import { joinPath, jsonPath, memberPath } from './paths.ts';
import { confinementProblems, type ConfinementChecks } from './confinement.ts';
import { findInlineSecrets } from './secrets.ts';
import { checkIdentity } from './identity-check.ts';
import { checkConnections } from '../../connections/manifest-check.ts';
import { checkMcpImports } from '../mcp-upstream/import-check.ts';
import { checkMcpFeatures } from '../mcp-upstream/feature-check.ts';
import { checkRuleClasses } from './rule-classes-check.ts';
import { checkRuleTimeouts } from './rule-timeout-check.ts';
import { checkApprovalSettings } from './approval-settings-check.ts';
import { checkLimits } from '../../limits/limits-check.ts';
import { checkRuleConditions } from './rule-conditions-check.ts';
import { checkToolSearch } from './tool-search-check.ts';

export interface ManifestLoadOptions {
  validator: SchemaValidator;
  kinds: ReadonlyMap<string, ExecutorKind>;
  /** What `builtin` executors may name; a function when it depends on the manifest (its profile's coding tools). */
  builtins: ExecutorKindContext['builtins'] | ((manifest: JsonObject) => ExecutorKindContext['builtins']);
  /** The operator's secret grants and egress policy, where known (the gateway; the CLI when they are set). */
  confinement?: ConfinementChecks;
}

export type ManifestLoadResult = { ok: true; manifest: Manifest } | { ok: false; problems: ManifestProblem[] };

let manifestSchemaCheck: CompiledSchema | undefined;

/**
 * The manifest document is checked once per publish, so the interpreted engine does it on every
 * runtime: it has nothing to compile, where ajv would spend tens of milliseconds on a cold start.
 */
function checkManifestDocument(value: unknown) {
  manifestSchemaCheck ??= createCfworkerValidator().compile(manifestSchema);
  return manifestSchemaCheck(value);
}

/** Parses manifest text; a JSON syntax error is a problem at `$` with its position. */
export function parseManifestText(text: string, options: ManifestLoadOptions): ManifestLoadResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [{ path: '$', message: `not valid JSON: ${(error as Error).message}` }] };
  }
  return loadManifest(value, options);
}

/** Checks a manifest and reports every problem with its JSON path, or returns it typed. */
export function loadManifest(value: unknown, options: ManifestLoadOptions): ManifestLoadResult {
  // A lone surrogate, an overflowing number or absurd nesting: nothing below can take it (hashes,
  // stores, schema compilers), so it is the one problem reported.
  const unfit = findJsonInputProblem(value, '$');
  if (unfit) return { ok: false, problems: [unfit] };
  const problems: ManifestProblem[] = [];
  const structural = checkManifestDocument(value);
  if (!structural.valid) {
    for (const v of structural.violations) problems.push({ path: jsonPath(v.pointer), message: v.detail });
    // The check lists the first problems only (a 1 MB document can hold 100,000 of them).
    if (structural.omitted) problems.push({ path: '$', message: `${structural.omitted} more problems with the document's structure are not listed; fix the ones above and check again` });
    if (structural.incomplete) problems.push({ path: '$', message: 'the document has too many problems to list them all; fix the ones above and check again' });
  }
  if (isJsonObject(value)) {
    const builtins = typeof options.builtins === 'function' ? options.builtins(value) : options.builtins;
    if (Array.isArray(value.tools)) problems.push(...checkTools(value.tools, { ...options, builtins }));
    problems.push(...findInlineSecrets(value.execution_environment, '$.execution_environment'));
    problems.push(...checkMcpImports(value.mcp_imports));
    problems.push(...checkMcpFeatures(value));
    problems.push(...checkIdentity(value.identity));
    problems.push(...checkConnections(value));
    problems.push(...checkRulePatterns(value.policy));
    problems.push(...checkRuleClasses(value.policy, value.tools));
    problems.push(...checkRuleTimeouts(value.policy));
    problems.push(...checkApprovalSettings(value));
    problems.push(...checkLimits(value));
    problems.push(...checkRuleConditions(value, builtins));
    problems.push(...checkToolSearch(value, builtins));
    problems.push(...confinementProblems(value, options.confinement ?? {}));
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, manifest: value as unknown as Manifest };
}

type CheckOptions = Omit<ManifestLoadOptions, 'builtins'> & ExecutorKindContext;

/**
 * Every rule pattern must be one the linear-time matcher runs as the gateway does (whole value,
 * Unicode) and must not backtrack catastrophically (see lib/patterns/check-pattern.ts).
 */
function checkRulePatterns(policy: unknown): ManifestProblem[] {
  if (!isJsonObject(policy) || !Array.isArray(policy.rules)) return [];
  return policy.rules.flatMap((rule, index) => {
    if (!isJsonObject(rule) || !isJsonObject(rule.arguments)) return [];
    const base = `$.policy.rules[${index}].arguments`;
    return Object.entries(rule.arguments).flatMap(([name, source]) => {
      if (typeof source !== 'string') return []; // a class: checkRuleClasses
      const problem = checkPattern(source);
      return problem === undefined ? [] : [{ path: memberPath(base, name), message: problem }];
    });
  });
}

function checkTools(tools: unknown[], options: CheckOptions): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const firstIndex = new Map<string, number>();
  tools.forEach((tool, index) => {
    if (!isJsonObject(tool)) return;
    const path = `$.tools[${index}]`;
    const name = typeof tool.name === 'string' ? tool.name : '';
    if (name !== '') {
      const first = firstIndex.get(name);
      if (first === undefined) firstIndex.set(name, index);
      else problems.push({ path: `${path}.name`, message: `duplicate tool name "${name}" (first defined at $.tools[${first}])` });
    }
    problems.push(...checkExecutor(tool, name, path, options));
    if (tool.input_schema !== undefined) problems.push(...checkInputSchema(tool.input_schema, `${path}.input_schema`, options.validator));
    if (tool.output_schema !== undefined) problems.push(...checkOutputSchema(tool.output_schema, `${path}.output_schema`, options.validator));
  });
  return problems;
}

function checkExecutor(tool: JsonObject, name: string, path: string, options: CheckOptions): ManifestProblem[] {
  const executor = tool.executor;
  if (!isJsonObject(executor) || typeof executor.kind !== 'string') return [];
  const kind = options.kinds.get(executor.kind);
  if (!kind) {
    return [{ path: `${path}.executor.kind`, message: `unknown executor kind "${executor.kind}" (known: ${[...options.kinds.keys()].join(', ')})` }];
  }
  const problems = [...kind.check(executor, `${path}.executor`, name, options), ...findInlineSecrets(executor, `${path}.executor`)];
  if (kind.needsDefinition) {
    if (tool.input_schema === undefined) problems.push({ path: `${path}.input_schema`, message: `is required for ${executor.kind} tools` });
    if (tool.description === undefined) problems.push({ path: `${path}.description`, message: `is required for ${executor.kind} tools: the model reads it to decide when to call the tool` });
  }
  return problems;
}

function checkInputSchema(schema: unknown, path: string, validator: SchemaValidator): ManifestProblem[] {
  if (!isJsonObject(schema)) return [];
  if (schema.type !== 'object') return [{ path: `${path}.type`, message: 'must be "object": tool arguments are a JSON object' }];
  return validator.check(schema).map((p) => ({ path: joinPath(path, p.path), message: p.message }));
}

/** MCP's outputSchema describes structuredContent, which is always a JSON object. */
function checkOutputSchema(schema: unknown, path: string, validator: SchemaValidator): ManifestProblem[] {
  if (!isJsonObject(schema)) return [];
  if (schema.type !== 'object') return [{ path: `${path}.type`, message: 'must be "object": structured content is a JSON object' }];
  return validator.check(schema).map((p) => ({ path: joinPath(path, p.path), message: p.message }));
}

export type { ManifestProblem, ManifestTool };

import { LOG_LEVELS } from '../mcp-wire/envelope.ts';
import { isPlainObject, type JsonObject } from '../mcp-wire/json-rpc.ts';
import { MAX_IDEMPOTENCY_KEY } from '../idempotency/keys.ts';

/**
 * The params checks of the legacy methods, reported as the official SDK v1 reports them (its
 * schema library's issue list, as JSON), so a 2025 client reads the same error it always did:
 * which field, what type was expected, what came instead. Only the shapes toolgate reads are
 * checked; members it ignores (most of a client's capabilities) are not.
 */

export type ParamsIssue = TypeIssue | OptionIssue | CustomIssue;

interface TypeIssue {
  expected: string;
  code: 'invalid_type';
  path: Array<string | number>;
  message: string;
}

/** A value of the right type that is still unusable (as the schema library reports a refinement). */
interface CustomIssue {
  code: 'custom';
  path: Array<string | number>;
  message: string;
}

/** A value outside an enumeration (the keys in the order the SDK's schema library writes them). */
interface OptionIssue {
  code: 'invalid_value';
  values: string[];
  path: Array<string | number>;
  message: string;
}

type Expected = 'string' | 'number' | 'object' | 'record' | 'array';

/** `tools/call` params: a name, and arguments (when given) as an object. */
export function toolsCallIssues(params: JsonObject | undefined): ParamsIssue[] {
  if (params === undefined) return [issue(['params'], 'object', params)];
  const issues: ParamsIssue[] = [];
  const task = params.task;
  if (task !== undefined) {
    if (!isPlainObject(task)) issues.push(issue(['params', 'task'], 'object', task));
    else if (task.ttl !== undefined && typeof task.ttl !== 'number') issues.push(issue(['params', 'task', 'ttl'], 'number', task.ttl));
  }
  expect(issues, params, ['params'], 'name', 'string');
  optional(issues, params, ['params'], 'arguments', 'record');
  // toolgate's own: the client's key for the call (SEP-3182's shape).
  optional(issues, params, ['params'], 'idempotencyKey', 'string');
  const key = params.idempotencyKey;
  if (typeof key === 'string' && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY)) {
    issues.push({ code: 'custom', path: ['params', 'idempotencyKey'], message: `idempotencyKey must be 1-${MAX_IDEMPOTENCY_KEY} characters, got ${key.length}` });
  }
  return issues;
}

/** `tasks/get`, `tasks/result` and `tasks/cancel` params: the task's id. */
export function taskIdIssues(params: JsonObject | undefined): ParamsIssue[] {
  if (params === undefined) return [issue(['params'], 'object', params)];
  const issues: ParamsIssue[] = [];
  expect(issues, params, ['params'], 'taskId', 'string');
  return issues;
}

/** `tasks/list` params: a cursor (when given) as a string, as for tools/list. */
export const tasksListIssues = (params: JsonObject | undefined): ParamsIssue[] => toolsListIssues(params);

/** `tools/list` params: a cursor (when given) as a string. */
export function toolsListIssues(params: JsonObject | undefined): ParamsIssue[] {
  const issues: ParamsIssue[] = [];
  if (params !== undefined) optional(issues, params, ['params'], 'cursor', 'string');
  return issues;
}

/** `prompts/get` params: a name, and arguments (when given) as an object. */
export function promptsGetIssues(params: JsonObject | undefined): ParamsIssue[] {
  if (params === undefined) return [issue(['params'], 'object', params)];
  const issues: ParamsIssue[] = [];
  expect(issues, params, ['params'], 'name', 'string');
  optional(issues, params, ['params'], 'arguments', 'record');
  return issues;
}

/** `completion/complete` params: what is completed (`ref`: a type, and a name or URI) and the argument {name, value}. */
export function completeIssues(params: JsonObject | undefined): ParamsIssue[] {
  if (params === undefined) return [issue(['params'], 'object', params)];
  const issues: ParamsIssue[] = [];
  const { ref, argument } = params;
  if (!isPlainObject(ref)) issues.push(issue(['params', 'ref'], 'object', ref));
  else {
    expect(issues, ref, ['params', 'ref'], 'type', 'string');
    expect(issues, ref, ['params', 'ref'], ref.type === 'ref/resource' ? 'uri' : 'name', 'string');
  }
  if (!isPlainObject(argument)) issues.push(issue(['params', 'argument'], 'object', argument));
  else for (const key of ['name', 'value']) expect(issues, argument, ['params', 'argument'], key, 'string');
  optional(issues, params, ['params'], 'context', 'object');
  return issues;
}

/** `initialize` params: the client's revision, its capabilities and who it is. */
export function initializeIssues(params: JsonObject | undefined): ParamsIssue[] {
  if (params === undefined) return [issue(['params'], 'object', params)];
  const issues: ParamsIssue[] = [];
  expect(issues, params, ['params'], 'protocolVersion', 'string');
  const capabilities = params.capabilities;
  if (!isPlainObject(capabilities)) issues.push(issue(['params', 'capabilities'], 'object', capabilities));
  else for (const [name, expected] of CAPABILITY_TYPES) optional(issues, capabilities, ['params', 'capabilities'], name, expected);
  const info = params.clientInfo;
  if (!isPlainObject(info)) issues.push(issue(['params', 'clientInfo'], 'object', info));
  else for (const [name, expected, required] of CLIENT_INFO_TYPES) (required ? expect : optional)(issues, info, ['params', 'clientInfo'], name, expected);
  return issues;
}

/** `logging/setLevel` params: one of the log levels. */
export function setLevelIssues(params: JsonObject | undefined): ParamsIssue[] {
  if (params === undefined) return [issue(['params'], 'object', params)];
  if (typeof params.level === 'string' && LOG_LEVELS.includes(params.level)) return [];
  return [{ code: 'invalid_value', values: [...LOG_LEVELS], path: ['params', 'level'], message: `Invalid option: expected one of ${LOG_LEVELS.map((level) => `"${level}"`).join('|')}` }];
}

/** `resources/read`, `resources/subscribe` and `resources/unsubscribe` params: a uri as a string. */
export function resourceUriIssues(params: JsonObject | undefined): ParamsIssue[] {
  if (params === undefined) return [issue(['params'], 'object', params)];
  const issues: ParamsIssue[] = [];
  expect(issues, params, ['params'], 'uri', 'string');
  return issues;
}

/** The SDK's error message for a params failure: its issue list as indented JSON. */
export function issuesMessage(issues: ParamsIssue[]): string {
  return JSON.stringify(issues, null, 2);
}

/** Capabilities whose value toolgate checks for shape (in the SDK's schema order). */
const CAPABILITY_TYPES: Array<[string, Expected]> = [['experimental', 'record'], ['sampling', 'object'], ['roots', 'object'], ['tasks', 'object'], ['extensions', 'record']];

/** The client's identity fields (in the SDK's schema order): name, required? */
const CLIENT_INFO_TYPES: Array<[string, Expected, boolean]> = [['name', 'string', true], ['title', 'string', false], ['icons', 'array', false], ['version', 'string', true], ['websiteUrl', 'string', false], ['description', 'string', false]];

function expect(issues: ParamsIssue[], holder: JsonObject, path: string[], key: string, expected: Expected): void {
  if (!hasType(holder[key], expected)) issues.push(issue([...path, key], expected, holder[key]));
}

function optional(issues: ParamsIssue[], holder: JsonObject, path: string[], key: string, expected: Expected): void {
  if (holder[key] !== undefined) expect(issues, holder, path, key, expected);
}

function hasType(value: unknown, expected: Expected): boolean {
  if (expected === 'object' || expected === 'record') return isPlainObject(value);
  if (expected === 'array') return Array.isArray(value);
  return typeof value === expected;
}

function issue(path: Array<string | number>, expected: Expected, got: unknown): TypeIssue {
  return { expected, code: 'invalid_type', path, message: `Invalid input: expected ${expected}, received ${typeName(got)}` };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

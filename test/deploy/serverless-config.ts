import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/processes.ts';
import { parseYaml } from './yaml.ts';

/** The parts of serverless.yml the deploy tests read (parseYaml checks the syntax, the tests the shape). */
export interface ServerlessConfig {
  service: string;
  frameworkVersion: string;
  plugins: string[];
  provider: {
    name: string;
    runtime: string;
    timeout: number;
    httpApi: { payload: string };
    environment: Record<string, string | { Ref: string }>;
    iam: { role: { statements: IamStatement[] } };
  };
  functions: Record<string, { handler: string; url?: unknown; events: Array<Record<string, unknown>> }>;
  custom: { esbuild: EsbuildSection };
  resources: { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
}

export interface IamStatement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
}

export interface EsbuildSection {
  bundle: boolean;
  minify: boolean;
  sourcemap: 'linked' | 'external' | 'inline' | 'both' | boolean;
  target: string;
  platform: 'node';
  format: 'esm' | 'cjs';
  outputFileExtension: string;
  mainFields: string[];
  exclude: string[];
}

export function readServerlessConfig(): ServerlessConfig {
  return parseYaml(readFileSync(join(REPO_ROOT, 'serverless.yml'), 'utf8')) as unknown as ServerlessConfig;
}

/** `functions/lambda.handler` → the source file serverless-esbuild bundles and the export it calls. */
export function handlerEntry(handler: string): { file: string; exportName: string } {
  const dot = handler.lastIndexOf('.');
  return { file: `${handler.slice(0, dot)}.ts`, exportName: handler.slice(dot + 1) };
}

// How each write inside TransactWriteItems is authorized: as the single-item action it stands for
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html).
const TRANSACTION_PARTS: Record<string, string> = { Put: 'PutItem', Delete: 'DeleteItem', Update: 'UpdateItem', ConditionCheck: 'ConditionCheckItem' };

/**
 * The IAM actions DynamoDbStore needs, read from its source: every `send('X', ...)` it makes, with
 * TransactWriteItems replaced by the kinds of write a ConditionalWrite may hold. The table setup
 * (dynamodb/table.ts) is left out: the stack creates the table, the function never does.
 */
export function dynamoDbActionsTheStoreUses(): string[] {
  const dir = join(REPO_ROOT, 'lib/stores/dynamodb');
  const files = readdirSync(dir).filter((name) => name.endsWith('.ts') && name !== 'table.ts');
  const source = files.map((name) => readFileSync(join(dir, name), 'utf8')).join('\n');
  const actions = new Set<string>();
  for (const [, operation] of source.matchAll(/\.send\('(\w+)'/g)) {
    if (operation !== 'TransactWriteItems') actions.add(`dynamodb:${operation}`);
    else for (const part of transactionParts(source)) actions.add(`dynamodb:${TRANSACTION_PARTS[part]}`);
  }
  return [...actions].sort();
}

function transactionParts(source: string): string[] {
  const declaration = /export type ConditionalWrite = ([^;]+);/.exec(source)?.[1];
  if (!declaration) throw new Error('ConditionalWrite (the writes a transaction holds) was not found in lib/stores/dynamodb/requests.ts');
  const parts = [...declaration.matchAll(/\{\s*(\w+):/g)].map((match) => match[1]);
  const unknown = parts.filter((part) => !(part in TRANSACTION_PARTS));
  if (unknown.length) throw new Error(`unknown transaction write kinds: ${unknown.join(', ')}`);
  return parts;
}

/**
 * The artifact `serverless deploy` would upload: the function's handler bundled with the esbuild
 * options in serverless.yml, written into `dir`. Returns the bundle's path.
 */
export async function buildLambdaBundle(dir: string): Promise<string> {
  const { build } = await import('esbuild');
  const config = readServerlessConfig();
  const options = config.custom.esbuild;
  const [gateway] = Object.values(config.functions);
  const file = join(dir, `lambda${options.outputFileExtension}`);
  await build({
    entryPoints: [join(REPO_ROOT, handlerEntry(gateway.handler).file)],
    outfile: file,
    bundle: options.bundle,
    minify: options.minify,
    sourcemap: options.sourcemap,
    target: options.target,
    platform: options.platform,
    format: options.format,
    mainFields: options.mainFields,
    external: options.exclude,
    logLevel: 'silent',
  });
  return file;
}


import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretGrants } from '../../lib/crypto/secret-grants.ts';
import { createDynamoDbClient } from '../../lib/stores/dynamodb/dynamodb-store.ts';
import { REPO_ROOT } from '../helpers/processes.ts';
import { createTestTable, dynaliteClientOptions, startDynalite } from '../support/dynalite.ts';
import { dynamoDbActionsTheStoreUses, handlerEntry, readServerlessConfig } from './serverless-config.ts';
import { parseYaml } from './yaml.ts';

const config = readServerlessConfig();
const tables = Object.entries(config.resources.Resources).filter(([, resource]) => resource.Type === 'AWS::DynamoDB::Table');

describe('serverless.yml', () => {
  it('deploys functions/lambda.ts on nodejs22.x, behind an HTTP API catch-all and a function URL', () => {
    expect(config.service).toBe('toolgate');
    expect(config.provider).toMatchObject({ name: 'aws', runtime: 'nodejs22.x', httpApi: { payload: '2.0' } });
    expect(Object.keys(config.functions).sort()).toEqual(['gateway', 'sweeper']);
    const gateway = config.functions.gateway;
    const entry = handlerEntry(gateway.handler);
    expect(entry).toEqual({ file: 'functions/lambda.ts', exportName: 'handler' });
    expect(readFileSync(join(REPO_ROOT, entry.file), 'utf8')).toMatch(/^export const handler = /m);
    expect(gateway.events).toContainEqual({ httpApi: '*' });
    expect(gateway.url).toBe(true);
    // The HTTP API gives an integration 30 s; the long-poll holds a request up to 25 s.
    expect(config.provider.timeout).toBeGreaterThan(25);
    expect(config.provider.timeout).toBeLessThan(30);
  });

  it('sweeps approvals every minute with a scheduled function from the same bundle', () => {
    const sweeper = config.functions.sweeper;
    const entry = handlerEntry(sweeper.handler);
    expect(entry).toEqual({ file: 'functions/lambda.ts', exportName: 'sweep' });
    expect(readFileSync(join(REPO_ROOT, entry.file), 'utf8')).toMatch(/^export const sweep = /m);
    expect(sweeper.events).toEqual([{ schedule: 'rate(1 minute)' }]);
    expect(sweeper.url).toBeUndefined();
  });

  it('bundles the handler with serverless-esbuild for Node 22, everything included', () => {
    expect(config.plugins).toContain('serverless-esbuild');
    expect(config.custom.esbuild).toMatchObject({ bundle: true, platform: 'node', target: 'node22', format: 'esm', outputFileExtension: '.mjs', exclude: [] });
  });

  it('creates one on-demand table with the keys createDynamoDbTable makes and TTL on `ttl`', async () => {
    expect(tables).toHaveLength(1);
    const [[, table]] = tables;
    const properties = table.Properties;
    expect(properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    // The attribute the store writes its expiry to, in epoch seconds, is that one.
    expect(readFileSync(join(REPO_ROOT, 'lib/stores/dynamodb/items.ts'), 'utf8')).toMatch(/\bttl: \{ N: String\(Math\.ceil\(record\.expires_at \/ 1000\)\) \}/);
    const made = await describeTableMadeByTheStore();
    expect(sortByName(properties.KeySchema)).toEqual(sortByName(made.KeySchema));
    expect(sortByName(properties.AttributeDefinitions)).toEqual(sortByName(made.AttributeDefinitions));
  });

  it('grants exactly the DynamoDB item actions the store sends, on that table only', () => {
    const expected = dynamoDbActionsTheStoreUses();
    expect(expected).toEqual(['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    const statements = config.provider.iam.role.statements;
    const granted = statements.flatMap((statement) => statement.Action.filter((action) => action.startsWith('dynamodb:')));
    expect([...granted].sort()).toEqual(expected);
    const [tableId] = tables[0];
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      expect(statement.Action.every((action) => action.startsWith('dynamodb:') && !action.includes('*'))).toBe(true);
      expect(statement.Resource).toEqual([{ 'Fn::GetAtt': [tableId, 'Arn'] }]);
    }
  });

  it('points the store at the table and takes every secret from SSM or the deploy environment', () => {
    const environment = config.provider.environment;
    expect(environment.TOOLGATE_STORE).toBe('dynamodb');
    expect(environment.TOOLGATE_DYNAMODB_TABLE).toEqual({ Ref: tables[0][0] });
    const demo = readFileSync(join(REPO_ROOT, 'examples/demo/manifest.json'), 'utf8');
    const manifestSecrets = [...demo.matchAll(/"env:([A-Z0-9_]+)"/g)].map((match) => match[1]);
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', ...manifestSecrets]) expect(environment[name], name).toMatch(/^\$\{(ssm|env):.+\}$/);
    // TOOLGATE_TENANT_SECRETS names variables and holds none; every name it grants comes from SSM.
    const grants = SecretGrants.parse(environment.TOOLGATE_TENANT_SECRETS as string);
    for (const name of manifestSecrets) expect(grants.isGranted('demo', name), name).toBe(true);
    for (const [name, value] of Object.entries(environment)) {
      if (/SECRET|TOKEN|KEY/.test(name) && name !== 'TOOLGATE_TENANT_SECRETS') expect(value, name).toMatch(/^\$\{(ssm|env):/);
    }
    expect(environment).not.toHaveProperty('TOOLGATE_DEMO_KEY');
  });
});

describe('the YAML subset reader', () => {
  it('reads what serverless.yml uses', () => {
    expect(parseYaml("a: 1 # one\nb:\n  - x\n  - k: 'it''s'\n    l: [m, \"n\"]\nc: ${ssm:/p/${sls:stage}/q}\nFn::GetAtt: [T, Arn]\n")).toEqual({
      a: 1,
      b: ['x', { k: "it's", l: ['m', 'n'] }],
      c: '${ssm:/p/${sls:stage}/q}',
      'Fn::GetAtt': ['T', 'Arn'],
    });
  });

  it.each([
    ['an anchor', 'a: &x 1'],
    ['a tag', 'a: !GetAtt T.Arn'],
    ['a block scalar', 'a: |\n  text'],
    ['a flow mapping', 'a: {b: 1}'],
    ['a duplicate key', 'a: 1\na: 2'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2'],
  ])('refuses %s with its line', (_, source) => {
    expect(() => parseYaml(source)).toThrow(/^line \d+: /);
  });
});

async function describeTableMadeByTheStore() {
  const dynalite = await startDynalite();
  const client = createDynamoDbClient(dynaliteClientOptions(dynalite.endpoint));
  try {
    await createTestTable(dynalite.endpoint, 'toolgate-shape');
    const { Table } = await client.send('DescribeTable', { TableName: 'toolgate-shape' });
    return { KeySchema: Table?.KeySchema, AttributeDefinitions: Table?.AttributeDefinitions };
  } finally {
    await dynalite.stop();
  }
}

function sortByName(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return [...(list as Array<{ AttributeName: string }>)].sort((a, b) => a.AttributeName.localeCompare(b.AttributeName));
}

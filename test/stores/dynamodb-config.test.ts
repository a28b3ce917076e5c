import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbStoreFromEnv, readDynamoDbEnv } from '../../lib/stores/dynamodb/config.ts';
import { createFreshTable, DYNALITE_CREDENTIALS, startDynalite, type RunningDynalite } from '../support/dynalite.ts';

const base = { TOOLGATE_DYNAMODB_TABLE: 'toolgate', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 'secret' };

describe('readDynamoDbEnv', () => {
  it('reads the table, the region and the key pair', () => {
    expect(readDynamoDbEnv(base)).toEqual({ table: 'toolgate', client: { region: 'eu-west-1', credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'secret' } } });
  });

  it('passes an endpoint override and explicit credentials, session token included', () => {
    const config = readDynamoDbEnv({ ...base, TOOLGATE_DYNAMODB_ENDPOINT: 'http://127.0.0.1:4567', AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
    expect(config.client).toEqual({ region: 'eu-west-1', endpoint: 'http://127.0.0.1:4567', credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'secret', sessionToken: 'token' } });
  });

  it('names a missing variable and how to set it', () => {
    expect(() => readDynamoDbEnv({ AWS_REGION: 'eu-west-1' })).toThrow('TOOLGATE_DYNAMODB_TABLE is not set: set it to the name of the DynamoDB table (serverless.yml creates one), e.g. `export TOOLGATE_DYNAMODB_TABLE=toolgate`');
    expect(() => readDynamoDbEnv({ TOOLGATE_DYNAMODB_TABLE: 'toolgate', AWS_REGION: '  ' })).toThrow(/^AWS_REGION is not set: .*export AWS_REGION=/);
  });

  it('refuses to start without a key pair: there is no credential chain to fall back on', () => {
    const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...noKeys } = base;
    expect(() => readDynamoDbEnv(noKeys)).toThrow(/^AWS_ACCESS_KEY_ID is not set: DynamoDB requests are signed with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY .*npx wrangler secret put AWS_ACCESS_KEY_ID.*toolgate reads no ~\/\.aws files and no instance metadata$/);
    expect(() => readDynamoDbEnv({ ...base, AWS_SECRET_ACCESS_KEY: ' ' })).toThrow(/^AWS_SECRET_ACCESS_KEY is not set: .*Lambda sets all three from the function's role/);
    expect(() => readDynamoDbEnv({ ...noKeys, AWS_SECRET_ACCESS_KEY: 'secret' })).toThrow(/^AWS_ACCESS_KEY_ID is not set/);
  });

  it('refuses an endpoint that is not a URL', () => {
    expect(() => readDynamoDbEnv({ ...base, TOOLGATE_DYNAMODB_ENDPOINT: 'localhost:4567' })).toThrow(/^TOOLGATE_DYNAMODB_ENDPOINT is not an http\(s\) URL: "localhost:4567"/);
  });
});

describe('dynamoDbStoreFromEnv', () => {
  let dynalite: RunningDynalite;
  let table: string;

  beforeAll(async () => {
    dynalite = await startDynalite();
    table = await createFreshTable(dynalite.endpoint);
  });
  afterAll(() => dynalite?.stop());

  it('builds a working store from the environment alone', async () => {
    const store = dynamoDbStoreFromEnv({ TOOLGATE_DYNAMODB_TABLE: table, AWS_REGION: 'us-east-1', TOOLGATE_DYNAMODB_ENDPOINT: dynalite.endpoint, AWS_ACCESS_KEY_ID: DYNALITE_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: DYNALITE_CREDENTIALS.secretAccessKey });
    try {
      expect(store.name).toBe('dynamodb');
      await store.put('from-env', { state: 'ok', expires_at: 0, data: { via: 'env' } });
      expect(await store.get('from-env')).toEqual({ state: 'ok', expires_at: 0, data: { via: 'env' } });
    } finally {
      await store.close();
    }
  });
});

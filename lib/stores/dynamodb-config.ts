import { createDynamoDbClient, type DynamoDbClientOptions } from './dynamodb-client.ts';
import { DynamoDbStore } from './dynamodb.ts';

/** Environment variables or Worker bindings, as the runtime hands them over. */
export type EnvSource = Record<string, string | undefined>;

export interface DynamoDbEnvConfig {
  table: string;
  client: DynamoDbClientOptions;
}

/**
 * Reads the DynamoDB store's settings. Credentials are passed on explicitly when present (Lambda
 * puts its role's keys in the environment; on Workers they are secrets), so the SDK never needs
 * its Node-only credential chain; without them the SDK's default chain is used (Node only).
 */
export function readDynamoDbEnv(env: EnvSource): DynamoDbEnvConfig {
  const table = required(env, 'TOOLGATE_DYNAMODB_TABLE', 'the name of the DynamoDB table (serverless.yml creates one), e.g. `export TOOLGATE_DYNAMODB_TABLE=toolgate`');
  const region = required(env, 'AWS_REGION', 'the region the table lives in, e.g. `export AWS_REGION=eu-west-1` (Lambda sets it for you)');
  const endpoint = endpointOf(env);
  const credentials = credentialsOf(env);
  return { table, client: { region, ...(endpoint ? { endpoint } : {}), ...(credentials ? { credentials } : {}) } };
}

export function dynamoDbStoreFromEnv(env: EnvSource, options: { now?: () => number } = {}): DynamoDbStore {
  const config = readDynamoDbEnv(env);
  return new DynamoDbStore({ client: createDynamoDbClient(config.client), table: config.table, ...options });
}

function endpointOf(env: EnvSource): string | undefined {
  const endpoint = value(env, 'TOOLGATE_DYNAMODB_ENDPOINT');
  if (endpoint === undefined) return undefined;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new Error(`TOOLGATE_DYNAMODB_ENDPOINT is not an http(s) URL: "${endpoint}"; set it to the DynamoDB endpoint to use instead of AWS's, e.g. \`export TOOLGATE_DYNAMODB_ENDPOINT=http://127.0.0.1:4567\` for dynalite, or unset it`);
  }
  return endpoint;
}

function credentialsOf(env: EnvSource): DynamoDbClientOptions['credentials'] {
  const accessKeyId = value(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = value(env, 'AWS_SECRET_ACCESS_KEY');
  if (accessKeyId === undefined && secretAccessKey === undefined) return undefined;
  if (accessKeyId === undefined) throw new Error('AWS_ACCESS_KEY_ID is not set but AWS_SECRET_ACCESS_KEY is: set both (the key pair of an IAM user or role allowed to use the table), or neither to use the default credential chain');
  if (secretAccessKey === undefined) throw new Error('AWS_SECRET_ACCESS_KEY is not set but AWS_ACCESS_KEY_ID is: set both (the key pair of an IAM user or role allowed to use the table), or neither to use the default credential chain');
  const sessionToken = value(env, 'AWS_SESSION_TOKEN');
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

function required(env: EnvSource, name: string, help: string): string {
  const found = value(env, name);
  if (found === undefined) throw new Error(`${name} is not set: set it to ${help}`);
  return found;
}

function value(env: EnvSource, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

import { createDynamoDbClient, type DynamoDbClientOptions } from './client.ts';
import { DynamoDbStore } from './dynamodb-store.ts';

/** Environment variables or Worker bindings, as the runtime hands them over. */
export type EnvSource = Record<string, string | undefined>;

export interface DynamoDbEnvConfig {
  table: string;
  client: DynamoDbClientOptions;
}

/**
 * Reads the DynamoDB store's settings. Credentials always come from the environment (Lambda puts
 * its role's temporary keys there; on Workers they are secrets): there is no credential chain,
 * no ~/.aws files and no instance metadata, so the same code runs on every runtime.
 */
export function readDynamoDbEnv(env: EnvSource): DynamoDbEnvConfig {
  const table = required(env, 'TOOLGATE_DYNAMODB_TABLE', 'the name of the DynamoDB table (serverless.yml creates one), e.g. `export TOOLGATE_DYNAMODB_TABLE=toolgate`');
  const region = required(env, 'AWS_REGION', 'the region the table lives in, e.g. `export AWS_REGION=eu-west-1` (Lambda sets it for you)');
  const endpoint = endpointOf(env);
  return { table, client: { region, ...(endpoint ? { endpoint } : {}), credentials: credentialsOf(env) } };
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
  if (accessKeyId === undefined) throw missingCredential('AWS_ACCESS_KEY_ID');
  if (secretAccessKey === undefined) throw missingCredential('AWS_SECRET_ACCESS_KEY');
  const sessionToken = value(env, 'AWS_SESSION_TOKEN');
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

function missingCredential(name: string): Error {
  return new Error(
    `${name} is not set: DynamoDB requests are signed with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary keys), ` +
      'the key pair of an IAM user or role allowed to use the table, read from the environment only. Lambda sets all three from the function\'s role; ' +
      `on Workers run \`npx wrangler secret put ${name}\`; on Node export them (\`eval "$(aws configure export-credentials --format env)"\` exports a profile's). ` +
      'toolgate reads no ~/.aws files and no instance metadata',
  );
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

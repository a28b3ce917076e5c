import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FetchHttpHandler, streamCollector } from '@smithy/fetch-http-handler';

export interface DynamoDbCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface DynamoDbClientOptions {
  region: string;
  /** Overrides the AWS endpoint, e.g. `http://127.0.0.1:4567` for dynalite. */
  endpoint?: string;
  /** When absent the SDK's default chain is used (Node only: env, files, instance roles). */
  credentials?: DynamoDbCredentials;
  /** Per attempt, until response headers arrive. */
  requestTimeoutMs?: number;
  /** Attempts per request, first included. */
  maxAttempts?: number;
  /** Replaces global fetch (tests count requests with it; Workers may pass a binding's fetch). */
  fetch?: typeof fetch;
}

/**
 * A store that does not answer must fail a dispatch within seconds, not hang it: DynamoDB
 * answers in milliseconds, so one retry with a short timeout is plenty.
 */
export const DYNAMODB_REQUEST_TIMEOUT_MS = 2_000;
export const DYNAMODB_MAX_ATTEMPTS = 2;

/**
 * A DynamoDB client that runs unchanged in Node, Lambda, Deno and workerd: requests go through
 * fetch, and every setting the SDK would otherwise look up in Node-only places (config files,
 * instance metadata) is given explicitly.
 */
export function createDynamoDbClient(options: DynamoDbClientOptions): DynamoDBClient {
  const requestHandler = new FetchHttpHandler({
    requestTimeout: options.requestTimeoutMs ?? DYNAMODB_REQUEST_TIMEOUT_MS,
    ...(options.fetch ? { customFetch: options.fetch } : {}),
  });
  return new DynamoDBClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: options.maxAttempts ?? DYNAMODB_MAX_ATTEMPTS,
    retryMode: 'standard',
    defaultsMode: 'standard',
    useDualstackEndpoint: false,
    useFipsEndpoint: false,
    requestHandler,
    streamCollector,
  });
}

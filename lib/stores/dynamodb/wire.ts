import { decodeBase64, encodeBase64 } from '../../crypto/base64.ts';
import type { CancellationReason } from './types.ts';

/*
 * DynamoDB's JSON protocol: every operation is a POST to `/` with the header
 * `X-Amz-Target: DynamoDB_20120810.<Operation>`, a JSON body of type application/x-amz-json-1.0,
 * and binary attributes (`B`) as base64. An error answers 4xx/5xx with
 * `{"__type": "com.amazonaws.dynamodb.v20120810#<Name>", "message": ...}`.
 */
export const CONTENT_TYPE = 'application/x-amz-json-1.0';
export const TARGET_PREFIX = 'DynamoDB_20120810.';

/** Errors whose request may simply be sent again later (the AWS SDKs' throttling list, DynamoDB's part). */
const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException', 'LimitExceededException']);

/** A request DynamoDB refused, or that got no usable answer. */
export class DynamoDbError extends Error {
  /** The HTTP status of DynamoDB's answer; 0 when none arrived (network error, timeout). */
  readonly status: number;
  /** How many times the request was sent: more than 1 means an earlier send may have been applied. */
  readonly attempts: number;
  /** Whether sending the same request again may succeed (throttling, 5xx, network, timeout). */
  readonly retryable: boolean;
  /** TransactionCanceledException only: one reason per write, as DynamoDB sends them. */
  readonly CancellationReasons?: CancellationReason[];

  constructor(fields: { name: string; message: string; status: number; attempts: number; retryable: boolean; cancellationReasons?: CancellationReason[]; cause?: unknown }) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = fields.name;
    this.status = fields.status;
    this.attempts = fields.attempts;
    this.retryable = fields.retryable;
    if (fields.cancellationReasons) this.CancellationReasons = fields.cancellationReasons;
  }
}

/** The request body: Uint8Array attributes become base64, as the protocol wants. */
export function encodeRequest(input: unknown): string {
  return JSON.stringify(input, (_key, value: unknown) => (value instanceof Uint8Array ? encodeBase64(value) : value));
}

/** A successful answer's body, binary attributes back to bytes. */
export function decodeAnswer(text: string): unknown {
  if (text.trim() === '') return {};
  return JSON.parse(text, (key, value: unknown) => (key === 'B' && typeof value === 'string' ? decodeBase64(value) : value));
}

/** The error an answer that is not 200 stands for, named after its `__type` (or the x-amzn-ErrorType header). */
export function answerError(operation: string, answer: { status: number; headers: Headers; text: string }, attempts: number): DynamoDbError {
  const body = parsedObject(answer.text);
  const type = typeof body.__type === 'string' ? body.__type : (answer.headers.get('x-amzn-errortype') ?? '').split(':')[0];
  const name = type.split('#').at(-1) || (answer.status >= 500 ? 'InternalServerError' : `HTTP${answer.status}`);
  const detail = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : answer.text.slice(0, 200);
  const reasons = Array.isArray(body.CancellationReasons) ? (body.CancellationReasons as CancellationReason[]) : undefined;
  return new DynamoDbError({
    name,
    message: `${operation} failed with ${name} (HTTP ${answer.status})${detail ? `: ${detail}` : ''}`,
    status: answer.status,
    attempts,
    retryable: answer.status >= 500 || answer.status === 429 || THROTTLING.has(name),
    ...(reasons ? { cancellationReasons: reasons } : {}),
  });
}

function parsedObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

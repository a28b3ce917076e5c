import { DynamoDbError, type DynamoDbClient } from './client.ts';
import type { CancellationReason, Condition, Delete, Item, Put, QueryInput, QueryOutput } from './types.ts';
import { StoreUnavailableError } from '../store.ts';

export type { Condition, Item };

/** What every item operation needs. */
export interface DynamoDbContext {
  readonly client: DynamoDbClient;
  readonly table: string;
  /** The clock expiry is compared against (ms since epoch). */
  readonly now: () => number;
  /** Budget for one call, client retries included. */
  readonly deadlineMs: number;
}

/** A conditional write in the shape TransactWriteItems takes, so it can go alone or in a transaction. */
export type ConditionalWrite = { Put: Put; Delete?: never } | { Delete: Delete; Put?: never };

const CONFLICT_ATTEMPTS = 4;

/**
 * Sends one request within the context's deadline. A failed condition is an answer and is
 * rethrown as it is; a transaction conflict (another transaction held one of the items, nothing
 * was applied) is retried after a short jittered pause; anything else means the store cannot
 * serve us and becomes StoreUnavailableError.
 */
export async function call<T>(ctx: DynamoDbContext, request: (options: { abortSignal: AbortSignal }) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request({ abortSignal: AbortSignal.timeout(ctx.deadlineMs) });
    } catch (error) {
      if (isConflict(error) && attempt < CONFLICT_ATTEMPTS) {
        await pause(attempt);
        continue;
      }
      if (isConditionFailure(error)) throw error;
      throw new StoreUnavailableError('dynamodb', error);
    }
  }
}

/**
 * Applies one write. `written: false` means its condition did not hold; `resent` means the client
 * sent it more than once (an answer was lost), so the failed condition may have met our own
 * first attempt.
 */
export async function writeOne(ctx: DynamoDbContext, write: ConditionalWrite): Promise<{ written: boolean; resent: boolean }> {
  try {
    await call(ctx, (options) => (write.Put ? ctx.client.send('PutItem', write.Put, options) : ctx.client.send('DeleteItem', write.Delete, options)));
    return { written: true, resent: false };
  } catch (error) {
    if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
    return { written: false, resent: error instanceof DynamoDbError && error.attempts > 1 };
  }
}

/** Applies all writes or none; on a failed condition returns one reason per write (`None` where it held). */
export async function transact(ctx: DynamoDbContext, writes: ConditionalWrite[]): Promise<CancellationReason[] | undefined> {
  try {
    await call(ctx, (options) => ctx.client.send('TransactWriteItems', { TransactItems: writes }, options));
    return undefined;
  } catch (error) {
    if (errorName(error) === 'TransactionCanceledException') return cancellationReasons(error);
    throw error;
  }
}

/** A strongly consistent read: a condition that just failed must be explained by what is there now. */
export async function readItem(ctx: DynamoDbContext, key: Item): Promise<Item | undefined> {
  const output = await call(ctx, (options) => ctx.client.send('GetItem', { TableName: ctx.table, Key: key, ConsistentRead: true }, options));
  return output.Item;
}

export function query(ctx: DynamoDbContext, input: Omit<QueryInput, 'TableName' | 'ConsistentRead'>): Promise<QueryOutput> {
  return call(ctx, (options) => ctx.client.send('Query', { ...input, TableName: ctx.table, ConsistentRead: true }, options));
}

/** Whether a transaction's write held its own condition (DynamoDB reports `None` for those). */
export function held(reason: CancellationReason | undefined): boolean {
  return reason !== undefined && (reason.Code === undefined || reason.Code === 'None');
}

function isConditionFailure(error: unknown): boolean {
  const name = errorName(error);
  if (name === 'ConditionalCheckFailedException') return true;
  if (name !== 'TransactionCanceledException') return false;
  const reasons = cancellationReasons(error);
  return reasons.length > 0 && reasons.every((r) => held(r) || r.Code === 'ConditionalCheckFailed');
}

function isConflict(error: unknown): boolean {
  const name = errorName(error);
  if (name === 'TransactionConflictException') return true;
  return name === 'TransactionCanceledException' && cancellationReasons(error).some((r) => r.Code === 'TransactionConflict');
}

function cancellationReasons(error: unknown): CancellationReason[] {
  const reasons = (error as { CancellationReasons?: unknown }).CancellationReasons;
  return Array.isArray(reasons) ? (reasons as CancellationReason[]) : [];
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
}

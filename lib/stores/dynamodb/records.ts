import type { AttributeValue } from './types.ts';
import { recordFromItem, recordItem, recordKey } from './items.ts';
import { readItem, writeOne, type Condition, type ConditionalWrite, type DynamoDbContext } from './requests.ts';
import { isLive, StoreUnavailableError, type ClaimOutcome, type StateRecord, type TransitionExpectation, type TransitionOutcome } from '../store.ts';

/*
 * Records follow Powertools' idempotency layer: a claim is a PutItem conditional on there being
 * no live record, a transition a PutItem conditional on state/owner/expiry, a remove a
 * conditional DeleteItem. Expiry is compared with the injected clock inside the condition, so
 * correctness never waits for DynamoDB's lazy TTL sweep. When a condition fails we read the
 * item (consistently) instead of relying on ReturnValuesOnConditionCheckFailure, which not
 * every DynamoDB implementation honours.
 */
const CLAIM_ATTEMPTS = 3;

const NAMES = { '#pk': 'pk', '#state': 'state', '#owner': 'owner', '#expires_at': 'expires_at', '#claimable_after': 'claimable_after' };

export async function claimWrite(ctx: DynamoDbContext, key: string, record: StateRecord): Promise<ConditionalWrite> {
  return {
    Put: {
      TableName: ctx.table,
      Item: await recordItem(key, record),
      ConditionExpression: 'attribute_not_exists(#pk) OR (#expires_at <> :zero AND #expires_at <= :now) OR #claimable_after <= :now',
      ExpressionAttributeNames: pick(NAMES, '#pk', '#expires_at', '#claimable_after'),
      ExpressionAttributeValues: { ':zero': { N: '0' }, ':now': { N: String(ctx.now()) } },
    },
  };
}

/** Replaces (or with `next: null` deletes) the record when `expect` holds. */
export async function changeWrite(ctx: DynamoDbContext, key: string, expect: TransitionExpectation, next: StateRecord | null): Promise<ConditionalWrite> {
  const condition = expectation(ctx, expect);
  if (next === null) return { Delete: { TableName: ctx.table, Key: recordKey(key), ...condition } };
  return { Put: { TableName: ctx.table, Item: await recordItem(key, next), ...condition } };
}

export async function claimRecord(ctx: DynamoDbContext, key: string, record: StateRecord): Promise<ClaimOutcome> {
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const { written, resent } = await writeOne(ctx, await claimWrite(ctx, key, record));
    if (written) return { claimed: true };
    const existing = await readRecord(ctx, key);
    if (resent && isOwnWrite(existing, record)) return { claimed: true };
    // The record that beat us can be gone or dead by the time we read it: then claim again.
    if (existing && isLive(existing, ctx.now())) return { claimed: false, existing };
  }
  throw new StoreUnavailableError('dynamodb', new Error(`the claim of "${key}" kept failing its condition although no live record was there`));
}

export async function changeRecord(ctx: DynamoDbContext, key: string, expect: TransitionExpectation, next: StateRecord | null): Promise<TransitionOutcome> {
  const { written, resent } = await writeOne(ctx, await changeWrite(ctx, key, expect, next));
  if (written) return { ok: true };
  const current = await liveRecord(ctx, key);
  if (resent && next !== null && expect.owner !== undefined && isOwnWrite(current, next)) return { ok: true };
  return { ok: false, current };
}

/** The outcome of a change whose condition failed: the record as it is now. */
export async function failedChange(ctx: DynamoDbContext, key: string): Promise<TransitionOutcome> {
  return { ok: false, current: await liveRecord(ctx, key) };
}

export async function putRecord(ctx: DynamoDbContext, key: string, record: StateRecord): Promise<void> {
  await writeOne(ctx, { Put: { TableName: ctx.table, Item: await recordItem(key, record) } });
}

export async function removeRecord(ctx: DynamoDbContext, key: string, expect: TransitionExpectation): Promise<boolean> {
  return (await writeOne(ctx, await changeWrite(ctx, key, expect, null))).written;
}

/** The record unless it expired (a dead item may linger until DynamoDB's TTL sweep). */
export async function liveRecord(ctx: DynamoDbContext, key: string): Promise<StateRecord | undefined> {
  const record = await readRecord(ctx, key);
  return record && (record.expires_at === 0 || record.expires_at > ctx.now()) ? record : undefined;
}

async function readRecord(ctx: DynamoDbContext, key: string): Promise<StateRecord | undefined> {
  const item = await readItem(ctx, recordKey(key));
  return item ? recordFromItem(item) : undefined;
}

/**
 * The client resends a write whose answer was lost (a timeout, a dropped connection); if the first
 * send was applied, the resend fails its condition against our own write. An owner is a lease
 * id only its holder writes, so after a resend, finding exactly the record we wrote, owner
 * included, means the write is ours and succeeded.
 */
function isOwnWrite(current: StateRecord | undefined, written: StateRecord): boolean {
  if (current === undefined || written.owner === undefined || current.owner !== written.owner) return false;
  return current.state === written.state && current.expires_at === written.expires_at && current.claimable_after === written.claimable_after && JSON.stringify(current.data) === JSON.stringify(written.data);
}

function expectation(ctx: DynamoDbContext, expect: TransitionExpectation): Condition {
  const states = Array.isArray(expect.state) ? expect.state : [expect.state];
  const values: Record<string, AttributeValue> = { ':zero': { N: '0' }, ':now': { N: String(ctx.now()) } };
  states.forEach((state, i) => (values[`:state${i}`] = { S: state }));
  // No expected state can match anything; `IN ()` is not valid syntax.
  const inStates = states.length > 0 ? `#state IN (${states.map((_, i) => `:state${i}`).join(', ')})` : 'attribute_not_exists(#pk)';
  let condition = `attribute_exists(#pk) AND ${inStates} AND (#expires_at = :zero OR #expires_at > :now)`;
  if (expect.owner !== undefined) {
    values[':owner'] = { S: expect.owner };
    condition += ' AND #owner = :owner';
  }
  const names = pick(NAMES, '#pk', '#expires_at', ...(states.length > 0 ? ['#state'] : []), ...(expect.owner !== undefined ? ['#owner'] : []));
  return { ConditionExpression: condition, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/** DynamoDB rejects expression names that the expression does not use. */
function pick(names: Record<string, string>, ...keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, names[k]]));
}

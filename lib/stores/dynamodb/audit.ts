import { auditPartition, envelopeSortKey, headKey, LAST_ENVELOPE_SORT_KEY, numberAttribute, stringAttribute } from './items.ts';
import { decodeJson, encodeJson } from './json.ts';
import { query, readItem, transact, type Condition, type ConditionalWrite, type DynamoDbContext, type Item } from './requests.ts';
import { headMatches, StoreUnavailableError, type AppendOutcome, type AppendRequest, type AuditHead, type AuditPage, type StoredEnvelope, type ThreadRef } from '../store.ts';
import { checkPageLimit } from '../page-limit.ts';

/*
 * A thread's chain is one partition: a head item (seq and hash of the last envelope) and one item
 * per envelope, sorted by zero-padded seq. An append is one TransactWriteItems: the head moves
 * only from the expected position, and every envelope lands only on a free one, so racing
 * appends cannot fork or overwrite the chain.
 */
export const MAX_TRANSACTION_WRITES = 100;

export async function readHead(ctx: DynamoDbContext, thread: ThreadRef): Promise<AuditHead | null> {
  const item = await readItem(ctx, headKey(thread));
  if (!item) return null;
  const what = `audit head of thread "${thread.thread_id}"`;
  return { seq: numberAttribute(item, 'seq', what), hash: stringAttribute(item, 'hash', what) };
}

/** `reserved` counts writes sent in the same transaction (a record change). */
export async function appendWrites(ctx: DynamoDbContext, request: AppendRequest, reserved = 0): Promise<ConditionalWrite[]> {
  const { thread, envelopes } = request;
  if (envelopes.length + 1 + reserved > MAX_TRANSACTION_WRITES) {
    throw new Error(`cannot append ${envelopes.length} audit envelopes at once to DynamoDB: a transaction holds at most ${MAX_TRANSACTION_WRITES} writes; append in smaller batches`);
  }
  const pk = auditPartition(thread);
  const next = appendedHead(request) as AuditHead;
  const head: ConditionalWrite = { Put: { TableName: ctx.table, Item: { pk: { S: pk }, sk: { S: 'head' }, seq: { N: String(next.seq) }, hash: { S: next.hash } }, ...headCondition(request.expected) } };
  const items = await Promise.all(envelopes.map((envelope) => envelopeWrite(ctx, pk, thread, envelope)));
  return [head, ...items];
}

/** The head once the append is applied. */
export function appendedHead(request: AppendRequest): AuditHead | null {
  const last = request.envelopes.at(-1);
  return last ? { seq: last.seq, hash: last.hash } : request.expected;
}

export async function appendEnvelopes(ctx: DynamoDbContext, request: AppendRequest): Promise<AppendOutcome> {
  if (request.envelopes.length === 0) {
    // Nothing to write: the append holds exactly when the head is where the caller expects.
    const head = await readHead(ctx, request.thread);
    return (headMatches(head, request.expected) ? { ok: true, head } : { ok: false, head }) as AppendOutcome;
  }
  const reasons = await transact(ctx, await appendWrites(ctx, request));
  return reasons ? failedAppend(ctx, request.thread) : ({ ok: true, head: appendedHead(request) } as AppendOutcome);
}

/** The outcome of an append whose condition failed: the head as it is now, to chain onto. */
export async function failedAppend(ctx: DynamoDbContext, thread: ThreadRef): Promise<AppendOutcome> {
  return { ok: false, head: await readHead(ctx, thread) };
}

export async function listEnvelopes(ctx: DynamoDbContext, thread: ThreadRef, page: { after_seq?: number; limit: number }): Promise<AuditPage> {
  checkPageLimit(page.limit, 'listAudit');
  // One item more than asked tells whether another page exists without a second request.
  const output = await query(ctx, {
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: { ':pk': { S: auditPartition(thread) }, ':from': { S: envelopeSortKey((page.after_seq ?? 0) + 1) }, ':to': { S: LAST_ENVELOPE_SORT_KEY } },
    Limit: page.limit + 1,
  });
  const items = output.Items ?? [];
  const envelopes = await Promise.all(items.slice(0, page.limit).map((item) => envelopeFromItem(item, thread)));
  // LastEvaluatedKey with fewer items means DynamoDB cut the page at 1 MB: more may follow.
  const more = items.length > page.limit || output.LastEvaluatedKey !== undefined;
  const last = envelopes.at(-1);
  return { envelopes, ...(more && last ? { next_after_seq: last.seq } : {}) };
}

function headCondition(expected: AuditHead | null): Condition {
  if (expected === null) return { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } };
  return {
    ConditionExpression: '#seq = :seq AND #hash = :hash',
    ExpressionAttributeNames: { '#seq': 'seq', '#hash': 'hash' },
    ExpressionAttributeValues: { ':seq': { N: String(expected.seq) }, ':hash': { S: expected.hash } },
  };
}

async function envelopeWrite(ctx: DynamoDbContext, pk: string, thread: ThreadRef, envelope: StoredEnvelope): Promise<ConditionalWrite> {
  const body = await encodeJson(envelope, `audit envelope ${envelope.seq} of thread "${thread.thread_id}"`);
  return {
    Put: {
      TableName: ctx.table,
      Item: { pk: { S: pk }, sk: { S: envelopeSortKey(envelope.seq) }, seq: { N: String(envelope.seq) }, body },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
    },
  };
}

async function envelopeFromItem(item: Item, thread: ThreadRef): Promise<StoredEnvelope> {
  const what = `audit envelope item "${item.sk?.S}" of thread "${thread.thread_id}"`;
  const envelope = await decodeJson(item.body, what);
  if (typeof envelope !== 'object' || envelope === null || typeof (envelope as StoredEnvelope).seq !== 'number') {
    throw new StoreUnavailableError('dynamodb', new Error(`${what} is not an envelope`));
  }
  return envelope as StoredEnvelope;
}

import { indexPartition, sortKey, stringAttribute } from './items.ts';
import { query, readItem, transact, type Condition, type ConditionalWrite, type DynamoDbContext, type Item } from './requests.ts';
import { StoreUnavailableError } from '../store.ts';
import { checkPageLimit } from '../page-limit.ts';

/*
 * An ordered index is one partition holding, per member, an entry item whose sort key is the
 * score (fixed-width, order-preserving hex) followed by the member, so a Query lists members by
 * score; and a member item remembering the member's current score, so that re-scoring can delete
 * the old entry. Both change in one transaction, conditional on the score read before, so
 * concurrent re-scorings never leave a member listed twice.
 */
const RESCORE_ATTEMPTS = 5;
const SIGN = 1n << 63n;
const ALL_BITS = (1n << 64n) - 1n;

export async function addIndexMember(ctx: DynamoDbContext, index: string, member: string, score: number): Promise<void> {
  if (Number.isNaN(score)) throw new Error(`the score of "${member}" in index "${index}" must be a number, got NaN`);
  const pk = indexPartition(index);
  const memberKey: Item = { pk: { S: pk }, sk: { S: sortKey(`member#${member}`, `index member "${member}"`) } };
  const next = scoreKey(score);
  for (let attempt = 0; attempt < RESCORE_ATTEMPTS; attempt++) {
    const current = (await readItem(ctx, memberKey))?.score?.S;
    if (current === next) return;
    const writes: ConditionalWrite[] = [
      { Put: { TableName: ctx.table, Item: { ...memberKey, member: { S: member }, score: { S: next } }, ...unchangedScore(current) } },
      ...(current !== undefined ? [{ Delete: { TableName: ctx.table, Key: entryKey(pk, current, member) } }] : []),
      { Put: { TableName: ctx.table, Item: { ...entryKey(pk, next, member), member: { S: member } } } },
    ];
    if ((await transact(ctx, writes)) === undefined) return;
  }
  throw new StoreUnavailableError('dynamodb', new Error(`re-scoring "${member}" in index "${index}" lost ${RESCORE_ATTEMPTS} races in a row`));
}

/** Deletes the member item and its entry together, conditional on the score read, so a concurrent re-scoring is not half undone. */
export async function removeIndexMember(ctx: DynamoDbContext, index: string, member: string): Promise<void> {
  const pk = indexPartition(index);
  const memberKey: Item = { pk: { S: pk }, sk: { S: sortKey(`member#${member}`, `index member "${member}"`) } };
  for (let attempt = 0; attempt < RESCORE_ATTEMPTS; attempt++) {
    const current = (await readItem(ctx, memberKey))?.score?.S;
    if (current === undefined) return;
    const writes: ConditionalWrite[] = [
      { Delete: { TableName: ctx.table, Key: memberKey, ...unchangedScore(current) } },
      { Delete: { TableName: ctx.table, Key: entryKey(pk, current, member) } },
    ];
    if ((await transact(ctx, writes)) === undefined) return;
  }
  throw new StoreUnavailableError('dynamodb', new Error(`removing "${member}" from index "${index}" lost ${RESCORE_ATTEMPTS} races in a row`));
}

export async function listIndexMembers(ctx: DynamoDbContext, index: string, page: { after_score?: number; limit: number }): Promise<Array<{ member: string; score: number }>> {
  checkPageLimit(page.limit, 'listIndex');
  const members: Array<{ member: string; score: number }> = [];
  // `$` sorts right after `#`, so `score#<after>$` is past every entry with the score `after`.
  const from = page.after_score === undefined ? 'score#' : `score#${scoreKey(page.after_score)}$`;
  let start: Item | undefined;
  while (members.length < page.limit) {
    const output = await query(ctx, {
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': { S: indexPartition(index) }, ':from': { S: from }, ':to': { S: 'score$' } },
      Limit: page.limit - members.length,
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    for (const item of output.Items ?? []) members.push(entryFromItem(item));
    start = output.LastEvaluatedKey;
    if (!start) break;
  }
  return members;
}

/** 64 bits of the IEEE 754 double, flipped so that string order is numeric order (negatives included). */
export function scoreKey(score: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, score === 0 ? 0 : score);
  const bits = view.getBigUint64(0);
  return (bits & SIGN ? ~bits & ALL_BITS : bits | SIGN).toString(16).padStart(16, '0');
}

export function scoreFromKey(key: string): number {
  const ordered = BigInt(`0x${key}`);
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, ordered & SIGN ? ordered ^ SIGN : ~ordered & ALL_BITS);
  return view.getFloat64(0);
}

function entryKey(pk: string, score: string, member: string): Item {
  return { pk: { S: pk }, sk: { S: sortKey(`score#${score}#${member}`, `index member "${member}"`) } };
}

function unchangedScore(current: string | undefined): Condition {
  if (current === undefined) return { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } };
  return { ConditionExpression: '#score = :score', ExpressionAttributeNames: { '#score': 'score' }, ExpressionAttributeValues: { ':score': { S: current } } };
}

function entryFromItem(item: Item): { member: string; score: number } {
  const sk = stringAttribute(item, 'sk', 'index entry');
  return { member: stringAttribute(item, 'member', `index entry "${sk}"`), score: scoreFromKey(sk.slice('score#'.length, 'score#'.length + 16)) };
}

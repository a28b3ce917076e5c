import { limitKey } from './items.ts';
import { call, readItem, type DynamoDbContext, type Item } from './requests.ts';
import type { Update } from './types.ts';
import { windowBound, windowLifeMs, windowStartOf, type LimitCounters } from '../limit-counters.ts';

/*
 * Limit counters as DynamoDB conditional updates, no read-modify-write retries on the hot path:
 *   window  one item per window (sk window#<start>): `ADD n :w` on condition `n <= :bound`,
 *           where bound = windowBound (lib/limits/counters.ts) from the previous window's count,
 *           read first (consistently) for a sliding window; that window is over, so its count
 *           no longer grows.
 *   leases  one item (sk leases) with a map lease id → expiry: `SET leases.#id` on condition
 *           `size(leases) < :max`. Expired leases still fill the map until someone removes them:
 *           a refused take removes the expired ones it saw (each on condition that it is still
 *           the same lease) and tries again.
 * `ttl` only lets DynamoDB sweep old items; conditions never depend on it.
 */
const LEASE_ATTEMPTS = 4;
const TTL_GRACE_S = 86_400;

export function dynamoDbLimitCounters(ctx: DynamoDbContext): LimitCounters {
  const windowKey = (key: string, start: number): Item => limitKey(key, `window#${start}`);
  const countOf = async (key: string, start: number): Promise<number> => Number((await readItem(ctx, windowKey(key, start)))?.n?.N ?? 0);
  return {
    async addToWindow(key, now, spec, weight) {
      const start = windowStartOf(now, spec.window_ms);
      const previous = spec.sliding ? await countOf(key, start - spec.window_ms) : 0;
      const bound = windowBound({ window_start: start, current: 0, previous }, now, spec, weight);
      // Below zero not even an empty window admits the call: the condition's "no item yet" would.
      const admitted = bound >= 0 && (await conditionalUpdate(ctx, {
        Key: windowKey(key, start),
        UpdateExpression: 'ADD #n :w SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#n) OR #n <= :bound',
        ExpressionAttributeNames: { '#n': 'n', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':w': { N: String(weight) },
          ':bound': { N: String(bound) },
          ':ttl': { N: String(Math.ceil((start + windowLifeMs(spec)) / 1000) + TTL_GRACE_S) },
        },
      }));
      if (admitted) return { ok: true, window_start: start };
      return { ok: false, state: { window_start: start, current: await countOf(key, start), previous } };
    },
    async subtractFromWindow(key, windowStart, _spec, weight) {
      await conditionalUpdate(ctx, {
        Key: windowKey(key, windowStart),
        UpdateExpression: 'ADD #n :minus',
        ConditionExpression: '#n >= :w',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':minus': { N: String(-weight) }, ':w': { N: String(weight) } },
      });
    },
    async addLease(key, now, max, lease, until) {
      for (let attempt = 0; attempt < LEASE_ATTEMPTS; attempt++) {
        const ttl = { N: String(Math.ceil(until / 1000) + TTL_GRACE_S) };
        const added = await conditionalUpdate(ctx, {
          Key: limitKey(key, 'leases'),
          UpdateExpression: 'SET #leases.#id = :until, #ttl = :ttl',
          ConditionExpression: 'attribute_exists(#leases) AND size(#leases) < :max',
          ExpressionAttributeNames: { '#leases': 'leases', '#id': lease, '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':until': { N: String(until) }, ':max': { N: String(max) }, ':ttl': ttl },
        });
        if (added) return { ok: true };
        const leases = (await readItem(ctx, limitKey(key, 'leases')))?.leases?.M;
        if (!leases) {
          if (await firstLease(ctx, key, lease, until, ttl)) return { ok: true };
          continue;
        }
        const expired = Object.entries(leases).filter(([, value]) => Number(value.N) <= now);
        if (expired.length === 0) return { ok: false, used: Object.keys(leases).length };
        await removeExpired(ctx, key, expired);
      }
      throw new Error(`the leases of limit ${key} kept changing for ${LEASE_ATTEMPTS} attempts`);
    },
    async removeLease(key, lease) {
      await conditionalUpdate(ctx, {
        Key: limitKey(key, 'leases'),
        UpdateExpression: 'REMOVE #leases.#id',
        ConditionExpression: 'attribute_exists(#leases)',
        ExpressionAttributeNames: { '#leases': 'leases', '#id': lease },
      });
    },
  };
}

/** The lease item's first write: only if nobody made it meanwhile. */
async function firstLease(ctx: DynamoDbContext, key: string, lease: string, until: number, ttl: { N: string }): Promise<boolean> {
  try {
    await call(ctx, (options) =>
      ctx.client.send('PutItem', { TableName: ctx.table, Item: { ...limitKey(key, 'leases'), leases: { M: { [lease]: { N: String(until) } } }, ttl }, ConditionExpression: 'attribute_not_exists(pk)' }, options),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Removes leases seen expired, each only if it still holds the expiry that was seen. */
async function removeExpired(ctx: DynamoDbContext, key: string, expired: Array<[string, { N?: string }]>): Promise<void> {
  const names: Record<string, string> = { '#leases': 'leases' };
  const values: Record<string, { N: string }> = {};
  expired.forEach(([id, value], i) => {
    names[`#e${i}`] = id;
    values[`:e${i}`] = { N: value.N ?? '0' };
  });
  await conditionalUpdate(ctx, {
    Key: limitKey(key, 'leases'),
    UpdateExpression: `REMOVE ${expired.map((_, i) => `#leases.#e${i}`).join(', ')}`,
    ConditionExpression: expired.map((_, i) => `#leases.#e${i} = :e${i}`).join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/** An UpdateItem whose failed condition is an answer (false), not an error. */
async function conditionalUpdate(ctx: DynamoDbContext, input: Omit<Update, 'TableName'>): Promise<boolean> {
  try {
    await call(ctx, (options) => ctx.client.send('UpdateItem', { ...input, TableName: ctx.table }, options));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

const isConditionFailure = (error: unknown) => error instanceof Error && error.name === 'ConditionalCheckFailedException';

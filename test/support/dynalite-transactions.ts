import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { readBody } from '../../scripts/dev/read-body.ts';

/*
 * dynalite (4.0.0) does not implement TransactWriteItems, which the DynamoDB store needs for
 * audit appends, commits and index re-scoring. This adds it in front of dynalite's own request
 * handler, built only from dynalite's own operations so that every condition is still evaluated
 * by dynalite:
 * - a transaction runs alone: it takes an exclusive lock, every other request a shared one, so
 *   nothing interleaves with it (as DynamoDB's serializable isolation promises);
 * - each write is applied with its own condition, after reading the item's old image; a
 *   ConditionCheck is a conditional DeleteItem that is always undone;
 * - if any condition failed, every applied write is undone from its old image and the client
 *   gets TransactionCanceledException with one CancellationReason per write, as DynamoDB sends.
 * Conflicts between transactions (TransactionConflict) never happen here: they are serialised.
 */

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json };
type Undo = { table: string; key: Json; before: Json | undefined };
type Call = (operation: string, body: Json) => Promise<Answer>;

const INTERNAL_HEADER = 'x-toolgate-dynalite-internal';
const OPERATIONS: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'DeleteItem' };

/** Installs the transaction layer on a dynalite server listening at `endpoint`. */
export function addTransactWriteItems(server: Server, endpoint: string): void {
  const [dynalite] = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  const lock = new ReadWriteLock();
  const call = internalCaller(endpoint);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers[INTERNAL_HEADER]) return void dynalite(req, res);
    if (String(req.headers['x-amz-target']).endsWith('.TransactWriteItems')) return void lock.exclusive(() => transactWriteItems(req, res, call).catch((error) => failed(res, error)));
    void lock.shared(() => new Promise<void>((resolve) => {
      res.on('close', resolve);
      dynalite(req, res);
    }));
  });
}

async function transactWriteItems(req: IncomingMessage, res: ServerResponse, call: Call): Promise<void> {
  const request = JSON.parse(await readBody(req)) as { TransactItems?: Array<Record<string, Json>> };
  const items = request.TransactItems ?? [];
  if (items.length === 0 || items.length > 100) return send(res, validation('TransactItems must hold 1 to 100 actions'));
  const keys = new KeySchemas(call);
  const seen = new Set<string>();
  const undo: Undo[] = [];
  const reasons: Json[] = [];
  for (const item of items) {
    const [kind, op] = Object.entries(item)[0];
    const table = String(op.TableName);
    const key = (op.Key as Json | undefined) ?? (await keys.keyOf(table, op.Item as Json));
    const id = `${table}\n${JSON.stringify(key)}`;
    if (seen.has(id)) return send(res, await rolledBack(call, undo, validation('Transaction request cannot include multiple operations on one item')));
    seen.add(id);
    const before = (await call('GetItem', { TableName: table, Key: key, ConsistentRead: true })).body.Item as Json | undefined;
    const answer = await call(OPERATIONS[kind], kind === 'ConditionCheck' ? { TableName: table, Key: key, ConditionExpression: op.ConditionExpression, ExpressionAttributeNames: op.ExpressionAttributeNames, ExpressionAttributeValues: op.ExpressionAttributeValues } : op);
    if (answer.status === 200) {
      undo.push({ table, key, before });
      reasons.push({ Code: 'None' });
    } else if (String(answer.body.__type).endsWith('#ConditionalCheckFailedException')) {
      reasons.push({ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', ...(op.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && before ? { Item: before } : {}) });
    } else {
      return send(res, await rolledBack(call, undo, answer));
    }
    // A ConditionCheck only checks: undo its delete whatever the outcome of the transaction.
    if (kind === 'ConditionCheck' && answer.status === 200) await restore(call, undo.pop() as Undo);
  }
  if (reasons.every((r) => r.Code === 'None')) return send(res, { status: 200, body: {} });
  const codes = reasons.map((r) => r.Code).join(', ');
  send(res, await rolledBack(call, undo, { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException', Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`, CancellationReasons: reasons } }));
}

async function rolledBack(call: Call, undo: Undo[], answer: Answer): Promise<Answer> {
  for (const step of undo.reverse()) await restore(call, step);
  return answer;
}

async function restore(call: Call, { table, key, before }: Undo): Promise<void> {
  const answer = before ? await call('PutItem', { TableName: table, Item: before }) : await call('DeleteItem', { TableName: table, Key: key });
  if (answer.status !== 200) throw new Error(`dynalite transaction layer could not undo a write: ${JSON.stringify(answer.body)}`);
}

/** Key attribute names per table, for Put actions (which carry the whole item, not the key). */
class KeySchemas {
  readonly #call: Call;
  readonly #names = new Map<string, string[]>();

  constructor(call: Call) {
    this.#call = call;
  }

  async keyOf(table: string, item: Json): Promise<Json> {
    let names = this.#names.get(table);
    if (!names) {
      const described = (await this.#call('DescribeTable', { TableName: table })).body as { Table?: { KeySchema?: Array<{ AttributeName: string }> } };
      names = (described.Table?.KeySchema ?? []).map((k) => k.AttributeName);
      this.#names.set(table, names);
    }
    return Object.fromEntries(names.map((name) => [name, item[name]]));
  }
}

/** Requests to dynalite itself that skip the lock (the transaction holding it makes them). */
function internalCaller(endpoint: string): Call {
  return async (operation, body) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
        'x-amz-date': '20250101T000000Z',
        authorization: 'AWS4-HMAC-SHA256 Credential=internal/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=internal',
        [INTERNAL_HEADER]: '1',
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
}

function failed(res: ServerResponse, error: unknown): void {
  if (res.headersSent) return void res.destroy();
  send(res, { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: `dynalite transaction layer failed: ${String(error)}` } });
}

function validation(message: string): Answer {
  return { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message } };
}

function send(res: ServerResponse, { status, body }: Answer): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(text), 'x-amzn-requestid': crypto.randomUUID() });
  res.end(text);
}

/** Many readers or one writer; a waiting writer holds off new readers so it cannot starve. */
class ReadWriteLock {
  #readers = 0;
  #writing = false;
  #writersWaiting = 0;
  #wakeups: Array<() => void> = [];

  async shared(run: () => Promise<void>): Promise<void> {
    while (this.#writing || this.#writersWaiting > 0) await this.#wait();
    this.#readers++;
    try {
      await run();
    } finally {
      this.#readers--;
      this.#wake();
    }
  }

  async exclusive(run: () => Promise<void>): Promise<void> {
    this.#writersWaiting++;
    while (this.#writing || this.#readers > 0) await this.#wait();
    this.#writersWaiting--;
    this.#writing = true;
    try {
      await run();
    } finally {
      this.#writing = false;
      this.#wake();
    }
  }

  #wait(): Promise<void> {
    return new Promise((resolve) => this.#wakeups.push(resolve));
  }

  #wake(): void {
    const wakeups = this.#wakeups;
    this.#wakeups = [];
    for (const wake of wakeups) wake();
  }
}

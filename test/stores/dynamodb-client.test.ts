/*
 * The DynamoDB client itself: its signature checked against AWS's published SigV4 test vectors
 * and an independent computation (dynalite accepts any signature, so it proves nothing there),
 * DynamoDB's error answers mapped to named errors, what is retried and what never is, and the
 * per-attempt timeout. Servers are real, on 127.0.0.1: dynalite, and a small HTTP server
 * answering as DynamoDB does where dynalite cannot (throttling, 5xx, silence).
 */
import { createHash, createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient, DynamoDbError, type DynamoDbClientOptions } from '../../lib/stores/dynamodb/client.ts';
import { signAwsRequest } from '../../lib/stores/dynamodb/signing.ts';
import { closedPort, startTestServer, type RecordedRequest, type TestServer } from '../helpers/http-server.ts';
import { createFreshTable, DYNALITE_CREDENTIALS, dynaliteClientOptions, startDynalite, type RunningDynalite } from '../support/dynalite.ts';

/** The credentials and scope of AWS's SigV4 test suite (aws-c-auth tests/aws-signing-test-suite/v4). */
const SUITE = { credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }, region: 'us-east-1', service: 'service' };
const SUITE_DATE = '20150830T123600Z';
const SUITE_SCOPE = 'AKIDEXAMPLE/20150830/us-east-1/service/aws4_request';

describe('SigV4 signing', () => {
  it('matches AWS test vector get-vanilla', async () => {
    const headers = await signAwsRequest({ url: 'https://example.amazonaws.com/', method: 'GET', headers: {}, body: '' }, SUITE, SUITE_DATE);
    expect(headers.get('authorization')).toBe(`AWS4-HMAC-SHA256 Credential=${SUITE_SCOPE}, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`);
    expect(headers.get('x-amz-date')).toBe(SUITE_DATE);
  });

  it('matches AWS test vector get-vanilla-with-session-token: the token is sent and signed', async () => {
    const token = '6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267';
    const headers = await signAwsRequest({ url: 'https://example.amazonaws.com/', method: 'GET', headers: {}, body: '' }, { ...SUITE, credentials: { ...SUITE.credentials, sessionToken: token } }, SUITE_DATE);
    expect(headers.get('x-amz-security-token')).toBe(token);
    expect(headers.get('authorization')).toBe(`AWS4-HMAC-SHA256 Credential=${SUITE_SCOPE}, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8`);
  });

  it('matches AWS test vector post-x-www-form-urlencoded: a body, and every header given is signed, Content-Type too', async () => {
    const body = 'Param1=value1';
    const headers = await signAwsRequest(
      { url: 'https://example.amazonaws.com/', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '13', 'x-amz-content-sha256': sha256Hex(body) }, body },
      SUITE,
      SUITE_DATE,
    );
    expect(headers.get('authorization')).toBe(
      `AWS4-HMAC-SHA256 Credential=${SUITE_SCOPE}, SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date, Signature=d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b`,
    );
  });

  it('signs a DynamoDB request as the AWS SDK does (signatures computed with @smithy/signature-v4)', async () => {
    const body = JSON.stringify({ TableName: 'toolgate', Key: { pk: { S: 'record#a b/ü' }, sk: { S: 'record' } }, ConsistentRead: true });
    const request = { url: 'http://127.0.0.1:4567/', method: 'POST', headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' }, body };
    const scope = { credentials: SUITE.credentials, region: 'eu-west-1', service: 'dynamodb' };
    const prefix = 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261129/eu-west-1/dynamodb/aws4_request';
    expect((await signAwsRequest(request, scope, '20261129T050000Z')).get('authorization')).toBe(
      `${prefix}, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=a85950208aaf5520538a6624a93bbc187ec2861facd3cd3e4a6892c9a3938c45`,
    );
    const withToken = { ...scope, credentials: { ...scope.credentials, sessionToken: 'tok/en+=' } };
    expect((await signAwsRequest(request, withToken, '20261129T050000Z')).get('authorization')).toBe(
      `${prefix}, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=adde05e15ca3951c0b23bdcfa334d87ac6267601d59d0b131c3682d644c309a5`,
    );
  });
});

describe('DynamoDB client', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A server answering each request as `answers` says, in turn (the last one from then on). */
  async function dynamo(...answers: Array<(response: ServerResponse) => void>): Promise<TestServer> {
    let n = 0;
    server = await startTestServer((_request, response) => answers[Math.min(n++, answers.length - 1)](response));
    return server;
  }
  const client = (url: string, extra: Partial<DynamoDbClientOptions> = {}) => createDynamoDbClient(dynaliteClientOptions(url, extra));
  const getItem = { TableName: 't', Key: { pk: { S: 'a' } } };

  it('sends the JSON protocol, signed over exactly what it sends (checked by an independent SigV4 computation)', async () => {
    const { url, requests } = await dynamo(json(200, { Item: { pk: { S: 'a' }, data: { B: 'AAEC/w==' } } }));
    const output = await createDynamoDbClient({ region: 'eu-west-1', endpoint: url, credentials: { ...DYNALITE_CREDENTIALS, sessionToken: 'session' } }).send('GetItem', { ...getItem, ConsistentRead: true });
    expect(output.Item?.data?.B).toEqual(new Uint8Array([0, 1, 2, 255]));
    const [request] = requests;
    expect(request).toMatchObject({ method: 'POST', url: '/', headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem', 'x-amz-security-token': 'session' } });
    expect(JSON.parse(request.body)).toEqual({ ...getItem, ConsistentRead: true });
    expect(request.headers.authorization).toBe(expectedAuthorization(request, { ...DYNALITE_CREDENTIALS, region: 'eu-west-1' }));
  });

  it('sends bytes as base64 and reads them back as bytes (dynalite)', async () => {
    const dynalite = await startDynalite();
    try {
      const table = await createFreshTable(dynalite.endpoint);
      const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
      const c = client(dynalite.endpoint);
      await c.send('PutItem', { TableName: table, Item: { pk: { S: 'bin' }, sk: { S: 'x' }, blob: { B: bytes }, B: { S: 'a string attribute named B' } } });
      const { Item } = await c.send('GetItem', { TableName: table, Key: { pk: { S: 'bin' }, sk: { S: 'x' } } });
      expect(Item?.blob?.B).toEqual(bytes);
      expect(Item?.B).toEqual({ S: 'a string attribute named B' });
    } finally {
      await dynalite.stop();
    }
  });

  describe('errors', () => {
    let dynalite: RunningDynalite;
    let table: string;
    beforeAll(async () => {
      dynalite = await startDynalite();
      table = await createFreshTable(dynalite.endpoint);
    });
    afterAll(() => dynalite?.stop());

    it('names a failed condition after its __type, and never sends it again', async () => {
      let sent = 0;
      const counting: typeof fetch = (input, init) => (sent++, fetch(input, init));
      const c = client(dynalite.endpoint, { fetch: counting, maxAttempts: 3 });
      await c.send('PutItem', { TableName: table, Item: { pk: { S: 'cond' }, sk: { S: 'x' } } });
      sent = 0;
      const error = await c.send('PutItem', { TableName: table, Item: { pk: { S: 'cond' }, sk: { S: 'x' } }, ConditionExpression: 'attribute_not_exists(pk)' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DynamoDbError);
      expect(error).toMatchObject({ name: 'ConditionalCheckFailedException', status: 400, attempts: 1, retryable: false });
      expect((error as Error).message).toMatch(/^PutItem failed with ConditionalCheckFailedException \(HTTP 400\): The conditional request failed/);
      expect(sent).toBe(1);
    });

    it('keeps a cancelled transaction\'s CancellationReasons, one per write', async () => {
      const error = await client(dynalite.endpoint).send('TransactWriteItems', {
        TransactItems: [
          { Put: { TableName: table, Item: { pk: { S: 'tx' }, sk: { S: '1' } } } },
          { Put: { TableName: table, Item: { pk: { S: 'cond' }, sk: { S: 'x' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'TransactionCanceledException', attempts: 1, CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }] });
    });

    it('names a table that exists ResourceInUseException, and a missing one ResourceNotFoundException', async () => {
      const c = client(dynalite.endpoint);
      const keys = { AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }] };
      await expect(c.send('CreateTable', { TableName: table, BillingMode: 'PAY_PER_REQUEST', ...keys })).rejects.toMatchObject({ name: 'ResourceInUseException' });
      await expect(c.send('GetItem', { TableName: 'no-such-table', Key: { pk: { S: 'a' } } })).rejects.toMatchObject({ name: 'ResourceNotFoundException', retryable: false });
    });

    it('takes the name from x-amzn-ErrorType when the body has none', async () => {
      const { url } = await dynamo((response) => response.writeHead(400, { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.coral.validate/' }).end());
      await expect(client(url).send('GetItem', getItem)).rejects.toMatchObject({ name: 'ValidationException', status: 400, retryable: false });
    });
  });

  describe('retries', () => {
    const throttled = json(400, { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'The level of configured provisioned throughput for the table was exceeded.' });

    it('retries throttling and answers with the retry\'s result', async () => {
      const { url, requests } = await dynamo(throttled, json(200, { Item: { pk: { S: 'a' } } }));
      expect(await client(url).send('GetItem', getItem)).toEqual({ Item: { pk: { S: 'a' } } });
      expect(requests).toHaveLength(2);
    });

    it('gives up after maxAttempts, saying how many were made', async () => {
      const { url, requests } = await dynamo(throttled);
      await expect(client(url, { maxAttempts: 3 }).send('GetItem', getItem)).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException', attempts: 3, retryable: true });
      expect(requests).toHaveLength(3);
    });

    it('retries a 5xx answer and HTTP 429, each request signed again', async () => {
      const { url, requests } = await dynamo(json(500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'oops' }), json(429, {}), json(200, {}));
      expect(await client(url, { maxAttempts: 3 }).send('PutItem', { TableName: 't', Item: { pk: { S: 'a' } } })).toEqual({});
      expect(requests).toHaveLength(3);
      for (const request of requests) expect(request.headers.authorization).toBe(expectedAuthorization(request, { ...DYNALITE_CREDENTIALS, region: 'us-east-1' }));
    });

    it('does not retry a refusal that would be refused again', async () => {
      const { url, requests } = await dynamo(json(400, { __type: 'com.amazon.coral.validate#ValidationException', message: 'One or more parameter values were invalid' }));
      await expect(client(url, { maxAttempts: 3 }).send('GetItem', getItem)).rejects.toMatchObject({ name: 'ValidationException', attempts: 1 });
      expect(requests).toHaveLength(1);
    });

    it('retries a network failure, then names it', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const error = await client(url).send('GetItem', getItem).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'NetworkError', status: 0, attempts: 2, retryable: true });
      expect((error as Error).message).toBe('could not reach DynamoDB for GetItem: ECONNREFUSED');
    });
  });

  describe('timeouts', () => {
    it('gives each attempt requestTimeoutMs, then names the timeout', async () => {
      const { url, requests } = await dynamo(() => {});
      const error = await client(url, { requestTimeoutMs: 200 }).send('GetItem', getItem).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'TimeoutError', attempts: 2, retryable: true });
      expect((error as Error).message).toBe('DynamoDB did not answer GetItem within 200 ms');
      expect(requests).toHaveLength(2);
    });

    it('times out an answer whose body stalls after the headers', async () => {
      const { url } = await dynamo((response) => {
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        response.write('{"Item":');
      });
      await expect(client(url, { requestTimeoutMs: 200, maxAttempts: 1 }).send('GetItem', getItem)).rejects.toMatchObject({ name: 'TimeoutError', attempts: 1 });
    });

    it('stops at once when the caller gives up, without another attempt', async () => {
      const { url, requests } = await dynamo(() => {});
      const caller = new AbortController();
      const sent = client(url, { requestTimeoutMs: 60_000, maxAttempts: 5 }).send('GetItem', getItem, { abortSignal: caller.signal });
      while (requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      caller.abort(new Error('the call\'s deadline passed'));
      await expect(sent).rejects.toMatchObject({ name: 'AbortError', attempts: 1, retryable: false, message: 'GetItem was given up before DynamoDB answered: the call\'s deadline passed' });
      expect(requests).toHaveLength(1);
    });
  });

  it('refuses to be built without credentials or with a region that is not one', () => {
    expect(() => createDynamoDbClient({ region: 'eu-west-1', credentials: { accessKeyId: '', secretAccessKey: 'x' } })).toThrow(/^DynamoDB needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    expect(() => createDynamoDbClient({ region: 'evil.example.com/x', credentials: DYNALITE_CREDENTIALS })).toThrow(/is not an AWS region: set AWS_REGION/);
  });
});

function json(status: number, body: unknown): (response: ServerResponse) => void {
  return (response) => response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The Authorization header a recorded DynamoDB request must carry, computed here from the SigV4
 * specification with node:crypto, independently of the signing library: the canonical request of
 * what arrived, its string to sign, and the HMAC chain of the signing key.
 */
function expectedAuthorization(request: RecordedRequest, signer: { accessKeyId: string; secretAccessKey: string; region: string }): string {
  const date = String(request.headers['x-amz-date']);
  const signed = ['content-type', 'host', 'x-amz-date', ...(request.headers['x-amz-security-token'] ? ['x-amz-security-token'] : []), 'x-amz-target'];
  const canonical = ['POST', '/', '', ...signed.map((name) => `${name}:${String(request.headers[name]).trim()}`), '', signed.join(';'), sha256Hex(request.body)].join('\n');
  const scope = `${date.slice(0, 8)}/${signer.region}/dynamodb/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonical)].join('\n');
  const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const key = ['dynamodb', 'aws4_request'].reduce((k, part) => hmac(k, part), hmac(hmac(`AWS4${signer.secretAccessKey}`, date.slice(0, 8)), signer.region));
  return `AWS4-HMAC-SHA256 Credential=${signer.accessKeyId}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${createHmac('sha256', key).update(toSign).digest('hex')}`;
}

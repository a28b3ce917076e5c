import { describe, expect, it } from 'vitest';
import { fromLambdaResult, toFunctionUrlEvent, toHttpApiEvent, type IamCaller } from './lambda-events.ts';

const now = new Date(Date.UTC(2020, 2, 12, 19, 3, 58, 390));

describe('Request → payload format 2.0 event', () => {
  it('builds an HTTP API $default event: lower-case headers, cookies apart, raw and parsed query', async () => {
    const event = await toHttpApiEvent(new Request('http://gateway/v1/tools?format=openai&tag=a&tag=b', {
      headers: { Accept: 'application/json', Cookie: 'a=1; b=2', 'User-Agent': 'agent/1.0', 'X-Custom': 'x' },
    }), { id: 'abc123', now });
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/v1/tools',
      rawQueryString: 'format=openai&tag=a&tag=b',
      cookies: ['a=1', 'b=2'],
      queryStringParameters: { format: 'openai', tag: 'a,b' },
      isBase64Encoded: false,
      requestContext: {
        accountId: '123456789012',
        apiId: 'abc123',
        domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
        domainPrefix: 'abc123',
        http: { method: 'GET', path: '/v1/tools', protocol: 'HTTP/1.1', userAgent: 'agent/1.0' },
        routeKey: '$default',
        stage: '$default',
        time: '12/Mar/2020:19:03:58 +0000',
        timeEpoch: now.getTime(),
      },
    });
    expect(event.headers).toMatchObject({ accept: 'application/json', 'x-custom': 'x', host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'x-forwarded-proto': 'https', 'x-forwarded-port': '443' });
    expect(event.headers).not.toHaveProperty('cookie');
    expect(event).not.toHaveProperty('body');
    expect(event.requestContext).not.toHaveProperty('authorizer');
  });

  it('keeps a JSON body as text and base64-encodes a form post (as Slack interactions arrive)', async () => {
    const json = await toHttpApiEvent(new Request('http://gateway/v1/dispatch', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"é"}' }));
    expect(json).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false, headers: { 'content-length': '10' } });
    const form = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
    const slack = await toHttpApiEvent(new Request('http://gateway/v1/slack/interactions', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }));
    expect(slack).toMatchObject({ isBase64Encoded: true, body: Buffer.from(form).toString('base64') });
  });

  it('is binary-safe: bytes that are not UTF-8 go base64 whatever the content type says', async () => {
    const bytes = new Uint8Array([0, 255, 254, 10, 128]);
    for (const type of ['application/octet-stream', 'text/plain']) {
      const event = await toFunctionUrlEvent(new Request('http://gateway/upload', { method: 'PUT', headers: { 'content-type': type }, body: bytes }));
      expect(event.isBase64Encoded).toBe(true);
      expect(new Uint8Array(Buffer.from(event.body ?? '', 'base64'))).toEqual(bytes);
    }
  });

  it('builds a function URL event: lambda-url domain, placeholders null, an IAM caller when signed', async () => {
    const open = await toFunctionUrlEvent(new Request('http://gateway/healthz'), { id: 'urlid', now });
    expect(open).toMatchObject({ routeKey: '$default', pathParameters: null, stageVariables: null, requestContext: { domainName: 'urlid.lambda-url.eu-west-1.on.aws', domainPrefix: 'urlid', apiId: 'urlid', authentication: null, authorizer: null, stage: '$default' } });
    expect(open.headers).toMatchObject({ host: 'urlid.lambda-url.eu-west-1.on.aws', 'x-amzn-tls-version': 'TLSv1.3' });
    expect(open.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const iam: IamCaller = { accessKey: 'AKIAIOSFODNN7EXAMPLE', accountId: '111122223333', callerId: 'AIDACKCEVSQ6C2EXAMPLE', cognitoIdentity: null, principalOrgId: null, userArn: 'arn:aws:iam::111122223333:user/example-user', userId: 'AIDACKCEVSQ6C2EXAMPLE' };
    expect((await toFunctionUrlEvent(new Request('http://gateway/healthz'), { iam })).requestContext.authorizer).toEqual({ iam });
  });
});

describe('function result → HTTP response', () => {
  it('takes statusCode, headers and cookies, and decodes a base64 body to its bytes', async () => {
    const response = fromLambdaResult({ statusCode: 201, headers: { 'content-type': 'image/png', 'x-a': '1' }, cookies: ['a=1; Path=/', 'b=2'], body: Buffer.from([137, 80, 78, 71, 0, 255]).toString('base64'), isBase64Encoded: true });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-a')).toBe('1');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71, 0, 255]));
  });

  it('infers a 200 JSON response from any other value, as Lambda does', async () => {
    const object = fromLambdaResult({ message: 'hi' });
    expect(object.status).toBe(200);
    expect(object.headers.get('content-type')).toBe('application/json');
    expect(await object.json()).toEqual({ message: 'hi' });
    expect(await fromLambdaResult('Hello, world!').text()).toBe('"Hello, world!"');
  });

  it('sends no body for 204', async () => {
    const response = fromLambdaResult({ statusCode: 204, body: '' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });
});

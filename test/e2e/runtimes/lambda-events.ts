import { randomBytes, randomUUID } from 'node:crypto';

/*
 * What AWS hands a Lambda function for an HTTP request, and what it makes of the function's
 * answer: payload format 2.0, shared by API Gateway HTTP APIs and Lambda function URLs
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html,
 * https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html).
 * - header names are lower-case; repeated headers arrive comma-joined (Request.headers has already
 *   joined them); the Cookie header moves to `cookies`, one entry per cookie;
 * - the body is text only for text content types: anything else, form posts from Slack included,
 *   arrives base64-encoded with isBase64Encoded: true (what Slack apps behind an HTTP API or a
 *   function URL see), and so does text that is not valid UTF-8;
 * - the front end adds its own headers (host, x-forwarded-*, x-amzn-trace-id).
 */

export interface LambdaHttpEvent {
  version: '2.0';
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  pathParameters?: Record<string, string> | null;
  stageVariables?: Record<string, string> | null;
  requestContext: LambdaRequestContext;
  body?: string;
  isBase64Encoded: boolean;
}

export interface LambdaRequestContext {
  accountId: string;
  apiId: string;
  authentication?: null;
  authorizer?: { iam: IamCaller } | null;
  domainName: string;
  domainPrefix: string;
  http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
  requestId: string;
  routeKey: string;
  stage: string;
  time: string;
  timeEpoch: number;
}

export interface IamCaller {
  accessKey: string;
  accountId: string;
  callerId: string;
  cognitoIdentity: null;
  principalOrgId: string | null;
  userArn: string;
  userId: string;
}

/** The answer the function gives in format 2.0's own shape. */
export interface LambdaHttpResponse {
  statusCode: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/** The function's answer as Lambda reads it: its own shape, or any other JSON value. */
export type LambdaHttpResult = LambdaHttpResponse | Record<string, unknown> | unknown[] | string | number | boolean | null;

export const ACCOUNT_ID = '123456789012';
export const REGION = 'eu-west-1';
/** Where the test's client stands; only ever a string in the event, never an address we use. */
const CLIENT_IP = '198.51.100.23';

export interface EventOptions {
  /** The API's or the URL's id (the first label of its host name). */
  id?: string;
  now?: Date;
}

/** An API Gateway HTTP API `$default` route's event for `request`. */
export async function toHttpApiEvent(request: Request, options: EventOptions = {}): Promise<LambdaHttpEvent> {
  const id = options.id ?? 'r4nd0m1d9k';
  const domainName = `${id}.execute-api.${REGION}.amazonaws.com`;
  // HTTP API request ids look like "JKJaXmPLvHcESHA=": base64 of 10 random bytes.
  const requestId = randomBytes(10).toString('base64');
  return baseEvent(request, { domainName, domainPrefix: id, requestId, now: options.now ?? new Date(), extraHeaders: {} });
}

/** A Lambda function URL's event for `request`; `iam` is the signed caller when the URL's auth type is AWS_IAM. */
export async function toFunctionUrlEvent(request: Request, options: EventOptions & { iam?: IamCaller } = {}): Promise<LambdaHttpEvent> {
  const id = options.id ?? 'x3mpl3urlid0abcdefghijklmn0pqrst';
  const domainName = `${id}.lambda-url.${REGION}.on.aws`;
  const extraHeaders = { 'x-amzn-tls-version': 'TLSv1.3', 'x-amzn-tls-cipher-suite': 'TLS_AES_128_GCM_SHA256' };
  const event = await baseEvent(request, { domainName, domainPrefix: id, requestId: randomUUID(), now: options.now ?? new Date(), extraHeaders });
  // Function URLs fill these placeholders (the API Gateway-only fields) with null.
  event.requestContext.authentication = null;
  event.requestContext.authorizer = options.iam ? { iam: options.iam } : null;
  event.pathParameters = null;
  event.stageVariables = null;
  return event;
}

interface Front {
  domainName: string;
  domainPrefix: string;
  requestId: string;
  now: Date;
  extraHeaders: Record<string, string>;
}

async function baseEvent(request: Request, front: Front): Promise<LambdaHttpEvent> {
  const url = new URL(request.url);
  const rawQueryString = url.search.slice(1);
  const { headers, cookies } = splitHeaders(request.headers);
  const body = await encodeBody(request);
  Object.assign(headers, front.extraHeaders, {
    host: front.domainName,
    'x-amzn-trace-id': `Root=1-${Math.floor(front.now.getTime() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`,
    'x-forwarded-for': CLIENT_IP,
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
  });
  if (body) headers['content-length'] = String(body.length);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters: queryParameters(url.searchParams) } : {}),
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: front.domainPrefix,
      domainName: front.domainName,
      domainPrefix: front.domainPrefix,
      http: { method: request.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: CLIENT_IP, userAgent: headers['user-agent'] ?? '' },
      requestId: front.requestId,
      routeKey: '$default',
      stage: '$default',
      time: clfTime(front.now),
      timeEpoch: front.now.getTime(),
    },
    ...(body ? { body: body.text } : {}),
    isBase64Encoded: body?.base64 ?? false,
  };
}

/** Header names are already lower-case in Headers; the Cookie header becomes the `cookies` list. */
function splitHeaders(source: Headers): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  source.forEach((value, name) => {
    if (name === 'cookie') cookies.push(...value.split(/;\s*/).filter(Boolean));
    else headers[name] = value;
  });
  return { headers, cookies };
}

/** Repeated parameters are comma-joined, as format 2.0 does. */
function queryParameters(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) out[key] = key in out ? `${out[key]},${value}` : value;
  return out;
}

const TEXT_TYPES = /^(text\/[^;]+|application\/(json|[^;]+\+json|xml|[^;]+\+xml|javascript))\s*(;|$)/i;

async function encodeBody(request: Request): Promise<{ text: string; base64: boolean; length: number } | undefined> {
  if (request.body === null) return undefined;
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length === 0) return undefined;
  const text = TEXT_TYPES.test(request.headers.get('content-type') ?? '') ? utf8(bytes) : undefined;
  if (text !== undefined) return { text, base64: false, length: bytes.length };
  return { text: Buffer.from(bytes).toString('base64'), base64: true, length: bytes.length };
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "12/Mar/2020:19:03:58 +0000", the access-log time format the events carry. */
function clfTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

/**
 * The HTTP response API Gateway or the function URL sends for the function's answer. An object
 * with statusCode is taken field by field (cookies become Set-Cookie headers, a base64 body is
 * decoded to its bytes); any other JSON value is the body of a 200 application/json response.
 */
export function fromLambdaResult(result: LambdaHttpResult): Response {
  if (!isStructured(result)) return new Response(JSON.stringify(result), { status: 200, headers: { 'content-type': 'application/json' } });
  const headers = new Headers(result.headers ?? {});
  for (const cookie of result.cookies ?? []) headers.append('set-cookie', cookie);
  const noBody = result.statusCode === 204 || result.statusCode === 304 || result.body === undefined || result.body === '';
  const body = noBody ? null : result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : result.body ?? '';
  return new Response(body, { status: result.statusCode, headers });
}

function isStructured(result: LambdaHttpResult): result is LambdaHttpResponse {
  return typeof result === 'object' && result !== null && typeof (result as { statusCode?: unknown }).statusCode === 'number';
}

/** What the front end answers when the invocation itself fails (an exception, a crash, a timeout). */
export function invocationFailure(source: 'http-api' | 'function-url'): Response {
  // HTTP APIs answer 500 {"message":"Internal Server Error"}; function URLs 502 "Internal Server Error".
  return source === 'http-api'
    ? Response.json({ message: 'Internal Server Error' }, { status: 500 })
    : new Response('Internal Server Error', { status: 502, headers: { 'content-type': 'text/plain' } });
}

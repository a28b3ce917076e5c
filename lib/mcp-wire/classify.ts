import { claimedVersion, envelopeIssues, hasEnvelopeClaim, metaOf, PROTOCOL_VERSION_META_KEY, REQUIRED_ENVELOPE_KEYS } from './envelope.ts';
import { ErrorCode, isPlainObject, jsonRpcError, readJsonRpcMessage, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest } from './json-rpc.ts';
import { headerMismatch, rejection, type WireRejection } from './rejection.ts';
import type { StandardHeaders } from './standard-headers.ts';
import { FIRST_MODERN_VERSION, isModernVersion } from './versions.ts';

/**
 * Which era serves an inbound HTTP request, decided once from its body (the 2026-07-28 dual-era
 * rule, as the official SDK v2's `classifyInboundRequest` decides it): a request whose
 * `params._meta` names a protocol revision is modern; everything else is legacy traffic, served
 * as before. The MCP-Protocol-Version header only cross-checks the body (a disagreement is an
 * error), except that a modern header on a request without an envelope is refused, never served
 * as legacy. Pure: plain data in, plain data out.
 */

export interface InboundRequest {
  httpMethod: string;
  headers: StandardHeaders;
  /** The parsed JSON body (absent for GET/DELETE). */
  body?: unknown;
}

export type LegacyReason =
  /** GET, DELETE and other methods without a body: 2025 session operations. */
  | 'http-method'
  /** The legacy handshake. */
  | 'initialize'
  /** A request without an envelope. */
  | 'no-claim'
  /** A notification without an envelope or a modern header. */
  | 'notification'
  /** A batch of legacy messages. */
  | 'batch'
  /** A JSON-RPC response posted by the client. */
  | 'response'
  /**
   * Not a JSON-RPC message, and nothing in it claims the modern era: answered as the legacy
   * transport always answered it (a parse error), so 2025 clients see no change.
   */
  | 'invalid';

export interface LegacyRoute {
  kind: 'legacy';
  reason: LegacyReason;
  /** The revision the request named (an `initialize` body's, or the header's), when it named one. */
  requestedVersion?: string;
  /** The one JSON-RPC message the body held, as read here (absent for a batch or a body that is none): the legacy server reads it no second time. */
  message?: JsonRpcMessage;
}

export type ModernRoute =
  | { kind: 'modern'; messageKind: 'request'; message: JsonRpcRequest; version?: string }
  | { kind: 'modern'; messageKind: 'notification'; message: JsonRpcNotification; version?: string };

export type InboundRoute = LegacyRoute | ModernRoute | WireRejection;

export function classifyInbound(request: InboundRequest): InboundRoute {
  if (request.httpMethod.toUpperCase() !== 'POST') return { kind: 'legacy', reason: 'http-method' };
  const body = request.body;
  if (Array.isArray(body)) return classifyBatch(body);
  const read = readJsonRpcMessage(body);
  if (read?.kind === 'response') return { kind: 'legacy', reason: 'response', message: read };
  if (read?.kind === 'request') return withMessage(classifyRequest(request.headers, read.message), read);
  if (read?.kind === 'notification') return withMessage(classifyNotification(request.headers, read.message), read);
  const params = isPlainObject(body) ? body.params : undefined;
  if (hasEnvelopeClaim(params) || headerNamesModern(request.headers)) {
    return rejection('invalid-json-rpc-body', 400, jsonRpcError(ErrorCode.InvalidRequest, 'Bad Request: the request body is not a valid JSON-RPC message'));
  }
  return { kind: 'legacy', reason: 'invalid' };
}

/** A legacy route keeps the message it was read from. */
function withMessage(route: InboundRoute, message: JsonRpcMessage): InboundRoute {
  if (route.kind === 'legacy') route.message = message;
  return route;
}

function classifyBatch(body: unknown[]): InboundRoute {
  if (body.length === 0) return rejection('empty-batch', 400, jsonRpcError(ErrorCode.InvalidRequest, 'Bad Request: empty JSON-RPC batch'));
  const modern = body.some((element) => isPlainObject(element) && hasEnvelopeClaim(element.params));
  if (modern) return rejection('batch-with-modern-element', 400, jsonRpcError(ErrorCode.InvalidRequest, `Bad Request: JSON-RPC batches may not contain requests for protocol revision ${FIRST_MODERN_VERSION} or later`));
  return { kind: 'legacy', reason: 'batch' };
}

function classifyRequest(headers: StandardHeaders, message: JsonRpcRequest): InboundRoute {
  const { method, params } = message;
  // `initialize` is the legacy handshake, unless a valid modern envelope says otherwise (the
  // modern era then answers it as an unknown method).
  if (method === 'initialize' && !carriesValidModernClaim(params)) {
    if (headerNamesModern(headers)) return headerMismatch('initialize-with-modern-header', headers.protocolVersion!, 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header');
    const requested = isPlainObject(params) && typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
    return { kind: 'legacy', reason: 'initialize', ...(requested !== undefined ? { requestedVersion: requested } : {}) };
  }
  if (hasEnvelopeClaim(params)) {
    const issue = envelopeIssues(metaOf(params)!)[0];
    if (issue) return invalidEnvelope('envelope-invalid', issue);
    const claimed = claimedVersion(params)!;
    if (headers.protocolVersion !== undefined && headers.protocolVersion !== claimed) {
      return headerMismatch('header-body-version-mismatch', headers.protocolVersion, `the body envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${headers.protocolVersion}`);
    }
    if (headers.method !== undefined && headers.method !== method) return headerMismatch('method-header-mismatch', headers.method, `the body names method ${method} but the Mcp-Method header names ${headers.method}`);
    return { kind: 'modern', messageKind: 'request', message, version: claimed };
  }
  if (headerNamesModern(headers)) return missingEnvelope(headers.protocolVersion!, metaOf(params));
  return { kind: 'legacy', reason: 'no-claim', ...(headers.protocolVersion !== undefined ? { requestedVersion: headers.protocolVersion } : {}) };
}

/** Notifications carry no envelope under the current spec, so for them a modern header decides. */
function classifyNotification(headers: StandardHeaders, message: JsonRpcNotification): InboundRoute {
  const { method, params } = message;
  const methodMismatch = () => headerMismatch('notification-method-header-mismatch', headers.method!, `the notification body names method ${method} but the Mcp-Method header names ${headers.method}`);
  if (hasEnvelopeClaim(params)) {
    const claimed = claimedVersion(params);
    if (claimed === undefined) {
      const issue = envelopeIssues(metaOf(params)!).find((found) => found.key === PROTOCOL_VERSION_META_KEY) ?? { key: PROTOCOL_VERSION_META_KEY, problem: 'must be a string' };
      return invalidEnvelope('notification-envelope-invalid', issue);
    }
    if (headers.protocolVersion !== undefined && headers.protocolVersion !== claimed) {
      return headerMismatch('notification-header-body-version-mismatch', headers.protocolVersion, `the notification envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${headers.protocolVersion}`);
    }
    if (isModernVersion(claimed) && headers.method !== undefined && headers.method !== method) return methodMismatch();
    return { kind: 'modern', messageKind: 'notification', message, version: claimed };
  }
  if (headerNamesModern(headers)) {
    if (headers.method !== undefined && headers.method !== method) return methodMismatch();
    return { kind: 'modern', messageKind: 'notification', message, version: headers.protocolVersion };
  }
  return { kind: 'legacy', reason: 'notification', ...(headers.protocolVersion !== undefined ? { requestedVersion: headers.protocolVersion } : {}) };
}

function headerNamesModern(headers: StandardHeaders): boolean {
  return headers.protocolVersion !== undefined && isModernVersion(headers.protocolVersion);
}

function carriesValidModernClaim(params: unknown): boolean {
  const claimed = claimedVersion(params);
  return claimed !== undefined && isModernVersion(claimed) && envelopeIssues(metaOf(params)!).length === 0;
}

function invalidEnvelope(cell: string, issue: { key: string; problem: string }): WireRejection {
  return rejection(cell, 400, jsonRpcError(ErrorCode.InvalidParams, `Invalid _meta envelope for protocol revision ${FIRST_MODERN_VERSION}: ${issue.key}: ${issue.problem}`, { envelope: issue }));
}

/** A modern header on a request without the envelope: refused with the keys it lacks, never served as legacy. */
function missingEnvelope(version: string, meta: Record<string, unknown> | undefined): WireRejection {
  const missingKeys = meta === undefined ? [] : REQUIRED_ENVELOPE_KEYS.filter((key) => !Object.hasOwn(meta, key));
  const missing = meta === undefined ? ['_meta'] : missingKeys.length > 0 ? missingKeys : [PROTOCOL_VERSION_META_KEY];
  const message = `Invalid params: the MCP-Protocol-Version header names protocol revision ${version}, but the request is missing the required per-request envelope key(s): ${missing.join(', ')}`;
  return rejection('modern-header-without-claim', 400, jsonRpcError(ErrorCode.InvalidParams, message, { envelope: { missing } }));
}

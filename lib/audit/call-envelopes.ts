import { withoutConnectLinks } from '../connections/connect-paths.ts';
import { sha256Hex } from '../idempotency/canonical-json.ts';
import type { ToolDefinition } from '../registry/definition.ts';
import type { JsonObject, JsonValue } from '../registry/json.ts';
import { auditedContent, type AuditedContentInput } from './content-digest.ts';
import type { EnvelopeDraft } from './envelope.ts';
import { redactSensitive } from './redact.ts';

/** Output beyond this many characters is kept as its length and SHA-256 only (store items have size limits). */
export const AUDIT_OUTPUT_CHARS = 100_000;
const RAW_ARGUMENT_CHARS = 2_000;

export interface CallRecord {
  call_id: string;
  tool: string;
  principal: string;
  manifest_version?: string;
  definition?: ToolDefinition;
  /** Parsed arguments, when parsing got that far. */
  args?: JsonObject;
  raw_arguments: unknown;
  args_hash: string | null;
  decision: { decision: string; stage: string; reason?: string };
  result: {
    status: string;
    is_error: boolean;
    truncated: boolean;
    duration_ms: number;
    replayed?: boolean;
    error?: { code: string; message: string };
  };
  /** The full, untruncated output (or error message); with content parts, their text rendering. */
  output: string;
  /** The content parts and structured content, when the tool answered them: audited as hashes and sizes for binary parts. */
  output_content?: AuditedContentInput;
  /** Which connections and grants the call's user tokens came from (never a token). */
  connections?: Array<{ connection: string; grant_id?: string }>;
}

/** What is known of a call before it runs: enough for its request and decision envelopes. */
export type CallStart = Omit<CallRecord, 'result' | 'output' | 'output_content'>;

/** The request, decision and result envelopes of one call. Sensitive arguments are hashed. */
export async function callEnvelopes(call: CallRecord): Promise<EnvelopeDraft[]> {
  return [...(await callStartEnvelopes(call)), await callResultEnvelope(call)];
}

/** The request and decision envelopes, committed before a side effect starts. */
export async function callStartEnvelopes(call: CallStart): Promise<EnvelopeDraft[]> {
  const base = envelopeBase(call);
  return [
    { ...base, type: 'tool.call.request', data: { arguments: await auditedArguments(call) } },
    { ...base, type: 'tool.call.decision', data: { ...call.decision } },
  ];
}

export async function callResultEnvelope(call: CallRecord): Promise<EnvelopeDraft> {
  const result = authorizationWithheld(call.result);
  const output = call.result.status === 'authorization_required' ? withoutConnectLinks(call.output) : call.output;
  return { ...envelopeBase(call), type: 'tool.call.result', data: { ...(result as unknown as JsonObject), ...(call.connections ? { connections: call.connections as unknown as JsonObject[] } : {}), ...(await auditedOutput(output)), ...(call.output_content ? await auditedContent(call.output_content) : {}) } };
}

/** An `authorization_required` result is audited without its connect link: the link is the user's alone (connect-paths.ts). */
function authorizationWithheld(result: CallRecord['result']): CallRecord['result'] {
  if (result.status !== 'authorization_required' || !result.error) return result;
  return { ...result, error: { ...result.error, message: withoutConnectLinks(result.error.message) } };
}

function envelopeBase(call: CallStart) {
  return { call_id: call.call_id, tool: call.tool, principal: call.principal, args_hash: call.args_hash, ...(call.manifest_version ? { manifest_version: call.manifest_version } : {}) };
}

async function auditedArguments(call: CallStart): Promise<JsonValue> {
  if (!call.args) {
    const raw = typeof call.raw_arguments === 'string' ? call.raw_arguments : JSON.stringify(call.raw_arguments ?? null);
    return raw.length > RAW_ARGUMENT_CHARS ? `${raw.slice(0, RAW_ARGUMENT_CHARS)}…` : raw;
  }
  const schema = call.definition?.input_schema;
  return schema === undefined ? call.args : redactSensitive(call.args, schema);
}

async function auditedOutput(output: string): Promise<JsonObject> {
  if (output.length <= AUDIT_OUTPUT_CHARS) return { output };
  return { output: output.slice(0, AUDIT_OUTPUT_CHARS), output_length: output.length, output_sha256: await sha256Hex(output) };
}

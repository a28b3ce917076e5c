import { CALL_FORMATS, type CallFormat } from '../dispatch/formats/index.ts';
import { describeUnknownFields, findUnknownFields, type KnownFields, type UnknownField } from './unknown-fields.ts';

/**
 * The fields a POST /v1/dispatch body may carry, in one place. toolgate's own envelope is the
 * same for every format; a provider-shaped body adds the provider's fields: the ones its calls
 * are read from, and those of the provider object an SDK hands the agent (a whole assistant
 * message, choice, Message, candidate or Responses response may be sent as the body). Anything
 * else at the top level is refused with a hint. Inside the provider's fields nothing is checked:
 * those are the provider's shapes, and toolgate reads only what it needs from them.
 *
 * The lists follow the SDKs' types (test/http/dispatch-fields.test.ts type-checks them against
 * the installed `openai` and `@anthropic-ai/sdk`, so an SDK that gains a field fails the build
 * until it is added here). A new format adds one entry to PROVIDER_BODIES.
 */

export const ENVELOPE_FIELDS = ['thread_id', 'format', 'parallel', 'tenant'] as const;
export const OWN_CALL_FIELDS = ['call_id', 'name', 'arguments'] as const;

/** Chat Completions: an assistant message (response, request param, stored, parsed) or a whole choice. */
export const OPENAI_BODY_FIELDS = [
  'tool_calls', 'message', 'role', 'content', 'refusal', 'annotations', 'audio', 'function_call', 'name', 'parsed', 'id', 'content_parts',
  'index', 'finish_reason', 'logprobs',
] as const;

/** Messages API: a Message (also the beta one, and the SDK's parsed one) or an assistant MessageParam. */
export const ANTHROPIC_BODY_FIELDS = [
  'content', 'message', 'id', 'type', 'role', 'model', 'stop_reason', 'stop_sequence', 'stop_details', 'usage', 'container', 'context_management',
  'diagnostics', 'input_transformations', 'parsed_output',
] as const;

/** Gemini: a Content (`role`, `parts`) or a whole candidate. */
export const GEMINI_BODY_FIELDS = [
  'parts', 'content', 'role', 'index', 'finishReason', 'finishMessage', 'safetyRatings', 'citationMetadata', 'tokenCount', 'groundingAttributions',
  'groundingMetadata', 'avgLogprobs', 'logprobsResult', 'urlContextMetadata', 'urlRetrievalMetadata',
] as const;

/** Responses API: the `output` items, or a whole Response (also the SDK's parsed one, with `output_text`/`output_parsed`). */
export const RESPONSES_BODY_FIELDS = [
  'output', 'response', 'id', 'object', 'created_at', 'completed_at', 'status', 'error', 'incomplete_details', 'instructions', 'metadata', 'model',
  'output_text', 'output_parsed', 'parallel_tool_calls', 'temperature', 'tool_choice', 'tools', 'top_p', 'top_logprobs', 'background',
  'conversation', 'max_output_tokens', 'max_tool_calls', 'previous_response_id', 'prompt', 'prompt_cache_key', 'prompt_cache_retention',
  'prompt_cache_options', 'prompt_cache_diagnostics', 'reasoning', 'safety_identifier', 'service_tier', 'text', 'truncation', 'usage', 'user',
  'access_programs', 'image', 'input_transformations', 'moderation', 'tool_usage',
] as const;

interface ProviderBody {
  /** The provider's name, for messages. */
  label: string;
  /** The fields its calls are read from (a toolgate body carrying one is missing its `format`). */
  calls: readonly string[];
  /** Where the calls are read from, as said in messages. */
  callsAt: string;
  fields: readonly string[];
  /** Hints for fields people send that the format does not read. */
  hints?: Readonly<Record<string, string>>;
}

/**
 * Each `format` a dispatch body may name, but toolgate's own. Typed so that a format added to
 * CALL_FORMATS without an entry here does not compile.
 */
export const PROVIDER_BODIES: Readonly<Record<CallFormat, ProviderBody>> = {
  openai: {
    label: "OpenAI's",
    calls: ['tool_calls', 'message'],
    callsAt: 'tool_calls (or message.tool_calls)',
    fields: OPENAI_BODY_FIELDS,
    hints: { choices: 'send one choice (or its message) of the completion, not the whole completion' },
  },
  anthropic: { label: "Anthropic's", calls: ['content', 'message'], callsAt: 'content (or message.content)', fields: ANTHROPIC_BODY_FIELDS },
  gemini: {
    label: "Gemini's",
    calls: ['parts', 'content'],
    callsAt: 'parts (or content.parts)',
    fields: GEMINI_BODY_FIELDS,
    hints: { candidates: 'send one candidate (or its content) of the response, not the whole response' },
  },
  responses: { label: "OpenAI Responses'", calls: ['output', 'response'], callsAt: 'output (or response.output)', fields: RESPONSES_BODY_FIELDS },
};

const TOOLGATE_BODY = toolgateBody();
const PROVIDER_KNOWN = Object.fromEntries(Object.keys(PROVIDER_BODIES).map((f) => [f, providerBody(f as CallFormat)])) as Record<CallFormat, KnownFields>;
const TOOLGATE_CALL: KnownFields = { fields: OWN_CALL_FIELDS };

/** The 400 message for a dispatch body with unknown fields (top level, and each of toolgate's own calls), if it has any. */
export function unknownDispatchFields(body: Record<string, unknown>, format: CallFormat | undefined): string | undefined {
  if (format !== undefined) return describeUnknownFields(findUnknownFields(body, PROVIDER_KNOWN[format]));
  const found: UnknownField[] = findUnknownFields(body, TOOLGATE_BODY);
  if (Array.isArray(body.calls)) {
    for (const [i, call] of body.calls.entries()) {
      if (call === null || typeof call !== 'object' || Array.isArray(call)) continue;
      // One by one: spreading 100,000 keys into push() would overflow the stack.
      for (const field of findUnknownFields(call as Record<string, unknown>, TOOLGATE_CALL, `calls[${i}]`)) found.push(field);
    }
  }
  return describeUnknownFields(found);
}

function providerBody(format: CallFormat): KnownFields {
  const provider = PROVIDER_BODIES[format];
  return {
    fields: [...ENVELOPE_FIELDS, ...provider.fields],
    otherwise: `with format "${format}" the body holds ${ENVELOPE_FIELDS.join(', ')} and ${provider.label} calls in ${provider.callsAt}, beside the fields of the provider's own message`,
    hints: { calls: `with format "${format}" the calls are read from ${provider.callsAt}`, ...provider.hints },
  };
}

/** toolgate's own body; a provider's calls field sent without `format` says which format to name. */
function toolgateBody(): KnownFields {
  const hints: Record<string, string> = {};
  for (const format of CALL_FORMATS) {
    for (const field of PROVIDER_BODIES[format].calls) {
      hints[field] = hints[field] ? `${hints[field]} or "${format}"` : `${field} is read only in a provider's shape: add "format": "${format}"`;
    }
  }
  return { fields: [...ENVELOPE_FIELDS, 'calls'], hints };
}

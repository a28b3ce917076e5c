/**
 * Provider-shaped dispatch bodies keep taking what the providers' SDKs hand an agent: the lists of
 * lib/http/dispatch-fields.ts are type-checked against the installed SDKs (an SDK that gains a
 * field fails `tsc` here until the list has it), and whole SDK-typed objects are dispatched.
 */
import type { BetaMessage } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ParsedMessage } from '@anthropic-ai/sdk/lib/parser';
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessage,
  ChatCompletionStoreMessage,
  ParsedChatCompletionMessage,
} from 'openai/resources/chat/completions/completions';
import type { ParsedResponse, Response as OpenAIResponse } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ANTHROPIC_BODY_FIELDS,
  OPENAI_BODY_FIELDS,
  PROVIDER_BODIES,
  RESPONSES_BODY_FIELDS,
  unknownDispatchFields,
} from '../../lib/http/dispatch-fields.ts';
import { CALL_FORMATS } from '../../lib/dispatch/formats/index.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/** The fields of T that a list leaves out: `never` when it has them all. */
type Unlisted<T, List extends readonly string[]> = Exclude<keyof T & string, List[number]>;

describe('the field lists cover the SDK types', () => {
  it('OpenAI chat completions: assistant message (response, param, stored, parsed) and choice', () => {
    expectTypeOf<Unlisted<ChatCompletionMessage, typeof OPENAI_BODY_FIELDS>>().toBeNever();
    expectTypeOf<Unlisted<ChatCompletionAssistantMessageParam, typeof OPENAI_BODY_FIELDS>>().toBeNever();
    expectTypeOf<Unlisted<ChatCompletionStoreMessage, typeof OPENAI_BODY_FIELDS>>().toBeNever();
    expectTypeOf<Unlisted<ParsedChatCompletionMessage<unknown>, typeof OPENAI_BODY_FIELDS>>().toBeNever();
    expectTypeOf<Unlisted<ChatCompletion.Choice, typeof OPENAI_BODY_FIELDS>>().toBeNever();
  });

  it('Anthropic: Message, BetaMessage and the parsed Message', () => {
    expectTypeOf<Unlisted<Message, typeof ANTHROPIC_BODY_FIELDS>>().toBeNever();
    expectTypeOf<Unlisted<BetaMessage, typeof ANTHROPIC_BODY_FIELDS>>().toBeNever();
    expectTypeOf<Unlisted<ParsedMessage<unknown>, typeof ANTHROPIC_BODY_FIELDS>>().toBeNever();
  });

  it('OpenAI Responses: Response and ParsedResponse', () => {
    expectTypeOf<Unlisted<OpenAIResponse, typeof RESPONSES_BODY_FIELDS>>().toBeNever();
    expectTypeOf<Unlisted<ParsedResponse<unknown>, typeof RESPONSES_BODY_FIELDS>>().toBeNever();
  });

  it('every call format has its entry, and no provider list takes a field of toolgate\'s envelope for its own', () => {
    for (const format of CALL_FORMATS) expect(PROVIDER_BODIES[format]).toBeDefined();
    for (const provider of Object.values(PROVIDER_BODIES)) {
      for (const own of ['thread_id', 'format', 'parallel', 'tenant', 'calls']) expect(provider.fields).not.toContain(own);
    }
  });
});

const toolCallMessage: ChatCompletionMessage = {
  role: 'assistant',
  content: null,
  refusal: null,
  annotations: [],
  tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'echo', arguments: '{"text":"from openai"}' } }],
};

const choice: ChatCompletion.Choice = { index: 0, finish_reason: 'tool_calls', logprobs: null, message: toolCallMessage };

const anthropicMessage: Message = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  container: null,
  diagnostics: null,
  stop_details: null,
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: {
    input_tokens: 10,
    output_tokens: 20,
    cache_creation: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
  },
  content: [
    { type: 'text', text: 'Let me echo that.', citations: null },
    { type: 'tool_use', id: 'toolu_01', name: 'echo', input: { text: 'from anthropic' }, caller: { type: 'direct' } },
  ],
};

/** Gemini has no SDK here: a candidate as the REST API returns it. */
const geminiCandidate = {
  index: 0,
  content: { role: 'model', parts: [{ functionCall: { name: 'echo', args: { text: 'from gemini' } } }] },
  finishReason: 'STOP',
  avgLogprobs: -0.1,
  safetyRatings: [],
};

const responsesResponse: OpenAIResponse = {
  id: 'resp_01',
  object: 'response',
  created_at: 1_760_000_000,
  status: 'completed',
  model: 'gpt-5.1',
  output_text: '',
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: {},
  parallel_tool_calls: true,
  temperature: 1,
  tool_choice: 'auto',
  tools: [],
  top_p: 1,
  output: [{ type: 'function_call', id: 'fc_01', call_id: 'call_r1', name: 'echo', arguments: '{"text":"from responses"}', status: 'completed' }],
  usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
};

describe('whole SDK objects pass the field check', () => {
  it('a Responses response object, with every field the SDK type names', () => {
    expect(unknownDispatchFields({ thread_id: 't', format: 'responses', ...responsesResponse }, 'responses')).toBeUndefined();
    const every = Object.fromEntries(RESPONSES_BODY_FIELDS.map((f) => [f, null]));
    expect(unknownDispatchFields({ thread_id: 't', format: 'responses', ...every }, 'responses')).toBeUndefined();
    expect(unknownDispatchFields({ thread_id: 't', format: 'responses', ...responsesResponse, tool_calls: [] }, 'responses')).toBe(
      'tool_calls: unknown field; with format "responses" the body holds thread_id, format, parallel, tenant and OpenAI Responses\' calls in output (or response.output), beside the fields of the provider\'s own message',
    );
  });
});

describe('SDK-shaped bodies dispatch through the gateway', () => {
  let gw: Awaited<ReturnType<typeof testGateway>>;
  beforeAll(async () => {
    gw = await testGateway([validManifest({ tenant: 'acme', tools: [{ name: 'echo', executor: { kind: 'builtin' } }] })], { agent: { tenant: 'acme' } });
  });
  const dispatch = async (json: unknown) => {
    const response = await gw.request('/v1/dispatch', { key: 'agent', json });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body;
  };

  it('OpenAI: a whole ChatCompletionMessage spread into the body, passed as message, or a whole choice', async () => {
    for (const body of [{ ...toolCallMessage }, { message: toolCallMessage }, { ...choice }]) {
      const answer = await dispatch({ thread_id: 'oa', format: 'openai', ...JSON.parse(JSON.stringify(body)) });
      expect(answer.results[0]).toMatchObject({ call_id: 'call_abc', status: 'ok', content: 'from openai' });
      expect(answer.messages).toEqual([{ role: 'tool', tool_call_id: 'call_abc', content: 'from openai' }]);
    }
  });

  it('Anthropic: a whole Message spread into the body, or passed as message', async () => {
    for (const body of [{ ...anthropicMessage }, { message: anthropicMessage }]) {
      const answer = await dispatch({ thread_id: 'an', format: 'anthropic', ...JSON.parse(JSON.stringify(body)) });
      expect(answer.results[0]).toMatchObject({ call_id: 'toolu_01', status: 'ok', content: 'from anthropic' });
    }
  });

  it('Gemini: a whole candidate spread into the body, or its content', async () => {
    for (const body of [{ ...geminiCandidate }, { content: geminiCandidate.content }]) {
      const answer = await dispatch({ thread_id: 'ge', format: 'gemini', ...body });
      expect(answer.results[0]).toMatchObject({ status: 'ok', content: 'from gemini' });
    }
  });
});

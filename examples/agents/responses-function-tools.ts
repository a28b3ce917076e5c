/**
 * An agent loop on the OpenAI Responses API with function tools, one turn of it: get the tools
 * from toolgate, (send them to the model), hand the model's function_call items to toolgate,
 * and append the function_call_output items it answers to the next request's input.
 *
 * No model is called: the model's output below is a recorded one. Run against `npm start`:
 *   npx node examples/agents/responses-function-tools.ts
 */
import type { ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseOutputItem, Tool } from 'openai/resources/responses/responses';
import { toolgate } from './demo-gateway.ts';

interface ToolsAnswer {
  tools: Tool[];
}
interface DispatchAnswer {
  results: Array<{ call_id: string; status: string }>;
  messages: ResponseInputItem[];
}

// 1. The tenant's tools as Responses function tools (native=0: apply_patch and shell as functions too).
const { tools } = await toolgate<ToolsAnswer>('/v1/tools?format=responses&native=0');
console.log('tools:', tools.map((t) => (t.type === 'function' ? t.name : t.type)).join(', '));

// 2. The request you would send with client.responses.create(request).
const input: ResponseInputItem[] = [{ role: 'user', content: 'What does greet.sh print? Say hello back, too.' }];
const request: ResponseCreateParamsNonStreaming = { model: 'gpt-5.1', input, tools };

// 3. The model's answer: response.id and response.output, as recorded from such a request.
const RECORDED_RESPONSE_ID = 'resp_recorded_functions';
const output: ResponseOutputItem[] = [
  { type: 'reasoning', id: 'rs_1', summary: [] },
  { type: 'function_call', id: 'fc_1', call_id: 'call_read_greet', name: 'read_file', arguments: '{"file_path":"greet.sh"}', status: 'completed' },
  { type: 'function_call', id: 'fc_2', call_id: 'call_echo_hello', name: 'echo', arguments: '{"text":"hello back"}', status: 'completed' },
];

// 4. toolgate runs every function_call (validated, governed, audited) and answers the items to append.
const answer = await toolgate<DispatchAnswer>('/v1/dispatch', { thread_id: 'example-responses-functions', format: 'responses', output });
for (const result of answer.results) console.log(`${result.call_id}: ${result.status}`);

// 5. The next request: the items toolgate answered, after the model's response.
// With previous_response_id the API keeps the conversation; without it, send input, output and these items.
const next: ResponseCreateParamsNonStreaming = { ...request, previous_response_id: RECORDED_RESPONSE_ID, input: answer.messages };
console.log('items to send back:');
console.log(JSON.stringify(answer.messages, null, 2));
console.log(`next request: ${next.input?.length} input items after ${next.previous_response_id}`);

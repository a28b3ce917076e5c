/**
 * The Responses API with OpenAI's native apply_patch and shell tools, one turn: the model sends
 * `apply_patch_call` and `shell_call` items; toolgate runs them as governed calls of the
 * tenant's apply_patch and shell tools and answers `apply_patch_call_output` and
 * `shell_call_output` items.
 *
 * The demo policy runs read-only commands and parks file changes for a human: the patch below
 * waits for approval. Approve it (see the README), run this again, and the same items replay
 * with the patch applied. No model is called: the model's output below is a recorded one.
 *   npx node examples/agents/responses-native-tools.ts
 */
import type { ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseOutputItem, Tool } from 'openai/resources/responses/responses';
import { GATEWAY_URL, toolgate } from './demo-gateway.ts';

interface ToolsAnswer {
  tools: Tool[];
}
interface DispatchAnswer {
  results: Array<{ call_id: string; status: string; error?: { details?: { approval_id?: string } } }>;
  messages: ResponseInputItem[];
}

// 1. For the openai profile, format=responses gives {type: "apply_patch"} and {type: "shell"} in place of the function versions.
const { tools } = await toolgate<ToolsAnswer>('/v1/tools?format=responses');
console.log('tools:', tools.map((t) => (t.type === 'function' ? t.name : t.type)).join(', '));

const input: ResponseInputItem[] = [{ role: 'user', content: 'Make greet.sh greet from toolgate, and show me the folder.' }];
const request: ResponseCreateParamsNonStreaming = { model: 'gpt-5.1', input, tools };

// 2. A recorded response (its id and output) with both native tools.
const RECORDED_RESPONSE_ID = 'resp_recorded_native';
const output: ResponseOutputItem[] = [
  {
    type: 'shell_call',
    id: 'sh_1',
    call_id: 'call_shell_look',
    status: 'completed',
    environment: { type: 'local' },
    action: { commands: ['ls -la', 'head -n 3 greet.sh'], timeout_ms: 10_000, max_output_length: 4_000 },
  },
  {
    type: 'apply_patch_call',
    id: 'apc_1',
    call_id: 'call_patch_greet',
    status: 'completed',
    operation: { type: 'update_file', path: 'greet.sh', diff: '@@\n-echo "Hello, $name!"\n+echo "Hello, $name, from toolgate!"\n' },
  },
];

// 3. Each shell command and the patch go through the same pipeline as the function tools.
const answer = await toolgate<DispatchAnswer>('/v1/dispatch', { thread_id: 'example-responses-native', format: 'responses', output });
for (const result of answer.results) {
  console.log(`${result.call_id}: ${result.status}`);
  const approval = result.error?.details?.approval_id;
  if (result.status === 'pending_approval') {
    console.log(`  waiting for approval ${approval}: as an approver, POST ${GATEWAY_URL}/v1/approvals/${approval} {"decision": "approve"}, then run this again`);
  }
}

// 4. The items to append: an apply_patch_call_output (completed, or failed with the reason, e.g.
//    while it waits for approval) and one shell_call_output with stdout, stderr and exit code per command.
// With previous_response_id the API keeps the conversation; without it, send input, output and these items.
const next: ResponseCreateParamsNonStreaming = { ...request, previous_response_id: RECORDED_RESPONSE_ID, input: answer.messages };
console.log('items to send back:');
console.log(JSON.stringify(answer.messages, null, 2));
console.log(`next request: ${next.input?.length} input items after ${next.previous_response_id}`);

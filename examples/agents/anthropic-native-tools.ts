/**
 * An agent loop with Claude's native text editor and bash, governed by toolgate.
 *
 * No model is called: a recorded Claude response (its `content`, with tool_use blocks) is sent to
 * toolgate, which runs each call as the tenant's coding tool (view → read_file, str_replace →
 * edit_file, bash → shell, ...) under the tenant's policy, and answers with the user message to
 * append. In a real loop, that message goes into the next `messages.create` call.
 *
 * Run against the demo gateway with the Anthropic profile:
 *   TOOLGATE_DATA_DIR=.toolgate/claude npm start -- --manifest examples/demo/manifest.anthropic.json
 *   TOOLGATE_DATA_DIR=.toolgate/claude npx node examples/agents/anthropic-native-tools.ts
 * (TOOLGATE_URL or PORT, and TOOLGATE_KEY, override the gateway's address and the demo key.)
 */
import type { ContentBlock, MessageCreateParams, MessageParam, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { toolgate } from './demo-gateway.ts';

// 1. The tools for Claude: the text editor and bash in place of the coding tools they stand for.
const { tools } = await toolgate<{ tools: ToolUnion[] }>('/v1/tools?format=anthropic&native=1');
const describe = (tool: ToolUnion) => ('input_schema' in tool ? tool.name : `${'name' in tool ? tool.name : ''} (${tool.type})`);
console.log('tools:', tools.map(describe).join(', '));

const request: MessageCreateParams = {
  model: 'claude-sonnet-4-5',
  max_tokens: 2048,
  tools,
  messages: [{ role: 'user', content: 'greet.sh should greet in French. Look around, then change it.' }],
};

// 2. What Claude answered (recorded): a view, a read-only command and an edit.
const content: ContentBlock[] = [
  { type: 'text', text: "I'll look at the workspace and the script first.", citations: null },
  { type: 'tool_use', id: 'toolu_01view', name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'greet.sh' }, caller: { type: 'direct' } },
  { type: 'tool_use', id: 'toolu_02ls', name: 'bash', input: { command: 'ls -la' }, caller: { type: 'direct' } },
  {
    type: 'tool_use',
    id: 'toolu_03edit',
    name: 'str_replace_based_edit_tool',
    input: { command: 'str_replace', path: 'greet.sh', old_str: 'echo "Hello, $name!"', new_str: 'echo "Bonjour, $name !"' },
    caller: { type: 'direct' },
  },
];

// 3. toolgate runs every tool_use through its pipeline and answers with the tool_result message.
const dispatched = await toolgate<{ results: Array<{ call_id: string; name: string; status: string }>; messages: MessageParam[] }>('/v1/dispatch', {
  thread_id: 'example-anthropic-native',
  format: 'anthropic',
  content,
});
for (const result of dispatched.results) console.log(`${result.call_id}: ran as ${result.name} → ${result.status}`);

// 4. The next request: Claude's turn, then toolgate's tool results. A pending approval is an
//    error result Claude can read; sending the same content again after a human approves it
//    returns the edit's real result (same tool_use id, so it runs once).
const next: MessageCreateParams = { ...request, messages: [...request.messages, { role: 'assistant', content }, ...dispatched.messages] };
console.log('messages to send back:');
console.log(JSON.stringify(next.messages.slice(-1), null, 2));

import { FnToolExecutor } from '../registry/executor.ts';

/** Answers with its arguments: the smoke test of a deployment. */
export const echoTool = new FnToolExecutor(
  {
    name: 'echo',
    description: 'Returns the given text unchanged. Use it to check that the gateway works.',
    input_schema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to send back.' } },
      required: ['text'],
      additionalProperties: false,
    },
    tier: 'read',
    tags: ['diagnostics'],
  },
  (args) => String(args.text),
);

import { ToolError } from '../registry/errors.ts';
import { FnToolExecutor } from '../registry/executor.ts';

/** Waits, honouring the call's AbortSignal: the way to see a timeout happen. */
export const sleepTool = new FnToolExecutor(
  {
    name: 'sleep',
    description: 'Waits for the given number of milliseconds, then answers "slept N ms". Use it to test timeouts.',
    input_schema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: 600000, description: 'How long to wait.' } },
      required: ['ms'],
      additionalProperties: false,
    },
    tier: 'read',
    tags: ['diagnostics'],
  },
  (args, context) =>
    new Promise<string>((resolve, reject) => {
      const ms = Number(args.ms);
      const timer = setTimeout(() => resolve(`slept ${ms} ms`), ms);
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new ToolError('timeout', `sleep was cancelled after the call's timeout`));
      }, { once: true });
    }),
);

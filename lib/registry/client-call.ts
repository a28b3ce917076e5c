import type { JsonObject } from './json.ts';

/** A governed call handed back to the agent, whose own client runs the tool. */
export interface ClientCall {
  name: string;
  arguments: JsonObject;
}

/**
 * What an executor returns when the tool's execution lives in the agent's client (see
 * ClientToolExecutor). The execute stage turns it into an `ok` result carrying `client_call`,
 * so the pipeline needs no special case: lookup, validation, scopes, governance, idempotency
 * and audit all still apply before the call is handed out.
 */
export class ClientCallOutput {
  readonly client_call: ClientCall;

  constructor(call: ClientCall) {
    this.client_call = call;
  }
}

/** What the model reads in place of an output. */
export function clientCallInstruction(name: string): string {
  return `Run \`${name}\` in your client with these arguments; toolgate does not execute it.`;
}

import type { ConnectionUse } from '../connections/connection-access.ts';
import type { ToolDefinition } from '../registry/definition.ts';
import type { JsonObject } from '../registry/json.ts';
import type { AuditHead } from '../stores/store.ts';
import type { ToolResult } from './call.ts';
import type { CheckedContent } from './content-check.ts';
import type { HeldClaim } from './stages/claim.ts';

/** What the stages learned about one call, for the record stage and the end event. */
export interface CallTrace {
  result: ToolResult;
  /** The full output (or error message), for the end event and audit. */
  output: string;
  /** The checked content parts and structured content, untruncated, when the tool answered them (audit keeps binary parts' hash and size). */
  output_content?: CheckedContent;
  raw_arguments: unknown;
  definition?: ToolDefinition;
  args?: JsonObject;
  args_hash?: string;
  /** The governance outcome, or which stage stopped the call before governance. */
  decision: { decision: string; stage: string; reason?: string };
  claim?: HeldClaim;
  head?: AuditHead | null;
  /** The start was committed before the side effect (begin stage): the claim's record is executing, request and decision are audited. */
  started?: boolean;
  /** Which connections (and grants) the tool's tokens came from (lib/connections). */
  connections?: ConnectionUse[];
}

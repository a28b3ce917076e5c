/** An import that cannot be done as written; the message names the import and what to change. */
export class McpImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpImportError';
  }
}

/** Something `"all"` left out because toolgate could not call or serve it, for reports. */
export interface SkippedMcpTool {
  server: string;
  /** The upstream tool's name (or "resource <uri>", "prompt <name>", ...). */
  tool: string;
  reason: string;
}

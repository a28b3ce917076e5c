import type { ToolDefinition } from '../definition.ts';
import { toAnthropicTools, type AnthropicCustomTool } from './anthropic.ts';

/**
 * Anthropic's client tools that Claude models are trained on, offered in place of the coding
 * tools they stand for. Dispatch turns their calls back into calls of those tools
 * (lib/dispatch/formats/anthropic-native.ts), so the tenant's tiers, policy and approvals apply.
 */
export const TEXT_EDITOR_NAME = 'str_replace_based_edit_tool';
export const BASH_NAME = 'bash';

/** The text editor's commands and the tools they run as: view reads, create and insert write, str_replace edits. */
export const TEXT_EDITOR_TOOLS = { view: 'read_file', create: 'write_file', str_replace: 'edit_file', insert: 'write_file' } as const;
export const BASH_TOOL = 'shell';

export interface AnthropicTextEditorTool {
  type: 'text_editor_20250728';
  name: typeof TEXT_EDITOR_NAME;
  /** How much of a viewed file Claude is told it sees: read_file's own character limit. */
  max_characters?: number;
}

export interface AnthropicBashTool {
  type: 'bash_20250124';
  name: typeof BASH_NAME;
}

export type AnthropicNativeTool = AnthropicTextEditorTool | AnthropicBashTool;

/** The names a tenant has: a tenant tool called `bash` (or the editor's name) is its own and wins. */
export interface NativeToolContext {
  isRegistered(name: string): boolean;
}

const EDITOR_TARGETS: readonly string[] = [...new Set(Object.values(TEXT_EDITOR_TOOLS))];

/**
 * Anthropic tools with the native ones in place: the text editor replaces read_file, write_file
 * and edit_file where all three are exported, bash replaces shell; each only where no tenant tool
 * has its name. Everything else stays a custom (function) tool, in order.
 */
export function toAnthropicNativeTools(definitions: ToolDefinition[], context: NativeToolContext): Array<AnthropicCustomTool | AnthropicNativeTool> {
  const exported = new Map(definitions.map((d) => [d.name, d]));
  const editor = !context.isRegistered(TEXT_EDITOR_NAME) && EDITOR_TARGETS.every((name) => exported.has(name));
  const bash = !context.isRegistered(BASH_NAME) && exported.has(BASH_TOOL);
  const tools: Array<AnthropicCustomTool | AnthropicNativeTool> = [];
  let editorPlaced = false;
  for (const definition of definitions) {
    if (editor && EDITOR_TARGETS.includes(definition.name)) {
      // The editor takes the place of the first tool it stands for.
      if (!editorPlaced) tools.push(textEditorTool(exported.get(TEXT_EDITOR_TOOLS.view)));
      editorPlaced = true;
    } else if (bash && definition.name === BASH_TOOL) {
      tools.push({ type: 'bash_20250124', name: BASH_NAME });
    } else {
      tools.push(...toAnthropicTools([definition]));
    }
  }
  return tools;
}

function textEditorTool(read: ToolDefinition | undefined): AnthropicTextEditorTool {
  const maxChars = read?.output?.max_chars;
  return { type: 'text_editor_20250728', name: TEXT_EDITOR_NAME, ...(maxChars !== undefined ? { max_characters: maxChars } : {}) };
}

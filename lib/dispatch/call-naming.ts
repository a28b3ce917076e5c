import type { Approval } from '../governance/approval.ts';
import { BASH_NAME, BASH_TOOL, TEXT_EDITOR_NAME, TEXT_EDITOR_TOOLS } from '../registry/formats/anthropic-native.ts';
import { appendPointer, argumentPath, pointerSegments } from '../validation/json-pointer.ts';
import type { Violation } from '../validation/validator.ts';
import type { NativeItem, ToolCall } from './call.ts';

/**
 * How the gateway's own messages about a call (denied, parked, timed out, invalid, ...) name its
 * tool, its arguments and its id: as the model holds them. A call made through a provider's
 * native tool (ToolCall.native) runs as one of the tenant's tools with translated arguments; the
 * model holds the native tool, so its messages name that tool and the parameters the model
 * wrote, and never an argument the gateway set on its own (bash's timeout_ms).
 */
export interface CallNaming {
  /** The tool, ready for a sentence: "`write_file`", "`str_replace_based_edit_tool` (command "create")". */
  tool: string;
  /** The field the call's id is sent in: "call_id", "tool_use id". */
  callId: string;
  /** The call's arguments as a whole: "arguments", a tool_use's "input", an apply_patch_call's "operation". */
  input: string;
  /** One schema violation of the arguments, in the model's terms; undefined when it concerns a value the model has no parameter for. */
  violation(violation: Violation): string | undefined;
  /** Free text (a policy rule's reason, an approver's) with the tools the native tool stands for called by its name. */
  inText(text: string): string;
}

/** What a native call's naming is made of. */
type NativeNames = Pick<NativeItem, 'tool' | 'command' | 'parameters'>;

interface NativeTerms {
  callId: string;
  input: string;
  /** The tools its calls run as, named in the tenant's texts (policy reasons) as they know them. */
  standsFor: readonly string[];
}

const CLAUDE_TOOL_USE = { callId: 'tool_use id', input: 'input' };
const NATIVE_TERMS = new Map<string, NativeTerms>([
  [TEXT_EDITOR_NAME, { ...CLAUDE_TOOL_USE, standsFor: [...new Set(Object.values(TEXT_EDITOR_TOOLS))] }],
  [BASH_NAME, { ...CLAUDE_TOOL_USE, standsFor: [BASH_TOOL] }],
  // The Responses API's native tools run as the tools of the same name.
  ['apply_patch', { callId: 'call_id', input: 'operation', standsFor: [] }],
  ['shell', { callId: 'call_id', input: 'commands', standsFor: [] }],
]);

/** A call of a tool the model holds under its own name: its messages read as they always have. */
export function genericNaming(tool: string): CallNaming {
  return { tool: `\`${tool}\``, callId: 'call_id', input: 'arguments', violation: (v) => v.message, inText: (text) => text };
}

/** The naming of a call: the native tool's when it was made through one. */
export function callNaming(call: Pick<ToolCall, 'name' | 'native'>): CallNaming {
  return call.native ? nativeNaming(call.native) : genericNaming(call.name);
}

/** The naming of a parked call, as its approval remembers the call. */
export function approvalNaming(approval: Approval): CallNaming {
  if (approval.native_tool === undefined) return genericNaming(approval.tool);
  return nativeNaming({ tool: approval.native_tool, command: approval.native_command, parameters: approval.native_parameters ?? {} });
}

/** What an approval keeps of a native call's names (approvalNaming reads them back). */
export function nativeNamesOfApproval(call: Pick<ToolCall, 'native'>): Pick<Approval, 'native_tool' | 'native_command' | 'native_parameters'> {
  const native = call.native;
  if (!native) return {};
  return { native_tool: native.tool, ...(native.command ? { native_command: native.command } : {}), native_parameters: { ...native.parameters } };
}

function nativeNaming(names: NativeNames): CallNaming {
  const terms = NATIVE_TERMS.get(names.tool) ?? { callId: 'call_id', input: 'arguments', standsFor: [] };
  const standsFor = terms.standsFor.length > 0 ? new RegExp(`\\b(?:${terms.standsFor.join('|')})\\b`, 'g') : undefined;
  return {
    tool: `\`${names.tool}\`${names.command ? ` (command "${names.command}")` : ''}`,
    callId: terms.callId,
    input: terms.input,
    violation: (v) => nativeViolation(v, names.parameters),
    inText: (text) => (standsFor ? text.replace(standsFor, () => names.tool) : text),
  };
}

/** An argument (a JSON pointer into the arguments the tool runs with) by the model's name for it; undefined for the whole, or for one the gateway set. */
function nativeArgument(pointer: string, parameters: Readonly<Record<string, string>>): string | undefined {
  const [first] = pointerSegments(pointer);
  if (first === undefined || !Object.hasOwn(parameters, first)) return undefined;
  // The rest of the path below the argument ("[2]", ".name") as argumentPath writes it.
  const below = argumentPath(pointer).slice(argumentPath(appendPointer('', first)).length);
  return parameters[first] + below;
}

/** describeViolation's detail of a property required because another one is given. */
const REQUIRED_WHEN = /^is required when `([A-Za-z_$][\w$-]*)[^`]*` is given$/;

/** "`old_str` must be ...": the violation's rule, said of the model's parameter. */
function nativeViolation(violation: Violation, parameters: Readonly<Record<string, string>>): string | undefined {
  const name = nativeArgument(violation.pointer, parameters);
  if (name === undefined) return undefined;
  const when = REQUIRED_WHEN.exec(violation.detail);
  if (!when) return `\`${name}\` ${violation.detail}`;
  // Required because another argument is given: that one by the model's name too, or unnamed when the gateway set it.
  const given = nativeArgument(appendPointer('', when[1]), parameters);
  return given === undefined ? `\`${name}\` is required here` : `\`${name}\` is required when \`${given}\` is given`;
}

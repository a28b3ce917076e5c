import { ToolError } from '../../registry/errors.ts';
import type { JsonObject } from '../../registry/json.ts';

/**
 * Reading typed arguments. The pipeline validates arguments against the tool's schema first;
 * these checks only matter when an embedding caller runs an executor directly.
 */
function wrongType(name: string, expected: string): ToolError {
  return new ToolError('invalid_arguments', `Argument "${name}" must be ${expected}.`);
}

export function requiredString(args: JsonObject, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw wrongType(name, 'a string');
  return value;
}

export function optionalString(args: JsonObject, name: string): string | undefined {
  const value = args[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw wrongType(name, 'a string');
  return value;
}

export function optionalInteger(args: JsonObject, name: string, fallback: number): number {
  const value = args[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType(name, 'an integer');
  return value;
}

export function optionalBoolean(args: JsonObject, name: string, fallback: boolean): boolean {
  const value = args[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw wrongType(name, 'a boolean');
  return value;
}

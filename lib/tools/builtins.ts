import type { ToolExecutor } from '../registry/executor.ts';
import { echoTool } from './echo.ts';
import { sleepTool } from './sleep.ts';

/** Tools registered in code that a manifest can name with `"executor": {"kind": "builtin"}`. */
export function builtinTools(): Map<string, ToolExecutor> {
  return new Map<string, ToolExecutor>([
    [echoTool.name, echoTool],
    [sleepTool.name, sleepTool],
  ]);
}

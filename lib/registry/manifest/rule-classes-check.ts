import { ARGUMENT_CLASSES, type ArgumentClass } from '../../governance/argument-classes.ts';
import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import { memberPath } from './paths.ts';

/** The manifest's own entry for the class's tool, when it replaces the built-in one with another executor. */
function replacedBuiltin(tools: unknown, argumentClass: ArgumentClass): string | undefined {
  if (!Array.isArray(tools)) return undefined;
  const index = tools.findIndex((tool) => isJsonObject(tool) && tool.name === argumentClass.tool);
  const executor = index < 0 ? undefined : (tools[index] as JsonObject).executor;
  if (!isJsonObject(executor) || executor.kind === 'builtin') return undefined;
  return `$.tools[${index}] replaces it with a "${String(executor.kind)}" executor`;
}

function classProblems(rule: JsonObject, name: string, className: string, path: string, tools: unknown): ManifestProblem[] {
  const argumentClass = ARGUMENT_CLASSES.get(className);
  if (!argumentClass) return [{ path: `${path}.class`, message: `unknown class "${className}" (known: ${[...ARGUMENT_CLASSES.keys()].join(', ')})` }];
  const purpose = `class "${className}" is only for the "${argumentClass.argument}" argument of the "${argumentClass.tool}" tool`;
  if (rule.tool !== argumentClass.tool) return [{ path, message: `${purpose}, and this rule is for "${String(rule.tool)}": set "tool": "${argumentClass.tool}"` }];
  if (name !== argumentClass.argument) return [{ path, message: `${purpose}, not for "${name}"` }];
  const replaced = replacedBuiltin(tools, argumentClass);
  if (replaced) return [{ path, message: `${purpose} as built in (which enforces what a grant by the class promises); ${replaced}` }];
  return [];
}

/**
 * Every `{"class": NAME}` argument matcher names a known class and is used where its meaning
 * holds: on its tool and argument, with that tool the built-in one (a tenant's own "shell" would
 * not run the command read-only).
 */
export function checkRuleClasses(policy: unknown, tools: unknown): ManifestProblem[] {
  if (!isJsonObject(policy) || !Array.isArray(policy.rules)) return [];
  return policy.rules.flatMap((rule, index) => {
    if (!isJsonObject(rule) || !isJsonObject(rule.arguments)) return [];
    return Object.entries(rule.arguments).flatMap(([name, source]) => {
      if (!isJsonObject(source) || typeof source.class !== 'string') return [];
      return classProblems(rule, name, source.class, memberPath(`$.policy.rules[${index}].arguments`, name), tools);
    });
  });
}

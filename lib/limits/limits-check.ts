import type { ManifestProblem } from '../registry/executors/kind.ts';
import { isJsonObject, type JsonObject } from '../registry/json.ts';
import { compileLimit, toolGlobMatches, type ManifestLimit } from './limit.ts';

/**
 * What the manifest schema cannot say about `limits` (it checks each field's type and range):
 * a limit is a count per window or a concurrency cap, not both or neither; a request limit names
 * no tools and no cost; a tool whose cost exceeds a limit's max could never run; two limits on
 * one counter would share their counts.
 */
export function checkLimits(manifest: JsonObject): ManifestProblem[] {
  if (!Array.isArray(manifest.limits)) return [];
  const tools = Array.isArray(manifest.tools) ? manifest.tools.filter(isJsonObject) : [];
  const counters = new Map<string, number>();
  return manifest.limits.flatMap((entry, index) => {
    if (!isJsonObject(entry)) return [];
    const limit = entry as unknown as ManifestLimit;
    const at = `$.limits[${index}]`;
    const problems = [...shapeProblems(limit, at), ...costProblems(limit, tools, at)];
    if (problems.length > 0) return problems;
    const id = compileLimit(limit, index).id;
    const first = counters.get(id);
    if (first !== undefined) return [{ path: limit.name ? `${at}.name` : at, message: `counts on the same counter as $.limits[${first}] (${id}); give one of them a different "name"` }];
    counters.set(id, index);
    return [];
  });
}

function shapeProblems(limit: ManifestLimit, at: string): ManifestProblem[] {
  const windowed = limit.max !== undefined || limit.window_seconds !== undefined;
  if (limit.concurrency !== undefined && windowed) return [{ path: at, message: 'is either a count per window ("max" and "window_seconds") or a concurrency cap ("concurrency"), not both' }];
  if (limit.concurrency === undefined && (limit.max === undefined || limit.window_seconds === undefined)) {
    return [{ path: at, message: `needs "max" and "window_seconds" (at most max calls per window), or "concurrency" (at most that many at once)${limit.max === undefined ? '' : '; "window_seconds" is missing'}` }];
  }
  if (limit.concurrency !== undefined && limit.window !== undefined) return [{ path: `${at}.window`, message: 'applies to a count per window; a concurrency cap has no window' }];
  if (limit.counts !== 'requests') return [];
  const problems: ManifestProblem[] = [];
  if (limit.tools !== undefined) problems.push({ path: `${at}.tools`, message: 'a request limit counts whole HTTP requests, whatever tools they call; remove "tools", or count "calls"' });
  if (limit.per === 'tool') problems.push({ path: `${at}.per`, message: 'a request limit counts per "tenant" or "principal": a request may call many tools' });
  if (limit.weight === 'cost') problems.push({ path: `${at}.weight`, message: 'a request has no cost; weigh "calls" by cost instead' });
  if (limit.concurrency !== undefined) problems.push({ path: `${at}.concurrency`, message: 'request limits count per window; cap the concurrency of calls instead' });
  return problems;
}

/** A call of a tool that costs more than a limit's max could never run. */
function costProblems(limit: ManifestLimit, tools: JsonObject[], at: string): ManifestProblem[] {
  if (limit.weight !== 'cost' || limit.max === undefined) return [];
  return tools.flatMap((tool, i) => {
    const cost = typeof tool.cost === 'number' ? tool.cost : 1;
    if (typeof tool.name !== 'string' || cost <= limit.max! || !toolGlobMatches(limit.tools ?? '*', tool.name)) return [];
    return [{ path: `$.tools[${i}].cost`, message: `is ${cost}, more than the ${limit.max} that ${at} allows per window: no call of ${tool.name} could ever run; lower the cost or raise the limit` }];
  });
}

import { writeFileSync } from 'node:fs';
import type { ManifestProblem } from '../registry/executors/kind.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { loadManifest } from '../registry/manifest/loader.ts';
import { McpImportError, pinMcpImports, type McpImportResult } from '../registry/mcp-upstream/import.ts';
import { loadManifestFile, manifestLoadOptions } from './manifest-file.ts';

type Log = (line: string) => void;

export function printProblems(label: string, problems: ManifestProblem[]): void {
  console.error(`${label}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  for (const problem of problems) console.error(`  ${problem.path}: ${problem.message}`);
}

const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** Per server: which tools were pinned, under which names and tiers, how many resources, templates and prompts, and what "all" left out and why. */
function reportPins(manifest: Manifest, { pinned, pinnedFeatures, skipped }: Pick<McpImportResult, 'pinned' | 'pinnedFeatures' | 'skipped'>, log: Log): void {
  for (const spec of manifest.mcp_imports ?? []) {
    const mine = pinned.filter((pin) => pin.server === spec.server);
    log(`pinned ${counted(mine.length, 'tool')} from "${spec.server}" (${spec.url})`);
    for (const pin of mine) log(`  ${pin.name}${pin.name === pin.tool ? '' : ` ← ${pin.tool}`} (${pin.tier})`);
    const features = pinnedFeatures.find((entry) => entry.server === spec.server);
    if (spec.resources || spec.resource_templates || spec.prompts) {
      log(`  and ${counted(features?.resources ?? 0, 'resource')}, ${counted(features?.resource_templates ?? 0, 'resource template')}, ${counted(features?.prompts ?? 0, 'prompt')}`);
    }
    for (const skip of skipped.filter((s) => s.server === spec.server)) log(`  not pinned: ${skip.tool}: ${skip.reason}`);
  }
}

/**
 * The manifest with its `mcp_imports` pinned, checked again as the gateway will check it.
 * `env:NAME` headers resolve from this process's environment. Undefined after printing why not.
 */
export async function pinManifestImports(file: string, manifest: Manifest, log: Log): Promise<Manifest | undefined> {
  let imported: McpImportResult;
  try {
    imported = await pinMcpImports(manifest, process.env);
  } catch (error) {
    if (!(error instanceof McpImportError)) throw error;
    console.error(`${file}: ${error.message}`);
    return undefined;
  }
  const checked = loadManifest(imported.manifest, manifestLoadOptions());
  if (!checked.ok) {
    printProblems(`${file} with its MCP tools pinned`, checked.problems);
    return undefined;
  }
  reportPins(manifest, imported, log);
  return checked.manifest;
}

/** `toolgate manifest import-mcp FILE [--out OUT]`: the manifest with pinned MCP tools, to stdout or OUT. */
export async function importMcpCommand(file: string, out: string | undefined): Promise<number> {
  const loaded = loadManifestFile(file);
  if (!loaded.ok) {
    printProblems(file, loaded.problems);
    return 1;
  }
  if (!loaded.manifest.mcp_imports?.length) {
    console.error(`${file}: nothing to import; add an "mcp_imports" entry ({"server", "url", "tools"}) first`);
    return 1;
  }
  // The manifest itself goes to stdout unless --out takes it, so the report goes to stderr then.
  const log: Log = out ? (line) => console.log(line) : (line) => console.error(line);
  const manifest = await pinManifestImports(file, loaded.manifest, log);
  if (!manifest) return 1;
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  if (!out) {
    process.stdout.write(text);
    return 0;
  }
  writeFileSync(out, text);
  console.log(`wrote ${out} (version ${manifest.version}, ${manifest.tools.length} tools)`);
  return 0;
}

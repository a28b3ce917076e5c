import type { Logger } from '../dispatch/events.ts';
import type { ToolDefinition } from '../registry/definition.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import type { ToolRegistry } from '../registry/registry.ts';
import type { Store } from '../stores/store.ts';
import { buildSearchIndex, readPackedIndex, SearchIndex, type SearchDocument } from './bm25-index.ts';
import { callableBy } from './callable.ts';
import { SEARCH_TOOL_NAME } from './search-tool-definition.ts';
import { loadSearchIndexText } from './stored-index.ts';

/** What a tenant's searchable catalog is made from: one manifest version's tools as this isolate serves them. */
export interface CatalogSource {
  manifest: Manifest;
  registry: ToolRegistry;
  store?: Store;
  log?: Logger;
}

export interface CatalogQuery {
  query: string;
  limit: number;
  /** The caller's scopes (undefined: a trusted in-process caller). */
  scopes: ReadonlySet<string> | undefined;
  /** Keep only tools carrying every one of these tags (the listing's `tag` filter). */
  tags?: readonly string[];
}

/** Masks are per scope set; a tenant's keys have few distinct ones, and a flood of new ones only restarts the cache. */
const MAX_CACHED_MASKS = 64;

/** The tools a search covers: every tool of the registry but search_tools itself (it is always sent). */
export function searchableDefinitions(registry: ToolRegistry): ToolDefinition[] {
  return registry.definitions().filter((d) => d.name !== SEARCH_TOOL_NAME);
}

export function searchDocument(definition: ToolDefinition): SearchDocument {
  const properties = (definition.input_schema as { properties?: unknown }).properties;
  const argumentNames = properties && typeof properties === 'object' ? Object.keys(properties) : [];
  return { name: definition.name, description: definition.description, tags: definition.tags, argumentNames };
}

/** A manifest version's tools with their search index, and who may see which. */
export class ToolCatalog {
  readonly #index: SearchIndex;
  readonly #definitions: readonly ToolDefinition[];
  readonly #manifest: Manifest;
  readonly #masks = new Map<string, Uint8Array>();

  constructor(index: SearchIndex, definitions: readonly ToolDefinition[], manifest: Manifest) {
    this.#index = index;
    this.#definitions = definitions;
    this.#manifest = manifest;
  }

  /** The best matches the caller may call, best first. */
  search({ query, limit, scopes, tags = [] }: CatalogQuery): ToolDefinition[] {
    const definitions = this.#definitions;
    const callable = this.#mask(scopes);
    // Tags are judged once per tool here, not once per posting while scoring (a query's words may each match every tool).
    const mask = tags.length === 0 ? callable : callable.map((visible, id) => (visible === 1 && tags.every((tag) => definitions[id].tags.includes(tag)) ? 1 : 0));
    return this.#index.search(query, limit, (id) => mask[id] === 1).map((hit) => definitions[hit.id]);
  }

  /** 1 where the caller may call document i: computed once per scope set. */
  #mask(scopes: ReadonlySet<string> | undefined): Uint8Array {
    const key = scopes === undefined ? '\u0000trusted' : [...scopes].sort().join('\u0000');
    let mask = this.#masks.get(key);
    if (mask) return mask;
    const callable = callableBy(this.#manifest, scopes);
    mask = Uint8Array.from(this.#definitions, (d) => (callable(d) ? 1 : 0));
    if (this.#masks.size >= MAX_CACHED_MASKS) this.#masks.clear();
    this.#masks.set(key, mask);
    return mask;
  }
}

const catalogs = new WeakMap<ToolRegistry, Promise<ToolCatalog>>();

/**
 * The catalog of the version `source.registry` serves, loaded once per isolate: the index stored
 * at publish when it covers exactly these tools, else built here (a manifest seeded by the
 * deployment, or a registry changed by an overlay) and logged, since at 10,000 tools that costs
 * a few hundred milliseconds.
 */
export function toolCatalog(source: CatalogSource): Promise<ToolCatalog> {
  let catalog = catalogs.get(source.registry);
  if (!catalog) {
    catalog = loadCatalog(source);
    catalogs.set(source.registry, catalog);
    // A failure must not stick: the next search tries again.
    catalog.catch(() => catalogs.delete(source.registry));
  }
  return catalog;
}

async function loadCatalog({ manifest, registry, store, log }: CatalogSource): Promise<ToolCatalog> {
  const definitions = searchableDefinitions(registry);
  const text = store ? await storedIndexText(store, manifest, log) : undefined;
  const stored = text === undefined ? undefined : readPackedIndex(text);
  const fits = stored !== undefined && stored.names.length === definitions.length && stored.names.every((name, i) => name === definitions[i].name);
  if (!fits) log?.('search.index.built', { tenant: manifest.tenant, version: manifest.version, tools: definitions.length, reason: stored ? 'the stored index covers other tools' : 'no stored index' });
  const packed = fits ? stored : buildSearchIndex(definitions.map(searchDocument));
  return new ToolCatalog(new SearchIndex(packed), definitions, manifest);
}

/** The stored index's text; a store that cannot answer costs speed, not the search: the index is built here instead. */
async function storedIndexText(store: Store, manifest: Manifest, log: Logger | undefined): Promise<string | undefined> {
  try {
    return await loadSearchIndexText(store, manifest.tenant, manifest.version);
  } catch (error) {
    log?.('search.index.unreadable', { tenant: manifest.tenant, version: manifest.version, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

import { InvalidSchemaError } from './validator.ts';

/**
 * The JSON Schema drafts a tool schema may declare with `$schema`. Real MCP servers publish
 * schemas of several drafts (the official TypeScript SDK: draft-07), so both engines validate
 * each schema by the rules of the draft it declares; a schema that declares none is 2020-12.
 */
export type SchemaDraft = 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

/** A schema without `$schema` is validated as draft 2020-12 (the current draft, and MCP's default). */
export const DEFAULT_DRAFT: SchemaDraft = '2020-12';

/** Each draft's meta-schema URI, as its specification spells it (and ajv registers it). */
export const DRAFT_URIS: Readonly<Record<SchemaDraft, string>> = {
  'draft-06': 'http://json-schema.org/draft-06/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

/**
 * The URI without what writers vary: the scheme (http or https) and an empty fragment ("#").
 * Generators spell draft-07 with "#" and 2020-12 without, and some use https for the old ones.
 */
const normalized = (uri: string) => uri.trim().replace(/^https?:\/\//, '//').replace(/#$/, '');

const BY_URI = new Map<string, SchemaDraft>(
  (Object.entries(DRAFT_URIS) as Array<[SchemaDraft, string]>).map(([draft, uri]) => [normalized(uri), draft]),
);

const DRAFT_04 = normalized('http://json-schema.org/draft-04/schema');

/** The declared `$schema` of a schema's root, or undefined when it declares none. */
function declared(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  return (schema as { $schema?: unknown }).$schema;
}

/**
 * The draft a schema's root declares, DEFAULT_DRAFT when it declares none, or undefined when its
 * `$schema` is not one of the supported drafts (`schemaDraftProblem` says why).
 */
export function draftOf(schema: unknown, defaultDraft: SchemaDraft = DEFAULT_DRAFT): SchemaDraft | undefined {
  const uri = declared(schema);
  if (uri === undefined) return defaultDraft;
  return typeof uri === 'string' ? BY_URI.get(normalized(uri)) : undefined;
}

/** Why a `$schema` value cannot be used, or undefined when it names a supported draft. */
export function schemaDraftProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return `must be a string: the URI of a JSON Schema draft's meta-schema (${supportedList()})`;
  if (BY_URI.has(normalized(uri))) return undefined;
  if (normalized(uri) === DRAFT_04) {
    return `draft-04 is not supported; declare draft-07 ("${DRAFT_URIS['draft-07']}#") instead, writing a boolean exclusiveMinimum/exclusiveMaximum as the number it bounds (draft-04's "minimum": 0, "exclusiveMinimum": true is "exclusiveMinimum": 0)`;
  }
  return `unknown JSON Schema draft ${JSON.stringify(uri)}: declare one of ${supportedList()}, or leave $schema out for draft 2020-12`;
}

const supportedList = () => Object.values(DRAFT_URIS).map((uri) => `"${uri}"`).join(', ');

/** Whether the draft's `items` may be an array of schemas (a tuple; 2020-12 has `prefixItems` for that). */
export const hasTupleItems = (draft: SchemaDraft) => draft !== '2020-12';

/**
 * The draft to validate a schema by, for an engine about to compile it. The lint reports an
 * unknown `$schema` at publish; this refuses it again for a schema stored before that check.
 */
export function draftToCompile(schema: unknown, defaultDraft?: SchemaDraft): SchemaDraft {
  const draft = draftOf(schema, defaultDraft);
  if (draft === undefined) throw new InvalidSchemaError(`$schema: ${schemaDraftProblem(declared(schema))}`);
  return draft;
}

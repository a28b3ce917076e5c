/**
 * Both validation engines against the official JSON-Schema-Test-Suite (drafts 2020-12 and 7), in
 * the keyword groups the product relies on, and the engines' agreement. scripts/conformance.ts prints the whole picture; this
 * file pins what must hold. Measured as scripts/conformance-lib.ts builds the engines: the
 * product's factories with the suite's remotes registered and the tool-schema lint off.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { corpusExists, corpusRoot, disagreements, DRAFT_2020_12, ENGINES, loadRemotes, loadSuite, measureEngine, measureFile, SUITE_DRAFTS, type KeywordResult, type SuiteFile } from '../../scripts/conformance-lib.ts';
import { lintSchema } from '../../lib/validation/schema-lint.ts';
import type { EngineName } from '../../lib/validation/validator.ts';

const exists = corpusExists();
if (!exists) console.warn(`skipped: corpus not found at ${corpusRoot}`);

/** Suite files (keyword groups) whose every test must pass; "ref" is the `$ref` file. */
const RELIED_ON = [
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items', 'prefixItems',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
  'pattern', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'anyOf', 'oneOf',
  'allOf', 'not', 'ref', 'defs', 'boolean_schema', 'if-then-else', 'dependentRequired',
  'patternProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties',
  'optional/float-overflow', 'optional/refOfUnknownKeyword',
];

/**
 * Groups whose schema toolgate's lint refuses (lib/validation/schema-lint.ts), so no such
 * schema ever reaches an engine in the product. The test below proves this list is exactly
 * the set the lint refuses, so nothing drops out of the guarantee silently.
 */
const REFUSED_BY_LINT: Record<string, string[]> = {
  // Tool schemas may only `$ref` their own document (`#/...` pointers and `#anchor`s). These
  // use remote documents, `$id`-relative or absolute URIs, URNs, or the meta-schema. (ajv also
  // overflows its stack compiling three of them: "refs with relative uris and defs",
  // "relative refs with absolute uris and defs", "URN ref with nested pointer ref"; the
  // eval-free engine cannot reach the meta-schema in "remote ref, containing refs itself".)
  ref: [
    'remote ref, containing refs itself',
    'Recursive references between schemas',
    'refs with relative uris and defs',
    'relative refs with absolute uris and defs',
    '$id must be resolved against nearest parent, not just immediate parent',
    'order of evaluation: $id and $ref',
    'order of evaluation: $id and $ref on nested schema',
    'simple URN base URI with $ref via the URN',
    'URN base URI with URN and JSON pointer ref',
    'URN base URI with URN and anchor ref',
    'URN ref with nested pointer ref',
    'ref to if',
    'ref to then',
    'ref to else',
    'ref with absolute-path-reference',
    // A nested `$id` resource: the eval-free engine leaks its `$anchor` into the outer resource.
    'order of evaluation: $id and $anchor and $ref',
  ],
  // defs.json's only group validates a $defs entry against the meta-schema by URI (the
  // eval-free engine has no meta-schema). Local $defs are covered by ref.json's pointer cases.
  defs: ['validate definition against metaschema'],
  // `enum: []` accepts nothing: ajv refuses to compile it, so the lint refuses it on both.
  enum: ['empty enum'],
  // These groups declare a property named "__proto__", which ajv silently skips; the lint refuses
  // it. (Names like "constructor" and "toString" are covered in messages.test.ts.)
  properties: ['properties whose names are Javascript object property names'],
  required: ['required properties whose names are Javascript object property names'],
  // Where the engines track "evaluated" annotations differently (lib/validation/unevaluated-lint.ts):
  // unevaluatedItems with contains, or with item keywords in an anyOf/oneOf branch or an if;
  // unevaluatedProperties relying on properties only an if evaluates. The $dynamicRef groups use
  // remote documents, nested $id and $dynamicRef, none of which tool schemas may use.
  unevaluatedItems: [
    'unevaluatedItems with nested items',
    'unevaluatedItems with anyOf',
    'unevaluatedItems with oneOf',
    'unevaluatedItems with if/then/else',
    'unevaluatedItems with $dynamicRef',
    'unevaluatedItems depends on adjacent contains',
    'unevaluatedItems depends on multiple nested contains',
    'unevaluatedItems and contains interact to control item dependency relationship',
    'unevaluatedItems with minContains = 0',
    'unevaluatedItems can see annotations from if without then and else',
  ],
  unevaluatedProperties: [
    'unevaluatedProperties with if/then/else',
    'unevaluatedProperties with if/then/else, then not defined',
    'unevaluatedProperties with $dynamicRef',
    'unevaluatedProperties can see annotations from if without then and else',
  ],
  // A $ref into `examples` (data, not a schema): the eval-free engine cannot follow it.
  'optional/refOfUnknownKeyword': ['reference internals of known non-applicator'],
};

/**
 * Real engine failures in schemas the lint accepts. Reported, not hidden: the test fails if
 * one of these starts passing (shrink the list) or anything else fails.
 */
const KNOWN_GAPS: Record<EngineName, string[]> = {
  ajv: [],
  cfworker: [],
};

const refusedByLint = (file: SuiteFile, group: string) => (REFUSED_BY_LINT[file.keyword] ?? []).includes(group);

/** Failures outside the lint-refused groups, as "keyword / group / test" lines. */
function failuresOf(file: SuiteFile, result: KeywordResult): string[] {
  return result.failures
    .filter((f) => !refusedByLint(file, f.group))
    .map((f) => `${result.keyword} / ${f.group}${f.test ? ` / ${f.test}` : ''}`);
}

describe.skipIf(!exists)('JSON-Schema-Test-Suite draft 2020-12: the keywords toolgate relies on', () => {
  let files: SuiteFile[] = [];
  const results = new Map<EngineName, Map<string, KeywordResult>>();

  beforeAll(() => {
    files = loadSuite().filter((f) => RELIED_ON.includes(f.keyword));
    const remotes = loadRemotes();
    for (const engine of ENGINES) {
      results.set(engine, new Map(files.map((f) => [f.keyword, measureFile(engine, f, remotes)])));
    }
  });

  it('finds every relied-on keyword file', () => {
    expect(files.map((f) => f.keyword).sort()).toEqual([...RELIED_ON].sort());
  });

  it('excludes exactly the groups the tool-schema lint refuses', () => {
    const refused = files.flatMap((f) => f.groups.filter((g) => lintSchema(g.schema).length > 0).map((g) => `${f.keyword} / ${g.description}`));
    const listed = Object.entries(REFUSED_BY_LINT).flatMap(([keyword, groups]) => groups.map((g) => `${keyword} / ${g}`));
    expect(refused.sort()).toEqual(listed.sort());
  });

  for (const engine of ENGINES) {
    for (const keyword of RELIED_ON) {
      it(`${engine}: ${keyword}`, () => {
        const file = files.find((f) => f.keyword === keyword);
        const result = results.get(engine)?.get(keyword);
        if (!file || !result) throw new Error(`${keyword}.json was not measured`);
        const known = KNOWN_GAPS[engine].filter((gap) => gap.startsWith(`${keyword} / `));
        expect(result.passed + result.failed).toBe(file.groups.reduce((n, g) => n + g.tests.length, 0));
        expect(failuresOf(file, result)).toEqual(known);
      });
    }
  }
});

const DRAFT_7 = SUITE_DRAFTS[1];

/** Draft-07's files of the suite whose every test must pass (besides what the lint refuses). */
const RELIED_ON_DRAFT_7 = [
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items', 'additionalItems',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
  'pattern', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'anyOf', 'oneOf',
  'allOf', 'not', 'ref', 'definitions', 'boolean_schema', 'if-then-else', 'dependencies', 'contains',
  'patternProperties', 'propertyNames', 'default', 'format', 'infinite-loop-detection',
];

/** Draft-07 groups the lint refuses, for the reasons given for 2020-12 above (refs outside the document, nested $id, "__proto__"). */
const REFUSED_BY_LINT_DRAFT_7: Record<string, string[]> = {
  definitions: ['validate definition against metaschema'],
  properties: ['properties whose names are Javascript object property names'],
  required: ['required properties whose names are Javascript object property names'],
  ref: [
    '$ref prevents a sibling $id from changing the base uri',
    'remote ref, containing refs itself',
    'Recursive references between schemas',
    // Draft-07 anchors are `$id: "#foo"`: a nested $id, which tool schemas do not use.
    'Location-independent identifier',
    'Reference an anchor with a non-relative URI',
    'Location-independent identifier with base URI change in subschema',
    'refs with relative uris and defs',
    'relative refs with absolute uris and defs',
    '$id must be resolved against nearest parent, not just immediate parent',
    'simple URN base URI with $ref via the URN',
    'URN base URI with URN and JSON pointer ref',
    'URN base URI with URN and anchor ref',
    'ref to if',
    'ref to then',
    'ref to else',
    'ref with absolute-path-reference',
  ],
};

describe.skipIf(!exists || !corpusExists(DRAFT_7.folder))('JSON-Schema-Test-Suite draft 7: the keywords toolgate relies on', () => {
  let files: SuiteFile[] = [];
  const results = new Map<EngineName, Map<string, KeywordResult>>();

  beforeAll(() => {
    files = loadSuite(DRAFT_7).filter((f) => RELIED_ON_DRAFT_7.includes(f.keyword));
    const remotes = loadRemotes(DRAFT_7);
    for (const engine of ENGINES) {
      results.set(engine, new Map(files.map((f) => [f.keyword, measureFile(engine, f, remotes, DRAFT_7.draft)])));
    }
  });

  it('finds every relied-on keyword file', () => {
    expect(files.map((f) => f.keyword).sort()).toEqual([...RELIED_ON_DRAFT_7].sort());
  });

  it('excludes exactly the groups the tool-schema lint refuses (read as draft-07)', () => {
    const refused = files.flatMap((f) => f.groups.filter((g) => lintSchema(g.schema, { defaultDraft: DRAFT_7.draft }).length > 0).map((g) => `${f.keyword} / ${g.description}`));
    const listed = Object.entries(REFUSED_BY_LINT_DRAFT_7).flatMap(([keyword, groups]) => groups.map((g) => `${keyword} / ${g}`));
    expect(refused.sort()).toEqual(listed.sort());
  });

  for (const engine of ENGINES) {
    for (const keyword of RELIED_ON_DRAFT_7) {
      it(`${engine}: ${keyword}`, () => {
        const file = files.find((f) => f.keyword === keyword);
        const result = results.get(engine)?.get(keyword);
        if (!file || !result) throw new Error(`${keyword}.json was not measured`);
        const refused = REFUSED_BY_LINT_DRAFT_7[keyword] ?? [];
        expect(result.passed + result.failed).toBe(file.groups.reduce((n, g) => n + g.tests.length, 0));
        expect(result.failures.filter((f) => !refused.includes(f.group)).map((f) => `${f.group} / ${f.test}`)).toEqual([]);
      });
    }
  }
});

/**
 * Where the engines' verdicts differ on a schema the lint accepts, the same manifest would behave
 * differently per runtime: never, on any test of either draft, optional ones included. (Where
 * they differ, the lint refuses the schema: scripts/conformance.ts lists those.) A fresh engine
 * per group makes these slow under load: hence the longer timeout.
 */
describe.skipIf(!exists || !corpusExists(DRAFT_7.folder))('the engines agree', () => {
  const agreementOf = (draft: typeof DRAFT_7) => {
    const suite = loadSuite(draft);
    const remotes = loadRemotes(draft);
    const [a, b] = ENGINES.map((engine) => measureEngine(engine, suite, remotes, draft.draft));
    return disagreements(suite, a, b).filter((d) => d.lintAccepts).map((d) => `${d.keyword} / ${d.group} / ${d.test}`);
  };

  it('draft 7: on every test whose schema the lint accepts', { timeout: 180_000 }, () => {
    expect(agreementOf(DRAFT_7)).toEqual([]);
  });

  it('draft 2020-12: on every test whose schema the lint accepts', { timeout: 180_000 }, () => {
    expect(agreementOf(DRAFT_2020_12)).toEqual([]);
  });
});

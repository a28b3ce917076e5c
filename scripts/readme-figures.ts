/**
 * `npm run readme-figures [-- --bench] [-- --check]`: the figures README.md and the guides (docs/*.md)
 * quote, from real runs.
 *
 * In those files a figure sits between `<!-- figure:NAME -->` and `<!-- /figure:NAME -->` (prose, or a
 * whole output block), or, inside a code block where a comment would show, on the block's line that
 * matches its pattern, the block being announced by `<!-- figure-lines:NAME[,NAME] -->` just above.
 * The walkthrough figures (manifest validate's output, the quick start's answers, the coding demo's
 * audit line) come from a gateway started as `npm start` does; `--bench` adds the ones the
 * benchmarks measure (`npm run -s bench -- --only <module> --json`: the Worker bundle, the console
 * pages). `--check` writes nothing and exits 1 when a file differs (run ids and hashes aside).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { docFiles, readDoc, ROOT } from './doc-blocks.ts';

const BIN = join(ROOT, 'bin/toolgate.js');

interface Figure {
  name: string;
  /** Within its announced code block: the line this matches; the `value` group is what is generated. */
  line?: RegExp;
  /** Parts of a run that differ every time (ids, hashes), blanked before `--check` compares. */
  volatile?: RegExp;
  source: 'walkthrough' | 'bench';
  value(runs: Runs): string;
}

interface Runs {
  walkthrough?: Walkthrough;
  bench?: Record<string, Record<string, number | string>>;
}

interface Walkthrough {
  validateOutput: string;
  unknownToolContent: string;
  invalidArgumentsContent: string;
  auditLine: string;
}

const FIGURES: Figure[] = [
  { name: 'validate-output', source: 'walkthrough', value: (r) => `\n\`\`\`\n${r.walkthrough!.validateOutput}\`\`\`\n` },
  { name: 'unknown-tool', source: 'walkthrough', line: /"content": (?<value>"Unknown tool[^"\\]*(?:\\.[^"\\]*)*")/, value: (r) => JSON.stringify(r.walkthrough!.unknownToolContent) },
  { name: 'invalid-arguments', source: 'walkthrough', line: /"content": (?<value>"Invalid arguments[^"\\]*(?:\\.[^"\\]*)*")/, value: (r) => JSON.stringify(r.walkthrough!.invalidArgumentsContent) },
  { name: 'coding-audit', source: 'walkthrough', line: /^# → (?<value>thread "coding-1": .*)$/m, volatile: /head [0-9a-f]{8}/g, value: (r) => r.walkthrough!.auditLine },
  { name: 'worker-bundle', source: 'bench', value: (r) => `${Math.round(workerGzipBytes(r.bench!['worker-edge']) / 1024)} KiB` },
  { name: 'console-audit-envelopes', source: 'bench', value: (r) => `${r.bench!.console.audit_envelopes}-envelope` },
  { name: 'console-pages', source: 'bench', value: (r) => consolePages(r.bench!.console) },
];

/** The larger of level-9 gzip and wrangler's own figure, as the bench's verdict takes it. */
function workerGzipBytes(figures: Record<string, number | string>): number {
  const wrangler = typeof figures.worker_wrangler_gzip_bytes === 'number' ? figures.worker_wrangler_gzip_bytes : 0;
  return Math.max(Number(figures.worker_bundle_gzip9_bytes), wrangler);
}

const kb = (bytes: number) => (bytes >= 10_000 ? `${Math.round(bytes / 1000)} KB` : `${(bytes / 1000).toFixed(1)} KB`);
const ms = (us: number) => `${Number((us / 1000).toPrecision(2))} ms`;

function consolePages(figures: Record<string, number | string>): string {
  const page = (label: string, name: string, gzipped = true) => {
    const size = kb(Number(figures[`${name}_bytes`]));
    const zipped = gzipped ? ` (${kb(Number(figures[`${name}_gzip_bytes`]))}${label === 'sign-in' ? ' gzipped' : ''})` : '';
    return `${label} ${size}${zipped}, ${ms(Number(figures[`${name}_render_p50_us`]))}`;
  };
  return [page('sign-in', 'sign_in'), page('approvals', 'approvals'), page('one approval', 'approval', false), `${page('audit', 'audit')}, most of it re-hashing the chain`, page('manifests', 'manifests'), page('keys', 'keys')].join('; ');
}

/** `npm start`'s gateway on free ports in a scratch directory, driven through the README's steps. */
async function runWalkthrough(): Promise<Walkthrough> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-readme-'));
  const env = { ...process.env, PORT: '0', TOOLGATE_EXEC_PORT: '0', TOOLGATE_DATA_DIR: dir, TOOLGATE_WORKSPACE: join(dir, 'workspace'), TOOLGATE_DEMO_KEY: '' };
  const cli = (args: string[], cwd = ROOT) => spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8' });
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ format: 'toolgate.manifest/v1', tenant: 'acme', version: '1', profile: 'openai', tools: [{ name: 'a', executor: { kind: 'grpc' } }, { name: 'a', executor: { kind: 'builtin', name: 'echo' } }] }));
  const validateOutput = cli(['manifest', 'validate', 'bad.json'], dir).stderr;

  const server = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const output = await waitForOutput(server, /demo API key: (tg_\w+)[\s\S]*demo admin key: (tg_\w+)[\s\S]*console: (http:\/\/[^/\s]+)/);
    const [key, admin, url] = [output[1], output[2], output[3]];
    const post = async (path: string, body: unknown, bearer = key) => (await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` }, body: JSON.stringify(body) })).json() as Promise<Record<string, unknown>>;
    type Results = { results: Array<{ content: string; error?: { details?: { approval_id?: string } } }> };
    const quick = await post('/v1/dispatch', {
      thread_id: 'readme-1', parallel: true, calls: [
        { call_id: 'call_1', name: 'echo', arguments: { text: 'hello from toolgate' } },
        { call_id: 'call_2', name: 'send_email', arguments: { to: 'a@b.c' } },
        { call_id: 'call_3', name: 'echo', arguments: '{"txt": "typo"}' },
      ],
    }) as unknown as Results;
    await post('/v1/dispatch', { thread_id: 'coding-1', calls: [
      { call_id: 'c1', name: 'read_file', arguments: { file_path: 'greet.sh' } },
      { call_id: 'c2', name: 'shell', arguments: { command: 'ls -la' } },
    ] });
    const parked = await post('/v1/dispatch', { thread_id: 'coding-1', calls: [{ call_id: 'c3', name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Update File: greet.sh\n@@\n-echo "Hello, $name!"\n+echo "Hello, $name, from toolgate!"\n*** End Patch' } }] }) as unknown as Results;
    const approvalId = parked.results[0].error?.details?.approval_id;
    if (!approvalId) throw new Error(`the apply_patch call was not parked: ${JSON.stringify(parked)}`);
    await post(`/v1/approvals/${approvalId}`, { decision: 'approve', reason: 'small change' }, admin);
    await fetch(`${url}/v1/calls/c3?thread_id=coding-1&wait=25`, { headers: { authorization: `Bearer ${key}` } });
    const audit = cli(['audit', 'verify', '--thread', 'coding-1']);
    if (audit.status !== 0) throw new Error(`audit verify failed: ${audit.stderr}`);
    const auditLine = audit.stdout.trim().replace(/head ([0-9a-f]{8})[0-9a-f]*/, 'head $1...');
    return { validateOutput, unknownToolContent: quick.results[1].content, invalidArgumentsContent: quick.results[2].content, auditLine };
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
    rmSync(dir, { recursive: true, force: true });
  }
}

function waitForOutput(child: ReturnType<typeof spawn>, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((found, failed) => {
    let output = '';
    const timer = setTimeout(() => failed(new Error(`the gateway did not start:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(pattern);
      if (match) { clearTimeout(timer); found(match); }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => { clearTimeout(timer); failed(new Error(`the gateway exited (${code}):\n${output}`)); });
  });
}

function runBench(modules: string[]): Record<string, Record<string, number | string>> {
  const run = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'bench/run.ts'), '--only', modules.join(','), '--json'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`the benchmarks failed (exit ${run.status})`);
  return (JSON.parse(run.stdout) as { modules: Record<string, Record<string, number | string>> }).modules;
}

/** The first code block from `from` on: [start, end) from its opening fence to before its closing one, and the code inside. */
export function codeBlockAt(readme: string, from: number): { start: number; end: number; code: string } {
  const start = readme.indexOf('```', from);
  const codeStart = readme.indexOf('\n', start) + 1;
  const end = readme.indexOf('\n```', codeStart - 1);
  if (start < 0 || end < 0) throw new Error(`no code block after offset ${from}`);
  return { start, end, code: readme.slice(codeStart, end + 1) };
}

/** Where a figure sits in a doc file's text: [start, end) of its generated part. */
export function locate(readme: string, figure: Figure): { start: number; end: number } {
  if (!figure.line) {
    const open = `<!-- figure:${figure.name} -->`;
    const start = readme.indexOf(open);
    const end = readme.indexOf(`<!-- /figure:${figure.name} -->`);
    if (start < 0 || end < start) throw new Error(`no ${open} ... <!-- /figure:${figure.name} --> markers`);
    return { start: start + open.length, end };
  }
  const announce = [...readme.matchAll(/<!-- figure-lines:([\w,-]+) -->\n/g)].find((m) => m[1].split(',').includes(figure.name));
  if (!announce) throw new Error(`no <!-- figure-lines:${figure.name} --> above a code block`);
  const { start: blockStart, end: blockEnd } = codeBlockAt(readme, announce.index);
  const match = figure.line.exec(readme.slice(blockStart, blockEnd));
  if (!match?.groups) throw new Error(`the code block below <!-- figure-lines:... ${figure.name} --> has no line matching ${figure.line}`);
  const start = blockStart + match.index + match[0].indexOf(match.groups.value);
  return { start, end: start + match.groups.value.length };
}

/** The doc file holding a figure's markers (exactly one must). */
function fileOf(figure: Figure, texts: Map<string, string>): string {
  const holds = (text: string) => text.includes(`<!-- figure:${figure.name} -->`) || [...text.matchAll(/<!-- figure-lines:([\w,-]+) -->/g)].some((m) => m[1].split(',').includes(figure.name));
  const files = [...texts].filter(([, text]) => holds(text)).map(([file]) => file);
  if (files.length !== 1) throw new Error(`the markers of figure ${figure.name} are in ${files.length} files of README.md and docs/ (one expected)`);
  return files[0];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { bench: { type: 'boolean' }, check: { type: 'boolean' } } });
  const figures = FIGURES.filter((f) => f.source === 'walkthrough' || values.bench);
  const texts = new Map(docFiles().map((file) => [file, readDoc(file)]));
  for (const figure of FIGURES) locate(texts.get(fileOf(figure, texts))!, figure); // every marker is there, measured this time or not
  const runs: Runs = { walkthrough: await runWalkthrough(), bench: values.bench ? runBench(['worker-edge', 'console']) : undefined };
  const differences: string[] = [];
  const changed = new Set<string>();
  for (const [file, original] of texts) {
    let text = original;
    // From the end backwards, so earlier positions stay valid while later text changes length.
    const placed = figures.filter((figure) => fileOf(figure, texts) === file).map((figure) => ({ figure, ...locate(text, figure) })).sort((a, b) => b.start - a.start);
    for (const { figure, start, end } of placed) {
      const now = figure.value(runs);
      const was = text.slice(start, end);
      const blank = (value: string) => (figure.volatile ? value.replace(figure.volatile, '…') : value);
      if (blank(now) !== blank(was)) differences.push(`${figure.name} (${file}):\n  doc: ${was}\n  run: ${now}`);
      text = text.slice(0, start) + now + text.slice(end);
    }
    texts.set(file, text);
    if (text !== original) changed.add(file);
  }
  if (values.check) {
    if (differences.length > 0) {
      console.error(`doc figures differ from this run:\n${differences.join('\n')}`);
      process.exitCode = 1;
    } else console.log(`doc figures match this run (${figures.map((f) => f.name).join(', ')})`);
    return;
  }
  for (const file of changed) writeFileSync(join(ROOT, file), texts.get(file)!);
  console.log(`${figures.length} figures written (${differences.length} changed${values.bench ? '' : '; add -- --bench for the benchmark ones'})`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalGateway, type LocalGateway } from '../../lib/cli/serve.ts';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

/** The Claude example of docs/http-api.md, run as a user would against `npm start` with the Anthropic demo manifest. */
describe('examples/agents/anthropic-native-tools.ts', () => {
  let scratch: string;
  let gateway: LocalGateway;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'toolgate-claude-example-'));
    cpSync(join(REPO_ROOT, 'examples/demo/workspace'), join(scratch, 'workspace'), { recursive: true });
    gateway = await startLocalGateway({
      port: 0,
      dataDir: join(scratch, '.toolgate'),
      manifestPath: join(REPO_ROOT, 'examples/demo/manifest.anthropic.json'),
      quiet: true,
      env: { PATH: process.env.PATH, TOOLGATE_WORKSPACE: join(scratch, 'workspace'), TOOLGATE_EXEC_PORT: '0' },
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('prints the native tools, what each call ran as, and the tool_result message to send back', async () => {
    const run = await runNode(['examples/agents/anthropic-native-tools.ts'], { env: { TOOLGATE_URL: gateway.url, TOOLGATE_DATA_DIR: join(scratch, '.toolgate') } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('tools: str_replace_based_edit_tool (text_editor_20250728), bash (bash_20250124), grep, glob, echo, sleep\n');
    expect(run.stdout).toContain('toolu_01view: ran as read_file → ok\ntoolu_02ls: ran as shell → ok\ntoolu_03edit: ran as edit_file → pending_approval\n');
    const messages = JSON.parse(run.stdout.slice(run.stdout.indexOf('messages to send back:\n') + 'messages to send back:\n'.length));
    expect(messages[0].role).toBe('user');
    expect(messages[0].content.map((b: { tool_use_id: string; is_error: boolean }) => [b.tool_use_id, b.is_error])).toEqual([['toolu_01view', false], ['toolu_02ls', false], ['toolu_03edit', true]]);
    expect(messages[0].content[0].content).toContain('   4 | echo "Hello, $name!"');
    // Parked, not run: the file is unchanged until a human approves.
    expect(readFileSync(join(scratch, 'workspace', 'greet.sh'), 'utf8')).toContain('echo "Hello, $name!"');
  });
});

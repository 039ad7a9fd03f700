/**
 * `assistant talk` without a terminal, for plans: made with the built-in planner, dry-run, and applied
 * only with --yes (exit 3 and nothing sent otherwise), destructive plans refused without --destroyer.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { talkConfig } from '../support/talk.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();


const config = () => talkConfig();
const home = () => tempHome('assistant-talk-');

test('scripted /maker and /apply: without --yes the apply is refused (exit 3, nothing sent); with --yes it runs once', async () => {
  await withEmulator(async ({ emu, env }) => {
    const posts = () => emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length;
    const input = '/maker create a 1V100.6V instance called talk-1 in FIN-01\n/apply\n';
    let r = await runCli(['--config', config(), 'talk', '--ai-profile', 'builtin'], { home: home(), env, input });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stdout, /^STEP\s+REQUEST\s+WHAT$/m);
    assert.match(r.stdout, /POST \/v1\/instances\s+create 1V100\.6V instance talk-1/);
    assert.match(r.stdout, /^Cost: \d+\.\d\d\/hour, \d+\.\d\d\/30 days$/m);
    assert.match(r.stderr, /^error: refused: applying needs your confirmation and there is no terminal/m);
    assert.not.match(r.stderr, /next: \/dry-run/, 'tips are for people at a terminal');
    assert.is(posts(), 0);
    const h = home();
    r = await runCli(['--config', config(), '--yes', 'talk', '--ai-profile', 'builtin'], { home: h, env, input: input.replace('/apply', '/dry-run\n/apply') });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^succeeded: 1\/1 step\(s\) completed$/m);
    assert.match(r.stdout, /Plan \(dry run: only GET requests were sent\)/);
    assert.is(posts(), 1);
    // The plan is remembered with the session: applying it again is the apply path's "already applied".
    r = await runCli(['--config', config(), '--yes', 'talk', '--resume', '--ai-profile', 'builtin'], { home: h, env, input: '/apply\n' });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /already applied/);
    assert.is(posts(), 1);
  });
});

test('a plan with destructive steps is refused without --destroyer, before anything is sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    const h = home();
    const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'PUT', '/v1/instances', JSON.stringify({ action: 'delete', id: 'whatever' })], reason: 'delete it' }] };
    writeFileSync(join(h, 'delete.json'), JSON.stringify(plan));
    const r = await runCli(['--config', config(), '--yes', 'talk', '--ai-profile', 'builtin'], { home: h, env, input: '/plan load delete.json\n/dry-run\n/apply\n' });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stdout, /\[DESTRUCTIVE: \/v1\/instances action "delete"\]/);
    assert.match(r.stderr, /^error: refused: the plan has destructive steps \(step 0: \/v1\/instances action "delete"\); nothing was sent$/m);
    assert.match(r.stderr, /^hint: .*assistant talk --destroyer/m);
    assert.is(emu.requests().filter((q) => q.method !== 'GET' && q.path !== '/v1/oauth2/token').length, 0);
  });
});

test('unknown commands suggest the near one; the exit code of a script is its last failure', async () => {
  const r = await runCli(['talk', '--ai-profile', 'builtin'], { home: home(), input: '/aply\n/help\n' });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: usage: unknown command \/aply\nhint: did you mean \/apply\?/m);
  assert.match(r.stdout, /\/maker <request>/);
});

test.run();

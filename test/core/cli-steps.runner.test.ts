/**
 * The runner of CLI steps (engine/core/kits/cli/runner.ts) with real child processes (node scripts standing in
 * for a cloud CLI): argv without a shell, JSON or text output, bounded output, abort kills the child,
 * and the three failures with their codes, messages and hints, redacted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, showCommand, type CliTool } from '../../engine/core/kits/cli/runner.js';
import { cliClient } from '../../engine/core/kits/cli/provider.js';
import { tempDir } from '../support/temp.js';
import { until } from '../support/wait.js';
import { assistantErrorOf } from '../support/errors.js';

const node: CliTool = {
  command: process.execPath,
  installHint: 'install it',
  authFailures: [/Unable to locate credentials/],
  authHint: 'log in with `tool login`',
};
const never = new AbortController().signal;
const run = (script: string, extra: string[] = [], opts: { signal?: AbortSignal; maxStdoutBytes?: number; env?: Record<string, string> } = {}) =>
  runCli({ tool: node, args: ['-e', script, '--', ...extra], env: { ...process.env, ...opts.env }, signal: opts.signal ?? never, maxStdoutBytes: opts.maxStdoutBytes });

const failure = assistantErrorOf;

test('arguments reach the program as they are: no shell reads quotes, $, ; or backticks', async () => {
  const tricky = ['a b', '$(touch /tmp/x)', '; rm -rf /', '`id`', '"q"', "'s'", '*'];
  const out = await run('console.log(JSON.stringify(process.argv.slice(1)))', tricky);
  assert.equal(out.data, tricky);
});

test('JSON on stdout is the data; text becomes {output}; no output is null; the provider env reaches the child', async () => {
  assert.equal((await run('console.log(JSON.stringify({a:[1,2]}))')).data, { a: [1, 2] });
  assert.equal((await run('console.log("make_bucket: b1")')).data, { output: 'make_bucket: b1' });
  assert.equal((await run('console.log("[1/3] copying")')).data, { output: '[1/3] copying' });
  assert.is((await run('')).data, null);
  assert.equal((await run('console.log(JSON.stringify(process.env.EXTRA))', [], { env: { EXTRA: 'set by the provider' } })).data, 'set by the provider');
});

test('a missing executable is cli_not_found with the install hint (exit 1)', async () => {
  const err = await failure(runCli({ tool: { ...node, command: 'no-such-cloud-cli-here' }, args: ['x'], env: process.env, signal: never }));
  assert.is(err.code, 'cli_not_found');
  assert.is(err.exitCode, 1);
  assert.match(err.message, /the no-such-cloud-cli-here CLI is not installed/);
  assert.is(err.hint, 'install it');
});

test('a not-logged-in message is cli_not_authenticated with how to log in', async () => {
  const err = await failure(run('console.error("Unable to locate credentials. You can configure credentials by running \\"aws configure\\"."); process.exit(253)'));
  assert.is(err.code, 'cli_not_authenticated');
  assert.match(err.message, /not logged in/);
  assert.match(err.hint ?? '', /tool login/);
});

test('any other non-zero exit is cli_failed naming the command and the CLI message, secrets masked in both', async () => {
  const err = await failure(run('console.error("warning: noise\\nAn error occurred (InvalidParameter): password=hunter22x is wrong"); process.exit(254)', ['password=abcdef123456']));
  assert.is(err.code, 'cli_failed');
  assert.match(err.message, /failed \(exit 254\): warning: noise \/ An error occurred \(InvalidParameter\): password=\*\*\* is wrong/);
  assert.match(err.message, /password=\*\*\* failed/);
  assert.not.match(err.message, /hunter22x|abcdef123456/);
});

test('output beyond the bound stops the child: cli_output_too_large', async () => {
  const err = await failure(run('const s = "x".repeat(65536); const w = () => process.stdout.write(s, w); w()', [], { maxStdoutBytes: 1 << 20 }));
  assert.is(err.code, 'cli_output_too_large');
});

test("aborting the run's signal kills the child and the step ends interrupted (exit 130)", async () => {
  const pidFile = join(tempDir('cli-runner-'), 'pid');
  const ac = new AbortController();
  const started = run('require("fs").writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)', [pidFile], { signal: ac.signal });
  // Abort once the child is surely running (it wrote its pid), then check it is gone.
  while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8')) await new Promise((resolve) => setTimeout(resolve, 20));
  ac.abort();
  const err = await failure(started);
  assert.is(err.exitCode, 130);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.throws(() => process.kill(pid, 0), /ESRCH/);
});

test("aborting kills the CLI's own helpers too: a grandchild holding stdout does not keep the step waiting", async () => {
  const pidFile = join(tempDir('cli-runner-'), 'pid');
  const ac = new AbortController();
  // The child starts a helper that inherits its stdout and never ends (as a shell script's `sleep` does).
  const script = `const { spawn } = require("child_process"); const h = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "inherit" }); require("fs").writeFileSync(process.argv[1], String(h.pid)); setInterval(() => {}, 1000)`;
  const started = run(script, [pidFile], { signal: ac.signal });
  while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8')) await new Promise((resolve) => setTimeout(resolve, 20));
  ac.abort();
  // Killing only the child left the helper holding the pipe: the step waited for it forever.
  const err = await failure(started);
  assert.is(err.exitCode, 130);
  // The step ends when the pipe closes, which the kernel does a moment before the helper becomes a
  // zombie: wait for that state instead of expecting it at once (a loaded machine widens the gap).
  const helper = Number(readFileSync(pidFile, 'utf8'));
  await until(() => exited(helper), 'the helper was killed with its CLI');
});

/** Gone, or dead and waiting to be reaped by whoever adopted it (a zombie holds no pipe). */
function exited(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

test('the command line shown in progress and errors masks values of arguments that name a secret', () => {
  assert.is(
    showCommand('aws', ['configure', 'set', 'aws_secret_access_key', 'wJalrXUtnFEMIK7MDENG', '--profile', 'p']),
    'aws configure set aws_secret_access_key *** --profile p',
  );
  assert.is(showCommand('aws', ['secretsmanager', 'create-secret', '--name', 'db', '--secret-string', '{"pw":"hunter2"}']), 'aws secretsmanager create-secret --name db --secret-string ***');
  assert.is(showCommand('az', ['sql', 'server', 'create', '--admin-password=Sup3rS3cret!', '-n', 's1']), 'az sql server create --admin-password=*** -n s1');
  assert.is(showCommand('gcloud', ['compute', 'instances', 'list', '--filter', 'name:web']), 'gcloud compute instances list --filter name:web');
});

test("a CLI provider's child gets an allowlisted environment: the provider's own variables and settings, a scratch HOME and working directory, none of this tool's secrets", async () => {
  const home = tempDir('cli-home-');
  const isolation = { allowEnv: ['CLOUD_TOKEN'], configure: (scratch: string) => ({ CLOUD_CONFIG: join(scratch, 'cfg') }) };
  const env = {
    ...process.env,
    GPUCLOUD_CLIENT_SECRET: 'gc-secret-1',
    ASSISTANT_REDIS_URL: 'redis://:pw@h',
    OPENAI_API_KEY: 'sk-test-0123456789abcdef',
    GITHUB_TOKEN: 'ghp_0123456789abcdef0123',
    UNRELATED: 'x',
    CLOUD_TOKEN: 'allowed',
    EXTRA: 'overridden',
  };
  const client = cliClient(node, { add: (args) => [...args], env: { EXTRA: 'added' }, source: 'test' }, isolation, { env, home, config: {} as never });
  const script = 'const e = process.env; console.log(JSON.stringify({ g: e.GPUCLOUD_CLIENT_SECRET ?? null, r: e.ASSISTANT_REDIS_URL ?? null, o: e.OPENAI_API_KEY ?? null, gh: e.GITHUB_TOKEN ?? null, u: e.UNRELATED ?? null, t: e.CLOUD_TOKEN, x: e.EXTRA, home: e.HOME, cwd: process.cwd(), cfg: e.CLOUD_CONFIG, path: Boolean(e.PATH) }))';
  const out = (await client.run(['-e', script], never)).data as Record<string, unknown>;
  assert.equal([out.g, out.r, out.o, out.gh, out.u, out.t, out.x, out.path], [null, null, null, null, null, 'allowed', 'added', true]);
  assert.is.not(out.home, home);
  assert.is(out.cwd, out.home, 'the working directory is the scratch HOME');
  assert.is(out.cfg, join(out.home as string, 'cfg'));
  assert.not.ok(existsSync(out.home as string), 'the scratch directory is removed after the step');
});

test.run();

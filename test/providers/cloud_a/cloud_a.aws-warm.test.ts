/**
 * The warm aws CLI the moto tests run (test/support/aws-warm.ts, aws-warm.py) against the cold one:
 * the same bytes on stdout and stderr and the same exit (0, 2, a usage error, 255, killed by SIGTERM) for the
 * same argv (non-UTF-8 bytes too), environment, working directory and stdin; the alias file of the
 * *caller's* HOME is read by both (the rule: a warm run sees the caller's ~ as a cold one does) and the
 * server's own HOME stays empty; killing the client (SIGTERM, SIGKILL, its group) leaves no process
 * behind, not even the credential_process the run started; with PYTHONPATH set the client runs cold.
 * Without a Python `aws` on PATH each test prints one SKIP line and passes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWarmAws, type WarmAws } from '../../support/aws-warm.js';
import { realAws } from '../../support/moto.js';
import { freePort } from '../../support/net.js';
import { reportSkip } from '../../support/skip.js';
import { tempDir } from '../../support/temp.js';
import { until } from '../../support/wait.js';

const cold = realAws();
let warm: WarmAws | undefined;
let warmAws = '';

test.before(async () => {
  // As moto.ts starts it: the test process's environment.
  warm = await startWarmAws(cold, Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)));
  if (warm) warmAws = join(warm.binDir, 'aws');
});
test.after(async () => {
  await warm?.stop();
});

const warmTest = (name: string, fn: () => Promise<void>) =>
  test(name, async () => {
    if (!warm) return reportSkip(name, 'no Python aws CLI on PATH to start warm (see .ci/run)');
    await fn();
  });

/** A caller's HOME: aliases that show what the aws process sees, and its own aws config. */
function callerHome(config = '[default]\nregion = us-east-1\n'): string {
  const home = tempDir('aws-warm-caller-');
  mkdirSync(join(home, '.aws', 'cli'), { recursive: true });
  writeFileSync(
    join(home, '.aws', 'cli', 'alias'),
    [
      '[toplevel]',
      // Its arguments, working directory, environment, stdin, and a line on stderr.
      'reflect = !f() { printf "<%s>\\n" "$@"; pwd; env | LC_ALL=C sort; cat; echo to-stderr >&2; }; f',
      // The pid of the aws process that runs the alias: the client's own when it exec'd the cold aws.
      'pid = !echo $PPID',
      'die = !kill -TERM $PPID',
      '',
    ].join('\n'),
  );
  writeFileSync(join(home, '.aws', 'config'), config);
  return home;
}

/** The environment of a caller: ours without AWS_* and PYTHON* (the runner's PYTHONUNBUFFERED and PYTHONDONTWRITEBYTECODE stay), plus `extra`. */
function callerEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('AWS_') || (k.startsWith('PYTHON') && k !== 'PYTHONUNBUFFERED' && k !== 'PYTHONDONTWRITEBYTECODE')) continue;
    env[k] = v;
  }
  return { ...env, HOME: home, AWS_CONFIG_FILE: join(home, '.aws', 'config'), AWS_EC2_METADATA_DISABLED: 'true', ...extra };
}

interface Ran {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `aws` (cold or warm) through sh, so that the argument list and the environment can hold bytes
 * that are not UTF-8 (`$(printf '\377')`): `words` is shell text after `exec aws`.
 */
function run(aws: string, words: string, opts: { env: Record<string, string>; cwd?: string; input?: string; detached?: boolean }): { ran: Promise<Ran>; pid: number; kill(sig: NodeJS.Signals, group?: boolean): void } {
  const script = `ODD_VALUE="$(printf 'v\\377w')"; export ODD_VALUE; exec "$0" ${words}`;
  const child = spawn('sh', ['-c', script, aws], { env: opts.env, cwd: opts.cwd, detached: opts.detached, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  child.stdin.on('error', () => {});
  child.stdin.end(opts.input ?? '');
  const ran = new Promise<Ran>((resolve) =>
    child.once('close', (code, signal) => resolve({ pid: child.pid!, code, signal, stdout: Buffer.concat(out).toString('latin1'), stderr: Buffer.concat(err).toString('latin1') })),
  );
  return { ran, pid: child.pid!, kill: (sig, group) => process.kill(group ? -child.pid! : child.pid!, sig) };
}

const outcome = (r: Ran) => ({ code: r.code, signal: r.signal, stdout: r.stdout, stderr: r.stderr });

warmTest('cold and warm agree: argv with non-UTF-8 bytes, environment, working directory, stdin, stdout, stderr, and the exits 0, 2, a usage error, 255 and SIGTERM; the alias file of the caller\'s HOME is read by both', async () => {
  const closed = await freePort();
  const home = callerHome('[default]\nregion = us-east-1\ncli_history = enabled\n');
  const cwd = tempDir('aws-warm-cwd-é-');
  const env = callerEnv(home, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_MAX_ATTEMPTS: '1' });
  const cases: { words: string; input?: string; expect: Partial<Ran> }[] = [
    { words: `reflect plain "$(printf 'b\\377c')" 'two words' ''`, input: 'from stdin\n', expect: { code: 0 } },
    { words: '', expect: { code: 2 } },
    // A usage error: 255 from aws v1, 252 from v2; only that both runs agree, bytes and all.
    { words: `s3api list-buckets --no-such-option "$(printf 'x\\377y')"`, expect: {} },
    { words: `sts get-caller-identity --endpoint-url http://127.0.0.1:${closed}`, expect: { code: 255 } },
    { words: 'die', expect: { code: null, signal: 'SIGTERM' } },
  ];
  for (const c of cases) {
    const a = await run(cold!, c.words, { env, cwd, input: c.input }).ran;
    const b = await run(warmAws, c.words, { env, cwd, input: c.input }).ran;
    for (const [k, v] of Object.entries(c.expect)) assert.equal(a[k as keyof Ran], v, `cold aws ${c.words}: ${k}`);
    assert.equal(outcome(b), outcome(a), `aws ${c.words}`);
  }
  const reflected = (await run(warmAws, `reflect "$(printf 'b\\377c')"`, { env, cwd }).ran).stdout;
  assert.ok(reflected.includes('<b\xffc>\n'), 'the argument reached the alias byte for byte');
  assert.ok(reflected.includes('ODD_VALUE=v\xffw\n'), 'so did the environment');
  assert.ok(reflected.includes(`\n${Buffer.from(cwd).toString('latin1')}\n`), 'and the working directory');
  // The history the CLI writes (cli_history = enabled) goes to the caller's ~/.aws in a warm run too, never to the server's HOME.
  rmSync(join(home, '.aws', 'cli', 'history'), { recursive: true, force: true });
  await run(warmAws, cases[3]!.words, { env, cwd }).ran;
  assert.ok(existsSync(join(home, '.aws', 'cli', 'history', 'history.db')), "history went to the caller's ~/.aws");
  assert.equal(readdirSync(warm!.home), [], "nothing in the server's own HOME");
  // And the warm runs were warm: the alias's aws process is not the caller's pid (the cold one is exec'd by it).
  const w = run(warmAws, 'pid', { env });
  assert.is.not((await w.ran).stdout.trim(), String(w.pid));
});

warmTest("a service model in the caller's ~/.aws/models is found by a warm run as by a cold one (the server lists only its packages' services once), and each run is announced with its arguments before it runs", async () => {
  const home = callerHome();
  // A service of the caller's own: botocore finds it by listing ~/.aws/models beside its own data.
  const model = join(home, '.aws', 'models', 'zetaping', '2020-01-01');
  mkdirSync(model, { recursive: true });
  writeFileSync(
    join(model, 'service-2.json'),
    JSON.stringify({
      version: '2.0',
      metadata: { apiVersion: '2020-01-01', endpointPrefix: 'zetaping', jsonVersion: '1.1', protocol: 'json', serviceId: 'ZetaPing', signatureVersion: 'v4', targetPrefix: 'ZetaPing' },
      operations: { Ping: { name: 'Ping', http: { method: 'POST', requestUri: '/' }, input: { shape: 'PingRequest' }, output: { shape: 'PingResponse' } } },
      shapes: { PingRequest: { type: 'structure', members: { Note: { shape: 'Text' } } }, PingResponse: { type: 'structure', members: {} }, Text: { type: 'string' } },
    }),
  );
  const env = callerEnv(home);
  const announced: string[][] = [];
  const stop = warm!.onRun((argv) => announced.push(argv));
  const words = 'zetaping ping --generate-cli-skeleton';
  const a = await run(cold!, words, { env }).ran;
  const b = await run(warmAws, words, { env }).ran;
  await until(() => announced.length > 0, 'the warm run to be announced');
  stop();
  assert.is(a.code, 0, a.stderr);
  assert.equal(JSON.parse(a.stdout), { Note: '' });
  assert.equal(outcome(b), outcome(a), 'the warm run found the caller\'s service too');
  assert.equal(announced, [['zetaping', 'ping', '--generate-cli-skeleton']], 'the warm run (only) was announced');
});

warmTest('with PYTHONPATH set the client runs the cold aws (its own process, and the PYTHONPATH sitecustomize loads)', async () => {
  const home = callerHome();
  const lib = tempDir('aws-warm-pythonpath-');
  const marker = join(lib, 'loaded');
  writeFileSync(join(lib, 'sitecustomize.py'), `open(${JSON.stringify(marker)}, 'w').write('x')\n`);
  const r = run(warmAws, 'pid', { env: callerEnv(home, { PYTHONPATH: lib }) });
  const ran = await r.ran;
  assert.is(ran.code, 0, ran.stderr);
  assert.is(ran.stdout.trim(), String(r.pid), 'the aws process is the client itself, exec\'d');
  assert.ok(existsSync(marker), 'a fresh Python read PYTHONPATH');
});

/** Whether `pid` is a live process (a zombie waiting for its parent counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

for (const [how, sig, group] of [
  ['SIGTERM to the client', 'SIGTERM', false],
  ['SIGKILL to the client', 'SIGKILL', false],
  ["SIGTERM to the client's process group", 'SIGTERM', true],
] as const) {
  warmTest(`${how} leaves no process behind: the run and the credential_process it started are gone`, async () => {
    const dir = tempDir('aws-warm-kill-');
    const pids = join(dir, 'pids');
    // The run blocks on a credential process that records its pid and its parent's (the aws run), then sleeps.
    const home = callerHome(`[default]\nregion = us-east-1\ncredential_process = sh -c 'echo "$PPID $$" > ${pids}.tmp; mv ${pids}.tmp ${pids}; exec sleep 47'\n`);
    const r = run(warmAws, `sts get-caller-identity --endpoint-url http://127.0.0.1:${await freePort()}`, { env: callerEnv(home), detached: group });
    await until(() => existsSync(pids), 'the credential process to start');
    const [runPid, sleepPid] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];
    assert.is.not(runPid, r.pid, 'the run is the warm one');
    assert.ok(alive(sleepPid));
    r.kill(sig, group);
    const ran = await r.ran;
    assert.is(ran.signal, sig, 'the client ends as a cold aws would: killed by the signal');
    await until(() => !alive(runPid) && !alive(sleepPid), 'the run and its credential process to end');
    rmSync(dir, { recursive: true, force: true });
  });
}

test.run();

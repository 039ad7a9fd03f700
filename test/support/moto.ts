/**
 * A real AWS stand-in for tests: `moto_server` on a free loopback port, and the environment the real
 * `aws` CLI needs to talk to it (test-servers.md). Tests that need it and do not find `moto_server`
 * or `aws` on PATH print one `SKIP` line and pass: CI installs both (.ci/run); this is a safety net.
 *
 * The aws CLI runs warm by default (test/support/aws-warm.ts: imported once by a server, forked per run),
 * which saves most of its CPU. The rule: a test whose subject is what the aws child process itself sees
 * (its HOME and the files there: alias file, history, plugins, kubeconfig; its environment, PYTHONPATH,
 * credential_process) runs it cold, `motoSuite(test, { warm: false })`: a warm run is a fork of a process
 * that imported the CLI in another environment, so such a test could not fail for the right reason.
 * Today: test/providers/cloud_a/deny.cloud-a.test.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Test } from 'uvu';
import { BIN, childEnv } from './cli.js';
import { tempDir } from './temp.js';
import { reportSkip } from './skip.js';
import { onFreePort, onPath } from './net.js';
import { startWarmAws } from './aws-warm.js';

export interface Moto {
  url: string;
  /** AWS_ENDPOINT_URL, test credentials, region, and config files of its own (nothing from the host). */
  env: Record<string, string | undefined>;
  /** Runs the real aws CLI against moto (for setting up and checking state), JSON output parsed. */
  aws(args: string[]): unknown;
}

/** Why moto tests cannot run here, or undefined when they can. */
export function motoMissing(): string | undefined {
  for (const tool of ['moto_server', 'aws']) if (!onPath(tool)) return `${tool} not on PATH (see .ci/run)`;
  return undefined;
}

export interface RunningMoto extends Moto {
  /** Forgets every resource (POST /moto-api/reset): a clean account for the next test. */
  reset(): Promise<void>;
  /** With the warm aws CLI: calls `listener` with the first arguments of each aws run as it starts (aws-warm.ts); returns the unsubscribe. */
  onAwsRun?: (listener: (argv: string[]) => void) => () => void;
  stop(): Promise<void>;
}

/**
 * The directory of the real `aws` when PATH finds a pyenv shim: the shim is a bash script that runs
 * `pyenv exec` before Python starts (about 0.3 s of CPU per call on a busy machine), and the tests run
 * the aws CLI hundreds of times. The same CLI runs, found first on PATH; undefined without a shim.
 */
function realAwsDir(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v aws'], { encoding: 'utf8' }).stdout.trim();
  if (!found.includes('/shims/')) return undefined;
  const real = spawnSync('pyenv', ['which', 'aws'], { encoding: 'utf8' });
  return real.status === 0 && real.stdout.trim() ? dirname(real.stdout.trim()) : undefined;
}

/** The real `aws` script (past a pyenv shim), or undefined when PATH has none. */
export function realAws(): string | undefined {
  const awsDir = realAwsDir();
  return awsDir ? join(awsDir, 'aws') : onPath('aws');
}

export interface MotoOptions {
  /** false: the real aws CLI starts cold for every run (see the header for when); default true. */
  warm?: boolean;
  /** true: moto_server as installed, without test/support/moto-server.py's savings (for comparing; TEST_MOTO_PLAIN=1 for every file). */
  plain?: boolean;
}

/** Starts `moto_server` on a free loopback port (MOTO_IAM_LOAD_MANAGED_POLICIES=true) and waits until it answers. */
export async function startMoto(opts: MotoOptions = {}): Promise<RunningMoto> {
  const { url, stop } = await onFreePort((port) => startMotoOn(port, opts.plain === true));
  const dir = tempDir('moto-aws-');
  writeFileSync(join(dir, 'config'), '[default]\nregion = us-east-1\n');
  writeFileSync(join(dir, 'credentials'), '[default]\naws_access_key_id = testing\naws_secret_access_key = testing\n');
  const env: Record<string, string | undefined> = {
    AWS_ENDPOINT_URL: url,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(dir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PROFILE: undefined,
    AWS_REGION: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_PAGER: '',
  };
  const awsDir = realAwsDir();
  if (awsDir) env.PATH = `${awsDir}:${process.env.PATH ?? ''}`;
  const warm = opts.warm === false ? undefined : await startWarmAws(realAws(), definedOnly({ ...process.env, ...env }));
  if (warm) env.PATH = `${warm.binDir}:${env.PATH ?? process.env.PATH ?? ''}`;
  const aws = (args: string[]): unknown => {
    const r = spawnSync('aws', [...args, '--output', 'json'], { env: definedOnly({ ...process.env, ...env }), encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`aws ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim() ? JSON.parse(r.stdout) : null;
  };
  const reset = async () => {
    const res = await fetch(`${url}/moto-api/reset`, { method: 'POST' });
    if (!res.ok) throw new Error(`moto reset failed: HTTP ${res.status}`);
  };
  const stopBoth = async () => {
    await Promise.all([stop(), warm?.stop()]);
  };
  return { url, env, aws, reset, stop: stopBoth, ...(warm ? { onAwsRun: warm.onRun } : {}) };
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** moto_server on `port`, answering; fails (instead of waiting out its deadline) when moto exits, e.g. because the port was taken. */
async function startMotoOn(port: number, plain: boolean): Promise<{ url: string; stop: () => Promise<void> }> {
  // Through a shell that holds moto while its stdin is open: if this test process dies (even kill -9 on a
  // timeout) the pipe closes and moto is stopped too, instead of outliving the run. The shell ends with
  // moto, so a moto that could not bind its port is seen as exited.
  // (A background list reads /dev/null in sh, so the watcher reads this stdin through fd 3.)
  const script = 'exec 3<&0; p=$1; shift; "$@" -H 127.0.0.1 -p "$p" </dev/null & m=$!; trap \'kill $m; exit 0\' TERM; { cat <&3 >/dev/null; kill $m 2>/dev/null; } & wait $m';
  const child = spawn('sh', ['-c', script, 'sh', String(port), ...motoCommand()], {
    // The recorder's file per server (moto writes `moto_recording` in its working directory otherwise:
    // shared by the test files that run at once, and left in the checkout).
    env: { ...process.env, ...(plain ? { TEST_MOTO_PLAIN: '1' } : {}), MOTO_IAM_LOAD_MANAGED_POLICIES: 'true', MOTO_RECORDER_FILEPATH: join(tempDir('moto-recording-'), 'recording') },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    child.stdin!.end(); // the watcher's cat ends, which stops moto
    if (child.exitCode === null && child.signalCode === null) await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(url, child, () => log);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}

const LAUNCHER = fileURLToPath(new URL('../../../test/support/moto-server.py', import.meta.url));

/**
 * How moto is started: through test/support/moto-server.py (the same moto without the work it repeats at
 * every reset: most of a cloud_a file's CPU) by the Python of the `moto_server` script PATH finds (past a
 * pyenv shim); plain `moto_server` when that script is not a Python one.
 */
let motoCommandFound: string[] | undefined;
function motoCommand(): string[] {
  return (motoCommandFound ??= findMotoCommand());
}
function findMotoCommand(): string[] {
  const found = spawnSync('sh', ['-c', 'command -v moto_server'], { encoding: 'utf8' }).stdout.trim();
  const script = found.includes('/shims/') ? spawnSync('pyenv', ['which', 'moto_server'], { encoding: 'utf8' }).stdout.trim() : found;
  let python: string | undefined;
  try {
    python = /^#!\s*(\S*python[\d.]*)\s*$/.exec(readFileSync(script, 'utf8').slice(0, 300).split('\n')[0]!)?.[1];
  } catch {
    python = undefined;
  }
  return python ? [python, LAUNCHER] : ['moto_server'];
}

/** Polls moto until it answers (generous: a loaded machine starts Python slowly). */
async function waitUntilUp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto_server exited (${child.exitCode}): ${log()}`);
    try {
      const res = await fetch(`${url}/moto-api/data.json`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`moto_server did not answer within 90 s: ${log()}`);
}

/**
 * One moto for a whole test file (reset before each test), and `motoTest(name, fn)`: a test that needs
 * moto and the aws CLI (and whatever `alsoMissing` names, e.g. terraform); without them it prints one
 * `SKIP <test>: …` line and passes.
 */
export function motoSuite(suite: Test, opts: MotoOptions = {}): (name: string, fn: (moto: RunningMoto) => Promise<void>, alsoMissing?: () => string | undefined) => void {
  const missing = motoMissing();
  let moto: RunningMoto | undefined;
  suite.before(async () => {
    if (!missing) moto = await startMoto(opts);
  });
  suite.after(async () => {
    await moto?.stop();
  });
  suite.before.each(async () => {
    await moto?.reset();
  });
  return (name, fn, alsoMissing) =>
    suite(name, async () => {
      const why = missing ?? alsoMissing?.();
      if (why) return reportSkip(name, why);
      await fn(moto!);
    });
}

/** A plan file of cloud_a steps in a temp dir. */
export function planFile(commands: { args: string[]; reason: string; produces?: Record<string, string> }[], provider: string | string[] = 'cloud_a'): string {
  const file = join(tempDir('cloud-plan-'), 'plan.json');
  writeFileSync(file, JSON.stringify({ version: 1, provider, commands }));
  return file;
}

/**
 * Setting up and checking moto's state straight over HTTP from the test process: on a busy machine each
 * aws CLI process costs seconds, so tests keep the real CLI for what they test (the plan's steps).
 * moto routes a request to a service by the credential scope of its Authorization header and does not
 * check signatures.
 */
const QUERY_VERSIONS = { s3: '2006-03-01', ec2: '2016-11-15', autoscaling: '2011-01-01' } as const;

async function motoCall(m: Pick<Moto, 'url'>, service: keyof typeof QUERY_VERSIONS, path: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<string> {
  const headers: Record<string, string> = { authorization: `AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0` };
  if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(`${m.url}${path}`, {
    method: init.method ?? (init.form ? 'POST' : 'GET'),
    headers,
    body: init.form ? new URLSearchParams({ Version: QUERY_VERSIONS[service], ...init.form }).toString() : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`moto ${service} ${path} ${JSON.stringify(init.form ?? {})}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/** The bucket names moto has, sorted. */
export async function buckets(m: Pick<Moto, 'url'>): Promise<string[]> {
  const xml = await motoCall(m, 's3', '/');
  return [...xml.matchAll(/<Bucket><Name>([^<]+)<\/Name>/g)].map((x) => x[1]!).sort();
}

export async function createBucket(m: Pick<Moto, 'url'>, name: string): Promise<void> {
  await motoCall(m, 's3', `/${name}`, { method: 'PUT' });
}

/** Runs one instance (with a Name tag when given) and returns its id. */
export async function runInstance(m: Pick<Moto, 'url'>, name?: string): Promise<string> {
  const tags: Record<string, string> = name ? { 'TagSpecification.1.ResourceType': 'instance', 'TagSpecification.1.Tag.1.Key': 'Name', 'TagSpecification.1.Tag.1.Value': name } : {};
  const xml = await motoCall(m, 'ec2', '/', { form: { Action: 'RunInstances', ImageId: 'ami-12c6146b', InstanceType: 't2.micro', MinCount: '1', MaxCount: '1', ...tags } });
  return /<instanceId>(i-[0-9a-f]+)<\/instanceId>/.exec(xml)![1]!;
}

/** The state of one instance (`running`, `stopped`, `terminated`…). */
export async function instanceState(m: Pick<Moto, 'url'>, id: string): Promise<string> {
  const xml = await motoCall(m, 'ec2', '/', { form: { Action: 'DescribeInstances', 'InstanceId.1': id } });
  return /<instanceState><code>\d+<\/code><name>([a-z-]+)<\/name>/.exec(xml)![1]!;
}

/** The ids of the instances with a Name tag (terminated ones too), or of every instance. */
export async function instanceIds(m: Pick<Moto, 'url'>, name?: string): Promise<string[]> {
  const filter: Record<string, string> = name ? { 'Filter.1.Name': 'tag:Name', 'Filter.1.Value.1': name } : {};
  const xml = await motoCall(m, 'ec2', '/', { form: { Action: 'DescribeInstances', ...filter } });
  return [...new Set([...xml.matchAll(/<instanceId>(i-[0-9a-f]+)<\/instanceId>/g)].map((x) => x[1]!))].sort();
}

/** A launch template that launches `type` (its default version). */
export async function createLaunchTemplate(m: Pick<Moto, 'url'>, name: string, type: string): Promise<void> {
  await motoCall(m, 'ec2', '/', { form: { Action: 'CreateLaunchTemplate', LaunchTemplateName: name, 'LaunchTemplateData.ImageId': 'ami-12c6146b', 'LaunchTemplateData.InstanceType': type } });
}

/** An Auto Scaling group of a launch template, with `desired` instances (moto starts them) and room for `max`. */
export async function createGroup(m: Pick<Moto, 'url'>, name: string, template: string, desired: number, max: number): Promise<void> {
  await motoCall(m, 'autoscaling', '/', {
    form: {
      Action: 'CreateAutoScalingGroup',
      AutoScalingGroupName: name,
      'LaunchTemplate.LaunchTemplateName': template,
      MinSize: '0',
      MaxSize: String(max),
      DesiredCapacity: String(desired),
      'AvailabilityZones.member.1': 'us-east-1a',
    },
  });
}

/** A group's desired capacity as moto has it. */
export async function groupDesired(m: Pick<Moto, 'url'>, name: string): Promise<number> {
  const xml = await motoCall(m, 'autoscaling', '/', { form: { Action: 'DescribeAutoScalingGroups', 'AutoScalingGroupNames.member.1': name } });
  return Number(/<DesiredCapacity>(\d+)<\/DesiredCapacity>/.exec(xml)![1]);
}

/**
 * The AWS operations moto received while `fn` ran, from its request recorder (query APIs' `Action=`,
 * JSON APIs' `X-Amz-Target`, REST APIs as `METHOD /path`): what a test proves was, or was not, sent.
 */
export async function operationsDuring(m: Pick<Moto, 'url'>, fn: () => Promise<void>): Promise<string[]> {
  const api = (path: string, method = 'POST') => fetch(`${m.url}/moto-api/recorder/${path}`, { method }).then(async (r) => {
    if (!r.ok) throw new Error(`moto recorder ${path}: HTTP ${r.status}`);
    return r.text();
  });
  await api('reset-recording');
  await api('start-recording');
  try {
    await fn();
  } finally {
    await api('stop-recording');
  }
  const lines = (await api('download-recording', 'GET')).split('\n').filter((l) => l.trim());
  return lines.map((line) => {
    const r = JSON.parse(line) as { headers?: Record<string, string>; method?: string; url?: string; body?: string; body_encoded?: boolean };
    const body = r.body_encoded ? Buffer.from(r.body ?? '', 'base64').toString('utf8') : (r.body ?? '');
    const target = Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === 'x-amz-target')?.[1];
    const action = /(?:^|&)Action=([A-Za-z]+)/.exec(body)?.[1];
    return action ?? target?.split('.').at(-1) ?? `${r.method} ${new URL(r.url ?? '/', 'http://x').pathname}`;
  });
}

/** One ingress rule of a security group as moto has it. */
export interface IngressRule {
  protocol: string;
  port?: number;
  cidrs: string[];
  groups: string[];
}

/** The security groups named `name` (IDs) and the ingress rules of each, from moto over HTTP. */
export async function securityGroupsNamed(m: Pick<Moto, 'url'>, name: string): Promise<{ id: string; rules: IngressRule[] }[]> {
  const xml = await motoCall(m, 'ec2', '/', { form: { Action: 'DescribeSecurityGroups', 'Filter.1.Name': 'group-name', 'Filter.1.Value.1': name } });
  const info = /<securityGroupInfo>([\s\S]*)<\/securityGroupInfo>/.exec(xml)?.[1] ?? '';
  // Each group starts with its <groupId> (a rule's source group has a <userId> first); its ingress rules are in <ipPermissions> (egress in <ipPermissionsEgress>).
  return info.split(/<item>\s*<groupId>/).slice(1).map((group) => {
    const id = group.slice(0, group.indexOf('<'));
    const ingress = /<ipPermissions>([\s\S]*?)<\/ipPermissions>/.exec(group)?.[1] ?? '';
    const rules = ingress.split('<ipProtocol>').slice(1).map((r) => {
      const port = /<fromPort>(-?\d+)<\/fromPort>/.exec(r)?.[1];
      return {
        protocol: r.slice(0, r.indexOf('<')),
        ...(port !== undefined && port !== '-1' ? { port: Number(port) } : {}),
        cidrs: [...r.matchAll(/<cidrIp>([^<]+)<\/cidrIp>/g)].map((x) => x[1]!),
        groups: [...r.matchAll(/<groupId>(sg-[0-9a-f]+)<\/groupId>/g)].map((x) => x[1]!),
      };
    });
    return { id, rules };
  });
}

/**
 * `ask --apply --plan-file <file>` against moto, killed with SIGKILL once `reached()` says moto holds what
 * the step in flight makes (asked every 50 ms, at most `polls` times, else the test fails naming `what`).
 * With the warm aws CLI, moto is asked only once an aws run of `what` (its operation, e.g. run-instances)
 * has started (aws-warm.ts onRun): before that moto cannot hold what it makes, and asking it 20 times a
 * second through the steps before cost moto and this process CPU for nothing. The same question decides
 * the kill, as often, in the window where its answer can change.
 */
export async function applyKilledOnce(m: Pick<RunningMoto, 'env' | 'onAwsRun'>, home: string, file: string, reached: () => Promise<boolean>, what: string, polls: number): Promise<void> {
  let stopListening = () => {};
  const started = new Promise<void>((resolve) => {
    if (!m.onAwsRun) return resolve(); // the cold CLI announces nothing: moto is asked from the start
    stopListening = m.onAwsRun((argv) => {
      if (argv.includes(what)) resolve();
    });
  });
  const child = spawn(process.execPath, [BIN, 'ask', '--apply', '--plan-file', file], { env: childEnv(home, m.env), stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('close', resolve));
  // (An apply that ends without that run, e.g. refused, goes on to the checks below as before.)
  await Promise.race([started, exited]);
  stopListening();
  for (let i = 0; !(await reached()); i++) {
    if (i > polls) throw new Error(`${what} never reached moto`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  await exited;
}

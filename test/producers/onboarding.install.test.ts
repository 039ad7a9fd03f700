/**
 * `onboarding install`: recipes compiled to a local plan shown before anything runs, stand-in package
 * managers on a controlled PATH (scripts that record their argv and environment), downloads only from
 * this test's HTTP server (a tampered archive is refused and nothing is unpacked), the architecture
 * choosing the artefact, no terminal without --yes (exit 2, nothing runs), failures reported per tool.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InstallPlanSchema, InstallReportSchema } from '../../schemas/onboarding.js';
import { compilePlan } from '../../engine/producers/onboarding/plan.js';
import type { Platform } from '../../engine/producers/onboarding/platform.js';
import { cliInThisProcess, configFile, runCli } from '../support/cli.js';
import { artefactServer, cleanup, fakeBin, recipeFile, sha256, tarGzOf, tempDir, versionScript, zipOf } from '../support/onboarding-support.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): the command's TMPDIR is its own (ctx.env),
// stand-ins and downloads are real children and real HTTP; Ctrl-C (a signal to the process) spawns.
cliInThisProcess();

const SECRET = 'gpucloud-secret-for-install-test-0042';
const AI_KEY = 'sk-onboarding-install-test-key-000000000000';

/** The CLI with only the stand-ins on PATH, a private TMPDIR, and secrets in the environment that no child may see. */
function envFor(bin: { path: string }, extra: Record<string, string | undefined> = {}) {
  return { PATH: bin.path, TMPDIR: tempDir('onboarding-tmp-'), GPUCLOUD_CLIENT_ID: 'id', GPUCLOUD_CLIENT_SECRET: SECRET, OPENAI_API_KEY: AI_KEY, ...extra };
}

/** An apt-get that "installs" aws by writing a stand-in `aws` next to itself. */
function withApt(bin: ReturnType<typeof fakeBin>, installs: Record<string, { exe: string; version: string }>, fail: Record<string, string> = {}) {
  bin.add('apt-get', [
    ...Object.entries(fail).map(([pkg, out]) => ({ match: `install -y --no-install-recommends ${pkg}`, stdout: out, exit: 100 })),
    ...Object.entries(installs).map(([pkg, t]) => ({ match: `install -y --no-install-recommends ${pkg}`, stdout: `Setting up ${pkg} ...`, create: { [join(bin.dir, t.exe)]: versionScript(t.version) } })),
    { match: 'update', stdout: 'Reading package lists... Done' },
  ]);
}

test.after(() => cleanup());

test('install aws on linux with apt: the plan is shown, apt runs with argv (update once, then install), the tool is re-scanned', async () => {
  const bin = fakeBin();
  withApt(bin, { awscli: { exe: 'aws', version: 'aws-cli/2.15.0 Python/3.11.6' } });
  const r = await runCli(['onboarding', 'install', 'aws', '--yes', '--platform', 'linux/x64'], { env: envFor(bin) });
  assert.is(r.code, 0, r.stderr);
  // The plan, on stderr, before anything ran.
  assert.match(r.stderr, /Install plan for linux\/x64 \(--platform\): 1 tool/);
  assert.match(r.stderr, /env DEBIAN_FRONTEND=noninteractive apt-get update/);
  assert.match(r.stderr, /env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends awscli/);
  const calls = bin.calls('apt-get');
  assert.equal(calls.map((c) => c.argv), [['update'], ['install', '-y', '--no-install-recommends', 'awscli']]);
  // The package manager saw its own settings, not our secrets.
  for (const c of calls) {
    assert.is(c.env.DEBIAN_FRONTEND, 'noninteractive');
    const all = JSON.stringify(c.env);
    assert.not.ok(all.includes(SECRET), 'gpucloud secret reached apt-get');
    assert.not.ok(all.includes(AI_KEY), 'AI key reached apt-get');
    assert.is(c.env.GPUCLOUD_CLIENT_ID, undefined);
  }
  assert.match(r.stdout, new RegExp(`^aws: installed \\(apt\\) ${join(bin.dir, 'aws').replace(/[/.]/g, '\\$&')} 2\\.15\\.0$`, 'm'));
});

test('no terminal and no --yes: the plan is printed, exit 2, nothing runs', async () => {
  const bin = fakeBin();
  withApt(bin, { awscli: { exe: 'aws', version: 'aws-cli/2.15.0' } });
  const r = await runCli(['onboarding', 'install', 'aws', '--platform', 'linux/x64'], { env: envFor(bin) });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /apt-get install -y --no-install-recommends awscli/);
  assert.match(r.stderr, /^error: usage: installing needs your confirmation and there is no terminal to ask on; nothing was run$/m);
  assert.match(r.stderr, /^hint: .*--yes/m);
  assert.is(bin.calls().length, 0, 'nothing ran');
  assert.is(r.stdout, '');
});

test('--dry-run prints the plan (table, or JSON with schema_version) and runs nothing', async () => {
  const bin = fakeBin();
  withApt(bin, { awscli: { exe: 'aws', version: 'aws-cli/2.15.0' } });
  const table = await runCli(['onboarding', 'install', 'aws', 'kubectl', '--dry-run', '--platform', 'linux/x64'], { env: envFor(bin) });
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /aws via apt/);
  assert.match(table.stdout, /kubectl via download 1\.31\.0/);
  assert.match(table.stdout, /download https:\/\/dl\.k8s\.io\/release\/v1\.31\.0\/bin\/linux\/amd64\/kubectl\n\s+verify sha256 7c27adc64a84d1c0cc3dcf7bf4b6e916cc00f3f576a2dbac51b318d926032437/);
  const json = await runCli(['onboarding', 'install', 'aws', 'kubectl', '--dry-run', '--platform', 'linux/arm64', '-o', 'json'], { env: envFor(bin) });
  assert.is(json.code, 0, json.stderr);
  const plan = InstallPlanSchema.parse(JSON.parse(json.stdout));
  assert.is(plan.schema_version, 1);
  assert.equal(plan.tools.map((t) => [t.tool, t.method]), [['aws', 'apt'], ['kubectl', 'download']]);
  const download = plan.tools[1]!.steps[0]!;
  assert.ok(download.kind === 'download' && download.url.endsWith('/linux/arm64/kubectl'), 'arm64 picks the arm64 artefact');
  assert.is(download.kind === 'download' && download.sha256, 'f42832db7d77897514639c6df38214a6d8ae1262ee34943364ec1ffaee6c009c');
  assert.is(bin.calls().length, 0);
  // --format json is the same as -o json.
  const fmt = await runCli(['onboarding', 'install', 'aws', '--dry-run', '--platform', 'linux/x64', '--format', 'json'], { env: envFor(bin) });
  assert.is(fmt.code, 0, fmt.stderr);
  assert.is(InstallPlanSchema.parse(JSON.parse(fmt.stdout)).tools[0]!.tool, 'aws');
});

test('an unknown tool exits 2 and lists the tools it knows; nothing runs', async () => {
  const bin = fakeBin();
  withApt(bin, {});
  const r = await runCli(['onboarding', 'install', 'aws', 'kubeclt', '--yes'], { env: envFor(bin) });
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: usage: unknown tool "kubeclt"$/m);
  assert.match(r.stderr, /^hint: tools: aws, gcloud, az, kubectl, terraform, tofu, /m);
  assert.is(bin.calls().length, 0);
});

test('a tool already on PATH is skipped unless --force', async () => {
  const bin = fakeBin();
  bin.add('aws', [{ match: '--version', stdout: 'aws-cli/1.45.0 Python/3.11' }]);
  withApt(bin, { awscli: { exe: 'aws', version: 'aws-cli/2.15.0' } });
  const skip = await runCli(['onboarding', 'install', 'aws', '--yes', '--platform', 'linux/x64'], { env: envFor(bin) });
  assert.is(skip.code, 0, skip.stderr);
  assert.match(skip.stdout, /^aws: skipped .*1\.45\.0: already installed \(use --force to install anyway\)$/m);
  assert.is(bin.calls('apt-get').length, 0);
  const force = await runCli(['onboarding', 'install', 'aws', '--yes', '--force', '--platform', 'linux/x64'], { env: envFor(bin) });
  assert.is(force.code, 0, force.stderr);
  assert.match(force.stderr, /aws via apt — named \(replaces .*\/aws on PATH\)/);
  assert.match(force.stdout, /^aws: installed \(apt\) .* 2\.15\.0$/m);
  assert.is(bin.calls('apt-get').length, 2);
});

test('a failing step stops its tool, shows its last lines, and the other tools still install (exit 1)', async () => {
  const bin = fakeBin();
  const noise = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
  withApt(bin, { git: { exe: 'git', version: 'git version 2.43.0' } }, { awscli: `${noise}\nE: Unable to locate package awscli\nexport API_TOKEN=leaked-in-apt-output-123` });
  const r = await runCli(['onboarding', 'install', 'aws', 'git', '--yes', '--platform', 'linux/x64', '-o', 'json'], { env: envFor(bin) });
  assert.is(r.code, 1, r.stderr);
  const report = InstallReportSchema.parse(JSON.parse(r.stdout));
  const aws = report.results.find((x) => x.tool === 'aws')!;
  const git = report.results.find((x) => x.tool === 'git')!;
  assert.is(aws.status, 'failed');
  assert.match(aws.error!, /apt-get install -y --no-install-recommends awscli` failed: exit 100/);
  assert.ok(aws.output!.length <= 15 && aws.output!.length > 0, 'the last lines only');
  assert.ok(aws.output!.includes('E: Unable to locate package awscli'));
  assert.not.ok(r.stdout.includes('leaked-in-apt-output-123'), 'secret-looking output is masked');
  assert.is(git.status, 'installed');
  assert.is(git.version, '2.43.0');
  // Table form: the same, readable.
  const table = await runCli(['onboarding', 'install', 'aws', '--yes', '--force', '--platform', 'linux/x64'], { env: envFor(bin) });
  assert.is(table.code, 1);
  assert.match(table.stdout, /^aws: FAILED \(apt\): /m);
  assert.match(table.stdout, /^  \| E: Unable to locate package awscli$/m);
});

test('with no tool named, the missing tools of configured providers are planned; --provider picks the tools of those providers', async () => {
  const bin = fakeBin();
  withApt(bin, {});
  const cfg = configFile('infra:\n  cloud_c:\n    subscription_id: 00000000-0000-0000-0000-000000000000\n');
  const r = await runCli(['--config', cfg, 'onboarding', 'install', '--dry-run', '--platform', 'linux/x64', '-o', 'json'], { env: envFor(bin) });
  assert.is(r.code, 0, r.stderr);
  const plan = InstallPlanSchema.parse(JSON.parse(r.stdout));
  assert.equal(plan.tools.map((t) => [t.tool, t.reason]), [['az', 'cloud_c needs it']]);
  assert.equal((plan.tools[0]!.steps[0] as { argv: string[] }).argv.slice(-1), ['azure-cli']);

  const nothing = await runCli(['onboarding', 'install', '--dry-run', '--platform', 'linux/x64'], { env: envFor(bin) });
  assert.is(nothing.code, 0);
  assert.match(nothing.stderr, /nothing to install: every configured provider has the tools it needs/);

  const byProvider = await runCli(['onboarding', 'install', '--provider', 'terraform', '--dry-run', '--platform', 'darwin/arm64', '-o', 'json'], { env: envFor(bin) });
  assert.is(byProvider.code, 0, byProvider.stderr);
  const p2 = InstallPlanSchema.parse(JSON.parse(byProvider.stdout));
  assert.equal(p2.tools.map((t) => t.tool), ['terraform', 'tofu']);
  assert.ok(p2.tools.every((t) => t.method === 'download'), 'no brew here: the pinned download');
  assert.match((p2.tools[0]!.steps[0] as { url: string }).url, /terraform_1\.9\.8_darwin_arm64\.zip$/);

  const unknown = await runCli(['onboarding', 'install', '--provider', 'cloud_z', '--dry-run'], { env: envFor(bin) });
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /^hint: providers: gpucloud, cloud_a, /m);
});

test('brew on macOS: formulae and casks as exact commands, no sudo', async () => {
  const bin = fakeBin();
  bin.add('brew', [{ match: '', stdout: 'ok' }]);
  const r = await runCli(['onboarding', 'install', 'gcloud', 'aws', 'kubectl', '--dry-run', '--platform', 'darwin/arm64'], { env: envFor(bin) });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^    \d+\. brew install --cask google-cloud-sdk$/m);
  assert.match(r.stdout, /^    \d+\. brew install awscli$/m);
  assert.match(r.stdout, /^    \d+\. brew install kubernetes-cli$/m);
  assert.match(r.stdout, /no sudo/);
  assert.not.match(r.stdout, /sudo /);
});

test('the plan compiler asks for sudo only for the system package manager, and only when not root', () => {
  const platform = (over: Partial<Platform>): Platform => ({ os: 'linux', arch: 'x64', managers: ['apt', 'npm', 'pipx'], root: false, sudo: true, injected: true, ...over });
  const probes = new Map();
  const home = '/home/me';
  const plan = compilePlan([{ tool: 'aws', reason: 'named' }, { tool: 'wrangler', reason: 'named' }, { tool: 'kubectl', reason: 'named' }], { platform: platform({}), env: { PATH: '/usr/bin' }, home, force: false, probes });
  const byTool = Object.fromEntries(plan.tools.map((t) => [t.tool, t]));
  assert.equal((byTool.aws!.steps[0] as { argv: string[] }).argv.slice(0, 4), ['sudo', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get']);
  assert.is(byTool.aws!.needs_sudo, true);
  assert.equal((plan.setup[0]!.steps[0] as { argv: string[] }).argv[0], 'sudo');
  assert.is(byTool.wrangler!.needs_sudo, false, 'npm installs under the user prefix');
  assert.equal((byTool.wrangler!.steps[0] as { argv: string[] }).argv, ['npm', 'install', '--global', '--prefix', '/home/me/.local', '--no-audit', '--no-fund', 'wrangler']);
  assert.is(byTool.kubectl!.needs_sudo, false);
  assert.is((byTool.kubectl!.steps[1] as { dest: string }).dest, '/home/me/.local/bin/kubectl');
  // Root: no sudo. No sudo and not root: apt is unusable, pipx is next.
  const asRoot = compilePlan([{ tool: 'aws', reason: 'named' }], { platform: platform({ root: true }), env: {}, home, force: false, probes });
  assert.is((asRoot.tools[0]!.steps[0] as { argv: string[] }).argv[0], 'env');
  const noSudo = compilePlan([{ tool: 'aws', reason: 'named' }], { platform: platform({ sudo: false }), env: {}, home, force: false, probes });
  assert.is(noSudo.tools[0]!.method, 'pipx');
  // Nothing fits: the tool is reported with where to get it by hand.
  const none = compilePlan([{ tool: 'gcloud', reason: 'named' }], { platform: platform({}), env: {}, home, force: false, probes });
  assert.is(none.tools.length, 0);
  assert.match(none.unavailable[0]!.reason, /no usable recipe on linux\/x64 \(brew not found; winget is for windows\)/);
  assert.is(none.unavailable[0]!.manual, 'https://cloud.google.com/sdk/docs/install');
});

// ---------------------------------------------------------------------------------------------
// Downloads, only from this test's server.

test('a download is verified against its pinned SHA-256, then only the named binary is unpacked to <prefix>/bin (tar.gz, zip, raw)', async () => {
  const bin = fakeBin();
  const server = await artefactServer();
  try {
    const tgz = await tarGzOf({ 'gh_9.9.9_linux_amd64/bin/gh': versionScript('gh version 9.9.9 (x64)'), 'gh_9.9.9_linux_amd64/LICENSE': 'MIT', 'gh_9.9.9_linux_amd64/share/man/gh.1': 'man' });
    const zip = await zipOf({ terraform: versionScript('Terraform v9.9.9'), 'LICENSE.txt': 'BUSL' });
    const raw = Buffer.from(versionScript('Client Version: v9.9.9'));
    server.set('/gh.tgz', tgz);
    server.set('/tf.zip', zip);
    server.set('/kubectl', raw);
    const prefix = tempDir('onboarding-prefix-');
    const recipes = join(tempDir(), 'r.json');
    writeFileSync(
      recipes,
      JSON.stringify({
        schema_version: 1,
        recipes: {
          gh: [{ method: 'download', version: '9.9.9', binary: 'gh', artefacts: { 'linux/x64': { url: `${server.url}/gh.tgz`, sha256: sha256(tgz), size: tgz.length, format: 'tar.gz' } } }],
          terraform: [{ method: 'download', version: '9.9.9', binary: 'terraform', artefacts: { 'linux/x64': { url: `${server.url}/tf.zip`, sha256: sha256(zip), format: 'zip' } } }],
          kubectl: [{ method: 'download', version: '9.9.9', binary: 'kubectl', artefacts: { 'linux/x64': { url: `${server.url}/kubectl`, sha256: sha256(raw), format: 'binary' } } }],
        },
      }),
    );
    const env = envFor(bin);
    const r = await runCli(['onboarding', 'install', 'gh', 'terraform', 'kubectl', '--yes', '--platform', 'linux/x64', '--prefix', prefix, '--recipes', recipes, '-o', 'json'], { env });
    assert.is(r.code, 0, r.stderr);
    const report = InstallReportSchema.parse(JSON.parse(r.stdout));
    assert.equal(report.results.map((x) => [x.tool, x.status, x.version]), [['gh', 'installed', '9.9.9'], ['terraform', 'installed', '9.9.9'], ['kubectl', 'installed', '9.9.9']]);
    assert.equal(readdirSync(join(prefix, 'bin')).sort(), ['gh', 'kubectl', 'terraform'], 'only the binaries, nothing else from the archives');
    for (const name of ['gh', 'kubectl', 'terraform']) assert.is(statSync(join(prefix, 'bin', name)).mode & 0o777, 0o755);
    assert.is(readFileSync(join(prefix, 'bin', 'gh'), 'utf8'), versionScript('gh version 9.9.9 (x64)'));
    assert.is(report.bin_dir, join(prefix, 'bin'));
    assert.is(report.bin_dir_on_path, false);
    assert.equal(readdirSync(env.TMPDIR), [], 'the temporary directories are gone');
    assert.equal(server.requests.sort(), ['/gh.tgz', '/kubectl', '/tf.zip']);
  } finally {
    await server.close();
  }
});

test('the architecture picks the artefact: arm64 downloads the arm64 archive, x86-64 the x86-64 one', async () => {
  const bin = fakeBin();
  const server = await artefactServer();
  try {
    const x64 = await tarGzOf({ 'pkg/bin/gh': versionScript('gh version 9.9.1 (x64)') });
    const arm = await tarGzOf({ 'pkg/bin/gh': versionScript('gh version 9.9.2 (arm64)') });
    server.set('/gh-amd64.tgz', x64);
    server.set('/gh-arm64.tgz', arm);
    const recipes = recipeFile('gh', 'gh', {
      'linux/x64': { url: `${server.url}/gh-amd64.tgz`, sha256: sha256(x64), format: 'tar.gz' },
      'linux/arm64': { url: `${server.url}/gh-arm64.tgz`, sha256: sha256(arm), format: 'tar.gz' },
    });
    for (const [arch, expected, version] of [['arm64', '/gh-arm64.tgz', '9.9.2'], ['x64', '/gh-amd64.tgz', '9.9.1']] as const) {
      const prefix = tempDir('onboarding-prefix-');
      const before = server.requests.length;
      const r = await runCli(['onboarding', 'install', 'gh', '--yes', '--platform', `linux/${arch}`, '--prefix', prefix, '--recipes', recipes, '-o', 'json'], { env: envFor(bin) });
      assert.is(r.code, 0, r.stderr);
      assert.equal(server.requests.slice(before), [expected], `${arch} fetched only its own artefact`);
      assert.is(InstallReportSchema.parse(JSON.parse(r.stdout)).results[0]!.version, version);
    }
    // A platform the recipe has no artefact for: no download at all.
    const none = await runCli(['onboarding', 'install', 'gh', '--yes', '--platform', 'windows/arm64', '--recipes', recipes, '--dry-run', '-o', 'json'], { env: envFor(bin) });
    const plan = InstallPlanSchema.parse(JSON.parse(none.stdout));
    assert.equal(plan.tools, []);
    assert.match(plan.unavailable[0]!.reason, /no windows\/arm64 download/);
  } finally {
    await server.close();
  }
});

test('the download and its unpacking happen under the command\'s TMPDIR, not the process\'s', async () => {
  const bin = fakeBin();
  const body = await tarGzOf({ 'pkg/bin/gh': versionScript('gh version 9.9.9') });
  const env = envFor(bin);
  let seen: { ours: string[]; processes: string[] } | undefined;
  // Half the archive, then the rest once the test has seen where it is being written.
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
    res.write(body.subarray(0, body.length >> 1));
    const writing = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('assistant-install-') && existsSync(join(dir, n, 'artefact')));
    const poll = () => {
      const ours = writing(env.TMPDIR);
      const processes = writing(tmpdir());
      if (ours.length + processes.length === 0) return void setTimeout(poll, 20);
      seen = { ours, processes };
      res.end(body.subarray(body.length >> 1));
    };
    poll();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/gh.tgz`;
    const recipes = recipeFile('gh', 'gh', { 'linux/x64': { url, sha256: sha256(body), format: 'tar.gz' } });
    const prefix = tempDir('onboarding-prefix-');
    const r = await runCli(['onboarding', 'install', 'gh', '--yes', '--platform', 'linux/x64', '--prefix', prefix, '--recipes', recipes], { env });
    assert.is(r.code, 0, r.stderr);
    assert.is(seen?.ours.length, 1, 'the download was written under the command\'s TMPDIR');
    assert.equal(seen?.processes, [], 'nothing under the process\'s temp directory');
    assert.equal(readdirSync(env.TMPDIR), [], 'and removed afterwards');
    assert.ok(existsSync(join(prefix, 'bin', 'gh')));
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a tampered archive is refused: checksum mismatch, nothing unpacked, nothing left behind (exit 1)', async () => {
  const bin = fakeBin();
  const server = await artefactServer();
  try {
    const good = await tarGzOf({ 'pkg/bin/gh': versionScript('gh version 9.9.9') });
    const evil = await tarGzOf({ 'pkg/bin/gh': '#!/bin/sh\necho pwned > /tmp/pwned-by-onboarding\n' });
    server.set('/gh.tgz', evil);
    const recipes = recipeFile('gh', 'gh', { 'linux/x64': { url: `${server.url}/gh.tgz`, sha256: sha256(good), format: 'tar.gz' } });
    const prefix = tempDir('onboarding-prefix-');
    const env = envFor(bin);
    const r = await runCli(['onboarding', 'install', 'gh', '--yes', '--platform', 'linux/x64', '--prefix', prefix, '--recipes', recipes], { env });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stdout, new RegExp(`^gh: FAILED \\(download\\): checksum_mismatch: .*SHA-256 ${sha256(evil)} .* is not the pinned ${sha256(good)}.*nothing was unpacked`, 'm'));
    assert.not.ok(existsSync(join(prefix, 'bin', 'gh')), 'nothing unpacked');
    assert.not.ok(existsSync(join(prefix, 'bin')), 'the bin directory was not even created');
    assert.equal(readdirSync(env.TMPDIR), [], 'the download was deleted');

    // A pinned size is enforced too: a longer body is cut off and refused.
    const small = recipeFile('gh', 'gh', { 'linux/x64': { url: `${server.url}/gh.tgz`, sha256: sha256(evil), size: 10, format: 'tar.gz' } });
    const sized = await runCli(['onboarding', 'install', 'gh', '--yes', '--platform', 'linux/x64', '--prefix', prefix, '--recipes', small], { env });
    assert.is(sized.code, 1);
    assert.match(sized.stdout, /^gh: FAILED \(download\): download_refused: .* more than the pinned size \(10\)/m);
    assert.not.ok(existsSync(join(prefix, 'bin', 'gh')));
  } finally {
    await server.close();
  }
});

test('an archive whose binary cannot be found (or is there twice) is refused after verification, nothing installed', async () => {
  const bin = fakeBin();
  const server = await artefactServer();
  try {
    const missing = await zipOf({ 'README.md': 'no binary here', 'bin/terraform-docs': 'x' });
    const twice = await zipOf({ 'a/terraform': 'one', 'b/terraform': 'two' });
    server.set('/missing.zip', missing);
    server.set('/twice.zip', twice);
    const prefix = tempDir('onboarding-prefix-');
    for (const [path, buf, why] of [['/missing.zip', missing, /holds no file named terraform/], ['/twice.zip', twice, /holds 2 files named terraform; refusing to guess/]] as const) {
      const recipes = recipeFile('terraform', 'terraform', { 'linux/x64': { url: `${server.url}${path}`, sha256: sha256(buf), format: 'zip' } });
      const r = await runCli(['onboarding', 'install', 'terraform', '--yes', '--force', '--platform', 'linux/x64', '--prefix', prefix, '--recipes', recipes], { env: envFor(bin) });
      assert.is(r.code, 1, r.stderr);
      assert.match(r.stdout, why);
      assert.not.ok(existsSync(join(prefix, 'bin', 'terraform')));
    }
  } finally {
    await server.close();
  }
});

test('recipe files are validated: a checksum is required, plain http only to this machine, only known tools', async () => {
  const bin = fakeBin();
  const write = (recipes: unknown) => {
    const f = join(tempDir(), 'r.json');
    writeFileSync(f, JSON.stringify({ schema_version: 1, recipes }));
    return f;
  };
  const cases: [unknown, RegExp][] = [
    [{ gh: [{ method: 'download', version: '1', binary: 'gh', artefacts: { 'linux/x64': { url: 'https://example.com/gh.tgz', format: 'tar.gz' } } }] }, /sha256/],
    [{ gh: [{ method: 'download', version: '1', binary: 'gh', artefacts: { 'linux/x64': { url: 'http://example.com/gh.tgz', sha256: 'a'.repeat(64), format: 'tar.gz' } } }] }, /plain http is allowed only to this machine/],
    [{ ghx: [{ method: 'npm', packages: ['x'] }] }, /unknown tool "ghx"/],
    [{ gh: [{ method: 'apt', packages: ['gh; rm -rf /'] }] }, /packages/],
    [{ gh: [{ method: 'apt', packages: ['--allow-unauthenticated'] }] }, /no leading "-"/],
    [{ gh: [{ method: 'download', version: '1', binary: '..', artefacts: {} }] }, /not "\." or "\.\."/],
  ];
  for (const [recipes, why] of cases) {
    const r = await runCli(['onboarding', 'install', 'gh', '--dry-run', '--recipes', write(recipes)], { env: envFor(bin) });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error: invalid_recipes: /m);
    assert.match(r.stderr, why);
  }
});

test('--timeout stops a hanging step (and its helpers): exit 1, the report says what was and was not installed', async () => {
  const bin = fakeBin();
  bin.add('apt-get', [
    { match: 'install -y --no-install-recommends git', stdout: 'Setting up git', create: { [join(bin.dir, 'git')]: versionScript('git version 2.43.0') } },
    { match: 'install -y --no-install-recommends awscli', stdout: 'Unpacking awscli...', sleepMs: 120_000 },
    { match: 'update', stdout: 'ok' },
  ]);
  // 10 s: git's install (a few stand-in processes) must finish inside the budget even on a loaded machine; the
  // awscli step then hangs until the deadline.
  const r = await runCli(['onboarding', 'install', 'git', 'aws', '--yes', '--platform', 'linux/x64', '--timeout', '10', '-o', 'json'], { env: envFor(bin) });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /^error: timeout: timeout after 10 s \(--timeout\)/m);
  const report = InstallReportSchema.parse(JSON.parse(r.stdout));
  assert.equal(report.results.map((x) => [x.tool, x.status]), [['git', 'installed'], ['aws', 'not-installed']]);
  assert.match(report.results[1]!.error!, /^stopped: /);
  // The stand-in that was hanging is gone (its process group was signalled).
  const hung = bin.calls('apt-get').find((c) => c.argv.includes('awscli'))!;
  assert.ok(hung.pid > 0);
  assert.throws(() => process.kill(hung.pid, 0), /ESRCH/);
});

test('Ctrl-C during a step: exit 130 and the partial report', async () => {
  const bin = fakeBin();
  bin.add('apt-get', [
    { match: 'install', stdout: 'Unpacking awscli...', sleepMs: 120_000 },
    { match: 'update', stdout: 'ok' },
  ]);
  const { spawn } = await import('node:child_process');
  const { BIN, childEnv } = await import('../support/cli.js');
  const child = spawn(process.execPath, [BIN, 'onboarding', 'install', 'aws', '--yes', '--platform', 'linux/x64'], { env: childEnv(tempDir('onboarding-home-'), envFor(bin)), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const deadline = Date.now() + 90_000;
  while (bin.calls('apt-get').filter((c) => c.argv[0] === 'install').length === 0) {
    if (Date.now() > deadline) throw new Error(`apt-get install never started: ${stderr}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 130, stderr);
  assert.match(stderr, /^error: interrupted: /m);
  assert.match(stdout, /^aws: not installed \(apt\): stopped: /m);
});

test.run();

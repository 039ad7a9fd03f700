/**
 * Cloning for `deploy` (issue 15 §1): real repositories served over file://, a `git daemon` and git's
 * smart HTTP (git http-backend) on 127.0.0.1; --ref as a branch, a tag and a full sha; the temp dir
 * removed after success, failure and Ctrl-C; a private repository's token only in git's environment,
 * never in argv, the URL, the plan, the journal or any output.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, childEnv, cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { git, makeRepo, NODE_DOCKER, startGitDaemon, startGitHttp } from '../support/git-repos.js';
import { emulatorDefaultsConfig } from '../support/emulator.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): git takes the command's environment (ctx.env); Ctrl-C spawns its own child.
cliInThisProcess();

const T = { timeoutMs: 120_000 };

const config = emulatorDefaultsConfig;

const commitOf = (stdout: string) => JSON.parse(stdout).stack.commit as string;

test('clones over a git daemon on 127.0.0.1 and file://, at the default branch, a branch, a tag and a full sha', async () => {
  const root = tempDir('deploy-daemon-');
  const repo = makeRepo('web', NODE_DOCKER, root);
  const first = repo.sha;
  git(repo.dir, 'tag', 'v1');
  git(repo.dir, 'tag', '1.10');
  git(repo.dir, 'checkout', '--quiet', '-b', 'next');
  const onNext = repo.commit({ 'next.txt': 'next\n' });
  git(repo.dir, 'checkout', '--quiet', 'main');
  const head = repo.commit({ 'later.txt': 'later\n' });
  const daemon = await startGitDaemon(root);
  try {
    await withEmulator(async ({ env }) => {
      const url = daemon.urlOf('web');
      const cases: [string[], string][] = [
        [[], head],
        [['--ref', 'next'], onNext],
        [['--ref', 'v1'], first],
        [['--ref', '1.10'], first], // a number-like tag stays text (not 1.1)
        [['--ref', first], first],
      ];
      for (const [ref, sha] of cases) {
        const r = await runCli(['--config', config(), 'deploy', url, ...ref, '-o', 'json'], { ...T, env });
        assert.is(r.code, 0, `${ref.join(' ')}: ${r.stderr}`);
        assert.is(commitOf(r.stdout), sha, `git:// ${ref.join(' ') || 'default branch'}`);
        assert.ok(JSON.parse(r.stdout).plan.commands[0].args[3].script.includes(sha), 'the script checks out that commit');
      }
      const viaFile = await runCli(['--config', config(), 'deploy', repo.url, '--ref', onNext, '-o', 'json'], { ...T, env });
      assert.is(viaFile.code, 0, viaFile.stderr);
      assert.is(commitOf(viaFile.stdout), onNext, 'file:// with a sha');
      const missing = await runCli(['--config', config(), 'deploy', url, '--ref', 'no-such-branch'], { ...T, env });
      assert.is(missing.code, 1);
      assert.match(missing.stderr, /error: clone_failed: git clone failed: .*no-such-branch/);
    });
  } finally {
    await daemon.close();
  }
});

test('the temp dir is removed after a deploy, after a failed clone and after a refusal', async () => {
  const repo = makeRepo('web', NODE_DOCKER);
  const tmp = tempDir('deploy-tmp-');
  await withEmulator(async ({ env }) => {
    const e = { ...env, ASSISTANT_DEPLOY_TMPDIR: tmp };
    const ok = await runCli(['--config', config(), 'deploy', repo.url], { ...T, env: e });
    assert.is(ok.code, 0, ok.stderr);
    assert.equal(readdirSync(tmp), [], 'after success');
    const bad = await runCli(['--config', config(), 'deploy', repo.url, '--ref', 'nope'], { ...T, env: e });
    assert.is(bad.code, 1);
    assert.equal(readdirSync(tmp), [], 'after a failed clone');
    const refused = await runCli(['--config', config(), 'deploy', repo.url, '--instance-type', 'NOPE'], { ...T, env: e });
    assert.is(refused.code, 2);
    assert.equal(readdirSync(tmp), [], 'after a refusal');
  });
});

test('a clone left by a killed deploy (kill -9 runs no cleanup) is swept by the next deploy; a live process keeps its own', async () => {
  const repo = makeRepo('web', NODE_DOCKER);
  const tmp = tempDir('deploy-tmp-');
  const dead = spawn(process.execPath, ['-e', '0']);
  const deadPid = await new Promise<number>((resolve) => dead.on('exit', () => resolve(dead.pid!)));
  mkdirSync(join(tmp, `assistant-deploy-${deadPid}-abc123`, 'repo'), { recursive: true });
  mkdirSync(join(tmp, `assistant-deploy-${process.pid}-live01`));
  mkdirSync(join(tmp, 'someone-else'));
  await withEmulator(async ({ env }) => {
    const r = await runCli(['--config', config(), 'deploy', repo.url], { ...T, env: { ...env, ASSISTANT_DEPLOY_TMPDIR: tmp } });
    assert.is(r.code, 0, r.stderr);
  });
  assert.equal(readdirSync(tmp).sort(), [`assistant-deploy-${process.pid}-live01`, 'someone-else']);
});

test('Ctrl-C while git waits on a stalled server: exit 130 and the temp dir is removed', async () => {
  const root = tempDir('deploy-http-');
  makeRepo('web', NODE_DOCKER, root);
  const server = await startGitHttp(root);
  const tmp = tempDir('deploy-tmp-');
  try {
    server.hold(true);
    const child = spawn(process.execPath, [BIN, 'deploy', server.urlOf('web')], { env: childEnv(tempHome(), { ASSISTANT_DEPLOY_TMPDIR: tmp }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // git has reached the server (and the temp dir exists) before the interrupt.
    for (let i = 0; server.seen.length === 0 && i < 1200; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(server.seen.length > 0, 'git reached the server');
    assert.is(readdirSync(tmp).length, 1);
    child.kill('SIGINT');
    // Bounded, so a git helper left holding the clone open fails the test instead of hanging it.
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running 90 s after Ctrl-C'), 90_000).unref())]);
    if (code !== 130) child.kill('SIGKILL');
    assert.is(code, 130, stderr);
    assert.match(stderr, /interrupted/);
    assert.equal(readdirSync(tmp), []);
  } finally {
    await server.close();
  }
});

test('a private repository over http: the token goes to git by its environment only and appears in no argv, URL, plan, journal or output', async () => {
  const token = 'ghp_deployTokenThatMustNotLeak0123456789';
  const root = tempDir('deploy-http-');
  makeRepo('private', NODE_DOCKER, root);
  const server = await startGitHttp(root, { token });
  try {
    await withEmulator(async ({ env }) => {
      const url = server.urlOf('private');
      const denied = await runCli(['--config', config(), 'deploy', url], { ...T, env });
      assert.is(denied.code, 1, 'without the token the server refuses');
      assert.match(denied.stderr, /error: clone_failed: .*\nhint: for a private https repository set repohost.token/);
      const home = tempHome();
      // The token goes only to its code host: this server is it (repohost.base_url).
      const cfg = config(`repohost:\n  token: ${token}\n  base_url: ${new URL(url).origin}\n`);
      const r = await runCli(['--config', cfg, '--debug', 'deploy', url, '--apply'], { ...T, env, home });
      assert.is(r.code, 0, r.stderr);
      assert.ok(server.seen.some((s) => s.authorization?.startsWith('Basic ')), 'the token reached the server as a header');
      assert.not.ok(server.seen.some((s) => s.url.includes(token)), 'never in a URL');
      const plan = await runCli(['--config', cfg, 'deploy', url], { ...T, env, home });
      assert.is(plan.code, 0, plan.stderr);
      assert.match(plan.stderr, /note: the repository is private: the instance clones it itself, so give it read access of its own \(a deploy key\)/);
      const runs = join(home, '.assistant', 'runs');
      const journals = readdirSync(runs).map((f) => readFileSync(join(runs, f), 'utf8')).join('');
      const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
      for (const [what, text] of [['stdout', r.stdout + plan.stdout], ['stderr', r.stderr + plan.stderr], ['journal', journals]] as const) {
        assert.not.ok(text.includes(token) || text.includes(basic), `the token is in ${what}`);
      }
      // A wrong token: git's error is shown, the token is not.
      const wrong = 'ghp_wrongTokenAlsoSecret99887766554433';
      const bad = await runCli(['--config', config(`repohost:\n  token: ${wrong}\n  base_url: ${new URL(url).origin}\n`), '--debug', 'deploy', url], { ...T, env });
      assert.is(bad.code, 1);
      assert.not.ok((bad.stdout + bad.stderr).includes(wrong));
    });
  } finally {
    await server.close();
  }
});

test('the token is never in git argv: a git wrapper on PATH records every argument it is given', async () => {
  const token = 'ghp_argvCheckToken11223344556677889900';
  const root = tempDir('deploy-http-');
  makeRepo('private', NODE_DOCKER, root);
  const server = await startGitHttp(root, { token });
  const bin = tempDir('deploy-bin-');
  const log = join(bin, 'argv.log');
  const realGit = (await import('node:child_process')).execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$@" >> ${log}\nexec ${realGit} "$@"\n`, { mode: 0o755 });
  try {
    await withEmulator(async ({ env }) => {
      const r = await runCli(['--config', config(`repohost:\n  token: ${token}\n  base_url: ${new URL(server.urlOf('private')).origin}\n`), 'deploy', server.urlOf('private')], { ...T, env: { ...env, PATH: `${bin}:${process.env.PATH}` } });
      assert.is(r.code, 0, r.stderr);
      const argv = readFileSync(log, 'utf8');
      assert.match(argv, /^clone$/m, 'the wrapper saw the clone');
      assert.not.ok(argv.includes(token) || argv.includes(Buffer.from(`x-access-token:${token}`).toString('base64')), 'no token in any git argument');
    });
  } finally {
    await server.close();
  }
});

test.run();

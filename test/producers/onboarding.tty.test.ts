/**
 * The one question of `onboarding install` on a real terminal (tmux): `Install N tools? [y/N]`;
 * answering n runs nothing (exit 3), answering y runs the plan. Skips visibly without tmux.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN } from '../support/cli.js';
import { cleanup, fakeBin, tempDir, versionScript } from '../support/onboarding-support.js';

const hasTmux = spawnSync('sh', ['-c', 'command -v tmux'], { stdio: 'ignore' }).status === 0;
const sockets: string[] = [];

function tmux(socket: string, args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  return r.stdout ?? '';
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `assistant <args>` in a tmux pane with a clean environment; the exit code lands in a file. */
function startInTmux(args: string[], env: Record<string, string>): { socket: string; exitFile: string; screen(): string } {
  const socket = `onb-${process.pid}-${sockets.length}`;
  sockets.push(socket);
  const exitFile = join(tempDir('onboarding-tty-'), 'exit');
  const envArgs = Object.entries(env).map(([k, v]) => q(`${k}=${v}`)).join(' ');
  const command = `env -i ${envArgs} ${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')}; echo $? > ${q(exitFile)}; sleep 600`;
  tmux(socket, ['new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', command]);
  return { socket, exitFile, screen: () => tmux(socket, ['capture-pane', '-p', '-J', '-S', '-200', '-t', 'main']) };
}

/** Polls (generously: a loaded CI box starts node slowly) until `ok` holds. */
async function waitFor(what: string, ok: () => boolean, detail: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${detail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test.after(() => {
  for (const s of sockets) spawnSync('tmux', ['-L', s, 'kill-server'], { stdio: 'ignore' });
  cleanup();
});

function setup() {
  const bin = fakeBin();
  bin.add('apt-get', [
    { match: 'install -y --no-install-recommends awscli', stdout: 'Setting up awscli', create: { [join(bin.dir, 'aws')]: versionScript('aws-cli/2.15.0') } },
    { match: 'install -y --no-install-recommends git', stdout: 'Setting up git', create: { [join(bin.dir, 'git')]: versionScript('git version 2.43.0') } },
    { match: 'update', stdout: 'Reading package lists... Done' },
  ]);
  const home = tempDir('onboarding-home-');
  // /bin for the pane's own `sleep` and `echo` is not on the CLI's PATH: env -i gives the CLI only ours.
  return { bin, env: { HOME: home, PATH: bin.path, NO_COLOR: '1', TERM: 'xterm', TMPDIR: tempDir('onboarding-tmp-') } };
}

test('on a terminal, answering n to "Install 2 tools? [y/N]" runs nothing (exit 3)', async () => {
  if (!hasTmux) return void console.log('SKIP tty question: tmux not on PATH (apt-get install tmux)');
  const { bin, env } = setup();
  const t = startInTmux(['onboarding', 'install', 'aws', 'git', '--platform', 'linux/x64'], env);
  await waitFor('the question', () => /Install 2 tools\? \[y\/N\]/.test(t.screen()), t.screen);
  // The plan is on screen before the question.
  const screen = t.screen();
  assert.ok(screen.indexOf('apt-get install -y --no-install-recommends awscli') < screen.indexOf('Install 2 tools?'), screen);
  tmux(t.socket, ['send-keys', '-t', 'main', '-l', 'n']);
  tmux(t.socket, ['send-keys', '-t', 'main', 'Enter']);
  await waitFor('the exit', () => existsSync(t.exitFile) && readFileSync(t.exitFile, 'utf8').trim() !== '', t.screen);
  assert.is(readFileSync(t.exitFile, 'utf8').trim(), '3', t.screen());
  assert.match(t.screen(), /error: refused: not confirmed; nothing was installed/);
  assert.is(bin.calls().length, 0, 'nothing ran');
});

test('on a terminal, answering y runs the plan and shows the result', async () => {
  if (!hasTmux) return void console.log('SKIP tty question: tmux not on PATH (apt-get install tmux)');
  const { bin, env } = setup();
  const t = startInTmux(['onboarding', 'install', 'aws', '--platform', 'linux/x64'], env);
  await waitFor('the question', () => /Install 1 tool\? \[y\/N\]/.test(t.screen()), t.screen);
  assert.is(bin.calls().length, 0, 'nothing ran before the answer');
  tmux(t.socket, ['send-keys', '-t', 'main', '-l', 'y']);
  tmux(t.socket, ['send-keys', '-t', 'main', 'Enter']);
  await waitFor('the exit', () => existsSync(t.exitFile) && readFileSync(t.exitFile, 'utf8').trim() !== '', t.screen);
  assert.is(readFileSync(t.exitFile, 'utf8').trim(), '0', t.screen());
  assert.match(t.screen(), /aws: installed \(apt\) .*aws 2\.15\.0/);
  assert.equal(bin.calls('apt-get').map((c) => c.argv[0]), ['update', 'install']);
});

test.run();

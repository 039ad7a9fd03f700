/**
 * On a terminal, `credentials store` asks for a secret it was not given, without echoing it: driven for
 * real through tmux (a pseudo-terminal), reading the screen as a person would see it.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asClient, createApiKey, startBackendProcess, type BackendProcess } from '../support/backend.js';
import { BIN, tempHome } from '../support/cli.js';

const TOKEN = 'typed-token-Hq82-never-on-screen';
const tmuxMissing = spawnSync('sh', ['-c', 'command -v tmux'], { stdio: 'ignore' }).status !== 0;

let backend: BackendProcess | undefined;
const socket = `assistant-prompt-${process.pid}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
test.after(async () => {
  tmux('kill-server');
  await backend?.kill('SIGTERM');
  if (backend) rmSync(backend.home, { recursive: true, force: true });
});

async function screenUntil(pattern: RegExp, what: string): Promise<string> {
  let screen = '';
  for (let i = 0; i < 600; i++) {
    screen = tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'store').stdout;
    if (pattern.test(screen)) return screen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} never appeared; screen:\n${screen}`);
}

test('a secret left out is asked for on the terminal without echo, and stored', async () => {
  if (tmuxMissing) return void console.log('SKIP hidden prompt: tmux not on PATH');
  backend = await startBackendProcess();
  const key = await createApiKey(backend, 'team-p');
  const home = tempHome();
  const env = { ...asClient(backend, key), HOME: home, NO_COLOR: '1' };
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  // One string: tmux runs it through a shell, which prints the exit code and keeps the pane open.
  const cmd = `env ${envArgs.map((a) => `'${a}'`).join(' ')} '${process.execPath}' '${BIN}' credentials store repohost; echo EXIT=$?; sleep 600`;
  tmux('new-session', '-d', '-s', 'store', '-x', '200', '-y', '50', cmd);
  await screenUntil(/code host token \(--token\): $/m, 'the prompt');
  tmux('send-keys', '-t', 'store', '-l', TOKEN);
  tmux('send-keys', '-t', 'store', 'Enter');
  const screen = await screenUntil(/EXIT=\d+/, 'the end of the command');
  assert.match(screen, /EXIT=0/, screen);
  assert.not.ok(screen.includes(TOKEN), `the token was echoed:\n${screen}`);
  assert.match(screen, /stored repohost\/default \(token\)/);
  const stored = (await (await fetch(`${backend.url}/v1/credentials/production/repohost/default`, { headers: { authorization: `Bearer ${key}` } })).json()) as { fields: { token: string } };
  assert.is(stored.fields.token, TOKEN);
  rmSync(home, { recursive: true, force: true });
});

test.run();

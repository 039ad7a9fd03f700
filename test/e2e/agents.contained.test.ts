/**
 * External agents run contained (issue 36 item 1): a hostile agent — the stand-in's `$ <command>` mode,
 * which runs any shell command and answers with its output — tries to read what it must not, through
 * the real surfaces: `box serve` over HTTP and `talk --agent`. What it reads is sent back base64-encoded,
 * so no masking of the answer could hide a leak from the test (the attack on main did just that).
 *
 * Proved: the agent cannot read the parent's environment (/proc/<pid>/environ of the box, or of any
 * process it can see), the assistant's config or data folder, or another session's agent's files; it
 * has exactly the secret granted to it. Where no sandbox can be made the box and talk refuse (exit 3)
 * unless --unsandboxed — and unsandboxed, the same agent does read the box's environment, which shows
 * what the sandbox prevents.
 */
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxAvailability } from '../../engine/core/process/contain.js';
import { runCli, tempHome } from '../support/cli.js';
import { postMessage, startBox, type BoxProcess } from '../support/box.js';
import { standinGrants } from '../support/agent-sandbox.js';
import { testWhen } from '../support/skip.js';

const AGENT_JS = fileURLToPath(new URL('../support/acp-agent.js', import.meta.url));

const SECRETS = {
  GPUCLOUD_CLIENT_SECRET: 'gcsecret-canary-4d1f9a',
  OPENAI_API_KEY: 'openai-canary-77b0c2',
  GITHUB_TOKEN: 'github-canary-0e5d31',
  ASSISTANT_BOX_TOKEN: 'b0x7oken-canary-9f8e7d6c5b4a39281706f5e4d3c2b1a0',
};
/** The one secret the agent is granted (claude-code's key, by its catalogue entry). */
const GRANTED = { ANTHROPIC_API_KEY: 'anthropic-granted-5c3e11' };
const CONFIG_SECRET = 'config-canary-a1b2c3';
const DATA_CANARY = 'data-canary-d4e5f6';

const dirs: string[] = [];
const boxes: BoxProcess[] = [];
test.after.each(async () => {
  await Promise.all(boxes.splice(0).map((b) => b.stop()));
});
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const contained = testWhen(test, () => {
  const a = sandboxAvailability(process.env);
  return a.ok ? undefined : `no sandbox here: ${a.why} (see .ci/run)`;
});

/**
 * A home whose config grants the stand-in its sandbox and holds a secret, a data folder with a canary,
 * and the stand-in installed as `claude-code-acp` (the catalogue then grants it ANTHROPIC_API_KEY only).
 */
function setup(): { home: string; bin: string } {
  const home = tempHome('assistant-contained-');
  dirs.push(home);
  const logDir = join(home, 'log');
  const bin = join(home, 'bin');
  mkdirSync(logDir);
  mkdirSync(bin);
  mkdirSync(join(home, '.assistant'), { mode: 0o700 });
  writeFileSync(join(home, '.assistant', 'canary.txt'), DATA_CANARY);
  writeFileSync(join(bin, 'claude-code-acp'), `#!/bin/sh\nexec "${process.execPath}" "${AGENT_JS}" --log "${join(logDir, 'agent.log')}"\n`);
  chmodSync(join(bin, 'claude-code-acp'), 0o755);
  writeFileSync(
    join(home, '.assistant.yaml'),
    `agent:\n  path: ${join(bin, 'claude-code-acp')}\n${standinGrants(logDir)}ai:\n  providers:\n    openai:\n      api_key: ${CONFIG_SECRET}\n`,
    { mode: 0o600 },
  );
  return { home, bin };
}

const auth = { authorization: `Bearer ${SECRETS.ASSISTANT_BOX_TOKEN}` };

/** What a shell command printed inside the agent, decoded from the base64 it was sent back in. */
async function inBox(box: BoxProcess, command: string, sessionId?: string): Promise<{ text: string; sessionId: string }> {
  const r = await postMessage(box.url, { message: `$ (${command}) 2>&1 | base64 -w0`, ...(sessionId ? { session_id: sessionId } : {}) }, auth);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const encoded = /^([A-Za-z0-9+/=]*)\[exit/.exec(r.body.answer)?.[1] ?? '';
  return { text: Buffer.from(encoded, 'base64').toString('utf8'), sessionId: r.body.session_id };
}

const leaks = (text: string, values: readonly string[]) => values.filter((v) => text.includes(v));

contained('a hostile agent in a box reads none of its secrets: not its environ, not its config or data, not another session’s files', async () => {
  const { home } = setup();
  const box = await startBox(['--agent', 'claude-code'], { home, env: { ...SECRETS, ...GRANTED }, globalArgs: ['--sandbox'] });
  boxes.push(box);

  // Its own environment: exactly the granted key (read back unmasked: the probe works).
  const own = await inBox(box, "cat /proc/self/environ | tr '\\0' '\\n'");
  assert.match(own.text, new RegExp(`^ANTHROPIC_API_KEY=${GRANTED.ANTHROPIC_API_KEY}$`, 'm'), own.text);
  assert.equal(leaks(own.text, Object.values(SECRETS)), []);

  // Every process it can see, and the box's own PID: none is the box.
  const all = await inBox(box, `ls /proc; for f in /proc/[0-9]*/environ /proc/${box.pid}/environ; do echo "== $f"; cat $f | tr '\\0' '\\n'; done; cat /proc/1/cmdline`);
  assert.equal(leaks(all.text, Object.values(SECRETS)), [], all.text);
  assert.match(all.text, new RegExp(`/proc/${box.pid}/environ: No such file`), 'the box is not in its /proc');

  // The config and the data folder, by their real paths.
  const files = await inBox(box, `cat ${home}/.assistant.yaml; cat ${home}/.assistant/canary.txt; ls -a ${home}; ls -a /root /home`);
  assert.equal(leaks(files.text, [CONFIG_SECRET, DATA_CANARY]), [], files.text);
  assert.not.match(files.text, /^\.assistant(\.yaml)?$/m, "ls of the home shows neither");

  // Another session's agent: its scratch folder is not in this one's sandbox.
  const a = await inBox(box, 'echo private-a-81c4 > "$HOME/mine.txt" && echo "HOME=$HOME"');
  const homeA = /HOME=(\S+)/.exec(a.text)![1]!;
  assert.ok(homeA.length > 1 && homeA !== home, a.text);
  const b = await inBox(box, `cat ${homeA}/mine.txt; ls ${homeA}; ls /tmp; echo "HOME=$HOME"`);
  assert.is.not(b.sessionId, a.sessionId);
  assert.not.ok(b.text.includes('private-a-81c4'), b.text);
  const homeB = /HOME=(\S+)/.exec(b.text)![1]!;
  assert.is.not(homeB, homeA, 'each session has its own scratch folder');
  const again = await inBox(box, 'cat "$HOME/mine.txt"', a.sessionId);
  assert.match(again.text, /^private-a-81c4$/m, 'while session A still reads its own');
});

contained('a hostile agent in talk reads none of talk’s secrets, its config or its data', async () => {
  const { home } = setup();
  const probe = (cmd: string) => `$ (${cmd}) 2>&1 | base64 -w0`;
  const input = [
    probe("cat /proc/self/environ | tr '\\0' '\\n'"),
    probe(`for f in /proc/[0-9]*/environ; do cat $f | tr '\\0' '\\n'; done; cat ${home}/.assistant.yaml ${home}/.assistant/canary.txt; ls -a ${home}`),
  ].join('\n');
  const r = await runCli(['talk', '--agent', join(home, 'bin', 'claude-code-acp')], { home, env: { ...SECRETS, ...GRANTED }, input: `${input}\n` });
  assert.is(r.code, 0, r.stderr);
  const answers = [...r.stdout.matchAll(/^([A-Za-z0-9+/=]+)\[exit \d+\]$/gm)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
  assert.is(answers.length, 2, r.stdout);
  // talk hands a known agent its own key (launch.ts), and nothing else.
  assert.match(answers[0]!, new RegExp(`^ANTHROPIC_API_KEY=${GRANTED.ANTHROPIC_API_KEY}$`, 'm'));
  assert.equal(leaks(answers.join('\n'), [...Object.values(SECRETS), CONFIG_SECRET, DATA_CANARY]), [], answers.join('\n---\n'));
});

/** A PATH with the tools the stand-in needs and no bwrap: no sandbox can be made. */
function pathWithoutBwrap(): string {
  const dir = tempHome('assistant-nobwrap-');
  dirs.push(dir);
  for (const tool of ['sh', 'cat', 'tr', 'ls', 'base64', 'echo']) symlinkSync(`/usr/bin/${tool}`, join(dir, tool));
  return dir;
}

test('without a sandbox the box and talk refuse to start an agent (exit 3); with --unsandboxed it runs, and then reads the box’s environ', async () => {
  const { home } = setup();
  const PATH = pathWithoutBwrap();
  const refused = await runCli(['--sandbox', 'box', 'serve', '--agent', 'claude-code'], { home, env: { ...SECRETS, PATH } });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /^error: sandbox_unavailable: the agent claude-code runs code the assistant did not write and needs a sandbox, but bubblewrap \(bwrap\) is not installed/m);
  assert.match(refused.stderr, /^hint: install bubblewrap .* or pass --unsandboxed/m);

  const talk = await runCli(['talk', '--agent', join(home, 'bin', 'claude-code-acp')], { home, env: { PATH }, input: 'hello\n' });
  assert.is(talk.code, 3, talk.stderr);
  assert.match(talk.stderr, /^error: sandbox_unavailable: the agent claude-code-acp /m);
  assert.not.match(talk.stdout, /echo: hello/, 'the agent never ran');

  const box = await startBox(['--agent', 'claude-code', '--unsandboxed'], { home, env: { ...SECRETS, ...GRANTED, PATH }, globalArgs: ['--sandbox'] });
  boxes.push(box);
  assert.match(box.stderr(), /warning: agent claude-code runs unsandboxed \(--unsandboxed\)/);
  const read = await inBox(box, `cat /proc/${box.pid}/environ | tr '\\0' '\\n'`);
  assert.match(read.text, new RegExp(`^GPUCLOUD_CLIENT_SECRET=${SECRETS.GPUCLOUD_CLIENT_SECRET}$`, 'm'), 'unsandboxed, the attack of issue 36 works: the sandbox is what stops it');
});

test.run();

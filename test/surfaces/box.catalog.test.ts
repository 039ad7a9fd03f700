/**
 * `box catalog`: regions against the emulator's locations and container prices (real CLI, real HTTP);
 * agents found on PATH or named by the config, with their status; an ACP agent in a box answers
 * "not wired" until the ACP client is plugged in; the child environment allowlist.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { childEnvironment } from '../../box/child-env.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { cliInThisProcess, configFile, runCli, tempHome, withEmulator } from '../support/cli.js';
import { postMessage, startBox } from '../support/box.js';
import { standinGrants } from '../support/agent-sandbox.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const AGENT_JS = fileURLToPath(new URL('../support/acp-agent.js', import.meta.url));

const dirs: string[] = [];
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A directory with an executable stand-in for each name (never run by the catalogue: it only looks). */
function binDir(...names: string[]): string {
  const dir = tempHome('assistant-box-bin-');
  dirs.push(dir);
  mkdirSync(join(dir, 'bin'));
  for (const n of names) {
    writeFileSync(join(dir, 'bin', n), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, 'bin', n), 0o755);
  }
  return join(dir, 'bin');
}

test('regions are the emulator’s locations offering containers, with the price of the smallest size', async () => {
  await withEmulator(async ({ emu, env }) => {
    const r = await runCli(['box', 'catalog', '-o', 'json'], { env });
    dirs.push(r.home);
    assert.is(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    const locations = (await emulatorClient(emu).call('GET', '/v1/locations')).json as { code: string }[];
    assert.equal(doc.regions.map((x: any) => x.code), locations.map((l) => l.code));
    for (const region of doc.regions) {
      assert.is(region.sizes[0].name, 'General Compute', region.code);
      assert.is(region.sizes[0].per_hour, 0.04);
      assert.is(region.sizes[0].currency, 'usd');
    }
    const fin3 = doc.regions.find((x: any) => x.code === 'FIN-03');
    assert.ok(fin3.sizes.some((s: any) => s.name === 'H200'), 'FIN-03 sells the H200 machine type');
    assert.not.ok(doc.regions.find((x: any) => x.code === 'FIN-01').sizes.some((s: any) => s.name === 'H100'), 'FIN-01 does not');
    const paths = emu.requests().map((q) => q.path);
    for (const p of ['/v1/locations', '/v1/instance-availability', '/v1/container-types', '/v1/serverless-compute-resources']) assert.ok(paths.includes(p), p);
    assert.not.ok(emu.requests().some((q) => q.method !== 'GET' && q.path !== '/v1/oauth2/token'), 'catalog changes nothing');

    const table = await runCli(['box', 'catalog'], { env });
    dirs.push(table.home);
    assert.is(table.code, 0, table.stderr);
    assert.match(table.stdout, /^AGENTS\nNAME\s+KIND\s+STATUS/m);
    assert.match(table.stdout, /^FIN-01\s+Finland 1\s+General Compute\s+0\.0400 USD/m);
  });
});

test('agents: ACP agents found on PATH are ready, or secret missing without their key; the config agent too', async () => {
  const bin = binDir('claude-code-acp', 'goose');
  const config = configFile(`agent:\n  path: ${join(bin, 'claude-code-acp')}\n`);
  dirs.push(join(config, '..'));
  const env = { PATH: `${bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, GEMINI_API_KEY: undefined };
  const missing = await runCli(['--sandbox', 'box', 'catalog', '-o', 'json'], { env });
  dirs.push(missing.home);
  assert.is(missing.code, 0, missing.stderr);
  const byName = (doc: any) => Object.fromEntries(doc.agents.map((a: any) => [a.name, a]));
  let agents = byName(JSON.parse(missing.stdout));
  assert.equal([agents.assistant.status, agents.empty.status], ['ready', 'ready']);
  assert.is(agents['claude-code'].status, 'secret missing');
  assert.equal(agents['claude-code'].missing_secrets, ['ANTHROPIC_API_KEY']);
  assert.is(agents['claude-code'].path, join(bin, 'claude-code-acp'));
  assert.is(agents.goose.status, 'ready', 'goose needs no key of ours');
  assert.is(agents.codex.status, 'binary missing');

  const ready = await runCli(['--sandbox', '--config', config, 'box', 'catalog', '-o', 'json'], { env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-test-0000000000' } });
  dirs.push(ready.home);
  agents = byName(JSON.parse(ready.stdout));
  assert.is(agents['claude-code'].status, 'ready');
  assert.is(agents['claude-code'].source, 'config agent.path');
  assert.not.match(ready.stdout + ready.stderr, /sk-ant-test-0000000000/);

  const gone = configFile('agent:\n  path: /nonexistent/my-agent\n');
  dirs.push(join(gone, '..'));
  const absent = await runCli(['--sandbox', '--config', gone, 'box', 'catalog', '-o', 'json'], { env });
  dirs.push(absent.home);
  agents = byName(JSON.parse(absent.stdout));
  assert.is(agents['my-agent'].status, 'binary missing');
});

test('a box with an ACP agent answers through the project\'s ACP client (a stand-in agent written with the SDK)', async () => {
  const dir = tempHome('assistant-box-acp-');
  dirs.push(dir);
  mkdirSync(join(dir, 'bin'));
  // `goose acp` is how the catalogue starts goose; here it is the stand-in agent.
  writeFileSync(join(dir, 'bin', 'goose'), `#!/bin/sh\nexec "${process.execPath}" "${AGENT_JS}" --log "${join(dir, 'agent.log')}"\n`);
  chmodSync(join(dir, 'bin', 'goose'), 0o755);
  // The box runs its agent contained: the stand-in's sandbox is granted this repository and its log folder.
  const config = configFile(`agent:\n${standinGrants(dir)}`);
  dirs.push(join(config, '..'));
  const box = await startBox(['--agent', 'goose', '--unsandboxed'], { env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}` }, globalArgs: ['--sandbox', '--config', config] });
  dirs.push(box.home);
  try {
    const info = (await (await fetch(`${box.url}/v1/box/info`)).json()) as any;
    assert.equal([info.agent.name, info.agent.kind], ['goose', 'acp']);
    const r = await postMessage(box.url, { message: 'hello' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.match(JSON.stringify(r.body), /echo: hello/);
  } finally {
    await box.stop();
  }
});

test('an agent child gets an environment allowlist: basics and its own secrets, never the box’s other keys', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/box',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    ANTHROPIC_API_KEY: 'sk-ant-mine',
    OPENAI_API_KEY: 'sk-other',
    GPUCLOUD_CLIENT_SECRET: 'gc-secret',
    GITHUB_TOKEN: 'ghp_x',
    ASSISTANT_BOX_TOKEN: 'box-token',
    AWS_SECRET_ACCESS_KEY: 'aws',
  };
  assert.equal(childEnvironment(env, ['ANTHROPIC_API_KEY']), { PATH: '/usr/bin', HOME: '/home/box', LANG: 'C.UTF-8', LC_ALL: 'C', ANTHROPIC_API_KEY: 'sk-ant-mine' });
});

test.run();

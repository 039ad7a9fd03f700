/**
 * `--sandbox` is hermetic (issue 36 item 7): every provider connects to a local stand-in or is refused
 * (`not_in_sandbox`, exit 3) before its client exists, so no real cloud CLI runs; an AI endpoint off
 * this machine and a repository on another host are refused the same way. Stand-ins of the real CLIs
 * (`aws`, `gcloud`, `az`, `git`) first on PATH record every call: none is ever made. A listener on a
 * non-loopback address of this machine stands for "off the machine": it receives nothing.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator } from '../../emulator/index.js';
import { configFile, emulatorEnv, runCli, tempHome } from '../support/cli.js';
import { callTool, connectStdio, errorOf } from '../support/mcp.js';
import { standIn } from '../support/standin.js';
import { tempDir } from '../support/temp.js';

/** `aws`, `gcloud`, `az` and `git` that record being called, first on PATH. */
function fakeClis() {
  const dir = tempDir('hermetic-clis-');
  const tools = ['aws', 'gcloud', 'az', 'git'].map((t) => standIn(t, [{ match: '', stdout: { Buckets: [{ Name: 'real-bucket' }] } }], { dir }));
  return { path: tools[0]!.path, calls: () => tools.flatMap((t) => t.calls()) };
}

const CONFIG = `infra:\n  cloud_b:\n    project_id: my-proj\nterraform:\n  workspaces:\n    prod: { path: /tmp }\npostgres:\n  connections:\n    main: { host: db.example.com, database: app }\n`;

test('under --sandbox cloud questions are refused (not_in_sandbox, exit 3) and no real CLI runs', async () => {
  const clis = fakeClis();
  const cfg = configFile(CONFIG);
  const cases: { args: string[]; provider: string }[] = [
    { args: ['which buckets do I have?'], provider: 'cloud_a' },
    { args: ['list my ec2 instances'], provider: 'cloud_a' },
    { args: ['--cloud-b', 'list my compute instances'], provider: 'cloud_b' },
    { args: ['--cloud-c', 'list my virtual machines'], provider: 'cloud_c' },
    { args: ['--terraform', 'what is deployed?'], provider: 'terraform' },
    { args: ['--postgres', 'which queries are blocked?'], provider: 'postgres' },
    { args: ['--iam'], provider: 'cloud_a' },
  ];
  for (const c of cases) {
    const r = await runCli(['--sandbox', '--config', cfg, 'ask', '--ai-profile', 'builtin', ...c.args], { env: { PATH: clis.path } });
    assert.is(r.code, 3, `${c.args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^error: not_in_sandbox: the provider ${c.provider} has no local stand-in; --sandbox sends nothing off this machine and runs no real cloud CLI$`, 'm'), c.args.join(' '));
    assert.match(r.stderr, new RegExp(`^hint: run the command without --sandbox to use ${c.provider} for real`, 'm'));
  }
  // A plan with an aws step, applied in the sandbox.
  const plan = JSON.stringify({ version: 1, provider: 'cloud_a', commands: [{ args: ['aws', 's3api', 'list-buckets'], reason: 'read' }] });
  const applied = await runCli(['--sandbox', 'ask', '--apply'], { env: { PATH: clis.path }, input: plan });
  assert.is(applied.code, 3, applied.stderr);
  assert.match(applied.stderr, /not_in_sandbox: the provider cloud_a has no local stand-in/);
  assert.equal(clis.calls(), [], 'no real CLI was called');
});

test('the MCP ask of a --sandbox server refuses a cloud question with not_in_sandbox; aws is never called', async () => {
  const clis = fakeClis();
  const { client } = await connectStdio({ env: { PATH: clis.path }, home: tempHome('assistant-hermetic-'), globalArgs: ['--sandbox'] });
  try {
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'which buckets do I have?' });
    assert.ok(r.isError);
    assert.is(errorOf(r).code, 'not_in_sandbox');
    const fine = await callTool(client, 'assistant_gpucloud_ask', { question: 'what is my balance?' });
    assert.not.ok(fine.isError, 'gpucloud has its stand-in');
  } finally {
    await client.close();
  }
  assert.equal(clis.calls(), []);
});

/** An IPv4 address of this machine that is not loopback (a request to it counts as leaving loopback). */
function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

test('under --sandbox an AI endpoint off loopback and a repository on another host are refused; nothing reaches them', async () => {
  const address = outsideAddress();
  const seen: string[] = [];
  const listener: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
  const port = (listener.address() as AddressInfo).port;
  try {
    const clis = fakeClis();
    const home = tempHome('assistant-hermetic-');
    const base = `http://${address ?? 'ai.example.com'}:${port}/v1`;
    writeFileSync(join(home, '.assistant.yaml'), `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: m\n      api_key: sk-hermetic-123456\n      base_url: ${base}\n`, { mode: 0o600 });
    const ai = await runCli(['--sandbox', 'ask', 'what is my balance?'], { home, env: { PATH: clis.path } });
    assert.is(ai.code, 3, ai.stderr);
    assert.match(ai.stderr, new RegExp(`^error: not_in_sandbox: the AI provider openai is not on this machine \\(${base.replace(/[.]/g, '\\.')}\\)`, 'm'));
    assert.match(ai.stderr, /^hint: use --ai-profile builtin/m);
    // The offline answer still works, and a model on loopback would too.
    const builtin = await runCli(['--sandbox', 'ask', '--ai-profile', 'builtin', 'what is my balance?'], { home, env: { PATH: clis.path } });
    assert.is(builtin.code, 0, builtin.stderr);

    const deploy = await runCli(['--sandbox', 'deploy', 'https://github.com/acme/hello-llm.git'], { home, env: { PATH: clis.path } });
    assert.is(deploy.code, 3, deploy.stderr);
    assert.match(deploy.stderr, /^error: not_in_sandbox: cloning https:\/\/github\.com\/acme\/hello-llm\.git would reach github\.com/m);
    assert.equal(clis.calls(), [], 'git was not run');

    if (address) {
      assert.equal(seen, [], 'nothing reached the address off loopback');
      // Control: without --sandbox the endpoint is asked (gpucloud is the emulator). A model server that
      // takes no key, since a key is never sent over plain http to another host (secret-origins.ts).
      writeFileSync(join(home, '.assistant.yaml'), `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: m\n      local_model_inference_url: ${base}\n`, { mode: 0o600 });
      const emu = await startEmulator({ seed: 'demo', rateLimit: false });
      try {
        const real = await runCli(['ask', '--no-history', 'what is my balance?'], { home, env: { ...emulatorEnv(emu), PATH: clis.path } });
        assert.is(real.code, 1, real.stderr);
        assert.ok(seen.some((q) => q.startsWith('POST /v1/chat/completions')), `the model was asked: ${seen.join(', ')}`);
      } finally {
        await emu.close();
      }
    }
  } finally {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
});

test.run();

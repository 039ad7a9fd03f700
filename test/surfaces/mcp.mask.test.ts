/**
 * MCP results go through the one masker the CLI's tables use (issue 36, "Masking gaps"): a startup
 * script holding `export HF_TOKEN=hf_…` was raw in assistant_gpucloud_get and _list while `gpucloud
 * get` masked it. Driven by the MCP SDK's own client over stdio against the emulator; the CLI's view
 * of the same record is checked beside it, so both surfaces show the same masked script.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { emulatorEnv, runCli } from '../support/cli.js';
import { callTool, connectStdio, textOf } from '../support/mcp.js';

const HF = 'hf_Zq81ivGh3Qa1b2c3d4e5f6g7h8';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81ivGh3Q';
const SCRIPT = `#!/bin/bash\nexport HF_TOKEN=${HF}\naws configure set aws_secret_access_key ${AWS_SECRET}\npython serve.py\n`;

test('assistant_gpucloud_get and _list show a startup script with its secrets masked, as the CLI does', async () => {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  const { client } = await connectStdio({ env: emulatorEnv(emu) });
  try {
    const made = await emulatorClient(emu).call('POST', '/v1/scripts', { name: 'serve-model', script: SCRIPT });
    assert.ok(made.status < 300, made.text);
    const id = typeof made.json === 'string' ? made.json : (made.json as { id?: string } | undefined)?.id ?? made.text.replace(/"/g, '');

    const got = await callTool(client, 'assistant_gpucloud_get', { kind: 'scripts', id_or_hostname: id });
    const list = await callTool(client, 'assistant_gpucloud_list', { resource: 'scripts' });
    for (const [what, r] of [['get', got], ['list', list]] as const) {
      assert.not.ok(r.isError, `${what}: ${textOf(r)}`);
      const everything = JSON.stringify(r);
      assert.not.ok(everything.includes(HF) || everything.includes(AWS_SECRET), `${what} leaks a secret: ${everything.slice(0, 800)}`);
    }
    assert.ok(String(got.structuredContent.record.script).includes('export HF_TOKEN=***'), JSON.stringify(got.structuredContent));
    assert.ok(String(got.structuredContent.record.script).includes('python serve.py'), 'the rest of the script is shown');
    const listed = (list.structuredContent.items as { id: string; script: string }[]).find((s) => s.id === id)!;
    assert.ok(listed.script.includes('aws_secret_access_key ***'), listed.script);

    const cli = await runCli(['gpucloud', 'get', 'script', id], { env: emulatorEnv(emu) });
    assert.is(cli.code, 0, cli.stderr);
    assert.ok(cli.stdout.includes('export HF_TOKEN=***') && !cli.stdout.includes(HF), cli.stdout);
  } finally {
    await client.close();
    await emu.close();
  }
});

test.run();

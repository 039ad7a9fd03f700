/**
 * Plans sent to the MCP tools as text are read as strictly as plan files (issue 9 §2): a key repeated in
 * one object (JSON or YAML) and text that was invalid UTF-8 are refused, and nothing is sent.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator } from '../../emulator/index.js';
import { emulatorEnv } from '../support/cli.js';
import { callTool, connectHttp, errorOf, startMcpServer } from '../support/mcp.js';

const GET = '{"args":["gpucloud-api","GET","/v1/instances"],"reason":"r"}';
const DEL = '{"args":["gpucloud-api","PUT","/v1/instances","{\\"action\\":\\"delete\\",\\"id\\":\\"x\\"}"],"reason":"r"}';

test('assistant_plan_apply and _validate refuse plan text with a repeated key or U+FFFD; nothing reaches the API', async () => {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  const server = await startMcpServer(['--listen', '127.0.0.1:0', '--destroyer'], { env: emulatorEnv(emu) });
  const client = await connectHttp(server.url);
  try {
    const texts = [
      // JSON.parse keeps the last "commands"; a reviewer's parser may show the first (harmless) one.
      `{"version":1,"provider":"gpucloud","commands":[${GET}],"commands":[${DEL}]}`,
      `{"version":1,"provider":"gpucloud","commands":[{"args":["gpucloud-api","GET","/v1/instances"],"\\u0061rgs":["gpucloud-api","GET","/v1/balance"],"reason":"r"}]}`,
      'version: 1\nprovider: gpucloud\ncommands:\n  - args: [gpucloud-api, GET, /v1/instances]\n    reason: r\nversion: 1\n',
      `{"version":1,"provider":"gpucloud","commands":[{"args":["gpucloud-api","GET","/v1/instances"],"reason":"caf\uFFFD"}]}`,
    ];
    for (const plan of texts) {
      for (const tool of ['assistant_plan_apply', 'assistant_plan_validate']) {
        const r = await callTool(client, tool, { plan });
        assert.ok(r.isError, `${tool} accepted ${plan}`);
        const e = errorOf(r);
        assert.is(e.code, 'invalid_plan', `${tool}: ${e.message}`);
        assert.match(e.message, /appears twice|unique|U\+FFFD/);
      }
    }
    assert.is(emu.requests().length, 0);
  } finally {
    await client.close();
    await server.stop();
    await emu.close();
  }
});

test.run();

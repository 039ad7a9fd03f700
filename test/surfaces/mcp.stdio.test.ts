/**
 * `assistant mcp --transport stdio`, as Claude Desktop and Claude Code start it: the SDK's stdio
 * client spawns the real CLI; stdout carries only the protocol.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator } from '../../emulator/index.js';
import { emulatorEnv } from '../support/cli.js';
import { callTool, connectStdio, errorOf, textOf } from '../support/mcp.js';

test('over stdio the tools list resources from gpucloud and log only to stderr (--debug: one line per call, no secrets)', async () => {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  const { client, stderr } = await connectStdio({ env: emulatorEnv(emu), globalArgs: ['--debug'] });
  try {
    const { tools } = await client.listTools();
    assert.is(tools.length, 13);
    const r = await callTool(client, 'assistant_gpucloud_list', { resource: 'instance-types' });
    assert.not.ok(r.isError, textOf(r));
    assert.ok(r.structuredContent.count > 0);
    const route = await callTool(client, 'assistant_route_question', { question: 'what does an 8H100.80S.176V cost?' });
    assert.equal(route.structuredContent.providers, ['gpucloud']);
    assert.match(stderr(), /MCP server on stdio/);
    assert.match(stderr(), /debug: tool assistant_gpucloud_list \d+ ms ok/);
    assert.not.ok(stderr().includes(emu.clientSecret), 'the client secret is never printed');
  } finally {
    await client.close();
    await emu.close();
  }
});

test('--stdio is the same as --transport stdio (the MCP Inspector keeps --transport for itself)', async () => {
  const { client } = await connectStdio({ globalArgs: ['--sandbox'], transportArgs: ['--stdio'] });
  try {
    const r = await callTool(client, 'assistant_gpucloud_list', { resource: 'locations' });
    assert.not.ok(r.isError, textOf(r));
  } finally {
    await client.close();
  }
});

test('over stdio without credentials a tool call is an error result that says how to configure them', async () => {
  const { client } = await connectStdio({ env: {} });
  try {
    const r = await callTool(client, 'assistant_gpucloud_list', { resource: 'instances' });
    assert.is(r.isError, true);
    assert.match(errorOf(r).message + (errorOf(r).hint ?? ''), /GPUCLOUD_CLIENT_ID|credentials/);
  } finally {
    await client.close();
  }
});

test('the Claude Desktop example configurations start working servers', async () => {
  const config = JSON.parse(readFileSync(fileURLToPath(new URL('../../../examples/mcp/claude-desktop.json', import.meta.url)), 'utf8')) as {
    mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
  };
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  try {
    for (const [name, entry] of Object.entries(config.mcpServers)) {
      assert.is(entry.command, 'assistant', `${name} runs the installed CLI`);
      // The example's placeholder credentials are swapped for the emulator's; everything else is as written.
      const env = entry.env ? { ...emulatorEnv(emu), ...Object.fromEntries(Object.keys(entry.env).map((k) => [k, emulatorEnv(emu)[k]!])) } : {};
      const mcpAt = entry.args.indexOf('mcp');
      assert.equal(entry.args.slice(mcpAt, mcpAt + 3), ['mcp', '--transport', 'stdio']);
      const { client } = await connectStdio({ env, globalArgs: entry.args.slice(0, mcpAt), args: entry.args.slice(mcpAt + 3) });
      try {
        const r = await callTool(client, 'assistant_gpucloud_list', { resource: 'instances' });
        assert.not.ok(r.isError, `${name}: ${textOf(r)}`);
      } finally {
        await client.close();
      }
    }
  } finally {
    await emu.close();
  }
});

test.run();

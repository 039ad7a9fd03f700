/**
 * MCP test helpers: the real `assistant mcp` in a child process, and the SDK's own client over
 * Streamable HTTP or stdio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_META_KEY } from '../../mcp/tools.js';
import { BIN, CHILD_TIMEOUT_MS, childEnv, tempHome } from './cli.js';
import { openAiConfigYaml, startOpenAiServer } from './openai-server.js';

export interface McpProcess {
  url: string;
  home: string;
  /** The token the server generated for itself (a server that can apply, with none configured). */
  token?: string;
  stderr(): string;
  /** Resolves with stderr once it matches `re` (checked on every chunk), rejects if the server exits first. */
  waitForStderr(re: RegExp): Promise<string>;
  /** Sends SIGINT and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `assistant [global] mcp <args>` (HTTP) and resolves once it prints its URL. */
export function startMcpServer(args: string[], opts: { env?: Record<string, string | undefined>; home?: string; globalArgs?: string[] } = {}): Promise<McpProcess> {
  const home = opts.home ?? tempHome('assistant-mcp-');
  const child: ChildProcess = spawn(process.execPath, [BIN, ...(opts.globalArgs ?? []), 'mcp', ...args], {
    env: childEnv(home, opts.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: home,
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitForStderr = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      if (re.test(stderr)) return resolve(stderr);
      const onData = () => {
        if (!re.test(stderr)) return;
        child.stderr!.off('data', onData);
        resolve(stderr);
      };
      child.stderr!.on('data', onData);
      void exited.then((code) => reject(new Error(`assistant mcp exited with ${code} before stderr matched ${re}:\n${stderr}`)));
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`assistant mcp did not start within ${CHILD_TIMEOUT_MS} ms:\n${stderr}`));
    }, CHILD_TIMEOUT_MS);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        const token = generatedToken(home, 'mcp', m[1]!);
        resolve({
          url: m[1]!,
          home,
          token,
          stderr: () => stderr,
          waitForStderr,
          stop: async () => {
            child.kill('SIGINT');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`assistant mcp exited with ${code}:\n${stderr}`));
    });
  });
}

/**
 * Servers that can apply plans need a bearer token on loopback too; with none configured they make
 * one and keep it in their home. The helpers below send it to that server when a test gives no
 * Authorization header of its own (tests that configure a token handle it themselves).
 */
const generatedTokens = new Map<string, string>();

/** The token `server` (mcp, box) generated in `home`, remembered for the origin of `url`. */
export function generatedToken(home: string, server: string, url: string): string | undefined {
  const path = join(home, '.assistant', 'serve', `${server}.token`);
  if (!existsSync(path)) {
    generatedTokens.delete(new URL(url).origin); // a port used again by a server without one
    return undefined;
  }
  const token = readFileSync(path, 'utf8').trim();
  generatedTokens.set(new URL(url).origin, token);
  return token;
}

/** `headers` plus the generated token of the server at `url`, unless they carry an Authorization of their own. */
export function withServerToken(url: string, headers: Record<string, string> = {}): Record<string, string> {
  const token = generatedTokens.get(new URL(url).origin);
  if (!token || Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) return headers;
  return { ...headers, authorization: `Bearer ${token}` };
}

export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'assistant-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: withServerToken(url, headers) } }));
  return client;
}

export async function connectStdio(
  opts: { env?: Record<string, string | undefined>; home?: string; args?: string[]; globalArgs?: string[]; transportArgs?: string[] } = {},
): Promise<{ client: Client; stderr(): string; heard(): readonly JSONRPCMessage[] }> {
  const home = opts.home ?? tempHome('assistant-mcp-');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...(opts.globalArgs ?? []), 'mcp', ...(opts.transportArgs ?? ['--transport', 'stdio']), ...(opts.args ?? [])],
    env: childEnv(home, opts.env ?? {}),
    cwd: home,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'assistant-tests', version: '1.0.0' });
  await client.connect(transport);
  // Every message the server sent, in the order it arrived. The SDK client hands a notification to its
  // handler a microtask later but a response at once, so a progress notification read in the same chunk
  // as its call's result reaches no `onprogress` (the SDK's race, not the server's order): tests about
  // what the server sends read it here.
  const heard: JSONRPCMessage[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    heard.push(message);
    deliver?.(message);
  };
  return { client, stderr: () => stderr, heard: () => heard };
}

/** Asks the MCP ask tool (a stdio server whose HOME answers with the built-in answers, no model) one question. */
export async function askBuiltinOverMcp(opts: { env: Record<string, string | undefined>; home: string; question: string }): Promise<CallToolResult & { structuredContent?: any }> {
  writeFileSync(join(opts.home, '.assistant.yaml'), 'ai:\n  default_provider: builtin\n', { mode: 0o600 });
  const { client } = await connectStdio({ env: opts.env, home: opts.home });
  try {
    return await callTool(client, 'assistant_gpucloud_ask', { question: opts.question });
  } finally {
    await client.close();
  }
}

/**
 * Asks the MCP ask tool (a stdio server with its own HOME) a question that a scripted model answers with
 * `reply`: the HOME's config is the file `config` plus an `openai` profile pointing at a local
 * OpenAI-compatible server. Returns the tool's result and the last request the model got (as JSON text),
 * for the test to check what reached the model and what stayed out.
 */
export async function askWithScriptedModel(opts: {
  config: string;
  home: string;
  env?: Record<string, string | undefined>;
  reply: string;
  question: string;
}): Promise<{ result: CallToolResult & { structuredContent?: any }; prompt: string }> {
  const ai = await startOpenAiServer();
  let client: Client | undefined;
  try {
    writeFileSync(
      join(opts.home, '.assistant.yaml'),
      readFileSync(opts.config, 'utf8') + openAiConfigYaml(ai.baseURL),
      { mode: 0o600 },
    );
    ({ client } = await connectStdio({ env: { ...opts.env, TEST_AI_KEY: 'sk-test-key-123456' }, home: opts.home }));
    ai.reply({ text: opts.reply });
    const result = await callTool(client, 'assistant_gpucloud_ask', { question: opts.question });
    return { result, prompt: JSON.stringify(ai.chatRequests().at(-1)) };
  } finally {
    await client?.close();
    await ai.close();
  }
}

/** Calls a tool and returns the result typed as a plain CallToolResult. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult & { structuredContent?: any }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The code, message and hint of a tool error result. */
export function errorOf(result: CallToolResult): { code: string; message: string; hint?: string } {
  const e = result._meta?.[ERROR_META_KEY] as { code: string; message: string; hint?: string } | undefined;
  if (!e) throw new Error(`not a tool error result: ${JSON.stringify(result)}`);
  return e;
}

/** A raw HTTP POST (node:http, so Host can be set like a browser under DNS rebinding would). */
export function rawPost(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...withServerToken(url, headers) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw JSON-RPC initialize, for checks below the SDK (headers, status codes, versions). */
export async function rawInitialize(
  url: string,
  headers: Record<string, string> = {},
  protocolVersion = '2025-03-26',
): Promise<{ status: number; body: string; sessionId: string | null; headers: Record<string, unknown> }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const res = await rawPost(url, body, headers);
  return { status: res.status, body: res.body, sessionId: (res.headers['mcp-session-id'] as string | undefined) ?? null, headers: res.headers };
}

/** The tools a `--read-only` server lists, sorted: every tool that changes nothing. */
export const READ_ONLY_TOOL_NAMES = [
  'assistant_autostop_status',
  'assistant_cost_summary',
  'assistant_cost_trend',
  'assistant_credentials_test',
  'assistant_gpucloud_ask',
  'assistant_gpucloud_availability_matrix',
  'assistant_gpucloud_get',
  'assistant_gpucloud_list',
  'assistant_plan_diff',
  'assistant_plan_graph',
  'assistant_plan_validate',
  'assistant_route_question',
];

/** Every tool the server lists, sorted: the read-only ones and the one that applies a plan. */
export const TOOL_NAMES = [...READ_ONLY_TOOL_NAMES, 'assistant_plan_apply'].sort();

/**
 * Box test helpers: the real `assistant box serve` in a child process, and clients for its routes
 * (fetch for JSON, an SSE reader, the `ws` package's WebSocket client).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import WebSocket from 'ws';
import { BIN, CHILD_TIMEOUT_MS, childEnv, tempHome } from './cli.js';
import { generatedToken, withServerToken } from './mcp.js';

export interface BoxProcess {
  url: string;
  home: string;
  pid: number;
  stderr(): string;
  /** Resolves once stderr matches (or rejects after the child timeout). */
  waitForStderr(re: RegExp): Promise<void>;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Starts `assistant [global] box serve <args>` and resolves once it prints its URL. */
export function startBox(args: string[], opts: { env?: Record<string, string | undefined>; home?: string; globalArgs?: string[] } = {}): Promise<BoxProcess> {
  const home = opts.home ?? tempHome('assistant-box-');
  const child: ChildProcess = spawn(process.execPath, [BIN, ...(opts.globalArgs ?? []), 'box', 'serve', ...args], {
    env: childEnv(home, { PORT: '0', ...(opts.env ?? {}) }),
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: home,
  });
  let stderr = '';
  const listeners = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const l of [...listeners]) l();
  });
  const waitForStderr = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!re.test(stderr)) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`box stderr never matched ${re}:\n${stderr}`));
      }, CHILD_TIMEOUT_MS);
      listeners.add(check);
      check();
    });
  return new Promise((resolve, reject) => {
    void exited.then((code) => reject(new Error(`assistant box serve exited with ${code}:\n${stderr}`)));
    waitForStderr(/listening on (http:\/\/\S+)/).then(
      () => {
        const url = /listening on (http:\/\/\S+)/.exec(stderr)![1]!;
        // A box that applies plans made itself a token (loopback too): the helpers below send it.
        generatedToken(home, 'box', url);
        resolve({
          url,
          home,
          pid: child.pid!,
          stderr: () => stderr,
          waitForStderr,
          exited,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      },
      (err) => {
        child.kill('SIGKILL');
        reject(err);
      },
    );
  });
}

export const json = { 'content-type': 'application/json' };

/** POST /v1/box/messages as JSON; the parsed body and status. */
export async function postMessage(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/box/messages`, { method: 'POST', headers: withServerToken(url, { ...json, ...headers }), body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export interface SseEvent {
  event: string;
  data: any;
}

/**
 * POST /v1/box/messages with Accept: text/event-stream; `onEvent` sees each event as it arrives, and
 * the promise resolves with every event once the stream ends.
 */
export async function postSse(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  onEvent?: (e: SseEvent) => void,
  signal?: AbortSignal,
): Promise<{ status: number; events: SseEvent[]; text?: string }> {
  const res = await fetch(`${url}/v1/box/messages`, { method: 'POST', headers: withServerToken(url, { ...json, accept: 'text/event-stream', ...headers }), body: JSON.stringify(body), signal });
  if (!String(res.headers.get('content-type')).startsWith('text/event-stream')) return { status: res.status, events: [], text: await res.text() };
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!name) continue; // a keep-alive comment
      const e = { event: name, data: data ? JSON.parse(data) : undefined };
      events.push(e);
      onEvent?.(e);
    }
  }
  return { status: res.status, events };
}

/** A raw request with any method, path and headers (node:http, so Host can be set freely). */
export function rawRequest(url: string, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${opts.path}`, { method: opts.method ?? 'GET', headers: withServerToken(url, opts.headers) }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Opens a WebSocket to the box; resolves when open, or rejects with the HTTP status of a refused upgrade. */
export function openWs(url: string, headers: Record<string, string> = {}, path = '/v1/box/ws'): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers: withServerToken(url, headers) });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${text}`), { status: res.statusCode, body: text })));
    });
    ws.once('error', reject);
  });
}

/** Sends a frame and collects frames until one of type answer or error (with the same id) arrives. */
export function wsAsk(ws: WebSocket, frame: Record<string, unknown>): Promise<any[]> {
  return new Promise((resolve, reject) => {
    const frames: any[] = [];
    const onMessage = (data: WebSocket.RawData) => {
      const f = JSON.parse(data.toString());
      if (frame.id !== undefined && f.id !== frame.id) return;
      frames.push(f);
      if (f.type === 'answer' || f.type === 'error') {
        ws.off('message', onMessage);
        resolve(frames);
      }
    };
    ws.on('message', onMessage);
    ws.once('close', (code) => reject(new Error(`socket closed (${code}) before an answer`)));
    ws.send(JSON.stringify(frame));
  });
}

/** A config for a box whose built-in agent answers through a local OpenAI-compatible server. */
export function boxAiConfig(baseURL: string): string {
  return [
    'ai:',
    '  default_provider: openai',
    '  providers:',
    '    openai:',
    '      model: test-model',
    '      api_key_env: TEST_AI_KEY',
    `      local_model_inference_url: ${baseURL}`,
    'gpucloud:',
    '  rate_limit:',
    '    per_project: 100000',
    '    per_path: 100000',
    '',
  ].join('\n');
}

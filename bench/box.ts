/**
 * `box serve` benchmark: messages per second and p50/p95 latency of POST /v1/box/messages with the
 * built-in agent (the whole ask flow: route, context read of instances and balance from the in-process
 * emulator through the executor, the real openai SDK against a local OpenAI-compatible server that
 * answers at once), with 1 and 16 clients, each client one session asking one message after another
 * (so every answer also carries its session's history). Everything runs in this process on a shared
 * machine, so the numbers are a floor for the box's own overhead, not a model's speed.
 */
import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { commandContext, type CommandContext } from '../commands/context.js';
import { openSession } from '../commands/session.js';
import { startEmulator } from '../emulator/index.js';
import { assistantAgent } from '../box/agents/assistant.js';
import { startBoxServer } from '../box/server.js';

/** The smallest OpenAI-compatible chat server: one short streamed (or whole) answer per request. */
async function fakeAi(): Promise<{ baseURL: string; close(): Promise<void> }> {
  const words = ['You ', 'have ', '2 ', 'instances ', 'and ', '1000 ', 'USD.'];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const base = { id: 'bench', created: 0, model: body.model ?? 'bench' };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }] }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }, null));
      for (const w of words) res.write(chunk({ content: w }, null));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => new Promise((r) => server.close(() => r())) };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

interface Figures {
  perSecond: number;
  p50: number;
  p95: number;
  failed: number;
}

/** `clients` concurrent loops of `perClient` calls each; `call(client)` returns whether it succeeded. */
async function drive(clients: number, perClient: number, call: (client: number) => Promise<boolean>): Promise<Figures> {
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < perClient; i++) {
        const t = performance.now();
        if (!(await call(c))) failed++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wall = performance.now() - started;
  const sorted = latencies.sort((a, b) => a - b);
  return { perSecond: (latencies.length / wall) * 1000, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), failed };
}

const question = (c: number) => `client ${c}: how many instances do I have and what is my balance?`;

/** Each client is one box session: its first message starts it, the next ones continue it. */
function overHttp(url: string): (client: number) => Promise<boolean> {
  const sessions = new Map<number, string>();
  return async (c) => {
    const session = sessions.get(c);
    const res = await fetch(`${url}/v1/box/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: question(c), ...(session ? { session_id: session } : {}) }),
    });
    const body = (await res.json()) as { session_id?: string };
    if (!session && body.session_id) sessions.set(c, body.session_id);
    return res.status === 200;
  };
}

const line = (label: string, r: Figures) => `  ${label}: ${r.perSecond.toFixed(1)} messages/s   p50 ${r.p50.toFixed(1)} ms   p95 ${r.p95.toFixed(1)} ms${r.failed ? `   ${r.failed} FAILED` : ''}`;

export async function runBoxBench(messages = 400): Promise<void> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false });
  const ai = await fakeAi();
  const home = mkdtempSync(join(tmpdir(), 'assistant-bench-box-'));
  const configPath = join(home, 'config.yaml');
  writeFileSync(
    configPath,
    `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: bench-model\n      api_key_env: BENCH_AI_KEY\n      local_model_inference_url: ${ai.baseURL}\ngpucloud:\n  rate_limit:\n    per_project: 1000000\n    per_path: 1000000\n`,
    { mode: 0o600 },
  );
  const sink = new PassThrough();
  sink.resume();
  const controller = new AbortController();
  setMaxListeners(1000, controller.signal); // the in-process comparison runs 16 answers on this one signal
  const ctx: CommandContext = commandContext(
    {
      io: { stdout: sink, stderr: sink, stdin: new PassThrough(), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 120, color: false },
      env: { HOME: home, BENCH_AI_KEY: 'sk-bench-0000000000000000', GPUCLOUD_BASE_URL: emu.url, GPUCLOUD_CLIENT_ID: emu.clientId, GPUCLOUD_CLIENT_SECRET: emu.clientSecret },
      home,
      globals: { config: configPath, output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false },
    },
    controller.signal,
  );
  const session = await openSession(ctx, { overallDeadline: false });
  const agent = assistantAgent({ host: { home: ctx.home, env: ctx.env, sandbox: false }, session, allowApply: false, aiTimeoutMs: 60_000 });
  const box = await startBoxServer({ host: '127.0.0.1', port: 0, agent, version: 'bench', maxTurns: 10 });
  try {
    console.log('\nbox serve: POST /v1/box/messages, built-in agent (ask flow + context reads from the emulator + openai SDK against a local server answering at once)');
    await drive(4, 10, overHttp(box.url)); // warm: token, connections, JIT
    // The same agent called in-process, without HTTP, sessions or limits: what the box itself adds is the difference.
    const direct = (c: number) => agent.answer({ sessionId: `direct-${c}`, message: question(c), mode: 'answer', history: [], signal: controller.signal }).then(() => true);
    for (const clients of [1, 16]) {
      const perClient = Math.ceil(messages / clients);
      console.log(line(`${String(clients).padStart(2)} client(s), box serve  `, await drive(clients, perClient, overHttp(box.url))));
      console.log(line(`${String(clients).padStart(2)} client(s), agent alone`, await drive(clients, perClient, direct)));
    }
  } finally {
    await box.close(1000);
    await session.close();
    await ai.close();
    await emu.close();
    rmSync(home, { recursive: true, force: true });
  }
}

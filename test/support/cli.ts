/**
 * End-to-end helpers: run the real `bin/assistant.js` in a child process, and an in-test emulator
 * whose credentials are handed to the CLI through the environment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../emulator/index.js';

/** dist/test/support/cli.js → <repo>/bin/assistant.js */
export const BIN = fileURLToPath(new URL('../../../bin/assistant.js', import.meta.url));

export interface RunCliOptions {
  /** Extra environment (merged over a scrubbed copy of process.env). */
  env?: Record<string, string | undefined>;
  /** HOME for the child; a fresh temp dir by default. */
  home?: string;
  /** Written to stdin, then stdin is closed (stdin is a pipe, never a TTY). */
  input?: string;
  timeoutMs?: number;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  home: string;
}

export function tempHome(prefix = 'assistant-e2e-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** process.env without anything that could point the CLI at real credentials or a real config. */
function scrubbedEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^(GPUCLOUD_|ASSISTANT_)/.test(k)) continue;
    out[k] = v;
  }
  return out;
}

/** The environment of a CLI child: scrubbed, with its own HOME, no colour, then `overrides` (undefined removes). */
export function childEnv(home: string, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { ...scrubbedEnv(), HOME: home, USERPROFILE: home, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  const home = opts.home ?? tempHome();
  const env = childEnv(home, opts.env);
  // Generous: CI is a busy 2-core box, and a timeout must only catch a hung child.
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'], cwd: home });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`assistant ${args.join(' ')} timed out after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, home });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

export interface EmulatorHandle {
  emu: Emulator;
  /** GPUCLOUD_BASE_URL / GPUCLOUD_CLIENT_ID / GPUCLOUD_CLIENT_SECRET pointing at the emulator. */
  env: Record<string, string>;
}

/** Starts an emulator in the test process, runs `fn`, and always closes it. */
export async function withEmulator<T>(fn: (h: EmulatorHandle) => Promise<T>, options: EmulatorOptions = {}): Promise<T> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, ...options });
  try {
    return await fn({ emu, env: emulatorEnv(emu) });
  } finally {
    await emu.close();
  }
}

export function emulatorEnv(emu: Pick<Emulator, 'url' | 'clientId' | 'clientSecret'>): Record<string, string> {
  return { GPUCLOUD_BASE_URL: emu.url, GPUCLOUD_CLIENT_ID: emu.clientId, GPUCLOUD_CLIENT_SECRET: emu.clientSecret };
}

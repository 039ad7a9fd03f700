/**
 * A real terminal for tests: the CLI runs in a tmux pane on a private tmux server (`-L <socket>`, no
 * user config), keys are sent with send-keys and the screen is read with capture-pane. The child gets
 * the same scrubbed environment as runCli's children (support/cli.ts), plus TERM. After the command
 * ends, the pane shows `[exit N]` so a test can read the exit code. `close()` kills the server.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, childEnv } from './cli.js';

export const HAVE_TMUX = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export interface TmuxPane {
  /** Types text literally (no key names). */
  type(text: string): Promise<void>;
  /** Sends key names: Enter, C-c, C-d, Up, … */
  keys(...keys: string[]): Promise<void>;
  /** Types a line and presses Enter. */
  line(text: string): Promise<void>;
  screen(): Promise<string>;
  /** The screen with its colours (capture-pane -e): SGR sequences as the terminal received them. */
  colored(): Promise<string>;
  /** Only what the pane shows now (no scrollback): what a clear-screen sequence would have wiped. */
  visible(): Promise<string>;
  /** The pane's title (what OSC 0/2 sequences set). */
  title(): Promise<string>;
  /** tmux's paste buffers, one line each (with `clipboard`, an OSC 52 sequence makes one). */
  buffers(): Promise<string>;
  /** Polls the screen until `pattern` shows (generous bound: a loaded CI machine is slow). */
  waitFor(pattern: RegExp, what?: string, timeoutMs?: number): Promise<string>;
  /** The exit code once the command has ended (waits for it). */
  exitCode(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

let counter = 0;

function tmux(socket: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`tmux ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Starts `assistant <args>` in a 200×50 pane (`width` columns if given) with HOME=`home` and `env` over the scrubbed environment.
 * `clipboard`: tmux's set-clipboard on, so an application's OSC 52 clipboard write becomes a paste buffer.
 */
export async function startInTmux(args: string[], opts: { home: string; env?: Record<string, string | undefined>; cwd?: string; clipboard?: boolean; width?: number }): Promise<TmuxPane> {
  const socket = `assistant-test-${process.pid}-${counter++}`;
  const dir = mkdtempSync(join(tmpdir(), 'assistant-tmux-'));
  const env = { ...childEnv(opts.home, opts.env), TERM: 'screen' };
  const script = join(dir, 'run.sh');
  writeFileSync(
    script,
    [
      `cd ${quote(opts.cwd ?? opts.home)}`,
      `env -i ${Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`).join(' ')} ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`,
      'echo "[exit $?]"',
      'sleep 3600',
    ].join('\n') + '\n',
  );
  const options = opts.clipboard ? ['start-server', ';', 'set-option', '-g', 'set-clipboard', 'on', ';'] : [];
  await tmux(socket, [...options, 'new-session', '-d', '-s', 'main', '-x', String(opts.width ?? 200), '-y', '50', `sh ${quote(script)}`]);
  // Without the empty rows below the cursor, so `…talk> $` means "the prompt is the last thing shown".
  const screen = async () => (await tmux(socket, ['capture-pane', '-p', '-J', '-S', '-500', '-t', 'main'])).replace(/\n+$/, '');
  const pane: TmuxPane = {
    type: async (text) => void (await tmux(socket, ['send-keys', '-t', 'main', '-l', text])),
    keys: async (...keys) => void (await tmux(socket, ['send-keys', '-t', 'main', ...keys])),
    line: async (text) => {
      await pane.type(text);
      await pane.keys('Enter');
    },
    screen,
    colored: async () => tmux(socket, ['capture-pane', '-p', '-e', '-J', '-S', '-500', '-t', 'main']),
    visible: async () => (await tmux(socket, ['capture-pane', '-p', '-J', '-t', 'main'])).replace(/\n+$/, ''),
    title: async () => (await tmux(socket, ['display-message', '-p', '-t', 'main', '#{pane_title}'])).trim(),
    buffers: async () => tmux(socket, ['list-buffers']),
    waitFor: async (pattern, what, timeoutMs = 60_000) => {
      const until = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < until) {
        last = await screen();
        if (pattern.test(last)) return last;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`timed out waiting for ${what ?? String(pattern)}; the screen:\n${last}`);
    },
    exitCode: async (timeoutMs) => Number(/\[exit (\d+)\]/.exec(await pane.waitFor(/\[exit \d+\]/, 'the command to end', timeoutMs))![1]),
    close: async () => {
      await tmux(socket, ['kill-server']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return pane;
}

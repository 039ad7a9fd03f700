/**
 * `assistant talk` on a real terminal (tmux): a streamed answer, Ctrl-C in the middle of an answer and
 * of a plan run, Up-arrow recall, the /apply question answered no and yes, Ctrl-D and Ctrl-C twice,
 * and the line history on disk. Against the gpucloud emulator and a local OpenAI-compatible server.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempHome, withEmulator } from '../support/cli.js';
import { talkConfig } from '../support/talk.js';
import { openAiServerFor } from '../support/openai-server.js';
import { HAVE_TMUX, startInTmux, type TmuxPane } from '../support/tmux.js';

const KEY = 'sk-talk-tty-key-0a9b8c';
const srv = openAiServerFor(test);
const panes: TmuxPane[] = [];
/** Releases replies held back by tests, so the server can close. */
const holds: (() => void)[] = [];
test.after.each(async () => {
  await Promise.all(panes.splice(0).map((p) => p.close()));
  holds.splice(0).forEach((release) => release());
});

const config = () => talkConfig(srv.baseURL);
const home = () => tempHome('assistant-talk-tty-');

async function talk(env: Record<string, string>, args: string[] = [], h = home()): Promise<TmuxPane> {
  const pane = await startInTmux(['--config', config(), 'talk', ...args], { home: h, env: { ...env, TEST_AI_KEY: KEY } });
  panes.push(pane);
  await pane.waitFor(/^talk> $/m, 'the first prompt');
  return pane;
}

const hold = (): Promise<void> => new Promise((resolve) => holds.push(resolve));

if (!HAVE_TMUX) {
  test('SKIP the terminal tests: tmux is not installed (apt-get install tmux)', () => undefined);
} else {
  test('a streamed answer shows as it arrives, before the rest of it exists', async () => {
    await withEmulator(async ({ env }) => {
      let release!: () => void;
      const rest = new Promise<void>((r) => (release = r));
      holds.push(release);
      srv.reply({ text: '', tokens: ['Streaming answer part one of many words here ', 'and the rest.'], restAfter: rest });
      const pane = await talk(env);
      await pane.line('how are things?');
      const early = await pane.waitFor(/Streaming answer part one/, 'the first words of the answer');
      assert.not.match(early, /and the rest/);
      release();
      const done = await pane.waitFor(/and the rest\.\ntalk> /, 'the whole answer and the prompt');
      assert.match(done, /^Streaming answer part one of many words here and the rest\.$/m);
    });
  });

  test('Ctrl-C in the middle of a streamed answer stops it at once and returns to the prompt', async () => {
    await withEmulator(async ({ env }) => {
      srv.reply({ text: '', tokens: ['The answer begins with several words and then ', 'never ends.'], restAfter: hold() }, { text: 'A second answer.' });
      const h = home();
      const pane = await talk(env, [], h);
      await pane.line('tell me everything');
      await pane.waitFor(/The answer begins/, 'the start of the answer');
      await pane.keys('C-c');
      const after = await pane.waitFor(/interrupted: stopped by Ctrl-C; nothing more was sent\ntalk> /, 'the interrupt line and the prompt');
      assert.not.match(after, /never ends/);
      await pane.line('and now?');
      await pane.waitFor(/A second answer\.\ntalk> /, 'the next question answered');
      await pane.keys('C-d');
      assert.is(await pane.exitCode(), 0);
      const file = join(h, '.assistant', 'talk', readdirSync(join(h, '.assistant', 'talk'))[0]!);
      const turns = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.t === 'turn');
      assert.equal(turns.map((t) => [t.user, Boolean(t.interrupted)]), [['tell me everything', true], ['and now?', false]]);
      // The interrupted turn is not memory: the second request carried no earlier turn.
      assert.is(srv.chatRequests()[1]!.body.messages.filter((m: { role: string }) => m.role !== 'system').length, 1);
    });
  });

  test('Ctrl-C in the middle of a plan run stops the run; the report says what was sent', async () => {
    await withEmulator(
      async ({ emu, env }) => {
        const h = home();
        const plan = {
          version: 1,
          provider: 'gpucloud',
          commands: [
            { args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'slow-1', description: '', location_code: 'FIN-01', ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'] })], reason: 'create slow-1', produces: { INSTANCE_ID: '$.id' } },
            { args: ['gpucloud-wait', 'instances', '<INSTANCE_ID>', 'running'], reason: 'wait until it runs' },
          ],
        };
        writeFileSync(join(h, 'slow.json'), JSON.stringify(plan));
        const pane = await talk(env, [], h);
        await pane.line('/plan load slow.json');
        await pane.waitFor(/plan loaded from slow\.json/);
        await pane.line('/apply');
        await pane.waitFor(/Type yes to apply: $/m, 'the question');
        await pane.line('yes');
        await pane.waitFor(/\[2\/2\]/, 'the wait step running');
        await pane.keys('C-c');
        const screen = await pane.waitFor(/interrupted: 1 of 2 step\(s\) completed before Ctrl-C[^\n]*\ntalk> /, 'the report and the prompt');
        assert.match(screen, /^cancelled: 1\/2 step\(s\) completed$/m);
        assert.match(screen, /^ {2}ok {3}0: POST \/v1\/instances/m);
        assert.match(screen, /step 1 \([^)]*\) was in progress; the journal keeps them: \/apply --resume continues/);
        assert.is(emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length, 1, 'the create was sent once');
        const polls = emu.requests().filter((q) => q.method === 'GET' && q.path.startsWith('/v1/instances/')).length;
        await pane.line('/help');
        await pane.waitFor(/\/maker <request>[\s\S]*talk> /);
        assert.is(emu.requests().filter((q) => q.method === 'GET' && q.path.startsWith('/v1/instances/')).length, polls, 'no poll after the interrupt');
      },
      { lifecycleMs: 600_000 },
    );
  });

  test('Up recalls the previous line; the /apply question answered no sends nothing, yes applies once; Ctrl-D ends it', async () => {
    await withEmulator(async ({ emu, env }) => {
      const posts = () => emu.requests().filter((q) => q.method === 'POST' && q.path === '/v1/instances').length;
      const pane = await talk(env, ['--ai-profile', 'builtin']);
      await pane.line('/maker create a 1V100.6V instance called tty-1 in FIN-01');
      await pane.waitFor(/^Cost: [\d.]+\/hour/m, 'the plan and its price');
      await pane.line('/apply');
      // The question shows what the request asks for and costs; the plan's words come after (issue 35 §5).
      await pane.waitFor(
        /About to apply 1 step\(s\):\n {2}0\. POST \/v1\/instances \(create of instance\)\n {5}asks for: instance 1V100\.6V in FIN-01; hostname tty-1; OS volume 100 GB \(the default\)\n {5}price: adds 0\.4178 USD\/hour \(300\.80 per 30 days\)\n {5}the plan says: create 1V100\.6V instance tty-1\n {2}in all: adds 0\.4178 USD\/hour \(300\.80 per 30 days\)\nApply it\? Type yes to apply: $/m,
        'the question',
      );
      await pane.line('no');
      await pane.waitFor(/not applied: nothing was sent\ntalk> /, 'the refusal');
      assert.is(posts(), 0);
      await pane.keys('Up');
      await pane.waitFor(/talk> \/apply\s*$/, 'the recalled line');
      await pane.keys('Enter');
      await pane.waitFor(/(Type yes to apply: [\s\S]*){2}$/, 'the question again');
      await pane.line('yes');
      await pane.waitFor(/^succeeded: 1\/1 step\(s\) completed$[\s\S]*talk> $/m, 'the report');
      assert.is(posts(), 1);
      await pane.keys('Up');
      await pane.keys('Enter');
      await pane.waitFor(/(Type yes to apply: [\s\S]*){3}$/, 'the question a third time');
      await pane.line('yes');
      await pane.waitFor(/error: refused: this plan was already applied[\s\S]*talk> $/, 'the apply path refusing a second run');
      assert.is(posts(), 1, 'applied exactly once');
      await pane.keys('C-d');
      assert.is(await pane.exitCode(), 0);
    });
  });

  test('a destructive plan needs --destroyer and the names typed, as gpucloud action delete asks for the hostname', async () => {
    await withEmulator(async ({ emu, env }) => {
      const deletes = () => emu.requests().filter((q) => q.method === 'PUT' && q.path === '/v1/instances' && /"delete"/.test(q.body ?? '')).length;
      const pane = await talk(env, ['--ai-profile', 'builtin', '--destroyer']);
      await pane.line('/maker delete instance demo-cpu');
      await pane.waitFor(/PUT \/v1\/instances\s+delete demo-cpu\s+yes/, 'the plan, marked destructive');
      await pane.line('/apply');
      await pane.waitFor(/It DESTROYS: demo-cpu \(instance, step 0\)\. This cannot be undone\.\nType "demo-cpu" to confirm: $/, 'the names to type');
      await pane.line('yes');
      await pane.waitFor(/confirmation did not match\nnot applied: nothing was sent\ntalk> $/, 'a plain yes is not enough');
      assert.is(deletes(), 0);
      await pane.line('/apply');
      await pane.waitFor(/(Type "demo-cpu" to confirm: [\s\S]*){2}$/, 'the question again');
      await pane.line('demo-cpu');
      await pane.waitFor(/^succeeded: 1\/1 step\(s\) completed$[\s\S]*talk> $/m, 'the report');
      assert.is(deletes(), 1);
    });
  });

  test('Ctrl-C twice on an empty line ends the session; once only says how to leave', async () => {
    await withEmulator(async ({ env }) => {
      const pane = await talk(env, ['--ai-profile', 'builtin']);
      await pane.type('half a line');
      await pane.keys('C-c');
      await pane.waitFor(/talk> half a line\^C\ntalk> $/, 'the typed line dropped');
      await pane.keys('C-c');
      await pane.waitFor(/to leave: Ctrl-C again, Ctrl-D or \/exit\)\ntalk> $/, 'the hint');
      await pane.keys('C-c');
      assert.is(await pane.exitCode(), 0);
    });
  });

  test('a secret typed at the prompt stays masked: in the private line history and in what Up brings back', async () => {
    await withEmulator(async ({ env }) => {
      const secret = 'sk-ttysecret0123456789abcdefgh';
      const h = home();
      let pane = await talk(env, ['--ai-profile', 'builtin'], h);
      await pane.line(`is ${secret} a good key?`);
      await pane.waitFor(/secret-looking value[\s\S]*talk> $/, 'the warning and the prompt');
      await pane.keys('C-d');
      assert.is(await pane.exitCode(), 0);
      const path = join(h, '.assistant', 'talk_history');
      assert.is(statSync(path).mode & 0o777, 0o600);
      const saved = readFileSync(path, 'utf8');
      assert.not.ok(saved.includes(secret));
      assert.match(saved, /^is \*\*\* a good key\?$/m);
      // A new session recalls the masked line.
      pane = await talk(env, ['--ai-profile', 'builtin'], h);
      await pane.keys('Up');
      const screen = await pane.waitFor(/talk> is \*\*\* a good key\?\s*$/, 'the recalled masked line');
      assert.not.ok(screen.includes(secret));
    });
  });
}

test.run();

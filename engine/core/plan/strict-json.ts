/**
 * The strict reading of JSON that plans and request bodies need. `JSON.parse` keeps the last of two
 * equal keys and Node's UTF-8 decoding replaces bad bytes with U+FFFD; another parser (the server, a
 * reviewer's tool) may keep the first key or reject the bytes, so a document that reads differently
 * in two places is refused instead. One copy, used by plan input (CLI and MCP) and by the request bodies of step verbs.
 */

export interface DuplicateKey {
  key: string;
  /** JSON-path-like location of the object holding the key, e.g. `$.commands[0]`. */
  at: string;
}

/**
 * The first key that appears twice in one object of a JSON text (keys compared after unescaping, so
 * `"action"` and `"\u0061ction"` are the same key), or undefined. Expects text JSON.parse accepted.
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  type Frame = { keys: Set<string> | undefined; path: string; index: number; pendingKey?: string };
  const stack: Frame[] = [];
  let expectKey = false;
  const childPath = (): string => {
    const top = stack.at(-1);
    if (!top) return '$';
    return top.keys ? `${top.path}.${top.pendingKey ?? '?'}` : `${top.path}[${top.index}]`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        const top = stack.at(-1)!;
        if (top.keys!.has(key)) return { key, at: top.path };
        top.keys!.add(key);
        top.pendingKey = key;
        expectKey = false;
      }
      i = j;
    } else if (c === '{' || c === '[') {
      const path = childPath();
      stack.push({ keys: c === '{' ? new Set() : undefined, path, index: 0 });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top && top.keys) expectKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

/** Bytes as UTF-8, refusing invalid sequences instead of replacing them; a leading BOM is dropped. */
export function decodeUtf8Strict(bytes: Uint8Array): string | { problem: string } {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    return { problem: `it is not valid UTF-8 (first bad byte at offset ${at})` };
  }
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  // Binary search for the longest prefix that is valid so far (stream mode tolerates a cut character).
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  // The valid-so-far prefix may end inside the character that turned out bad: report where it starts.
  let at = lo;
  while (at > 0 && lo - at < 4) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, at));
      break;
    } catch {
      at--;
    }
  }
  return at;
}

/**
 * Parses a plan document's JSON text strictly: valid JSON with no repeated key in any object.
 * Returns the value or a problem sentence (the caller owns the error type and code).
 */
export function parseStrictJson(text: string): { value: unknown } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `not valid JSON: ${(err as Error).message}` };
  }
  const dup = findDuplicateKey(text);
  if (dup) return { problem: `the key "${dup.key}" appears twice in ${dup.at} (parsers differ on which one wins)` };
  return { value };
}

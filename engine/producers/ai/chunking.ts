/**
 * Splitting a large context into chunks for summarisation (SPEC 2.5/8: ai.chunk_chars, ai.max_chunks).
 *
 * A context is a list of records (one resource, one log line…). Chunks are filled with whole records
 * joined by newlines and never exceed `chunkChars` characters (UTF-16 code units, the unit of
 * `string.length` and of ai.max_prompt_chars). A record longer than a chunk is cut into pieces, at a
 * newline or space near the end when there is one, and never between the two halves of a surrogate
 * pair, so no character is ever broken. When there are more chunks than `maxChunks`, the first, the
 * last and evenly spaced ones in between are kept and the rest is reported as dropped.
 */

export interface Chunk {
  /** Position among all chunks (before selection), from 0. */
  index: number;
  text: string;
  /** First and last record (0-based) that contribute to the chunk. */
  firstRecord: number;
  lastRecord: number;
}

export interface ChunkPlan {
  /** Chunks kept for summarisation, in order. */
  kept: Chunk[];
  /** Indexes of the chunks left out because of maxChunks. */
  dropped: number[];
  /** All chunks made before selection. */
  total: number;
  /** Characters of the dropped chunks. */
  droppedChars: number;
  /** Records wholly inside dropped chunks. */
  droppedRecords: number;
}

const SEPARATOR = '\n';

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Cuts one oversized record into pieces of at most `size` code units. Prefers to cut after a newline
 * or space in the last eighth of the piece; never cuts a surrogate pair.
 */
export function splitOversized(text: string, size: number): string[] {
  if (size < 2) throw new RangeError('chunk size must be at least 2 characters');
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > size) {
    let end = start + size;
    const window = text.slice(end - Math.floor(size / 8), end);
    const soft = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    if (soft >= 0) end = end - Math.floor(size / 8) + soft + 1;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Packs records into chunks of at most `chunkChars` characters on record boundaries. */
export function chunkRecords(records: readonly string[], chunkChars: number): Chunk[] {
  const chunks: Chunk[] = [];
  let parts: string[] = [];
  let length = 0;
  let first = 0;
  let last = 0;
  const flush = () => {
    if (!parts.length) return;
    chunks.push({ index: chunks.length, text: parts.join(SEPARATOR), firstRecord: first, lastRecord: last });
    parts = [];
    length = 0;
  };
  records.forEach((record, i) => {
    if (record.length > chunkChars) {
      flush();
      for (const piece of splitOversized(record, chunkChars)) {
        chunks.push({ index: chunks.length, text: piece, firstRecord: i, lastRecord: i });
      }
      return;
    }
    const added = (parts.length ? SEPARATOR.length : 0) + record.length;
    if (length + added > chunkChars) flush();
    if (!parts.length) first = i;
    length += (parts.length ? SEPARATOR.length : 0) + record.length;
    parts.push(record);
    last = i;
  });
  flush();
  return chunks;
}

/** Indexes to keep out of `total` when at most `max` may be kept: first, last and evenly spaced ones. */
export function selectEvenly(total: number, max: number): number[] {
  if (total <= max) return Array.from({ length: total }, (_, i) => i);
  if (max <= 0) return [];
  if (max === 1) return [0];
  const picked = new Set<number>();
  for (let k = 0; k < max; k++) picked.add(Math.round((k * (total - 1)) / (max - 1)));
  return [...picked].sort((a, b) => a - b);
}

export function planChunks(records: readonly string[], options: { chunkChars: number; maxChunks: number }): ChunkPlan {
  const all = chunkRecords(records, options.chunkChars);
  const keep = new Set(selectEvenly(all.length, options.maxChunks));
  const kept = all.filter((c) => keep.has(c.index));
  const droppedChunks = all.filter((c) => !keep.has(c.index));
  const keptRecords = new Set<number>();
  for (const c of kept) for (let r = c.firstRecord; r <= c.lastRecord; r++) keptRecords.add(r);
  const droppedRecordSet = new Set<number>();
  for (const c of droppedChunks) for (let r = c.firstRecord; r <= c.lastRecord; r++) if (!keptRecords.has(r)) droppedRecordSet.add(r);
  return {
    kept,
    dropped: droppedChunks.map((c) => c.index),
    total: all.length,
    droppedChars: droppedChunks.reduce((n, c) => n + c.text.length, 0),
    droppedRecords: droppedRecordSet.size,
  };
}

/**
 * Turns fetched results into context records: one line per resource record, prefixed by its kind,
 * so chunks stay on record boundaries and a summary can say where each fact came from.
 */
export function recordsFromResults(results: readonly { kind: string; data: unknown }[]): string[] {
  const records: string[] = [];
  for (const { kind, data } of results) {
    if (Array.isArray(data)) {
      if (!data.length) records.push(`${kind}: (none)`);
      for (const item of data) records.push(`${kind}: ${typeof item === 'string' ? item : JSON.stringify(item)}`);
    } else {
      records.push(`${kind}: ${typeof data === 'string' ? data : JSON.stringify(data)}`);
    }
  }
  return records;
}

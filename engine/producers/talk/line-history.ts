/**
 * The lines typed into `talk`, for Up/Down recall across sessions: `~/.assistant/talk_history`, one
 * line per entry, oldest first, mode 0600. Each line is masked before it is kept (in memory too, so
 * what Up brings back is what the file holds): a key typed by mistake is never written down.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writePrivateFile } from '../../core/private-file.js';
import { maskSecretsInText } from '../../core/redact.js';

export const LINE_HISTORY_SIZE = 500;

export function lineHistoryPath(home: string): string {
  return join(home, '.assistant', 'talk_history');
}

/** The saved lines, newest first (readline's order). A missing or unreadable file is an empty history. */
export function loadLineHistory(path: string, size = LINE_HISTORY_SIZE): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim())
    .slice(-size)
    .reverse();
}

/** A line as history keeps it: masked, multi-line input on one line. */
export function historyEntry(line: string): string {
  return maskSecretsInText(line).replace(/\r?\n/g, ' ');
}

/** Writes the history (newest first, as readline holds it) whole, 0600 (engine/core/private-file.ts). */
export function saveLineHistory(path: string, newestFirst: readonly string[], size = LINE_HISTORY_SIZE): void {
  const lines = newestFirst.slice(0, size).map(historyEntry).reverse();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writePrivateFile(path, lines.length ? lines.join('\n') + '\n' : '');
}

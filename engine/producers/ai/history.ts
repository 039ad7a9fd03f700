/**
 * Conversation history of `ask`, per AI provider profile and gpucloud project:
 * `~/.assistant/history/<profile>-<project hash>.json` (directory 0700, file 0600), the last N turns.
 * Only the question and the answer of a turn are kept (never the fetched context), both run through
 * redaction first, so no key or token ever lands in the file. A corrupt file is treated as empty.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writePrivateFile } from '../../core/private-file.js';
import { maskSecretsInText, redactText } from '../../core/redact.js';
import type { ChatMessage } from './provider.js';

export const HISTORY_TURNS = 10;

const HistoryTurnSchema = z.object({ question: z.string(), answer: z.string(), at: z.string() });
const HistoryFileSchema = z.object({ turns: z.array(z.unknown()) });

export type HistoryTurn = z.infer<typeof HistoryTurnSchema>;

interface HistoryFile {
  version: 1;
  provider: string;
  project: string;
  turns: HistoryTurn[];
}

/** The project a conversation belongs to: the gpucloud project id, else its API origin, else `default`. */
export function historyProject(parts: { projectId?: string; baseUrl?: string; sandbox?: boolean }): string {
  if (parts.sandbox) return 'sandbox';
  return parts.projectId?.trim() || parts.baseUrl?.trim().replace(/\/+$/, '') || 'default';
}

export class ConversationHistory {
  readonly path: string;

  constructor(
    readonly home: string,
    readonly provider: string,
    readonly project: string,
    readonly maxTurns = HISTORY_TURNS,
  ) {
    const hash = createHash('sha256').update(project).digest('hex').slice(0, 16);
    const safe = provider.toLowerCase().replace(/[^a-z0-9_.-]+/g, '_') || 'provider';
    this.path = join(home, '.assistant', 'history', `${safe}-${hash}.json`);
  }

  turns(): HistoryTurn[] {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch {
      return []; // missing or not JSON: a new conversation
    }
    const file = HistoryFileSchema.safeParse(raw);
    if (!file.success) return [];
    // Malformed turns are skipped one by one rather than losing the whole conversation.
    const turns = file.data.turns.flatMap((t) => {
      const turn = HistoryTurnSchema.safeParse(t);
      return turn.success ? [turn.data] : [];
    });
    return turns.slice(-this.maxTurns);
  }

  /** The turns as chat messages, oldest first. */
  messages(): ChatMessage[] {
    return this.turns().flatMap((t): ChatMessage[] => [
      { role: 'user', content: t.question },
      { role: 'assistant', content: t.answer },
    ]);
  }

  /** Forgets the conversation (`ask --new-conversation`). */
  clear(): void {
    rmSync(this.path, { force: true });
  }

  append(question: string, answer: string, at = new Date()): void {
    const turns = [...this.turns(), { question: maskSecretsInText(question), answer: maskSecretsInText(answer), at: at.toISOString() }].slice(-this.maxTurns);
    const file: HistoryFile = { version: 1, provider: this.provider, project: redactText(this.project), turns };
    const dir = join(this.home, '.assistant', 'history');
    ensurePrivateDir(dir);
    // Written whole and renamed (a crash never leaves half a file), 0600.
    writePrivateFile(this.path, JSON.stringify(file, null, 2) + '\n');
  }
}

/**
 * The conversation of a `talk` session, saved as it happens: one JSONL file per session in
 * `~/.assistant/talk/<id>.jsonl` (directory 0700, file 0600). A line is one event: the start, a turn
 * (what was said and answered), a reset, the plan in hand, so `talk --resume` finds the conversation
 * and the plan where they were. Every text is masked (engine/core/redact.ts) before it is written: a secret
 * typed into the session never reaches the disk. Lines are appended whole (one write each), so two
 * processes on one session never interleave inside a line; a torn or foreign line is skipped.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../../core/errors.js';
import { appendPrivateFile, ensurePrivateDir } from '../../core/private-file.js';
import { maskSecretsInText } from '../../core/redact.js';
import { stripControls } from '../../core/render/sanitise.js';

/** What a turn was: a question, a plan request, a run, or a prompt relayed to an external agent. */
export const TURN_KINDS = ['ask', 'maker', 'dry-run', 'apply', 'agent'] as const;
export type TurnKind = (typeof TURN_KINDS)[number];

const StartSchema = z.object({ t: z.literal('start'), v: z.literal(1), id: z.string(), at: z.string(), agent: z.string().optional(), ai_profile: z.string().optional(), sandbox: z.boolean().optional() });
const TurnSchema = z.object({
  t: z.literal('turn'),
  at: z.string(),
  kind: z.enum(TURN_KINDS),
  user: z.string(),
  assistant: z.string(),
  /** Cut short by Ctrl-C (or the agent stopping): kept for /history, not sent as context. */
  interrupted: z.boolean().optional(),
});
const ResetSchema = z.object({ t: z.literal('reset'), at: z.string() });
const PlanSchema = z.object({ t: z.literal('plan'), at: z.string(), plan: z.unknown() });
const EventSchema = z.discriminatedUnion('t', [StartSchema, TurnSchema, ResetSchema, PlanSchema]);

export type TalkTurn = z.infer<typeof TurnSchema>;
export type TalkEvent = z.infer<typeof EventSchema>;

/** A session ID: sortable by start time, unguessable enough not to collide between processes. */
const ID_PATTERN = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

export function talkDir(home: string): string {
  return join(home, '.assistant', 'talk');
}

function newId(now: Date): string {
  const iso = now.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-${randomBytes(3).toString('hex')}`;
}

export interface SessionSummary {
  id: string;
  path: string;
  started: string;
  turns: number;
  /** The first thing said (masked), for `talk --list`. */
  first?: string;
  agent?: string;
}

export class ConversationStore {
  /** Lines that could not be read (torn by a crash, edited by hand): skipped, counted for a warning. */
  skipped = 0;
  private events: TalkEvent[] = [];

  private constructor(
    readonly id: string,
    readonly path: string,
  ) {}

  /** A new session file, written at once (so `--resume` finds even a session with no turn yet). */
  static create(home: string, meta: { agent?: string; aiProfile?: string; sandbox?: boolean } = {}, now = new Date()): ConversationStore {
    const dir = talkDir(home);
    ensurePrivateDir(dir);
    const id = newId(now);
    const store = new ConversationStore(id, join(dir, `${id}.jsonl`));
    store.write({ t: 'start', v: 1, id, at: now.toISOString(), agent: meta.agent, ai_profile: meta.aiProfile, sandbox: meta.sandbox || undefined });
    return store;
  }

  /** An earlier session: by ID, by a unique prefix of one, or the latest when `id` is empty. */
  static open(home: string, id?: string): ConversationStore {
    const sessions = listSessionFiles(home);
    if (!sessions.length) {
      throw new InvalidInputError('no_talk_session', `there is no saved talk session in ${talkDir(home)}`, { hint: 'start one with `assistant talk`' });
    }
    let chosen: string;
    if (!id) chosen = sessions[sessions.length - 1]!;
    else {
      const matches = sessions.filter((s) => s === id || s.startsWith(id));
      if (matches.length !== 1) {
        throw new InvalidInputError('no_talk_session', matches.length ? `"${id}" matches ${matches.length} sessions: ${matches.join(', ')}` : `no talk session "${id}"`, {
          hint: 'list them with `assistant talk --list`',
        });
      }
      chosen = matches[0]!;
    }
    const store = new ConversationStore(chosen, join(talkDir(home), `${chosen}.jsonl`));
    store.load();
    return store;
  }

  private load(): void {
    const text = readFileSync(this.path, 'utf8');
    // A line torn by a crash is closed, so the next line appended is not glued onto it.
    if (text && !text.endsWith('\n')) appendPrivateFile(this.path, '\n');
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        this.skipped++;
        continue;
      }
      const event = EventSchema.safeParse(raw);
      if (event.success) this.events.push(event.data);
      else this.skipped++;
    }
  }

  private write(event: TalkEvent): void {
    this.events.push(event);
    // One write per line: O_APPEND keeps concurrent writers' lines whole; the file is 0600 even if someone loosened it.
    appendPrivateFile(this.path, JSON.stringify(event) + '\n');
  }

  /** Records a finished (or interrupted) turn, both sides sanitised (no control sequences) and masked. */
  addTurn(kind: TurnKind, user: string, assistant: string, opts: { interrupted?: boolean; at?: Date } = {}): TalkTurn {
    const turn: TalkTurn = {
      t: 'turn',
      at: (opts.at ?? new Date()).toISOString(),
      kind,
      user: maskSecretsInText(stripControls(user)),
      assistant: maskSecretsInText(stripControls(assistant)),
      ...(opts.interrupted ? { interrupted: true } : {}),
    };
    this.write(turn);
    return turn;
  }

  /** Forgets the conversation from here on (`/reset`); earlier lines stay in the file for /history of the past. */
  reset(at = new Date()): void {
    this.write({ t: 'reset', at: at.toISOString() });
  }

  /**
   * The plan in hand (made with /maker or loaded), so a resumed session can dry-run or apply it. A plan
   * holding something secret-looking (a startup script with a key) is not written: masked, it would
   * be a different plan. Returns whether it was saved.
   */
  setPlan(plan: unknown, at = new Date()): boolean {
    const text = JSON.stringify(plan ?? null);
    const safe = maskSecretsInText(text) === text;
    // An unsaved plan still replaces the earlier one: a resumed session must not find a stale plan.
    this.write({ t: 'plan', at: at.toISOString(), plan: safe ? plan : null });
    return safe;
  }

  /** The turns since the last reset, oldest first. */
  turns(): TalkTurn[] {
    const out: TalkTurn[] = [];
    for (const e of this.events) {
      if (e.t === 'reset') out.length = 0;
      else if (e.t === 'turn') out.push(e);
    }
    return out;
  }

  /** The last plan recorded (a reset does not drop it: it is what /apply would run). */
  plan(): unknown {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.t === 'plan') return e.plan ?? undefined;
    }
    return undefined;
  }

  /** Every turn ever recorded, resets included (`talk --list`). */
  allTurns(): TalkTurn[] {
    return this.events.filter((e): e is TalkTurn => e.t === 'turn');
  }

  /** The external agent the session was started with, if any. */
  agent(): string | undefined {
    const start = this.events.find((e) => e.t === 'start');
    return start?.t === 'start' ? start.agent : undefined;
  }

  started(): string | undefined {
    const start = this.events.find((e) => e.t === 'start');
    return start?.t === 'start' ? start.at : undefined;
  }
}

/** Session IDs, oldest first (the IDs sort by start time). */
function listSessionFiles(home: string): string[] {
  const dir = talkDir(home);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') && ID_PATTERN.test(f.slice(0, -6)))
    .map((f) => f.slice(0, -6))
    .sort();
}

/** Every saved session with its first line said, oldest first (`talk --list`). */
export function listSessions(home: string): SessionSummary[] {
  return listSessionFiles(home).map((id) => {
    const store = ConversationStore.open(home, id);
    const all = store.allTurns();
    return { id, path: store.path, started: store.started() ?? statTime(store.path), turns: all.length, first: all[0]?.user, agent: store.agent() };
  });
}

function statTime(path: string): string {
  return statSync(path).mtime.toISOString();
}

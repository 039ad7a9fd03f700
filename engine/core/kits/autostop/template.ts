/**
 * THE ONE PLACE auto-stop adds an ssh-exec command that runs without --destroyer: reading the watcher's
 * record. It is a plain `cat` of one fixed file, so it reads and changes nothing, and `readPlan` (which
 * accepts only reads) can run it.
 *
 * Merge note for the default-deny ssh templates (engine/providers/ssh/templates.ts, SSH_TEMPLATES): this entry
 * has that table's shape and belongs in it as
 *   { name: 'autostop-state', effect: 'read', why: "the auto-stop watcher's record", command: 'cat /var/lib/assistant-autostop/state.json', params: {} }
 * after which `autostopReadClass` and its use in engine/providers/ssh/provider.ts can go.
 */
import type { StepClass } from '../../provider.js';
import { STATE_FILE } from './watcher.js';

export const AUTOSTOP_SSH_TEMPLATES = [
  { name: 'autostop-state', effect: 'read', why: "the auto-stop watcher's record", command: `cat ${STATE_FILE}`, params: {} },
] as const;

/** The command `autostop check` runs on each instance. */
export const AUTOSTOP_READ_COMMAND: string = AUTOSTOP_SSH_TEMPLATES[0].command;

/** `read` for exactly an auto-stop template (the whole command, nothing appended), else undefined. */
export function autostopReadClass(command: string): StepClass | undefined {
  return AUTOSTOP_SSH_TEMPLATES.some((t) => t.command === command) ? { effect: 'read', kind: 'host', reasons: [] } : undefined;
}

/**
 * The auto-stop policy moved to engine/core/kits/autostop/policy.ts (issue 37 item 3). This re-export
 * stays only for commands/ask-maker.ts, which item 4 moves to machines/make: that move imports the kit
 * directly and deletes this file.
 */
export type { AutostopPolicy } from '../../core/kits/autostop/policy.js';

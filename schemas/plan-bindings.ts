/**
 * The plan's binding names, without zod: the plan engine's hot path (substitution, validation of a
 * plan that passes engine/core/plan/shape.ts) uses these and never needs the schema library loaded.
 * schemas/plan.ts re-exports them.
 */

/** `<NAME>` placeholders in plan arguments (DESIGN.md §3). */
export const PLACEHOLDER_PATTERN = /<([A-Z][A-Z0-9_]*)>/g;
export const BINDING_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * Bindings predefined from configuration; plans may use them without producing them. `FILES` is bound
 * only by `ask --apply --files DIR`: `<FILES>/name` is an artefact the plan reads from that directory
 * (never substituted as text: the CLI step verbs resolve it, engine/core/kits/cli/artefacts.ts).
 */
export const PREDEFINED_BINDINGS = ['DEFAULT_SSH_KEY_ID', 'DEFAULT_LOCATION', 'PROJECT_ID', 'FILES'] as const;

/** The bounds of a step's `autostop.idle_minutes` (the watcher records once a minute; at most 30 days). */
export const AUTOSTOP_MIN_MINUTES = 5;
export const AUTOSTOP_MAX_MINUTES = 43_200;
/**
 * What an auto-stop policy does to an idle instance: `shutdown` (stops the work; on gpucloud the machine
 * still bills), `hibernate` (releases the machine and keeps the volumes; `autostop resume` restores it),
 * `delete` (removes it; its data volumes are detached and kept).
 */
export const AUTOSTOP_ACTIONS = ['shutdown', 'hibernate', 'delete'] as const;
export type AutostopAction = (typeof AUTOSTOP_ACTIONS)[number];
export const AUTOSTOP_ACTIONS_TEXT = 'shutdown, hibernate or delete';

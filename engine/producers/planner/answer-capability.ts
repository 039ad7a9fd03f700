/**
 * Registers the joint built-in answerer of gpucloud and cloud_a (PLANNER_ANSWER, ./answer.ts) under the
 * name their `answer` capabilities give (`jointAnswerer('planner')`, engine/core/joint-answerers.ts):
 * the producer side registers, the providers import nothing of it. Registering loads nothing; the
 * question parser (and cloud_a's answers, which it imports) loads when the answer capabilities are
 * looked up, so every path that answers nothing stays without it.
 */
import { registerJointAnswerer } from '../../core/joint-answerers.js';

/** The joint name gpucloud's and cloud_a's answer capabilities give (PLANNER_ANSWER's own `joint`). */
export const PLANNER_JOINT = 'planner';

registerJointAnswerer(PLANNER_JOINT, async () => (await import('./answer.js')).PLANNER_ANSWER);

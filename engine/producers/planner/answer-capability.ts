/**
 * The joint built-in answerer of gpucloud and cloud_a (PLANNER_ANSWER, engine/producers/planner/answer.ts) as a
 * capability whose parser loads on the first answer. The providers' capabilities name it, and a
 * gpucloud list or apply loads the gpucloud provider with its capabilities: this keeps the question
 * parser and cloud_a's answers (which the parser imports) off every path that answers nothing.
 */
import { createRequire } from 'node:module';
import type { AnswerCapability } from '../../core/capabilities.js';

const require = createRequire(import.meta.url);
/** A synchronous require of our own ES module (Node ≥ 20.19): the same module a static import gets. */
const parser = () => (require('./answer.js') as typeof import('./answer.js')).PLANNER_ANSWER;

export const PLANNER_ANSWER_ON_USE: AnswerCapability = {
  // The same joint name as PLANNER_ANSWER: providers naming it are answered once, together.
  joint: 'planner',
  answer: (question, results, ctx) => parser().answer(question, results, ctx),
};

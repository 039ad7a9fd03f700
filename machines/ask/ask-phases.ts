/**
 * What each phase of the ask flow is doing, in the words a spinner shows (on a terminal, until the first
 * token): `ask`, `k8s ask` and talk say the same. Data only: loading it loads no machine.
 */
import type { AskPhase } from './ask-flow.js';

export const ASK_PHASES: Partial<Record<AskPhase, string>> = {
  routing: 'routing the question',
  gatheringContext: 'reading the cloud',
  summarising: 'summarising a large context',
  answering: 'writing the answer',
};

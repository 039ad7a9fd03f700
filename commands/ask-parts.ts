/**
 * What `ask` needs besides applying a plan, imported the first time it is used. `ask --apply` is the
 * hot path of agents and scripts; it must not load the question flow, the AI providers, the reports
 * or the maker (about 140 modules, zod among them) that it never runs (test/core/startup.modules.test.ts).
 * Each export is the original behind a literal `import()` (a bundler can split it off), so each returns a
 * promise: the ones that already did keep their signature.
 */
import type * as AskFlow from '../machines/ask/ask.js';
import type * as AskReport from '../machines/ask/ask-report.js';
import type * as AskMaker from './ask-maker.js';
import type * as Routing from '../engine/core/routing/route.js';

type Async<F extends (...args: never[]) => unknown> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;

export const askQuestion: typeof AskFlow.askQuestion = async (...args) => (await import('../machines/ask/ask.js')).askQuestion(...args);
export const contextPlanFor: typeof AskFlow.contextPlanFor = async (...args) => (await import('../machines/ask/ask.js')).contextPlanFor(...args);
export const reportActors: Async<typeof AskReport.reportActors> = async (...args) => (await import('../machines/ask/ask-report.js')).reportActors(...args);
export const workspaceActors: Async<typeof AskReport.workspaceActors> = async (...args) => (await import('../machines/ask/ask-report.js')).workspaceActors(...args);
export const reportQuestion = async (kind: AskReport.ReportKind): Promise<string> => (await import('../machines/ask/ask-report.js')).REPORT_QUESTIONS[kind];
export const makePlanFromQuestion: typeof AskMaker.makePlanFromQuestion = async (...args) => (await import('./ask-maker.js')).makePlanFromQuestion(...args);
export const routeQuestion: Async<typeof Routing.routeQuestion> = async (...args) => (await import('../engine/core/routing/route.js')).routeQuestion(...args);

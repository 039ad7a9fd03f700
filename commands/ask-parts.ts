/**
 * What `ask` needs besides applying a plan, loaded the first time it is used. `ask --apply` is the
 * hot path of agents and scripts; it must not load the question flow, the AI providers, the reports
 * or the maker (about 140 modules, zod among them) that it never runs (test/core/startup.modules.test.ts).
 * Each export keeps the exact signature of the original; the module behind it is required (Node ≥ 20.19
 * loads our ES modules synchronously) on first call.
 */
import { createRequire } from 'node:module';
import type * as AskFlow from '../machines/ask/ask.js';
import type * as AskReport from '../machines/ask/ask-report.js';
import type * as AskMaker from './ask-maker.js';
import type * as Routing from '../engine/core/routing/route.js';

const require = createRequire(import.meta.url);
const flow = () => require('../machines/ask/ask.js') as typeof AskFlow;
const report = () => require('../machines/ask/ask-report.js') as typeof AskReport;
const maker = () => require('./ask-maker.js') as typeof AskMaker;
const routing = () => require('../engine/core/routing/route.js') as typeof Routing;

export const askQuestion: typeof AskFlow.askQuestion = (...args) => flow().askQuestion(...args);
export const contextPlanFor: typeof AskFlow.contextPlanFor = (...args) => flow().contextPlanFor(...args);
export const reportActors: typeof AskReport.reportActors = (...args) => report().reportActors(...args);
export const workspaceActors: typeof AskReport.workspaceActors = (...args) => report().workspaceActors(...args);
export const REPORT_QUESTIONS: typeof AskReport.REPORT_QUESTIONS = new Proxy({} as typeof AskReport.REPORT_QUESTIONS, {
  get: (_, key) => report().REPORT_QUESTIONS[key as AskReport.ReportKind],
});
export const makePlanFromQuestion: typeof AskMaker.makePlanFromQuestion = (...args) => maker().makePlanFromQuestion(...args);
export const routeQuestion: typeof Routing.routeQuestion = (...args) => routing().routeQuestion(...args);

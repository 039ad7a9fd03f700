/**
 * The built-in `assistant` agent: the same ask flow as `assistant ask` (machines/ask/ask.ts) for answers,
 * the same make use case as `ask --maker` (machines/make/make-plan.ts) for plans, and, only in a box started with
 * --allow-apply, the plan applied through the one apply path (box/apply.ts), never destructive.
 *
 * The server's backend (config, one gpucloud client and its rate limits) is shared by every request;
 * each request gets its own deadline: its signal bounds the context reads, the AI call, the maker's
 * catalogue read and the apply.
 */
import { makePlanFromQuestion } from '../../machines/make/make-plan.js';
import type { AskBackend, AskContext } from '../../machines/ask/ask-flow.js';
import type { ChatMessage } from '../../engine/producers/ai/provider.js';
import { SafetyRefusal } from '../../engine/core/errors.js';
import { renderReport } from '../../engine/core/render/report.js';
import { askQuestion } from '../../machines/ask/ask.js';
import { recallFrom } from '../../machines/ask/ask-actors.js';
import { planConsent, type BudgetLimit, type PlanBackend } from '../../machines/apply/index.js';
import { redactText } from '../../engine/core/redact.js';
import { printable } from '../../engine/producers/acp/printable.js';
import type { Plan } from '../../schemas/plan.js';
import { BoxError, type AgentReply, type AgentRequest, type AgentRunner, type Turn } from '../agent.js';
import { applyBoxPlan } from '../apply.js';

export interface AssistantAgentOptions {
  /** What the serve command runs with: its home and environment, --sandbox, the --debug writer. */
  host: { home: string; env: Record<string, string | undefined>; sandbox: boolean; debug?: (message: string) => void };
  /** The server's backend (one per box, shared by every request) and its config. */
  session: AskBackend;
  allowApply: boolean;
  /** `--ai-profile` of `box serve`. */
  aiProfile?: string;
  /** Bound of one AI call (the request timeout). */
  aiTimeoutMs: number;
}

const toMessages = (history: readonly Turn[]): ChatMessage[] => history.map((t) => ({ role: t.role, content: t.text }));

/** The session with the request's signal: every read and run of this request ends at its deadline. */
function sessionFor(session: AskBackend, signal: AbortSignal): AskBackend {
  return { ...session, runContext: () => ({ ...session.runContext(), signal }) };
}

/** The plan as its requests ask for it and their prices, the plan's own (a model's) words after them (engine/core/plan/consent.ts). */
async function describePlan(plan: Plan, backend: PlanBackend, signal: AbortSignal): Promise<string> {
  const consent = await planConsent(backend, plan, { signal });
  return [`Plan: ${printable(redactText(plan.summary ?? `${plan.commands.length} step(s)`))}`, ...consent.lines.map((l) => printable(redactText(l)))].join('\n');
}

export function assistantAgent(opts: AssistantAgentOptions): AgentRunner {
  const { host, session } = opts;
  const budget = (): BudgetLimit | undefined => (session.config.budget?.max_hourly === undefined ? undefined : { max: session.config.budget.max_hourly, from: 'budget.max_hourly' });

  const makePlan = async (req: AgentRequest): Promise<Plan> => {
    // The request's deadline bounds the maker's reads and AI calls, as `ask --maker` is bounded by its command's.
    const context: AskContext = { backend: sessionFor(session, req.signal), home: host.home, env: host.env, signal: req.signal, sandbox: host.sandbox, ai: { profile: opts.aiProfile } };
    try {
      return await makePlanFromQuestion(context, req.message, { destroyer: false, onDebug: host.debug });
    } catch (err) {
      // The maker's hint points at --destroyer; a box has no such switch.
      if (err instanceof SafetyRefusal) throw new BoxError(403, 'refused', err.message, 'a box never makes or applies destructive plans; make and apply such a plan yourself: assistant ask --maker --destroyer "…"');
      throw err;
    }
  };

  return {
    name: 'assistant',
    kind: 'builtin',
    modes: opts.allowApply ? ['answer', 'plan', 'apply'] : ['answer', 'plan'],
    description: `the built-in agent: answers (ask flow) and plans (makers)${opts.allowApply ? '; applies its plans (--allow-apply), never destructive ones' : '; applying is off (start with --allow-apply)'}`,

    async answer(req: AgentRequest): Promise<AgentReply> {
      if (req.mode === 'answer') {
        const result = await askQuestion(
          {
            question: req.message,
            // The request carries its own turns (recall below): no shared history file.
            history: false,
            context: {
              backend: sessionFor(session, req.signal),
              home: host.home,
              env: host.env,
              signal: req.signal,
              sandbox: host.sandbox,
              ai: { profile: opts.aiProfile, policy: { timeoutMs: opts.aiTimeoutMs } },
            },
          },
          {
            observe: (event) => {
              if (event.type === 'ask.token') req.onToken?.(event.text);
            },
            actors: { recall: recallFrom(() => toMessages(req.history)) },
          },
        );
        return { answer: result.answer, meta: { providers: result.route.providers, ai_provider: result.provider, model: result.model, summarised: result.summarised } };
      }
      if (req.mode === 'apply' && !opts.allowApply) {
        throw new BoxError(403, 'apply_not_allowed', 'this box does not apply plans (it was started without --allow-apply)', 'ask for the plan with mode "plan" and apply it yourself: assistant ask --apply --plan-file plan.json');
      }
      const plan = await makePlan(req);
      const backend = sessionFor(session, req.signal);
      if (req.mode === 'plan') {
        const text = `${await describePlan(plan, backend, req.signal)}\n`;
        req.onToken?.(text);
        return { answer: text, plan };
      }
      // Priced before it runs (a scale-up's difference is gone once it is made); the apply path checks again.
      const described = await describePlan(plan, backend, req.signal);
      const outcome = await applyBoxPlan(plan, { backend, home: host.home, signal: req.signal, budget: budget() });
      const text = `${described}\n${renderReport(outcome.report)}`;
      req.onToken?.(text);
      return { answer: text, plan, report: outcome.report };
    },

    close: async () => undefined,
  };
}

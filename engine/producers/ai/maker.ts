/**
 * The maker (`ask --maker`): a request becomes a plan document. The model gets the plan JSON Schema
 * (structured output where the provider has it), the catalogue data and predefined bindings; its
 * answer is validated by the plan validator (passed in). Invalid plans go back to the model with the
 * problems (at most `maxAttempts`, default 3, attempts in total); a plan whose only problems are
 * destructive steps without --destroyer is sent back once asking to avoid them, then refused
 * (SafetyRefusal, exit 3). With the `builtin` provider the deterministic planner is used instead.
 */
import { InvalidInputError, SafetyRefusal } from '../../core/errors.js';
import { PlanSchema, type Plan } from '../../../schemas/plan.js';
import { planBuiltin, type BuiltinLookup } from '../planner/builtin.js';
import { catalogueProblems } from '../planner/catalogue-check.js';
import { extractJson } from './json.js';
import { makerSystemPrompt, planJsonSchema, type MakerCatalogue } from './maker-prompt.js';
import type { AiProvider, ChatMessage } from './provider.js';
import type { PlanProblem, ValidationResult as PlanValidation } from '../../core/plan/validate.js';

export type { MakerCatalogue };

/**
 * The maker takes the validator as a parameter (tests, MCP) but speaks the plan validator's types,
 * plus `catalogue` problems: a create naming a location, type or image the live catalogue lacks.
 */
export type ValidationProblem = PlanProblem | (Omit<PlanProblem, 'kind'> & { kind: 'catalogue' });

export type ValidationResult = Pick<PlanValidation, 'ok' | 'problems'>;

/** May be async: a surface loads the providers a plan names before validating it (engine/providers/index.ts). */
export type PlanValidator = (plan: unknown, opts: { destroyer: boolean }) => ValidationResult | Promise<ValidationResult>;

export interface MakePlanOptions {
  provider: AiProvider;
  question: string;
  catalogue: MakerCatalogue;
  /** Values of predefined bindings known in this run (DEFAULT_SSH_KEY_ID, DEFAULT_LOCATION, PROJECT_ID). */
  defaults: Record<string, string>;
  destroyer: boolean;
  validate: PlanValidator;
  signal?: AbortSignal;
  /** Attempts in total, including repairs (default 3). */
  maxAttempts?: number;
  /** Current instances/clusters/volumes; used by the builtin planner to resolve hostnames. */
  lookup?: BuiltinLookup;
  /** Progress for --debug: called after each rejected attempt. */
  onAttempt?: (event: { attempt: number; problems: ValidationProblem[] }) => void;
  /**
   * A provider other than gpucloud (the request routed to cloud_a): its instructions for the model and
   * its built-in planner, instead of gpucloud's prompt, planner and catalogue check.
   */
  target?: { system: string; builtin: () => Plan };
}

export function formatProblems(problems: ValidationProblem[]): string {
  return problems
    .map((p) => {
      const where = [p.index !== undefined ? `commands[${p.index}]` : '', p.field ?? ''].filter(Boolean).join(' ');
      return `- ${where ? `${where}: ` : ''}${p.message} [${p.kind}]`;
    })
    .join('\n');
}

function refusal(problems: ValidationProblem[], plan: unknown): SafetyRefusal {
  return new SafetyRefusal(`the plan has destructive steps and --destroyer was not given; nothing was sent:\n${formatProblems(problems)}`, {
    hint: 'if you mean it, run again with --maker --destroyer',
    details: { problems, plan },
  });
}

/** Unwraps `{"plan": {...}}` and records the question; everything else is left to the validator. */
function normalise(value: unknown, question: string): unknown {
  let v = value;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (!('commands' in o) && o.plan && typeof o.plan === 'object') v = o.plan;
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>).question === undefined) {
    v = { ...(v as Record<string, unknown>), question };
  }
  return v;
}

function asPlan(candidate: unknown): Plan {
  const parsed = PlanSchema.safeParse(candidate);
  return parsed.success ? parsed.data : (candidate as Plan);
}

export async function makePlan(options: MakePlanOptions): Promise<Plan> {
  const { provider, question, destroyer, validate } = options;
  if (provider.name === 'builtin') {
    const plan = options.target ? options.target.builtin() : planBuiltin(question, { lookup: options.lookup, catalogue: options.catalogue, defaults: options.defaults });
    const result = await validate(plan, { destroyer });
    if (result.ok) return plan;
    if (!destroyer && result.problems.every((p) => p.kind === 'destructive')) throw refusal(result.problems, plan);
    throw new InvalidInputError('plan_invalid', `the built-in planner produced an invalid plan:\n${formatProblems(result.problems)}`, {
      details: { problems: result.problems, plan },
    });
  }

  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const system = options.target?.system ?? makerSystemPrompt({ catalogue: options.catalogue, defaults: options.defaults, destroyer });
  const messages: ChatMessage[] = [{ role: 'user', content: `Request: ${question}` }];
  let askedToAvoidDestructive = false;
  let lastProblems: ValidationProblem[] = [];
  let lastCandidate: unknown;

  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const { text } = await provider.chat({
      system,
      messages,
      json: { schema: planJsonSchema(), name: 'plan' },
      temperature: 0,
      signal: options.signal,
    });
    let problems: ValidationProblem[];
    const extracted = extractJson(text);
    if (!extracted.ok) {
      problems = [{ kind: 'schema', message: extracted.message }];
      lastCandidate = text;
    } else {
      const candidate = normalise(extracted.value, question);
      lastCandidate = candidate;
      const result = await validate(candidate, { destroyer });
      // A valid plan can still name a location, type or image gpucloud does not have: that goes back too.
      const unknown: ValidationProblem[] = (options.target ? [] : catalogueProblems(candidate, options.catalogue, options.defaults)).map((p) => ({
        kind: 'catalogue',
        index: p.index,
        field: `body.${p.field}`,
        message: p.message,
      }));
      if (result.ok && !unknown.length) return asPlan(candidate);
      problems = [...result.problems, ...unknown];
      if (!problems.length) problems = [{ kind: 'schema', message: 'the plan was rejected without a reason' }];
    }
    lastProblems = problems;
    options.onAttempt?.({ attempt, problems });

    const onlyDestructive = problems.every((p) => p.kind === 'destructive');
    if (onlyDestructive && !destroyer) {
      if (askedToAvoidDestructive || attempt === maxAttempts) throw refusal(problems, lastCandidate);
      askedToAvoidDestructive = true;
      messages.push(
        { role: 'assistant', content: text },
        {
          role: 'user',
          content: `This plan has destructive steps and the user did not pass --destroyer, so it would be refused:\n${formatProblems(problems)}\nReturn a complete plan that meets the request without destructive steps. If the request cannot be met without them, return the same plan unchanged. JSON only.`,
        },
      );
      continue;
    }
    if (attempt === maxAttempts) break;
    if (problems.some((p) => p.kind === 'destructive')) askedToAvoidDestructive = true;
    messages.push(
      { role: 'assistant', content: text },
      {
        role: 'user',
        content: `The plan failed validation:\n${formatProblems(problems)}\nReturn the corrected complete plan as one JSON object.${
          problems.some((p) => p.kind === 'destructive') && !destroyer ? ' Avoid destructive steps (no --destroyer).' : ''
        }`,
      },
    );
  }

  throw new InvalidInputError(
    'ai_plan_invalid',
    `the AI provider ${provider.name}${provider.model ? ` (model ${provider.model})` : ''} did not produce a valid plan in ${maxAttempts} attempts; nothing was sent:\n${formatProblems(lastProblems)}`,
    {
      hint: 'rephrase the request, try a stronger model (--<provider>-model <name>), or ask a discovery question first',
      details: { problems: lastProblems, plan: lastCandidate },
    },
  );
}

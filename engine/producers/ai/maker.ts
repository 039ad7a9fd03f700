/**
 * The maker's rules (`ask --maker`), as pure steps the maker flow (machines/make/maker-flow.ts) runs: the
 * prompt a model drafts with (the plan JSON Schema goes as structured output, with the catalogue data
 * and predefined bindings), how a draft is judged (JSON extracted, normalised, the plan validator passed
 * in, the live catalogue), and what follows a rejected draft: the problems go back to the model (at
 * most `maxAttempts`, default 3, attempts in total); a plan whose only problems are destructive steps
 * without --destroyer is sent back once asking to avoid them, then refused (SafetyRefusal, exit 3). The
 * `builtin` provider's deterministic planner is judged once, never asked again.
 */
import { InvalidInputError, SafetyRefusal } from '../../core/errors.js';
import { PlanSchema, type Plan } from '../../../schemas/plan.js';
import { catalogueProblems } from '../../providers/gpucloud/catalogue-check.js';
import { extractJson } from './json.js';
import { makerSystemPrompt, type MakerCatalogue } from './maker-prompt.js';
import type { AiProvider, ChatMessage } from './provider.js';
import type { PlanProblem, ValidationResult as PlanValidation } from '../../core/plan/validate.js';
import type { MakerInput } from '../../core/capabilities.js';

export type { MakerCatalogue };

/**
 * The maker takes the validator as a parameter (tests, MCP) but speaks the plan validator's types,
 * plus `catalogue` problems: a create naming a location, type or image the live catalogue lacks.
 */
export type ValidationProblem = PlanProblem | (Omit<PlanProblem, 'kind'> & { kind: 'catalogue' });

export type ValidationResult = Pick<PlanValidation, 'ok' | 'problems'>;

/** May be async: a surface loads the providers a plan names before validating it (engine/providers/index.ts). */
export type PlanValidator = (plan: unknown, opts: { destroyer: boolean }) => ValidationResult | Promise<ValidationResult>;

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

/** The first message of a draft: the request. */
export function requestMessage(question: string): ChatMessage {
  return { role: 'user', content: `Request: ${question}` };
}

/** The system prompt a model drafts with: the target provider's own, else gpucloud's with the catalogue and defaults. */
export function draftSystemPrompt(input: Pick<MakerInput, 'catalogue' | 'defaults' | 'target'>, destroyer: boolean): string {
  return input.target?.system ?? makerSystemPrompt({ catalogue: input.catalogue, defaults: input.defaults, destroyer });
}

/** What one model draft is judged on: the plan it parses to (normalised), its problems and catalogue misses. */
export interface DraftVerdict {
  ok: boolean;
  /** The parsed (normalised) plan, or the raw text when it was not JSON. */
  candidate: unknown;
  problems: ValidationProblem[];
}

/**
 * Judges a model's answer: JSON extracted and normalised, the validator's problems, and (for gpucloud)
 * the names the live catalogue lacks: a valid plan naming a location, type or image gpucloud does not
 * have goes back too.
 */
export async function judgeDraft(
  text: string,
  o: { question: string; destroyer: boolean; validate: PlanValidator } & Pick<MakerInput, 'catalogue' | 'defaults' | 'target'>,
): Promise<DraftVerdict> {
  const extracted = extractJson(text);
  if (!extracted.ok) return { ok: false, candidate: text, problems: [{ kind: 'schema', message: extracted.message }] };
  const candidate = normalise(extracted.value, o.question);
  const result = await o.validate(candidate, { destroyer: o.destroyer });
  const unknown: ValidationProblem[] = (o.target ? [] : catalogueProblems(candidate, o.catalogue, o.defaults)).map((p) => ({
    kind: 'catalogue',
    index: p.index,
    field: `body.${p.field}`,
    message: p.message,
  }));
  if (result.ok && !unknown.length) return { ok: true, candidate: asPlan(candidate), problems: [] };
  const problems = [...result.problems, ...unknown];
  return { ok: false, candidate, problems: problems.length ? problems : [{ kind: 'schema', message: 'the plan was rejected without a reason' }] };
}

/** Judges the built-in planner's plan: the validator only. */
export async function judgeBuiltin(plan: Plan, o: { destroyer: boolean; validate: PlanValidator }): Promise<DraftVerdict> {
  const result = await o.validate(plan, { destroyer: o.destroyer });
  return { ok: result.ok, candidate: plan, problems: result.problems };
}

/** What happens after a rejected draft: another attempt with this message, or the end with this error. */
export type AfterRejection = { kind: 'repair'; message: ChatMessage; askedToAvoidDestructive: boolean } | { kind: 'fail'; error: Error };

/**
 * The repair rule: a plan whose only problems are destructive steps without --destroyer goes back once
 * asking to avoid them, then is refused (SafetyRefusal); other problems go back with the problems until
 * `maxAttempts` attempts (including repairs) were made; the built-in planner is never asked again.
 */
export function afterRejection(
  verdict: DraftVerdict,
  s: { attempt: number; maxAttempts: number; destroyer: boolean; askedToAvoidDestructive: boolean; builtin: boolean; provider: Pick<AiProvider, 'name' | 'model'> },
): AfterRejection {
  const { problems, candidate } = verdict;
  const onlyDestructive = problems.every((p) => p.kind === 'destructive');
  if (s.builtin) {
    if (!s.destroyer && onlyDestructive) return { kind: 'fail', error: refusal(problems, candidate) };
    return {
      kind: 'fail',
      error: new InvalidInputError('plan_invalid', `the built-in planner produced an invalid plan:\n${formatProblems(problems)}`, { details: { problems, plan: candidate } }),
    };
  }
  if (onlyDestructive && !s.destroyer) {
    if (s.askedToAvoidDestructive || s.attempt === s.maxAttempts) return { kind: 'fail', error: refusal(problems, candidate) };
    return {
      kind: 'repair',
      askedToAvoidDestructive: true,
      message: {
        role: 'user',
        content: `This plan has destructive steps and the user did not pass --destroyer, so it would be refused:\n${formatProblems(problems)}\nReturn a complete plan that meets the request without destructive steps. If the request cannot be met without them, return the same plan unchanged. JSON only.`,
      },
    };
  }
  if (s.attempt === s.maxAttempts) return { kind: 'fail', error: exhausted(s.provider, s.maxAttempts, problems, candidate) };
  const destructive = problems.some((p) => p.kind === 'destructive');
  return {
    kind: 'repair',
    askedToAvoidDestructive: s.askedToAvoidDestructive || destructive,
    message: {
      role: 'user',
      content: `The plan failed validation:\n${formatProblems(problems)}\nReturn the corrected complete plan as one JSON object.${destructive && !s.destroyer ? ' Avoid destructive steps (no --destroyer).' : ''}`,
    },
  };
}

function exhausted(provider: Pick<AiProvider, 'name' | 'model'>, maxAttempts: number, problems: ValidationProblem[], plan: unknown): InvalidInputError {
  return new InvalidInputError(
    'ai_plan_invalid',
    `the AI provider ${provider.name}${provider.model ? ` (model ${provider.model})` : ''} did not produce a valid plan in ${maxAttempts} attempts; nothing was sent:\n${formatProblems(problems)}`,
    {
      hint: 'rephrase the request, try a stronger model (--<provider>-model <name>), or ask a discovery question first',
      details: { problems, plan },
    },
  );
}

/** What to do when the built-in planner refuses a request: configure an AI provider, or pick one. */
export const BUILTIN_PLANNER_HINT = [
  'the built-in planner only understands common gpucloud requests; configure an AI provider in ~/.assistant.yaml, e.g.:',
  'ai:',
  '  default_provider: openai',
  '  providers:',
  '    openai:',
  '      api_key_env: OPENAI_API_KEY',
  'or pick a configured profile with --ai-profile <name>',
].join('\n');

/** Where a free-form question goes instead: an AI provider (one line; docs/ask.md shows the config). */
const AI_INSTEAD = 'for free-form questions configure an AI provider (ai: in ~/.assistant.yaml, see docs/ask.md) or pick one with --ai-profile <name>';

/** What to do when the built-in answers decline a question: the command that answers it, or an AI provider. */
export const BUILTIN_ANSWER_HINT = `\`assistant gpucloud list <kind>\` lists resources and \`assistant cost summary\` says what you spend; ${AI_INSTEAD}`;

/** A declined question about money: the cost commands answer it. */
export const COST_ANSWER_HINT = `\`assistant cost summary\` answers the burn, the balance and the runway, \`assistant cost detail\` what each resource costs; ${AI_INSTEAD}`;

/** A declined question about one kind of resource: its list answers it. */
export const listAnswerHint = (kind: string): string => `\`assistant gpucloud list ${kind}\` lists them; ${AI_INSTEAD}`;

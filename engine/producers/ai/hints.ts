/** Hints that show how to configure an AI provider: a ready-to-paste `~/.assistant.yaml` snippet. */
import type { AiProviderKind } from '../../../schemas/config.js';
import { PROVIDER_KINDS } from './kinds.js';
import { BUILTIN_PLANNER_HINT } from '../planner/hint.js';

function profileLines(kind: AiProviderKind, profile: string): string[] {
  const head = profile === kind ? [`    ${profile}:`] : [`    ${profile}:`, `      provider: ${kind}`];
  const info = PROVIDER_KINDS[kind];
  switch (kind) {
    case 'gemini':
      return [...head, `      model: ${info.defaultModel}`, '      region: us-central1        # optional'];
    case 'bedrock':
      return [...head, '      cloud_a_profile: default', '      region: us-east-1', `      model: ${info.defaultModel}`];
    case 'github-models':
      return [...head, `      model: ${info.defaultModel}`];
    case 'assistant-cloud':
      return [...head, '      base_url: https://<your assistant cloud>/v1', '      model: <model>', '      api_key_env: ASSISTANT_CLOUD_API_KEY'];
    case 'openai':
      return [...head, `      model: ${info.defaultModel}`, `      api_key_env: ${info.keyEnv[0]}`, '      # local_model_inference_url: http://127.0.0.1:11434/v1   # any OpenAI-compatible server'];
    default:
      return [...head, ...(info.defaultModel ? [`      model: ${info.defaultModel}`] : []), `      api_key_env: ${info.keyEnv[0] ?? 'MY_KEY_VAR'}`];
  }
}

/** A config snippet plus the shortest other way to get going for `kind`. */
export function configHint(kind: AiProviderKind, profile: string = kind): string {
  if (kind === 'builtin') return BUILTIN_PLANNER_HINT;
  const info = PROVIDER_KINDS[kind];
  const extra =
    kind === 'gemini'
      ? 'run `gcloud auth application-default login` and set GOOGLE_CLOUD_PROJECT'
      : kind === 'bedrock'
        ? 'the cloud_a profile must have access to the model in that region'
        : kind === 'github-models'
          ? 'run `gh auth login` (the token is read with `gh auth token`) or export GITHUB_TOKEN'
          : info.keyEnv.length
            ? `or export ${info.keyEnv[0]}=<key>`
            : '';
  return [
    `configure ${info.title} in ~/.assistant.yaml:`,
    'ai:',
    `  default_provider: ${kind}`,
    '  providers:',
    ...profileLines(kind, profile),
    ...(extra ? [extra] : []),
  ].join('\n');
}

/**
 * The first `ask` on a machine with no `ai:` section: the quickest way in is the offline built-in
 * provider; the lasting one is a provider in the config file.
 */
export function firstRunHint(): string {
  return [
    'try it offline now with `--ai-profile builtin` (common gpucloud questions and requests, no model), or configure an AI provider in ~/.assistant.yaml:',
    'ai:',
    '  default_provider: openai',
    '  providers:',
    '    openai:',
    '      api_key_env: OPENAI_API_KEY',
    'and export OPENAI_API_KEY=<key> (other providers: see examples/assistant.example.yaml); `default_provider: builtin` makes the offline answers the default, for `assistant mcp` too',
  ].join('\n');
}

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

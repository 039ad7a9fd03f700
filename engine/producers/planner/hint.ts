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

/** What to do when the built-in answers decline a question: an AI provider answers free-form questions. */
export const BUILTIN_ANSWER_HINT = [
  'the built-in answers (no AI model) cover lists, counts and yes/no questions about your gpucloud resources, with a status ("not attached"), a location, GPU or CPU, "cheapest"/"largest"/"newest", or one attribute of a named resource ("the IP of demo-a100"); for anything else configure an AI provider in ~/.assistant.yaml, e.g.:',
  'ai:',
  '  default_provider: openai',
  '  providers:',
  '    openai:',
  '      api_key_env: OPENAI_API_KEY',
  'or pick a configured profile with --ai-profile <name>',
].join('\n');

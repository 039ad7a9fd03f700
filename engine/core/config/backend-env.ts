/**
 * The environment variables that choose the credential backend. Apart from its client
 * (backend-store.ts, whose response schemas bring zod) so that a command can ask "is a backend
 * configured?" without loading the client.
 */
export const BACKEND_ENV_VARS = {
  apiKey: 'ASSISTANT_BACKEND_API_KEY',
  env: 'ASSISTANT_BACKEND_ENV',
  url: 'ASSISTANT_BACKEND_URL',
} as const;

/**
 * Secrets a step produced (a created access key, a password, a token), found in its output so they are
 * registered for redaction before anything writes the output anywhere: every report, journal entry,
 * progress line, MCP result and AI prompt masks them from then on. A step with `reveal: true` gets
 * them back on the CLI's stdout only (machines/run/run-plan.ts collects `StepResult.secrets`).
 *
 * Two sources: fields whose name says secret (`SecretAccessKey`, `password`, `privateKeyData`,
 * `connectionString`, `token`, …), wherever they sit; and what the step's allowlist row declares
 * (`ssm get-parameter` → `Value`, `ecr get-login-password` → the whole output).
 */
import { registerSecret } from '../../redact.js';

/** Field names that hold a secret. */
const SECRET_FIELD =
  /(secret|passw(?:or)?d|privatekey|private_key|keymaterial|connectionstring|sastoken|sessiontoken|accesstoken|refreshtoken|idtoken|authorizationtoken|authtoken|^token$|apikey|api_key|plaintext|activationcode|primarykey|secondarykey)/i;
/** …unless the name says it is about the secret, not the secret (`SecretArn`, `PasswordLastUsed`, `NextToken`). */
const NOT_SECRET_FIELD =
  /(arn|ids?|names?|type|status|date|time|lastused|lastchanged|policy|enabled|required|length|count|version|versions|location|expir\w*|rotation\w*|format|region|hint|age|stage|kms\w*|tags?|reset\w*|^(next|continuation|pagination|client|idempotency|starting|marker)token)$/i;

export interface FoundSecret {
  path: string;
  value: string;
}

/** What an allowlist row says about its output: all of it, the values of some keys, or a function that finds them. */
export type SecretDeclaration = 'all' | readonly string[] | ((data: unknown) => FoundSecret[]);

/** Every secret in a step's output: secret-named fields, the declared keys, or the whole output (`all`). */
export function findSecrets(data: unknown, declared?: SecretDeclaration): FoundSecret[] {
  const out: FoundSecret[] = typeof declared === 'function' ? declared(data) : [];
  if (declared === 'all') {
    const text = typeof data === 'string' ? data : (data as { output?: unknown } | null)?.output;
    if (typeof text === 'string' && text.trim()) out.push({ path: '$', value: text.trim() });
    else if (data !== null && data !== undefined) out.push({ path: '$', value: JSON.stringify(data) });
    return out;
  }
  const keys = new Set((Array.isArray(declared) ? declared : []).map((k: string) => k.toLowerCase()));
  const walk = (v: unknown, path: string, key: string | undefined) => {
    if (typeof v === 'string') {
      const k = key ?? '';
      if (v.length >= 6 && (keys.has(k.toLowerCase()) || (SECRET_FIELD.test(k) && !NOT_SECRET_FIELD.test(k)))) out.push({ path, value: v });
      return;
    }
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`, k);
  };
  walk(data, '$', undefined);
  return out;
}

/** Registers every secret found, so no output shows it; returns them for `StepResult.secrets`. */
export function registerStepSecrets(data: unknown, declared?: SecretDeclaration): FoundSecret[] {
  const found = findSecrets(data, declared);
  for (const s of found) registerSecret(s.value);
  return found;
}

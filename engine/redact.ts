/**
 * One place that keeps secrets out of every output. Anything that learns a secret (credential
 * resolution, token fetches, AI keys) registers it; every writer of stderr/stdout/journals/debug runs
 * text through redactText, which also masks secret-shaped fields whose value it was never told.
 */
const secrets = new Set<string>();
const MASK = '***';

/** Remembers a secret value so it is masked wherever it would appear. Short values are ignored to avoid masking noise. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value === 'string' && value.length >= 6) secrets.add(value);
}

const SECRET_KEY = /(client_secret|clientSecret|access_token|refresh_token|api_key|apiKey|auth_token|authToken|router_api_key|secret_key|password|token)/i;

const FIELD_PATTERNS: RegExp[] = [
  // "client_secret": "value"  /  client_secret=value  /  client_secret: value
  // A `<placeholder>` (as in the hint "export OPENAI_API_KEY=<key>") is documentation, not a value.
  /("?(?:client_secret|access_token|refresh_token|api_key|auth_token|router_api_key|secret_key|password|integration_token|api_token)"?\s*[:=]\s*"?)(?!<[\w .-]*>)([^"\s,&}]+)/gi,
  /(Authorization:\s*Bearer\s+)([^\s"']+)/gi,
  /(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})/g,
];

const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi;

/** Every FIELD_PATTERNS match contains one of these words; most strings contain none and skip the patterns. */
const MAY_HOLD_FIELD = /secret|token|api_key|password|bearer/i;

export function redactText(text: string): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join(MASK);
  }
  // A password in a URL's user info (redis://:pw@host, https://user:pw@host).
  if (out.includes('@')) out = out.replace(URL_PASSWORD, (_m, prefix: string) => `${prefix}${MASK}@`);
  if (!MAY_HOLD_FIELD.test(out)) return out;
  for (const pattern of FIELD_PATTERNS) out = out.replace(pattern, (_m, prefix: string) => `${prefix}${MASK}`);
  return out;
}

/** Deep copy of a value with secret-named keys masked and registered secrets removed from strings. */
export function redactValue<T>(value: T): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return key && SECRET_KEY.test(key) && v ? MASK : redactText(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x, k)]));
    }
    return v;
  };
  return walk(value) as T;
}

/** Masks a credential for display: keeps a short prefix so people can tell keys apart. */
export function maskSecret(value: string | undefined): string {
  if (!value) return '(not set)';
  if (value.length <= 8) return MASK;
  return `${value.slice(0, 4)}${MASK}`;
}

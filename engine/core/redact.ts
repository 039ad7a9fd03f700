/**
 * One place that keeps secrets out of every output. Anything that learns a secret (credential
 * resolution, token fetches, AI keys) registers it; every writer of stderr/stdout/journals/debug runs
 * text through redactText, which also masks secret-shaped fields whose value it was never told.
 */
const secrets = new Set<string>();
const MASK = '***';

/** Remembers a secret value so it is masked wherever it would appear. Short values are ignored to avoid masking noise. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value === 'string' && value.length >= 6 && !secrets.has(value)) {
    secrets.add(value);
    // A key shown unmasked until now may be this secret, and so may a value in a masked object.
    for (const cache of KEY_CACHES) cache.clear();
    masked = new WeakSet();
  }
}

/**
 * Forgets every registered secret, as a new process starts: for a program that runs several commands one
 * after another in one process (the tests' in-process CLI, test/support/in-process.ts), so a command's
 * output is masked by what that command learnt, not by what an earlier one did.
 */
export function forgetRegisteredSecrets(): void {
  secrets.clear();
  for (const cache of KEY_CACHES) cache.clear();
  masked = new WeakSet();
}

const SECRET_KEY = /(client_secret|clientSecret|access_token|refresh_token|api_key|apiKey|auth_token|authToken|router_api_key|secret_key|password|token)/i;

const FIELD_PATTERNS: RegExp[] = [
  // "client_secret": "value"  /  client_secret=value  /  client_secret: value
  // A `<placeholder>` (as in the hint "export OPENAI_API_KEY=<key>") is documentation, not a value.
  /("?(?:client_secret|access_token|refresh_token|api_key|auth_token|router_api_key|secret_key|password|integration_token|api_token)"?\s*[:=]\s*"?)(?!<[\w .-]*>)([^"\s,&}]+)/gi,
  /(Authorization:\s*Bearer\s+)([^\s"']+)/gi,
  /(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})/g,
];

/** Every FIELD_PATTERNS match contains one of these words; most strings contain none and skip the patterns. */
const MAY_HOLD_FIELD = /secret|token|api_key|password|bearer/i;

/** `scheme://user:password@` and `scheme://<token>@`: credentials embedded in URLs (base URLs, redis, git remotes). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]*)@/gi;

/** Only the registered secrets masked: for data a user asked for raw (-o json of an API record), where a `password=` in a startup script is theirs to see. */
export function redactRegistered(text: string): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join(MASK);
  }
  return out;
}

export function redactText(text: string): string {
  let out = redactRegistered(text);
  if (out.includes('://') && out.includes('@')) out = out.replace(URL_USERINFO, (_m, scheme: string, info: string) => `${scheme}${maskUserinfo(info)}@`);
  if (!MAY_HOLD_FIELD.test(out)) return out;
  for (const pattern of FIELD_PATTERNS) out = out.replace(pattern, (_m, prefix: string) => `${prefix}${MASK}`);
  return out;
}

/** Keeps a user name (`user:***`), masks a password; a lone user part is masked when it looks like a token. */
function maskUserinfo(info: string): string {
  const colon = info.indexOf(':');
  if (colon >= 0) return `${info.slice(0, colon)}:${MASK}`;
  return info.length >= 20 || WELL_KNOWN_PREFIX.test(info) ? MASK : info;
}

/**
 * Secret-looking text no one registered, as found in startup scripts, env values, SQL and AI answers:
 * assignments to secret-named variables and keys (`API_KEY=…`, `export GH_TOKEN=…`, `password: …`,
 * `aws_secret_access_key = …`, `"SecretAccessKey": "…"`), well-known key formats (sk-, ghp_/gho_/
 * github_pat_, AKIA…, xox?-, hf_, glpat-, JWTs), AWS secret access keys (40 characters of base64 with
 * upper case, lower case and digits), private key blocks, and SQL: a `PASSWORD` literal (`'…'`, `E'…'`,
 * `U&'…'`, `$$…$$`, `$tag$…$tag$`) and the value of `set_config('…', '…')`.
 *
 * Every pattern is linear on any input (a 200 KB line without a blank, bench/redact.ts): a name is read
 * once as a word and judged by `isSecretName` in code, not by nested stars a long word makes backtrack.
 */
const ASSIGNMENT = /\b([A-Za-z0-9_]+)(["']?[ \t]*[:=][ \t]*["']?)(?!<[\w .-]*>)([^\s"',;&]+)/g;
/** `aws configure set aws_secret_access_key VALUE`: the one assignment written with a blank. */
const AWS_CONFIGURE_SET = /\b((?:aws_)?secret_access_key|aws_session_token)([ \t]+)(?![:=<])([^\s"',;&]+)/gi;
/** Env-style (upper-case) names holding one of these anywhere are secret, as they always were here. */
const UPPER_SECRET = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?|AUTH/;
/** Words that make a lower- or camel-case name secret (`db_password`, `clientSecret`, `token`). */
const SECRET_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'secret', 'token', 'credential', 'credentials', 'apikey']);
/** `<word>_key` names that hold a key (`api_key`, `accessKey`, `private_key`), unlike `key` alone (a tag's key). */
const KEY_KINDS = new Set(['api', 'access', 'private', 'secret', 'account', 'signing', 'encryption', 'master', 'session', 'client']);
/** A last word that says the value is about a secret, not the secret (`token_type`, `password_source`, `api_key_env`). */
const NOT_A_VALUE = new Set([
  'id', 'ids', 'name', 'names', 'count', 'type', 'kind', 'source', 'path', 'file', 'env', 'url', 'uri', 'endpoint', 'host',
  'expires', 'expiry', 'ttl', 'length', 'len', 'size', 'hash', 'sha256', 'digest', 'prefix', 'hint', 'ref', 'reference',
  'at', 'in', 'mode', 'format', 'header', 'limit', 'usage', 'required', 'set', 'enabled', 'present', 'missing', 'version',
  'scope', 'scopes', 'method', 'policy', 'field', 'fields', 'label', 'description', 'secrets',
]);

/** Whether a variable or key name says its value is a secret. */
export function isSecretName(name: string): boolean {
  if (/[A-Z]/.test(name) && name === name.toUpperCase()) return UPPER_SECRET.test(name);
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_-]+/)
    .filter(Boolean);
  if (!words.length || NOT_A_VALUE.has(words[words.length - 1]!)) return false;
  return words.some((w, i) => SECRET_WORDS.has(w) || (w === 'key' && i > 0 && KEY_KINDS.has(words[i - 1]!)));
}

/**
 * An AWS secret access key: exactly 40 characters of [A-Za-z0-9/+] standing alone, with an upper-case
 * letter, a lower-case letter and a digit (a git SHA is 40 lower-case hex digits and is not one).
 */
const AWS_SECRET_SHAPE = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const looksLikeAwsSecret = (s: string) => /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);

/**
 * SQL string literals as PostgreSQL reads them: `'…'` ('' escapes a quote), `E'…'` (backslash escapes
 * too), `U&'…'`, and dollar quotes `$$…$$`, `$tag$…$tag$`. One cut short (a query text truncated by the
 * server) runs to the end, so its rest is masked rather than shown.
 */
const sqlLiteral = (tag: string) =>
  String.raw`(?:[Ee]'(?:[^'\\]|\\[\s\S]|'')*(?:'|$)|(?:[Uu]&)?'(?:[^']|'')*(?:'|$)|"(?:[^"]|"")*(?:"|$)|\$(?<${tag}>[A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?(?:\$\k<${tag}>\$|$))`;
const SQL_PASSWORD = new RegExp(String.raw`(\bpassword(?:\s*=\s*|\s+))` + sqlLiteral('p'), 'gi');
const SQL_SET_CONFIG = new RegExp(String.raw`(\bset_config\s*\(\s*` + sqlLiteral('n') + String.raw`\s*,\s*)` + sqlLiteral('v'), 'gi');

const WELL_KNOWN_PREFIX = /^(?:sk-|sk_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|AKIA|ASIA|xox[abprs]-|hf_|glpat-|eyJ)/;
const WELL_KNOWN_SECRETS = /\b(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{20,}|glpat-[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g;
const MAY_LOOK_SECRET = /key|token|secret|passw|pwd|passphrase|credential|auth|set_config|sk[-_]|gh[pousr]_|github_pat_|akia|asia|xox|hf_|glpat-|eyJ/i;
const MAY_HOLD_AWS_SECRET = /[A-Za-z0-9/+]{40}/;
const PRIVATE_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;

/** The SQL forms: what follows `PASSWORD`, and set_config's value, masked whole whatever the quoting. */
function maskSql(text: string): string {
  if (/password/i.test(text)) text = text.replace(SQL_PASSWORD, (_m, prefix: string) => `${prefix}'${MASK}'`);
  if (/set_config/i.test(text)) text = text.replace(SQL_SET_CONFIG, (_m, prefix: string) => `${prefix}'${MASK}'`);
  return text;
}

/** redactText plus secret-looking text: for free text shown to people (tables, AI answers and their history). */
export function maskSecretsInText(text: string): string {
  let out = redactText(text);
  if (out.length >= 40 && MAY_HOLD_AWS_SECRET.test(out)) out = out.replace(AWS_SECRET_SHAPE, (m) => (looksLikeAwsSecret(m) ? MASK : m));
  // Every pattern below needs one of these words; most strings (IDs, names, dates) have none and skip them.
  if (!MAY_LOOK_SECRET.test(out)) return out;
  if (out.includes('PRIVATE KEY-----')) out = out.replace(PRIVATE_KEY_BLOCK, MASK);
  out = maskSql(out);
  out = out.replace(WELL_KNOWN_SECRETS, MASK);
  out = out.replace(AWS_CONFIGURE_SET, (m, name: string, gap: string) => (m.includes(MASK) ? m : `${name}${gap}${MASK}`));
  return out.replace(ASSIGNMENT, (m, name: string, sep: string, value: string) => (isSecretName(name) && value !== MASK && value !== `'${MASK}'` ? `${name}${sep}${MASK}` : m));
}

/** Spans of `text` that maskSecretsInText would change (a private key block without its end runs to the end). */
export function secretSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (const s of secrets) for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + 1)) spans.push([i, i + s.length]);
  for (const re of [URL_USERINFO, ...FIELD_PATTERNS, PRIVATE_KEY_BLOCK, WELL_KNOWN_SECRETS, AWS_SECRET_SHAPE, SQL_PASSWORD, SQL_SET_CONFIG, AWS_CONFIGURE_SET]) {
    for (const m of text.matchAll(new RegExp(re.source, re.flags))) spans.push([m.index, m.index + m[0].length]);
  }
  for (const m of text.matchAll(ASSIGNMENT)) if (isSecretName(m[1]!)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

/**
 * Redacts a stream of text (an AI answer arriving token by token) as maskSecretsInText redacts the
 * whole: text is written once no secret pattern could still grow across the cut. The last few words
 * are held back, and a cut never falls inside a (possibly unfinished) match, so a secret split over
 * two tokens is still masked. `end()` writes the rest.
 */
export function createRedactingStream(write: (text: string) => void): { write(chunk: string): void; end(): void } {
  let buf = '';
  const HELD_WORDS = 3;
  // Text without blanks (a log line of JSON, a base64 blob) is held back only up to MAX_HELD characters,
  // then written but for a tail longer than any secret: looking at an ever longer buffer on every
  // chunk took seconds for a few hundred kilobytes.
  const MAX_HELD = 2048;
  const TAIL = 256;
  return {
    write(chunk: string) {
      buf += chunk;
      let cut: number;
      if (buf.length > MAX_HELD) cut = buf.length - TAIL;
      else {
        const starts = [...buf.matchAll(/\s+/g)].map((m) => m.index + m[0].length);
        if (starts.length < HELD_WORDS) return;
        cut = starts[starts.length - HELD_WORDS]!;
      }
      for (let moved = true; moved; ) {
        moved = false;
        for (const [a, b] of secretSpans(buf)) {
          if (a < cut && cut < b) {
            cut = a;
            moved = true;
          }
        }
      }
      if (cut <= 0) return;
      write(maskSecretsInText(buf.slice(0, cut)));
      buf = buf.slice(cut);
    },
    end() {
      if (buf) write(maskSecretsInText(buf));
      buf = '';
    },
  };
}

/**
 * Registered secrets removed from strings and secret-named keys masked. Copy-on-write: an object or
 * array nothing under which changed is returned as is, so redacting a large result costs a walk, not
 * a deep copy (MCP results, run reports, ask context). Callers must not mutate the result.
 */
export function redactValue<T>(value: T): T {
  return redactWalk(value, undefined, (v, key) => (key && SECRET_KEY.test(key) && v ? MASK : redactText(v)), undefined, REDACTED_KEYS) as T;
}

/**
 * For tables shown to people: redactValue plus secret-looking values in free text (startup scripts,
 * env values): `API_KEY=…` lines, well-known key formats, plain env entries with a secret-named name.
 * `-o json|yaml` of a resource the user listed or got explicitly stays raw (see README, Secrets).
 */
export function maskSecretLooking<T>(value: T): T {
  const out = redactWalk(value, undefined, maskLooking, undefined, MASKED_KEYS, masked);
  if (out && typeof out === 'object') masked.add(out);
  return out as T;
}

const maskLooking: StringMask = (v, key, parent) => {
  if (key && SECRET_KEY.test(key) && v) return MASK;
  // gpucloud env entries: {type: plain, name: HF_TOKEN, value_or_reference_to_secret: "hf_…"}; a secret-type value is a secret's name.
  if (parent && (key === 'value_or_reference_to_secret' || key === 'value') && parent.type !== 'secret' && typeof parent.name === 'string' && SECRET_NAME.test(parent.name) && v) return MASK;
  return maskSecretsInText(v);
};

/**
 * What maskSecretLooking returned (objects and arrays): masking one of them again returns it as it is.
 * A result shown twice (an MCP list's records: its table, then the structured result the server masks
 * on its way out) is then walked once. Sound because what a walk masks depends only on the value below
 * it (a string's key and parent are inside it), and results are not mutated (see redactValue);
 * forgotten when a secret is registered.
 */
let masked = new WeakSet<object>();

/**
 * Keys as each walk shows them: API records repeat a few dozen keys thousands of times, so each is
 * masked once, not once per record. Emptied when a secret is registered, and when they grow large
 * (keys that are data, such as IDs in a map).
 */
const REDACTED_KEYS = new Map<string, string>();
const MASKED_KEYS = new Map<string, string>();
const KEY_CACHES = [REDACTED_KEYS, MASKED_KEYS];
const KEY_CACHE_MAX = 10_000;

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIAL|AUTH/i;

/** Assignment that keeps an own `__proto__` key (JSON.parse creates them) an own property. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

type StringMask = (value: string, key: string | undefined, parent: Record<string, unknown> | undefined) => string;

/**
 * The walk under redactValue and maskSecretLooking. Keys are masked as text too (a token used as a map's
 * key is still a token); a key seen before in the same walk is looked up, not masked again.
 */
function redactWalk(v: unknown, key: string | undefined, mask: StringMask, parent: Record<string, unknown> | undefined, keys: Map<string, string>, done?: WeakSet<object>): unknown {
  if (typeof v === 'string') return mask(v, key, parent);
  if (done && v && typeof v === 'object' && done.has(v)) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      const y = redactWalk(x, undefined, mask, undefined, keys, done);
      if (out) out.push(y);
      else if (y !== x) {
        out = v.slice(0, i);
        out.push(y);
      }
    }
    return out ?? v;
  }
  if (v && typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    const names = Object.keys(obj);
    for (let i = 0; i < names.length; i++) {
      const k = names[i]!;
      let shown = keys.get(k);
      if (shown === undefined) {
        if (keys.size >= KEY_CACHE_MAX) keys.clear();
        keys.set(k, (shown = mask(k, undefined, undefined)));
      }
      const x = obj[k];
      const y = redactWalk(x, k, mask, obj, keys, done);
      if (out) setOwn(out, shown, y);
      else if (y !== x || shown !== k) {
        out = {};
        // Keys before this one were shown as they are (the cache may have been emptied meanwhile).
        for (let j = 0; j < i; j++) setOwn(out, names[j]!, obj[names[j]!]);
        setOwn(out, shown, y);
      }
    }
    return out ?? v;
  }
  return v;
}

/** Masks a credential for display: none of its characters, only whether it is set. */
export function maskSecret(value: string | undefined): string {
  return value ? MASK : '(not set)';
}

/**
 * The AI providers the scan reports: every profile of `ai.providers`, the default provider, and any
 * provider whose well-known key variable is set. For each: whether it is configured and where its key
 * would come from (engine/producers/ai/resolve.ts's order: profile `api_key`, the variable named by
 * `api_key_env`, the provider's well-known variable), and with `--check` whether it answers a read-only
 * request (its model list), never a chat.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AiProviderKind } from '../../../schemas/config.js';
import { PROVIDER_KINDS } from '../ai/kinds.js';
import { resolveApiKey, selectAiProfile, type SelectedProfile } from '../ai/resolve.js';
import { maskSecretsInText, redactText, registerSecret } from '../../core/redact.js';
import { childEnvironment } from '../../core/process/child-env.js';
import type { SourceInput, SourceKind } from '../../core/capabilities.js';
import { tidyPath } from '../../core/credential-sources.js';
import { clean, failureLine, runChild } from '../../core/process/run-child.js';

export interface AiEntry {
  profile: string;
  kind: AiProviderKind;
  default: boolean;
  configured: boolean;
  /** Where the key (or keyless credentials) would come from: names and paths only. */
  source?: { kind: SourceKind; where: string };
  note?: string;
  checked: boolean;
  answers: boolean | null;
  detail?: string;
}

interface Resolved {
  entry: AiEntry;
  sel: SelectedProfile;
  key?: string;
  baseUrl?: string;
}

function gcloudDir(input: SourceInput): string {
  if (input.env.CLOUDSDK_CONFIG) return input.env.CLOUDSDK_CONFIG;
  if (input.os === 'windows') return join(input.env.APPDATA ?? input.home, 'gcloud');
  return join(input.env.XDG_CONFIG_HOME || join(input.home, '.config'), 'gcloud');
}

function ghLoggedIn(input: SourceInput): string | undefined {
  const dir = input.env.GH_CONFIG_DIR || (input.os === 'windows' ? join(input.env.APPDATA ?? input.home, 'GitHub CLI') : join(input.env.XDG_CONFIG_HOME || join(input.home, '.config'), 'gh'));
  const hosts = join(dir, 'hosts.yml');
  try {
    return /oauth_token|user:/.test(readFileSync(hosts, 'utf8')) ? hosts : undefined;
  } catch {
    return undefined;
  }
}

function resolveEntry(input: SourceInput, name: string | undefined, isDefault: boolean): Resolved {
  const ai = input.config.ai;
  const sel = selectAiProfile(ai, name);
  const info = PROVIDER_KINDS[sel.kind];
  const entry: AiEntry = { profile: sel.name, kind: sel.kind, default: isDefault, configured: false, checked: false, answers: null };
  const profileKey = `ai.providers.${sel.name}`;
  const out: Resolved = { entry, sel };
  if (info.protocol === 'builtin') {
    entry.configured = true;
    entry.note = 'offline planner: needs no key, answers no free-form questions';
    return out;
  }
  const key = resolveApiKey(sel, undefined, input.env);
  if (key.key) {
    registerSecret(key.key);
    out.key = key.key;
    entry.configured = true;
    entry.source =
      key.source === 'profile'
        ? { kind: 'config', where: `${profileKey}.api_key` }
        : { kind: 'env', where: `${key.envName}${key.source === 'api_key_env' ? ` (${profileKey}.api_key_env)` : ''}` };
  }
  if (info.protocol === 'openai') {
    out.baseUrl =
      sel.profile.base_url ??
      sel.profile.local_model_inference_url ??
      (sel.kind === 'openai' ? input.env.OPENAI_BASE_URL : sel.kind === 'assistant-cloud' ? input.env.ASSISTANT_CLOUD_BASE_URL : undefined) ??
      info.baseUrl;
    if (!entry.configured && sel.kind === 'openai' && sel.profile.local_model_inference_url && !sel.profile.base_url) {
      entry.configured = true;
      entry.source = { kind: 'config', where: `${profileKey}.local_model_inference_url (no key needed)` };
    }
    if (!entry.configured && sel.kind === 'github-models') {
      const hosts = ghLoggedIn(input);
      if (hosts) {
        entry.configured = true;
        entry.source = { kind: 'cli-profile', where: `gh auth token (${tidyPath(hosts, input.home)})` };
      }
    }
    if (entry.configured && !out.baseUrl) {
      entry.configured = false;
      entry.note = `needs base_url (${profileKey}.base_url)`;
    }
  } else if (info.protocol === 'anthropic') {
    out.baseUrl = sel.profile.base_url ?? info.baseUrl;
  } else if (info.protocol === 'vertex') {
    const adcEnv = input.env.GOOGLE_APPLICATION_CREDENTIALS;
    const adcFile = join(gcloudDir(input), 'application_default_credentials.json');
    if (adcEnv && existsSync(adcEnv)) entry.source = { kind: 'env', where: 'GOOGLE_APPLICATION_CREDENTIALS' };
    else if (existsSync(adcFile)) entry.source = { kind: 'file', where: tidyPath(adcFile, input.home) };
    entry.configured = Boolean(entry.source);
    if (!entry.configured) entry.note = 'no application-default credentials: run `gcloud auth application-default login`';
  } else if (info.protocol === 'bedrock') {
    const region = sel.profile.region ?? input.env.AWS_REGION ?? input.env.AWS_DEFAULT_REGION;
    const profile = sel.profile.cloud_a_profile;
    entry.configured = Boolean(region);
    entry.source = profile
      ? { kind: 'cli-profile', where: `aws profile [${profile}] (${profileKey}.cloud_a_profile)` }
      : { kind: 'cli-profile', where: 'the aws CLI credentials (environment or default profile)' };
    entry.note = region ? `region ${region}` : `needs a region (${profileKey}.region or AWS_REGION)`;
  }
  if (!entry.configured && !entry.note && info.keyEnv.length) {
    entry.note = `no key: set ${profileKey}.api_key or api_key_env, or export ${info.keyEnv.join(' or ')}`;
  }
  return out;
}

/** The AI providers worth reporting, configured or default. */
export function scanAi(input: SourceInput): { entries: AiEntry[]; resolved: Resolved[]; problems: string[] } {
  const ai = input.config.ai;
  const problems: string[] = [];
  const resolved: Resolved[] = [];
  const seen = new Set<string>();
  const add = (name: string | undefined, isDefault: boolean) => {
    try {
      const r = resolveEntry(input, name, isDefault);
      if (seen.has(r.entry.profile)) return;
      seen.add(r.entry.profile);
      resolved.push(r);
    } catch (err) {
      problems.push(maskSecretsInText(redactText((err as Error).message)));
    }
  };
  add(undefined, true);
  for (const name of Object.keys(ai?.providers ?? {})) add(name, false);
  for (const [kind, info] of Object.entries(PROVIDER_KINDS)) {
    if (info.keyEnv.some((n) => input.env[n]?.trim()) && !resolved.some((r) => r.entry.kind === kind)) add(kind, false);
  }
  return { entries: resolved.map((r) => r.entry), resolved, problems };
}

export interface AiCheckOptions {
  input: SourceInput;
  signal: AbortSignal;
  timeoutMs: number;
  toolPath(name: string): string | undefined;
  fetchImpl?: typeof fetch;
  debug?: (line: string) => void;
}

/** Asks each configured provider for its model list (or the equivalent read) and records whether it answered. */
export async function checkAi(resolved: Resolved[], opts: AiCheckOptions): Promise<void> {
  await Promise.all(resolved.filter((r) => r.entry.configured).map((r) => checkOne(r, opts)));
}

async function checkOne(r: Resolved, opts: AiCheckOptions): Promise<void> {
  const { entry, sel } = r;
  const info = PROVIDER_KINDS[sel.kind];
  entry.checked = true;
  try {
    if (info.protocol === 'builtin') {
      entry.answers = true;
      entry.detail = 'offline';
      return;
    }
    if (info.protocol === 'vertex') {
      entry.checked = false;
      entry.detail = 'not checked: application-default credentials are present; the first `ask` uses them';
      return;
    }
    if (info.protocol === 'bedrock') {
      const aws = opts.toolPath('aws');
      if (!aws) {
        entry.checked = false;
        entry.detail = 'not checked: the aws CLI is not installed';
        return;
      }
      const region = sel.profile.region ?? opts.input.env.AWS_REGION ?? opts.input.env.AWS_DEFAULT_REGION;
      const args = ['bedrock', 'list-foundation-models', '--output', 'json', ...(region ? ['--region', region] : []), ...(sel.profile.cloud_a_profile ? ['--profile', sel.profile.cloud_a_profile] : [])];
      const env = childEnvironment(opts.input.env, { prefixes: ['AWS_'], set: { AWS_PAGER: '' } });
      const run = await runChild(aws, args, { env, timeoutMs: opts.timeoutMs, signal: opts.signal });
      entry.answers = run.code === 0;
      entry.detail = run.code === 0 ? 'list-foundation-models answered' : failureLine(run, opts.timeoutMs);
      return;
    }
    let key = r.key;
    if (!key && sel.kind === 'github-models') {
      const gh = opts.toolPath('gh');
      if (!gh) throw new Error('the gh CLI is not installed');
      const run = await runChild(gh, ['auth', 'token'], { env: childEnvironment(opts.input.env, { names: ['GH_CONFIG_DIR', 'GH_HOST'] }), timeoutMs: opts.timeoutMs, signal: opts.signal });
      key = run.code === 0 ? run.stdout.trim() : undefined;
      if (key) registerSecret(key);
      if (!key) throw new Error(`\`gh auth token\` failed: ${failureLine(run, opts.timeoutMs)}`);
    }
    const base = (r.baseUrl ?? '').replace(/\/+$/, '');
    const url =
      info.protocol === 'anthropic' ? `${base}/v1/models?limit=1` : sel.kind === 'github-models' && !sel.profile.base_url ? `${new URL(base).origin}/catalog/models` : `${base}/models`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (info.protocol === 'anthropic') {
      if (key) headers['x-api-key'] = key;
      headers['anthropic-version'] = '2023-06-01';
    } else if (key) headers.authorization = `Bearer ${key}`;
    const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]);
    const res = await (opts.fetchImpl ?? fetch)(url, { headers, signal, redirect: 'error' });
    await res.body?.cancel().catch(() => undefined);
    opts.debug?.(`onboarding: ai ${entry.profile}: GET ${url} -> ${res.status}`);
    entry.answers = res.ok;
    entry.detail = res.ok ? `GET ${new URL(url).pathname} answered` : res.status === 401 || res.status === 403 ? `the key was refused (HTTP ${res.status})` : `HTTP ${res.status}`;
  } catch (err) {
    if (opts.signal.aborted) throw err;
    entry.answers = false;
    const e = err as Error;
    entry.detail = e.name === 'TimeoutError' ? `no answer within ${Math.round(opts.timeoutMs / 1000)} s` : clean(causeText(e));
  }
}

function causeText(err: Error): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${err.message} (${cause.code})` : err.message;
}

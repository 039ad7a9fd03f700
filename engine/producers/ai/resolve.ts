/**
 * Picks the AI provider for a command: profile (`--ai-profile`, else `ai.default_provider`, else
 * openai), model (`--<provider>-model` > profile `model` > default / auto-detect), key
 * (flag > profile `api_key` > env named by `api_key_env` > well-known env var; SPEC 2.5) and
 * endpoint (profile `base_url` / `local_model_inference_url` > default). Every key is registered
 * for redaction the moment it is known.
 */
import { execFile } from 'node:child_process';
import type { AiConfig, AiProviderKind, AiProviderProfile } from '../../../schemas/config.js';
import { InvalidInputError } from '../../core/errors.js';
import { isLoopbackUrl, NotInSandbox } from '../../core/hermetic.js';
import { withoutSecrets } from '../../core/process/env.js';
import { registerSecret } from '../../core/redact.js';
import { PolicyProvider, type Transport } from './call-policy.js';
import { AiNotConfiguredError } from './errors.js';
import { configHint, firstRunHint } from './hints.js';
import { isProviderKind, PROVIDER_KINDS } from './kinds.js';
import { DEFAULT_AI_CALL_POLICY, type AiCallPolicy, type AiProvider, type ChatResult } from './provider.js';
import { AnthropicTransport } from './providers/anthropic.js';
import { BedrockTransport } from './providers/bedrock.js';
import { NO_KEY, OpenAiCompatibleTransport, type OpenAiConnection } from './providers/openai-compatible.js';
import { connectVertex, vertexModelName } from './providers/vertex.js';

export type Env = Record<string, string | undefined>;

/** Runs a command and resolves with its stdout (used for `gh auth token`). */
export type RunCommand = (command: string, args: string[]) => Promise<string>;

export interface ResolveAiProviderOptions {
  /** The `ai` section of the config (defaults applied or not). */
  aiConfig?: Partial<AiConfig>;
  /** `--ai-profile <name>`. */
  profileName?: string;
  /** `--<provider>-model <name>` values keyed by provider value (or profile name). */
  modelOverrides?: Record<string, string | undefined>;
  /** Provider-specific key flags keyed by provider value (or profile name). */
  keyFlags?: Record<string, string | undefined>;
  env: Env;
  fetchImpl?: typeof fetch;
  /** Overrides of the retry/timeout policy (tests, `--timeout`). */
  policy?: Partial<AiCallPolicy>;
  /** Replaces running `gh auth token` (tests). */
  runCommand?: RunCommand;
  debug?: (line: string) => void;
  /** `--sandbox`: the endpoint must be on this machine (engine/core/hermetic.ts). */
  sandbox?: boolean;
}

export interface SelectedProfile {
  /** Profile name (`ai.providers.<name>`), or the provider value when no profile exists. */
  name: string;
  kind: AiProviderKind;
  profile: AiProviderProfile;
}

function profilesHint(ai: Partial<AiConfig> | undefined): string {
  const names = Object.keys(ai?.providers ?? {});
  return names.length ? `configured AI profiles: ${names.join(', ')}` : 'no AI profiles are configured (ai.providers is empty)';
}

/** Which profile a command uses (SPEC 2.5: `--ai-profile`, `ai.default_provider`, fallback openai). */
export function selectAiProfile(ai: Partial<AiConfig> | undefined, profileName?: string): SelectedProfile {
  const providers = ai?.providers ?? {};
  const kindOf = (name: string, profile: AiProviderProfile): AiProviderKind => {
    if (profile.provider) return profile.provider;
    if (isProviderKind(name)) return name;
    throw new InvalidInputError('ai_profile_invalid', `AI profile '${name}' does not say which provider it uses`, {
      hint: `add \`provider: <one of ${Object.keys(PROVIDER_KINDS).join(', ')}>\` to ai.providers.${name}`,
    });
  };
  if (profileName) {
    const profile = providers[profileName];
    if (profile) return { name: profileName, kind: kindOf(profileName, profile), profile };
    if (isProviderKind(profileName)) return { name: profileName, kind: profileName, profile: {} };
    throw new InvalidInputError('ai_profile_unknown', `no AI profile named '${profileName}'`, {
      hint: `${profilesHint(ai)}; a profile is a key under ai.providers in ~/.assistant.yaml, or use a provider value (${Object.keys(PROVIDER_KINDS).join(', ')})`,
    });
  }
  const wanted: AiProviderKind = ai?.default_provider ?? 'openai';
  const own = providers[wanted];
  if (own) return { name: wanted, kind: kindOf(wanted, own), profile: own };
  const byKind = Object.entries(providers).find(([, p]) => p.provider === wanted);
  if (byKind) return { name: byKind[0], kind: wanted, profile: byKind[1] };
  return { name: wanted, kind: wanted, profile: {} };
}

export type KeySource = 'flag' | 'profile' | 'api_key_env' | 'env' | 'gh' | 'none';

/** Key resolution order of SPEC 2.5; returns where the key came from (never the key in messages). */
export function resolveApiKey(
  sel: SelectedProfile,
  keyFlags: Record<string, string | undefined> | undefined,
  env: Env,
): { key?: string; source: KeySource; envName?: string } {
  const nonEmpty = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);
  // '*': --api-key-env, for whichever profile was chosen; then the per-vendor flags.
  const flag = nonEmpty(keyFlags?.['*']) ?? nonEmpty(keyFlags?.[sel.name]) ?? nonEmpty(keyFlags?.[sel.kind]);
  if (flag) return { key: flag, source: 'flag' };
  const fromProfile = nonEmpty(sel.profile.api_key);
  if (fromProfile) return { key: fromProfile, source: 'profile' };
  if (sel.profile.api_key_env) {
    const v = nonEmpty(env[sel.profile.api_key_env]);
    if (v) return { key: v, source: 'api_key_env', envName: sel.profile.api_key_env };
  }
  for (const name of PROVIDER_KINDS[sel.kind].keyEnv) {
    const v = nonEmpty(env[name]);
    if (v) return { key: v, source: 'env', envName: name };
  }
  return { source: 'none' };
}

/** Model resolution: `--model` > `--<provider>-model` > profile `model` > the provider's default (may be empty = auto-detect). */
export function resolveModel(sel: SelectedProfile, overrides: Record<string, string | undefined> | undefined): string {
  const pick = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);
  // '*': --model, for whichever profile was chosen; then the per-vendor flags.
  return pick(overrides?.['*']) ?? pick(overrides?.[sel.kind]) ?? pick(overrides?.[sel.name]) ?? pick(sel.profile.model) ?? PROVIDER_KINDS[sel.kind].defaultModel;
}

/**
 * Runs a helper command (`gh auth token`) in the command's environment (its HOME, PATH, GH_CONFIG_DIR),
 * never the process's, less this tool's secrets (DESIGN §7: AI keys, gpucloud credentials). gh runs only
 * when neither GITHUB_TOKEN nor GH_TOKEN is set (kinds.ts keyEnv), so it loses no token of its own.
 */
const runCommandIn =
  (env: Env): RunCommand =>
  (command, args) =>
    new Promise((resolve, reject) => {
      execFile(command, args, { env: withoutSecrets(env), timeout: 10_000, windowsHide: true }, (err, stdout) => (err ? reject(err) : resolve(String(stdout))));
    });

/** The provider that does not chat: `builtin` plans with engine/producers/planner instead. */
class BuiltinProvider implements AiProvider {
  readonly name = 'builtin' as const;
  readonly model = 'builtin-planner';
  constructor(readonly profile: string) {}
  describe(): string {
    return 'builtin (deterministic planner, offline)';
  }
  async chat(): Promise<ChatResult> {
    throw new AiNotConfiguredError('the built-in planner cannot answer free-form questions or summarise; it only builds plans for common gpucloud requests', {
      hint: configHint('builtin'),
    });
  }
}

/** The profile a command uses: `--ai-profile`, else, in the sandbox with no AI configured, the built-in provider. */
export function profileForCommand(aiProfile: string | undefined, sandbox: boolean | undefined, ai: Partial<AiConfig> | undefined): string | undefined {
  return aiProfile ?? (sandbox && !ai?.default_provider ? 'builtin' : undefined);
}

export function resolveAiProvider(options: ResolveAiProviderOptions): AiProvider {
  const { aiConfig, env } = options;
  const sel = selectAiProfile(aiConfig, options.profileName);
  const info = PROVIDER_KINDS[sel.kind];
  const policy: AiCallPolicy = { ...DEFAULT_AI_CALL_POLICY, ...options.policy };
  const sdkTimeoutMs = policy.timeoutMs + 5_000;
  if (info.protocol === 'builtin') return new BuiltinProvider(sel.name);

  const model = resolveModel(sel, options.modelOverrides);
  const resolved = resolveApiKey(sel, options.keyFlags, env);
  if (resolved.key) registerSecret(resolved.key);
  options.debug?.(`ai: provider ${sel.kind} profile ${sel.name} model ${model || '(auto)'} key from ${resolved.source}${resolved.envName ? ` ${resolved.envName}` : ''}`);
  const nothingConfigured = !options.profileName && !aiConfig?.default_provider && Object.keys(aiConfig?.providers ?? {}).length === 0;
  const missingKey = () =>
    nothingConfigured
      ? new AiNotConfiguredError('no AI provider is configured (no `ai:` section in the config and no API key in the environment)', { hint: firstRunHint() })
      : new AiNotConfiguredError(
      `no API key for the AI provider ${sel.kind}${sel.name !== sel.kind ? ` (profile ${sel.name})` : ''}: set ai.providers.${sel.name}.api_key or api_key_env${info.keyEnv.length ? `, or export ${info.keyEnv.join(' or ')}` : ''}`,
      { hint: configHint(sel.kind, sel.name) },
    );

  // Under --sandbox the model must run on this machine (a local OpenAI-compatible server); a cloud model
  // (or an endpoint that is not a loopback URL) is refused before anything is sent.
  const endpoint =
    info.protocol === 'openai'
      ? (sel.profile.base_url ??
        sel.profile.local_model_inference_url ??
        (sel.kind === 'openai' ? env.OPENAI_BASE_URL : sel.kind === 'assistant-cloud' ? env.ASSISTANT_CLOUD_BASE_URL : undefined) ??
        info.baseUrl)
      : (sel.profile.base_url ?? info.baseUrl);
  if (options.sandbox && !(endpoint && isLoopbackUrl(endpoint))) {
    throw new NotInSandbox(
      `the AI provider ${sel.kind}${sel.name !== sel.kind ? ` (profile ${sel.name})` : ''} is not on this machine (${endpoint ?? 'its cloud endpoint'})`,
      'use --ai-profile builtin (answers and plans offline), a model served on this machine (ai.providers.<name>.local_model_inference_url: http://127.0.0.1:…), or run without --sandbox',
    );
  }

  let transport: Transport;
  switch (info.protocol) {
    case 'anthropic': {
      if (!resolved.key) throw missingKey();
      transport = new AnthropicTransport({
        profile: sel.name,
        model,
        apiKey: resolved.key,
        baseURL: endpoint!,
        fetchImpl: options.fetchImpl,
        sdkTimeoutMs,
      });
      break;
    }
    case 'bedrock': {
      const region = sel.profile.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
      if (!region) {
        throw new AiNotConfiguredError('the AI provider bedrock needs a region', { hint: configHint('bedrock', sel.name) });
      }
      transport = new BedrockTransport({ profile: sel.name, model, region, awsProfile: sel.profile.cloud_a_profile, endpoint: sel.profile.base_url });
      break;
    }
    case 'vertex': {
      const location = sel.profile.region ?? env.GOOGLE_CLOUD_LOCATION ?? 'us-central1';
      transport = new OpenAiCompatibleTransport({
        name: sel.kind,
        profile: sel.name,
        model: model ? vertexModelName(model) : model,
        initialJsonMode: info.initialJsonMode,
        connect: () => connectVertex({ profile: sel.name, location, env, baseUrl: sel.profile.base_url }),
        endpointLabel: sel.profile.base_url ?? `cloud model platform (${location})`,
        fetchImpl: options.fetchImpl,
        sdkTimeoutMs,
      });
      break;
    }
    case 'openai': {
      const baseURL = endpoint;
      if (!baseURL) {
        throw new AiNotConfiguredError(`the AI provider ${sel.kind} needs base_url`, { hint: configHint(sel.kind, sel.name) });
      }
      const isLocal = sel.kind === 'openai' && Boolean(sel.profile.local_model_inference_url) && !sel.profile.base_url;
      let apiKey: OpenAiConnection['apiKey'];
      if (resolved.key) apiKey = resolved.key;
      else if (isLocal) apiKey = NO_KEY; // local OpenAI-compatible servers usually take no key
      else if (sel.kind === 'github-models') apiKey = ghTokenGetter(sel, options.runCommand ?? runCommandIn(env));
      else throw missingKey();
      const organization = sel.kind === 'openai' && !isLocal ? env.OPENAI_ORG_ID : undefined;
      const project = sel.kind === 'openai' && !isLocal ? env.OPENAI_PROJECT_ID : undefined;
      transport = new OpenAiCompatibleTransport({
        name: sel.kind,
        profile: sel.name,
        model,
        initialJsonMode: info.initialJsonMode,
        connect: async () => ({ baseURL, apiKey, organization, project }),
        endpointLabel: baseURL,
        fetchImpl: options.fetchImpl,
        sdkTimeoutMs,
      });
      break;
    }
  }
  return new PolicyProvider(transport, policy, options.debug);
}

/** The github-models token comes from the code host's CLI; asked once, on first use. */
function ghTokenGetter(sel: SelectedProfile, run: RunCommand): () => Promise<string> {
  let token: Promise<string> | undefined;
  return () => {
    token ??= run('gh', ['auth', 'token']).then(
      (out) => {
        const t = out.trim();
        if (!t) throw new Error('`gh auth token` printed nothing');
        registerSecret(t);
        return t;
      },
    ).catch((err: unknown) => {
      token = undefined;
      const why = (err as { code?: string })?.code === 'ENOENT' ? 'the gh CLI is not installed' : `\`gh auth token\` failed: ${err instanceof Error ? err.message : String(err)}`;
      throw new AiNotConfiguredError(`no token for the AI provider github-models: ${why}`, { hint: configHint('github-models', sel.name), cause: err });
    });
    return token;
  };
}

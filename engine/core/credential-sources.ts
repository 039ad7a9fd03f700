/**
 * Where each provider of the project gets its credentials, in the order the project itself resolves
 * them, and how each is verified cheaply and read-only. This is the one table of credential sources:
 * `{ provider, sources(input) → [{ kind, where, present }], check? }` per provider, shaped to move into
 * the provider contract as a `credentials` capability.
 *
 * Sources report names and paths only, never values: a config key, an environment variable's name, a
 * file's path, a CLI profile's name. A value is read only to decide whether it is set (and registered
 * with the redactor on the way, as the resolvers do).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ini from 'ini';
import { emptyConfig, type Config } from '../../../schemas/config.js';
import { resolveAwsTarget } from '../../providers/cloud_a/provider.js';
import { gpucloudCredentialsFilePath, GPUCLOUD_ENV, NoCredentialsError, resolveGpuCloudCredentials } from '../../core/config/credentials.js';
import { expandHome, kubeconfigPaths, loadKubeconfig, selectContext } from '../../core/kubeconfig/kubeconfig.js';
import { registerSecret } from '../../core/redact.js';
import type { CheckInput, CheckResult, CredentialSource, PlanReader, SourceInput, SourceKind } from './check-types.js';

export type { CheckInput, CheckResult, CredentialSource, PlanReader, SourceInput, SourceKind };

export interface NextStep {
  why: string;
  /** The exact command to run; absent when the step is an edit of a file. */
  command?: string;
}

export interface ProviderCredentials {
  provider: string;
  title: string;
  sources(input: SourceInput): CredentialSource[];
  /** A cheap, read-only verification of the source that would be used. */
  check?: (input: CheckInput) => Promise<CheckResult>;
  /** What to do when nothing is configured. */
  setup(input: SourceInput): NextStep[];
  /** What to do when the credentials are configured but refused. */
  login?(input: SourceInput, sources: CredentialSource[]): NextStep[];
}

// ---------------------------------------------------------------------------------------------
// Small readers (presence only; values are registered as secrets and dropped)

function set(value: string | undefined | null): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/** Whether env vars are set; the values of the secret ones (not the `_ID` halves) are registered for redaction. */
function envSet(env: Record<string, string | undefined>, ...names: string[]): boolean {
  for (const n of names) if (set(env[n]) && /SECRET|TOKEN|KEY|PASSWORD/.test(n) && !/_ID$/.test(n)) registerSecret(env[n]);
  return names.every((n) => set(env[n]));
}

function halfNote(env: Record<string, string | undefined>, names: string[]): string | undefined {
  const setNames = names.filter((n) => set(env[n]));
  if (setNames.length === 0 || setNames.length === names.length) return undefined;
  const missing = names.filter((n) => !set(env[n]));
  return `${setNames.join(', ')} set but ${missing.join(', ')} missing`;
}

/** `~/x` for paths under home, so reports stay short and do not spell out the user's home. */
export function tidyPath(path: string, home: string): string {
  return home && (path === home || path.startsWith(home + '/') || path.startsWith(home + '\\')) ? `~${path.slice(home.length)}` : path;
}

function fileExists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** INI sections of a file (aws, gcloud), or undefined when it cannot be read. */
function iniSections(path: string): Map<string, Record<string, unknown>> | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const out = new Map<string, Record<string, unknown>>();
  try {
    const parsed = ini.parse(text) as Record<string, unknown>;
    const walk = (obj: Record<string, unknown>, prefix: string) => {
      for (const [k, v] of Object.entries(obj)) {
        if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
        const name = prefix ? `${prefix}.${k}` : k;
        out.set(name, v as Record<string, unknown>);
        walk(v as Record<string, unknown>, name);
      }
    };
    walk(parsed, '');
  } catch {
    return undefined;
  }
  return out;
}

/** Marks the first present source (of `kinds`, when given) as the one used. */
function markUsed(sources: CredentialSource[], pick?: (s: CredentialSource) => boolean): CredentialSource[] {
  const used = sources.find((s) => s.present && (!pick || pick(s)));
  if (used) used.used = true;
  return sources;
}

function configKey(input: SourceInput, keys: string[]): string {
  return `${tidyPath(input.configPath, input.home)}: ${keys.join(' + ')}`;
}

function defaultConfigDir(input: SourceInput, name: string, windowsName = name): string {
  if (input.os === 'windows') return join(input.env.APPDATA ?? join(input.home, 'AppData', 'Roaming'), windowsName);
  return join(input.env.XDG_CONFIG_HOME || join(input.home, '.config'), name);
}

// ---------------------------------------------------------------------------------------------
// gpucloud: SPEC §5, exactly as engine/core/config/credentials.ts resolves it.

function gpucloudSources(input: SourceInput): CredentialSource[] {
  const { config, env, home } = input;
  const g = config.gpucloud ?? {};
  const sources: CredentialSource[] = [];
  const cfgId = set(g.client_id);
  const cfgSecret = set(g.client_secret);
  sources.push({
    kind: 'config',
    where: configKey(input, ['gpucloud.client_id', 'gpucloud.client_secret']),
    present: cfgId && cfgSecret,
    ...(cfgId !== cfgSecret ? { note: `${cfgId ? 'gpucloud.client_id' : 'gpucloud.client_secret'} set but ${cfgId ? 'gpucloud.client_secret' : 'gpucloud.client_id'} missing` } : {}),
  });
  const envNames = [GPUCLOUD_ENV.clientId, GPUCLOUD_ENV.clientSecret];
  const envNote = halfNote(env, envNames);
  sources.push({ kind: 'env', where: envNames.join(' + '), present: envSet(env, ...envNames), ...(envNote ? { note: envNote } : {}) });

  // The credentials file, read by the project's own resolver (profile from GPUCLOUD_PROFILE, else gpucloud.profile).
  const file = gpucloudCredentialsFilePath(home);
  const profile = set(env[GPUCLOUD_ENV.profile]) ? env[GPUCLOUD_ENV.profile]!.trim() : set(g.profile) ? g.profile!.trim() : 'default';
  let filePresent = false;
  let fileNote: string | undefined;
  try {
    const only = emptyConfig();
    if (g.profile) only.gpucloud = { profile: g.profile };
    const r = resolveGpuCloudCredentials({ config: only, env: { [GPUCLOUD_ENV.profile]: env[GPUCLOUD_ENV.profile] }, home, configPath: input.configPath });
    filePresent = r.source === 'credentials-file';
    const permission = r.warnings.find((w) => w.includes('readable by other users'));
    if (permission) fileNote = `readable by other users: run chmod 600 ${tidyPath(file, home)}`;
  } catch (err) {
    if (err instanceof NoCredentialsError) {
      const outcome = err.searched.find((s) => s.source === 'credentials-file')?.outcome;
      if (outcome && outcome !== 'file not found') fileNote = outcome;
    } else {
      filePresent = true;
      fileNote = (err as Error).message;
    }
  }
  sources.push({ kind: 'file', where: `${tidyPath(file, home)} [${profile}]`, present: filePresent, ...(fileNote ? { note: fileNote } : {}) });

  const backendKey = set(config.backend?.api_key) || envSet(env, 'ASSISTANT_BACKEND_API_KEY');
  if (set(config.backend?.api_key)) registerSecret(config.backend!.api_key);
  sources.push({
    kind: 'backend',
    where: 'backend credential store (backend.api_key or ASSISTANT_BACKEND_API_KEY)',
    present: backendKey,
    ...(backendKey ? { note: 'asked only when no source above holds credentials' } : {}),
  });

  // Which one the project's resolver would pick, asked of the resolver itself.
  let usedKind: SourceKind | undefined;
  try {
    const r = resolveGpuCloudCredentials({ config, env, home, configPath: input.configPath });
    usedKind = r.source === 'credentials-file' ? 'file' : r.source;
  } catch (err) {
    if (err instanceof NoCredentialsError && backendKey) usedKind = 'backend';
    else if (!(err instanceof NoCredentialsError)) usedKind = sources.find((s) => s.present)?.kind;
  }
  const used = sources.find((s) => s.kind === usedKind && s.present);
  if (used) used.used = true;
  return sources;
}

// ---------------------------------------------------------------------------------------------
// cloud_a: the profile the steps run with (engine/providers/cloud_a/provider.ts resolveAwsTarget), then the aws
// CLI's own order: with an explicit --profile the profile's credentials win over AWS_ACCESS_KEY_ID;
// without, the environment's keys come first, then the profile (AWS_PROFILE, else default).

const AWS_PROFILE_KEYS = ['aws_access_key_id', 'sso_session', 'sso_start_url', 'role_arn', 'credential_process', 'web_identity_token_file'];

function awsProfileSource(input: SourceInput, profile: string): CredentialSource {
  const { env, home } = input;
  const credFile = env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials');
  const confFile = env.AWS_CONFIG_FILE || join(home, '.aws', 'config');
  const has = (section: Record<string, unknown> | undefined) => Boolean(section && AWS_PROFILE_KEYS.some((k) => set(section[k] as string)));
  const inCred = has(iniSections(credFile)?.get(profile));
  const conf = iniSections(confFile);
  const inConf = has(conf?.get(profile === 'default' ? 'default' : `profile ${profile}`) ?? conf?.get(profile));
  const where = `profile [${profile}] in ${tidyPath(credFile, home)} or ${tidyPath(confFile, home)}`;
  const found = inCred ? tidyPath(credFile, home) : inConf ? tidyPath(confFile, home) : undefined;
  return { kind: 'cli-profile', where, present: inCred || inConf, ...(found ? { note: `found in ${found}` } : {}) };
}

function cloudASources(input: SourceInput): CredentialSource[] {
  const { config, env } = input;
  const keyNames = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];
  const keysNote = halfNote(env, keyNames);
  const keys: CredentialSource = { kind: 'env', where: keyNames.join(' + '), present: envSet(env, ...keyNames), ...(keysNote ? { note: keysNote } : {}) };
  let target: ReturnType<typeof resolveAwsTarget> | undefined;
  let targetProblem: string | undefined;
  try {
    target = resolveAwsTarget(config, env);
  } catch (err) {
    targetProblem = (err as Error).message;
  }
  const envName = config.infra?.default_environment;
  if (target?.profile) {
    // assistant passes --profile: the CLI then ignores AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY.
    const chosen: CredentialSource = {
      kind: 'config',
      where: `infra.default_environment (${envName}) → infra.cloud_a.environments.${envName}.profile`,
      present: true,
      note: `selects aws profile [${target.profile}]${target.region ? ` in ${target.region}` : ''}`,
    };
    const profile = awsProfileSource(input, target.profile);
    if (keys.present) keys.note = `ignored: the profile assistant passes (--profile ${target.profile}) wins`;
    if (profile.present) profile.used = true;
    return [chosen, profile, keys];
  }
  const sources: CredentialSource[] = [];
  if (envName) {
    const overridden = Boolean(env.AWS_PROFILE || env.AWS_REGION || env.AWS_DEFAULT_REGION);
    sources.push({
      kind: 'config',
      where: `infra.default_environment (${envName})`,
      present: !targetProblem,
      note: targetProblem ?? (overridden ? 'not used: AWS_PROFILE / AWS_REGION in the environment take precedence' : 'names no profile: the aws CLI defaults apply'),
    });
  }
  const profileName = set(env.AWS_PROFILE) ? env.AWS_PROFILE!.trim() : 'default';
  const profile = awsProfileSource(input, profileName);
  if (set(env.AWS_PROFILE)) profile.note = [profile.note, 'selected by AWS_PROFILE'].filter(Boolean).join('; ');
  sources.push(keys, profile);
  return markUsed(sources, (s) => s.kind !== 'config');
}

// ---------------------------------------------------------------------------------------------
// cloud_b (gcloud): the project only adds --project; gcloud logs in with its own configuration.

function gcloudDir(input: SourceInput): string {
  return input.env.CLOUDSDK_CONFIG || defaultConfigDir(input, 'gcloud');
}

function cloudBSources(input: SourceInput): CredentialSource[] {
  const { config, env, home } = input;
  const sources: CredentialSource[] = [];
  const project = config.infra?.cloud_b?.project_id;
  sources.push({ kind: 'config', where: 'infra.cloud_b.project_id', present: set(project), ...(set(project) ? { note: 'selects the project; gcloud logs in on its own' } : {}) });
  const tokenFile = env.CLOUDSDK_AUTH_ACCESS_TOKEN_FILE;
  sources.push({
    kind: 'env',
    where: 'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE',
    present: set(tokenFile) && fileExists(expandHome(tokenFile!, home)),
    ...(set(tokenFile) && !fileExists(expandHome(tokenFile!, home)) ? { note: 'set, but the file does not exist' } : {}),
  });
  const dir = gcloudDir(input);
  let active = set(env.CLOUDSDK_ACTIVE_CONFIG_NAME) ? env.CLOUDSDK_ACTIVE_CONFIG_NAME!.trim() : '';
  if (!active) {
    try {
      active = readFileSync(join(dir, 'active_config'), 'utf8').trim();
    } catch {
      // no active_config file: gcloud uses "default"
    }
  }
  active ||= 'default';
  const file = join(dir, 'configurations', `config_${active}`);
  const account = iniSections(file)?.get('core')?.account;
  const envAccount = set(env.CLOUDSDK_CORE_ACCOUNT);
  sources.push({
    kind: 'cli-profile',
    where: `gcloud configuration "${active}" (${tidyPath(file, home)}: core/account${envAccount ? ', or CLOUDSDK_CORE_ACCOUNT' : ''})`,
    present: envAccount || set(account as string),
    ...(existsSync(join(dir, 'credentials.db')) ? {} : { note: `no gcloud login found (${tidyPath(join(dir, 'credentials.db'), home)} missing)` }),
  });
  return markUsed(sources, (s) => s.kind !== 'config');
}

// ---------------------------------------------------------------------------------------------
// cloud_c (az): the project only adds --subscription; az logs in with its own profile.

function cloudCSources(input: SourceInput): CredentialSource[] {
  const { config, env, home } = input;
  const sub = config.infra?.cloud_c?.subscription_id;
  const dir = env.AZURE_CONFIG_DIR || join(home, '.azure');
  const file = join(dir, 'azureProfile.json');
  let count = 0;
  let note: string | undefined;
  try {
    // az writes the file with a byte-order mark.
    const profile = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as { subscriptions?: unknown[] };
    count = Array.isArray(profile.subscriptions) ? profile.subscriptions.length : 0;
    note = `${count} subscription${count === 1 ? '' : 's'}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') note = 'cannot be read as JSON';
  }
  return markUsed(
    [
      { kind: 'config', where: 'infra.cloud_c.subscription_id', present: set(sub), ...(set(sub) ? { note: 'selects the subscription; az logs in on its own' } : {}) },
      { kind: 'cli-profile', where: `az login (${tidyPath(file, home)}${env.AZURE_CONFIG_DIR ? ', from AZURE_CONFIG_DIR' : ''})`, present: count > 0, ...(note ? { note } : {}) },
    ],
    (s) => s.kind === 'cli-profile',
  );
}

// ---------------------------------------------------------------------------------------------
// k8s: the kubeconfig files as engine/core/kubeconfig/kubeconfig.ts finds them, and the context it would use.

function k8sSources(input: SourceInput): CredentialSource[] {
  const { config, env, home } = input;
  const paths = kubeconfigPaths(config, env, home);
  const kind: SourceKind = config.kubernetes?.kubeconfig?.trim() ? 'config' : (env.KUBECONFIG ?? '').trim() ? 'env' : 'file';
  const label = kind === 'config' ? 'kubernetes.kubeconfig: ' : kind === 'env' ? 'KUBECONFIG: ' : '';
  const sources: CredentialSource[] = paths.map((p) => {
    if (!existsSync(p)) return { kind, where: `${label}${tidyPath(p, home)}`, present: false, note: 'file not found' };
    try {
      const kc = loadKubeconfig([p]);
      const n = kc.contexts.size;
      return { kind, where: `${label}${tidyPath(p, home)}`, present: n > 0, note: n ? `${n} context${n === 1 ? '' : 's'}` : 'no contexts' };
    } catch (err) {
      return { kind, where: `${label}${tidyPath(p, home)}`, present: false, note: (err as Error).message };
    }
  });
  markUsed(sources);
  const used = sources.find((s) => s.used);
  if (used) {
    try {
      const kc = loadKubeconfig(paths);
      const ctx = selectContext(kc, paths, { kubernetes: config.kubernetes });
      used.note = `${used.note}; context "${ctx}"${config.kubernetes?.default_context ? ' (kubernetes.default_context)' : ' (current-context)'}`;
    } catch (err) {
      used.note = `${used.note}; ${(err as Error).message}`;
    }
  }
  return sources;
}

// ---------------------------------------------------------------------------------------------
// The integrations configured by a config section and environment variables (SPEC §2.5: "all
// credential keys may come from environment variables"). Variable names follow the one the project
// already reads (`REPOHOST_TOKEN` for `repohost.token`): `<SECTION>_<KEY>` in capitals.

interface SectionSpec {
  provider: string;
  title: string;
  section: keyof Config;
  /** Credential keys that must all be set (cloud_d needs an id and a key). */
  keys: string[];
  /** Environment families, in order; each must be fully set to count. */
  envFamilies: string[][];
  setupNote?: string;
}

function sectionSources(spec: SectionSpec, input: SourceInput): CredentialSource[] {
  const section = (input.config[spec.section] ?? {}) as Record<string, unknown>;
  const values = spec.keys.map((k) => section[k]);
  for (const v of values) if (typeof v === 'string') registerSecret(v);
  const setKeys = spec.keys.filter((k) => set(section[k] as string));
  const sources: CredentialSource[] = [
    {
      kind: 'config',
      where: configKey(input, spec.keys.map((k) => `${String(spec.section)}.${k}`)),
      present: setKeys.length === spec.keys.length,
      ...(setKeys.length && setKeys.length < spec.keys.length ? { note: `${setKeys.map((k) => `${String(spec.section)}.${k}`).join(', ')} set but not ${spec.keys.filter((k) => !setKeys.includes(k)).map((k) => `${String(spec.section)}.${k}`).join(', ')}` } : {}),
    },
  ];
  for (const family of spec.envFamilies) {
    const note = halfNote(input.env, family);
    sources.push({ kind: 'env', where: family.join(' + '), present: envSet(input.env, ...family), ...(note ? { note } : {}) });
  }
  return markUsed(sources);
}

const SECTIONS: SectionSpec[] = [
  { provider: 'edge', title: 'edge (CDN / DNS)', section: 'edge', keys: ['api_token'], envFamilies: [['EDGE_API_TOKEN']] },
  { provider: 'vps_a', title: 'vps_a', section: 'vps_a', keys: ['api_token'], envFamilies: [['VPS_A_API_TOKEN']] },
  { provider: 'vps_b', title: 'vps_b', section: 'vps_b', keys: ['api_token'], envFamilies: [['VPS_B_API_TOKEN']] },
  {
    provider: 'cloud_d',
    title: 'cloud_d',
    section: 'cloud_d',
    keys: ['secret_id', 'secret_key'],
    // SPEC §2.5: config, then a first family of environment variables, then a second family.
    envFamilies: [
      ['CLOUD_D_SECRET_ID', 'CLOUD_D_SECRET_KEY'],
      ['CLOUD_D_API_SECRET_ID', 'CLOUD_D_API_SECRET_KEY'],
    ],
  },
  { provider: 'appplatform', title: 'appplatform', section: 'appplatform', keys: ['api_token'], envFamilies: [['APPPLATFORM_API_TOKEN']] },
  { provider: 'errtracker', title: 'errtracker (error tracker)', section: 'errtracker', keys: ['auth_token'], envFamilies: [['ERRTRACKER_AUTH_TOKEN']] },
  { provider: 'issuetracker', title: 'issuetracker', section: 'issuetracker', keys: ['api_key'], envFamilies: [['ISSUETRACKER_API_KEY']] },
  { provider: 'notes', title: 'notes (workspace notes)', section: 'notes', keys: ['integration_token'], envFamilies: [['NOTES_INTEGRATION_TOKEN']] },
  { provider: 'agent', title: 'agent (talk)', section: 'agent', keys: ['router_api_key'], envFamilies: [['AGENT_ROUTER_API_KEY']] },
];

function sectionProvider(spec: SectionSpec): ProviderCredentials {
  return {
    provider: spec.provider,
    title: spec.title,
    sources: (input) => sectionSources(spec, input),
    setup: (input) => [
      {
        why: `${spec.provider}: set ${spec.keys.map((k) => `${String(spec.section)}.${k}`).join(' and ')} in ${tidyPath(input.configPath, input.home)}, or export ${spec.envFamilies[0]!.join(' and ')}`,
        command: `export ${spec.envFamilies[0]!.map((n, i) => `${n}=<${spec.keys[i]!.toUpperCase()}>`).join(' ')}`,
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// The table.

const lazyCheck = (name: 'checkGpucloud' | 'checkCloudA' | 'checkCloudB' | 'checkCloudC' | 'checkK8s' | 'checkRepohost') => async (input: CheckInput) =>
  (await import('./checks.js'))[name](input);

export const PROVIDER_CREDENTIALS: readonly ProviderCredentials[] = [
  {
    provider: 'gpucloud',
    title: 'gpucloud',
    sources: gpucloudSources,
    check: lazyCheck('checkGpucloud'),
    setup: (input) => [
      { why: 'gpucloud: try everything offline first, against the local emulator', command: 'assistant --sandbox gpucloud list instances' },
      {
        why: `gpucloud: create API credentials in the console (Keys → Cloud API Credentials), then export them (or put client_id and client_secret under "gpucloud:" in ${tidyPath(input.configPath, input.home)})`,
        command: `export ${GPUCLOUD_ENV.clientId}=<CLIENT_ID> ${GPUCLOUD_ENV.clientSecret}=<CLIENT_SECRET>`,
      },
      { why: 'gpucloud: then check them', command: 'assistant credentials test gpucloud' },
    ],
    login: () => [{ why: 'gpucloud: the credentials were refused; create new ones in the console (Keys → Cloud API Credentials) and check them', command: 'assistant credentials test gpucloud' }],
  },
  {
    provider: 'cloud_a',
    title: 'cloud_a (AWS, through the aws CLI)',
    sources: cloudASources,
    check: lazyCheck('checkCloudA'),
    setup: () => [{ why: 'cloud_a: log in the aws CLI (access keys; or `aws configure sso`)', command: 'aws configure' }],
    login: (input) => {
      let profile: string | undefined;
      try {
        profile = resolveAwsTarget(input.config, input.env).profile ?? (set(input.env.AWS_PROFILE) ? input.env.AWS_PROFILE : undefined);
      } catch {
        // reported with the sources
      }
      const p = profile ? ` --profile ${profile}` : '';
      return [
        { why: 'cloud_a: the aws CLI has no working credentials; log in (or `aws sso login' + p + '` for SSO profiles)', command: `aws configure${p}` },
        { why: 'cloud_a: then check', command: `aws sts get-caller-identity${p}` },
      ];
    },
  },
  {
    provider: 'cloud_b',
    title: 'cloud_b (Google Cloud, through gcloud)',
    sources: cloudBSources,
    check: lazyCheck('checkCloudB'),
    setup: () => [
      { why: 'cloud_b: log in the gcloud CLI', command: 'gcloud auth login' },
      { why: 'cloud_b: and name the project in ~/.assistant.yaml (infra.cloud_b.project_id) or gcloud', command: 'gcloud config set project <PROJECT_ID>' },
    ],
    login: () => [{ why: 'cloud_b: gcloud has no active account', command: 'gcloud auth login' }],
  },
  {
    provider: 'cloud_c',
    title: 'cloud_c (Azure, through az)',
    sources: cloudCSources,
    check: lazyCheck('checkCloudC'),
    setup: () => [{ why: 'cloud_c: log in the az CLI', command: 'az login' }],
    login: () => [{ why: 'cloud_c: az is not logged in (or the subscription is not available to you)', command: 'az login' }],
  },
  {
    provider: 'k8s',
    title: 'k8s (Kubernetes API from a kubeconfig)',
    sources: k8sSources,
    check: lazyCheck('checkK8s'),
    setup: () => [
      { why: 'k8s: create a cluster (its kubeconfig is merged for you)', command: 'assistant k8s create gpucloud <NAME> --plan' },
      { why: 'k8s: or point at an existing kubeconfig', command: 'export KUBECONFIG=<PATH>' },
    ],
    login: () => [{ why: "k8s: the API server refused this context's credentials; refresh the kubeconfig (e.g. `aws eks update-kubeconfig`) and check", command: 'kubectl auth whoami' }],
  },
  {
    provider: 'ssh',
    title: 'ssh (cluster head nodes)',
    sources: (input) => {
      const keyPath = input.config.gpucloud?.ssh_key_path?.trim();
      const path = keyPath ? expandHome(keyPath, input.home) : undefined;
      return markUsed([
        {
          kind: 'config',
          where: `${configKey(input, ['gpucloud.ssh_key_path'])}${path ? ` (${tidyPath(path, input.home)})` : ''}`,
          present: Boolean(path && fileExists(path)),
          ...(path && !fileExists(path) ? { note: 'the key file does not exist' } : {}),
        },
      ]);
    },
    setup: (input) => {
      const key = ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((k) => join(input.home, '.ssh', k)).find(fileExists);
      return [
        key
          ? { why: `ssh: add "ssh_key_path: ${tidyPath(key, input.home)}" under "gpucloud:" in ${tidyPath(input.configPath, input.home)} (the key of gpucloud.default_ssh_key_id)` }
          : { why: 'ssh: make a key pair for cluster head nodes, then set gpucloud.ssh_key_path to it', command: `ssh-keygen -t ed25519 -f ${input.os === 'windows' ? '%USERPROFILE%\\.ssh\\id_ed25519' : '~/.ssh/id_ed25519'}` },
      ];
    },
  },
  {
    provider: 'terraform',
    title: 'terraform (infrastructure-as-code workspaces)',
    sources: (input) => {
      const ws = Object.keys(input.config.terraform?.workspaces ?? {});
      return markUsed([{ kind: 'config', where: configKey(input, ['terraform.workspaces']), present: ws.length > 0, ...(ws.length ? { note: `workspaces: ${ws.join(', ')}` } : {}) }]);
    },
    setup: (input) => [{ why: `terraform: name a workspace (terraform.workspaces.<name>.path) in ${tidyPath(input.configPath, input.home)} to use --workspace` }],
  },
  {
    provider: 'repohost',
    title: 'repohost (code host)',
    sources: (input) => {
      const { env, home } = input;
      const token = input.config.repohost?.token;
      if (set(token)) registerSecret(token);
      const ghDir = env.GH_CONFIG_DIR || defaultConfigDir(input, 'gh', 'GitHub CLI');
      const hosts = join(ghDir, 'hosts.yml');
      let loggedIn = false;
      try {
        loggedIn = /oauth_token|user:/.test(readFileSync(hosts, 'utf8'));
      } catch {
        // not logged in with gh
      }
      return markUsed([
        { kind: 'config', where: configKey(input, ['repohost.token']), present: set(token) },
        { kind: 'env', where: 'REPOHOST_TOKEN', present: envSet(env, 'REPOHOST_TOKEN') },
        { kind: 'env', where: 'GH_TOKEN', present: envSet(env, 'GH_TOKEN'), note: 'read by gh, not by deploy' },
        { kind: 'env', where: 'GITHUB_TOKEN', present: envSet(env, 'GITHUB_TOKEN'), note: 'read by gh, not by deploy' },
        { kind: 'cli-profile', where: `gh auth login (${tidyPath(hosts, home)})`, present: loggedIn, note: 'read by gh, not by deploy' },
      ]);
    },
    check: lazyCheck('checkRepohost'),
    setup: () => [{ why: 'repohost: log in the gh CLI (deploy of a private repository reads repohost.token or REPOHOST_TOKEN)', command: 'gh auth login' }],
    login: () => [{ why: 'repohost: the code host refused the token', command: 'gh auth login' }],
  },
  {
    provider: 'postgres',
    title: 'postgres',
    sources: (input) => {
      const { env, home } = input;
      const conns = Object.keys(input.config.postgres?.connections ?? {});
      const passFile = env.PGPASSFILE || (input.os === 'windows' ? join(env.APPDATA ?? home, 'postgresql', 'pgpass.conf') : join(home, '.pgpass'));
      return markUsed(
        [
          { kind: 'config', where: configKey(input, ['postgres.connections']), present: conns.length > 0, ...(conns.length ? { note: `connections: ${conns.join(', ')} (no password in the config)` } : {}) },
          { kind: 'env', where: 'PGPASSWORD', present: envSet(env, 'PGPASSWORD') },
          { kind: 'file', where: `${tidyPath(passFile, home)}${env.PGPASSFILE ? ' (PGPASSFILE)' : ''}`, present: fileExists(passFile) },
        ],
        (s) => s.kind !== 'config',
      );
    },
    setup: (input) => [{ why: `postgres: add a connection (postgres.connections.<name>: host, port, database, username) in ${tidyPath(input.configPath, input.home)}; passwords go in ~/.pgpass` }],
  },
  ...SECTIONS.map(sectionProvider),
  {
    provider: 'backend',
    title: 'backend (credential store)',
    sources: (input) => {
      if (set(input.config.backend?.api_key)) registerSecret(input.config.backend!.api_key);
      return markUsed([
        { kind: 'config', where: configKey(input, ['backend.api_key']), present: set(input.config.backend?.api_key) },
        { kind: 'env', where: 'ASSISTANT_BACKEND_API_KEY', present: envSet(input.env, 'ASSISTANT_BACKEND_API_KEY') },
      ]);
    },
    setup: () => [{ why: 'backend: optional; a team runs one to share credentials (ASSISTANT_BACKEND_API_KEY selects it)' }],
  },
];

export function providerCredentials(name: string): ProviderCredentials | undefined {
  return PROVIDER_CREDENTIALS.find((p) => p.provider === name);
}

export function providerNames(): string[] {
  return PROVIDER_CREDENTIALS.map((p) => p.provider);
}

/**
 * Every cloud CLI step runs in a scratch directory of its own (DESIGN §7): HOME and the working
 * directory are a fresh empty directory, and the CLI's configuration variables point at files
 * generated there that hold only what the step needs (the profile it runs as, its credentials, the
 * settings that keep it non-interactive and JSON). The user's alias files (`~/.aws/cli/alias`), plugins
 * (`[plugins]`, az extensions, gcloud components), custom service models (`~/.aws/models`), history
 * databases and every other dotfile are simply not there, and whatever the CLI writes (logs, caches, a
 * relative output path) lands in the scratch directory and is removed with it.
 *
 * The directory is made 0700 under the command's temp directory and removed when the step ends (its
 * copies of credentials included); one a process killed with -9 left behind is removed by a later step.
 */
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempRoot } from '../../process/temp-root.js';

export interface Scratch {
  dir: string;
  remove(): void;
}

/**
 * A fresh 0700 directory for one step, under a per-user parent in the temp directory of `env` (the
 * command's environment, engine/core/process/temp-root.ts), named after this process. A process killed with -9 cannot remove its own (the credential copies in it stay
 * readable only by the user); the next step of any later run removes those of processes that are gone.
 */
export function makeScratch(env: Readonly<Record<string, string | undefined>>, prefix = 'assistant-cli-'): Scratch {
  const root = tempRoot(env);
  const parent = scratchParent(root, prefix);
  if (parent) sweepDead(parent);
  const dir = parent ? mkdtempSync(join(parent, `${process.pid}-`)) : mkdtempSync(join(root, prefix));
  chmodSync(dir, 0o700);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The per-user parent, or undefined when it is not a plain directory of ours (then each scratch stands alone). */
function scratchParent(root: string, prefix: string): string | undefined {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const parent = join(root, `${prefix}${uid ?? 'user'}`);
  try {
    mkdirSync(parent, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const st = lstatSync(parent);
    if (!st.isDirectory() || st.isSymbolicLink() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
  } catch {
    return undefined;
  }
  return parent;
}

/** Removes the scratch directories of processes that no longer exist. */
function sweepDead(parent: string): void {
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(parent, name), { recursive: true, force: true });
    }
  }
}

/** Writes a file only the user can read (credentials copies). */
export function writePrivate(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

// --- INI files as the aws CLI reads them (sections, `key = value`, indented sub-keys under a key) ----

interface IniSection {
  /** The header as written, without brackets (`profile prod`, `default`, `sso-session corp`). */
  name: string;
  /** Each top-level key with its raw lines (the key line and its indented continuation lines). */
  keys: Map<string, string[]>;
}

export function parseIni(text: string): IniSection[] {
  const sections: IniSection[] = [];
  let current: IniSection | undefined;
  let lastKey: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*[#;]/.test(line) || !line.trim()) continue;
    const header = /^\s*\[\s*([^\]]+?)\s*\]\s*$/.exec(line);
    if (header) {
      current = { name: header[1]!.replace(/\s+/g, ' '), keys: new Map() };
      sections.push(current);
      lastKey = undefined;
      continue;
    }
    if (!current) continue;
    if (/^\s/.test(line) && lastKey) {
      current.keys.get(lastKey)!.push(line);
      continue;
    }
    const kv = /^([^=\s][^=]*?)\s*=/.exec(line);
    if (!kv) continue;
    lastKey = kv[1]!.trim().toLowerCase();
    current.keys.set(lastKey, [line]);
  }
  return sections;
}

/** Keys of an aws profile the step may need; anything else (plugins, cli_* settings, history) is left behind. */
const AWS_PROFILE_KEYS = new Set([
  'region',
  'role_arn',
  'source_profile',
  'credential_source',
  'credential_process',
  'role_session_name',
  'external_id',
  'mfa_serial',
  'duration_seconds',
  'web_identity_token_file',
  'sso_session',
  'sso_start_url',
  'sso_region',
  'sso_account_id',
  'sso_role_name',
  'sso_registration_scopes',
  'endpoint_url',
  'ignore_configured_endpoint_urls',
  'ca_bundle',
  'max_attempts',
  'retry_mode',
  'sts_regional_endpoints',
  'use_fips_endpoint',
  'use_dualstack_endpoint',
  'defaults_mode',
  'metadata_service_timeout',
  'metadata_service_num_attempts',
  'ec2_metadata_service_endpoint',
  'ec2_metadata_service_endpoint_mode',
  's3',
  'services',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
]);

/** Settings every generated aws profile gets: URLs in parameters are never fetched, no history, no pager, no prompt. */
const AWS_FORCED = ['cli_follow_urlparam = false', 'cli_history = disabled', 'cli_pager =', 'cli_auto_prompt = off'];

function section(lines: string[], header: string, keys: Map<string, string[]>, extra: string[] = []): void {
  lines.push(`[${header}]`);
  for (const [key, raw] of keys) if (AWS_PROFILE_KEYS.has(key)) lines.push(...raw);
  lines.push(...extra, '');
}

const valueOf = (keys: Map<string, string[]> | undefined, key: string) => keys?.get(key)?.[0]?.replace(/^[^=]*=\s*/, '').trim() || undefined;

/**
 * The aws CLI's configuration for one step: the profile it runs as (its `--profile`, else
 * AWS_PROFILE, else `default`) and the profiles and SSO sessions that profile refers to, from the
 * user's config and credentials files, with the forced settings above. Returns the variables that
 * point the CLI at the generated files.
 */
export function isolateAws(scratch: string, opts: { env: Record<string, string | undefined>; home: string; profile?: string }): Record<string, string> {
  const configText = readText(opts.env.AWS_CONFIG_FILE || join(opts.home, '.aws', 'config')) ?? '';
  const credentialsText = readText(opts.env.AWS_SHARED_CREDENTIALS_FILE || join(opts.home, '.aws', 'credentials')) ?? '';
  const config = parseIni(configText);
  const credentials = parseIni(credentialsText);
  const configProfile = (name: string) => config.find((s) => s.name === (name === 'default' ? 'default' : `profile ${name}`) || (name === 'default' && s.name === 'profile default'));
  const credentialProfile = (name: string) => credentials.find((s) => s.name === name);
  const wanted = opts.profile ?? opts.env.AWS_PROFILE ?? opts.env.AWS_DEFAULT_PROFILE ?? 'default';
  const profiles: string[] = [];
  const sessions = new Set<string>();
  // The profile and its source_profile chain (role chaining), each once.
  for (let name: string | undefined = wanted; name && !profiles.includes(name); ) {
    profiles.push(name);
    const keys: Map<string, string[]> | undefined = configProfile(name)?.keys;
    const session = valueOf(keys, 'sso_session');
    if (session) sessions.add(session);
    name = valueOf(keys, 'source_profile') ?? valueOf(credentialProfile(name)?.keys, 'source_profile');
  }
  const out: string[] = [];
  let usesSso = false;
  for (const name of profiles) {
    const found = configProfile(name);
    if (found && [...found.keys.keys()].some((k) => k.startsWith('sso_'))) usesSso = true;
    // The profile the step runs as gets the forced settings, also when only the credentials file has it;
    // one that exists nowhere stays absent, so the CLI says "could not be found" as it would.
    if (found || credentialProfile(name) || name === 'default') section(out, name === 'default' ? 'default' : `profile ${name}`, found?.keys ?? new Map(), name === wanted ? AWS_FORCED : []);
  }
  for (const session of sessions) {
    const found = config.find((s) => s.name === `sso-session ${session}`);
    if (found) section(out, `sso-session ${session}`, found.keys);
    usesSso = true;
  }
  const creds: string[] = [];
  for (const name of profiles) {
    const found = credentialProfile(name);
    if (found) section(creds, name, found.keys);
  }
  const awsDir = join(scratch, '.aws');
  writePrivate(join(awsDir, 'config'), out.join('\n'));
  writePrivate(join(awsDir, 'credentials'), creds.join('\n'));
  // An SSO profile needs its cached login token (read-only copy; a refresh is lost with the scratch).
  const ssoCache = join(opts.home, '.aws', 'sso', 'cache');
  if (usesSso && existsSync(ssoCache)) cpSync(ssoCache, join(awsDir, 'sso', 'cache'), { recursive: true, dereference: false });
  return { AWS_CONFIG_FILE: join(awsDir, 'config'), AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials'), AWS_PAGER: '', AWS_CLI_AUTO_PROMPT: 'off' };
}

/** gcloud properties a step may need; endpoint overrides, proxies, custom CA files and credential file overrides stay behind. */
const GCLOUD_PROPERTIES: Record<string, readonly string[]> = {
  core: ['account', 'project'],
  compute: ['region', 'zone'],
  billing: ['quota_project'],
  auth: ['impersonate_service_account'],
};

/**
 * gcloud's configuration directory for one step: its credential stores (credentials.db,
 * access_tokens.db, the active account's legacy credentials) and one configuration with only the
 * properties above, prompts and usage reporting off. No components, no other configurations.
 */
export function isolateGcloud(scratch: string, opts: { env: Record<string, string | undefined>; home: string }): Record<string, string> {
  const source = opts.env.CLOUDSDK_CONFIG || join(opts.home, '.config', 'gcloud');
  const target = join(scratch, 'gcloud');
  mkdirSync(join(target, 'configurations'), { recursive: true, mode: 0o700 });
  for (const file of ['credentials.db', 'access_tokens.db']) {
    if (existsSync(join(source, file))) cpSync(join(source, file), join(target, file), { dereference: false });
  }
  const active = (readText(join(source, 'active_config')) ?? 'default').trim() || 'default';
  const props = parseIni(readText(join(source, 'configurations', `config_${active}`)) ?? '');
  const lines: string[] = [];
  let account: string | undefined;
  for (const [name, keys] of Object.entries(GCLOUD_PROPERTIES)) {
    const found = props.find((s) => s.name === name);
    const kept = keys.flatMap((k) => (found?.keys.get(k) ? [found.keys.get(k)![0]!] : []));
    if (name === 'core') {
      account = valueOf(found?.keys, 'account');
      kept.push('disable_prompts = True', 'disable_usage_reporting = True');
    }
    if (kept.length) lines.push(`[${name}]`, ...kept, '');
  }
  writePrivate(join(target, 'configurations', 'config_default'), lines.join('\n'));
  writePrivate(join(target, 'active_config'), 'default');
  const legacy = join(source, 'legacy_credentials');
  const who = opts.env.CLOUDSDK_CORE_ACCOUNT ?? account;
  if (who && existsSync(join(legacy, who))) cpSync(join(legacy, who), join(target, 'legacy_credentials', who), { recursive: true, dereference: false });
  return { CLOUDSDK_CONFIG: target, CLOUDSDK_CORE_DISABLE_PROMPTS: '1', CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: 'true' };
}

/** The az files that are the login itself; `config` is generated, extensions and aliases stay behind. */
const AZ_LOGIN_FILES = ['azureProfile.json', 'msal_token_cache.json', 'msal_token_cache.bin', 'service_principal_entries.json', 'service_principal_entries.bin', 'clouds.config'];

/** The Azure CLI's configuration directory for one step: the login files and a config without extensions, aliases or log files. */
export function isolateAz(scratch: string, opts: { env: Record<string, string | undefined>; home: string }): Record<string, string> {
  const source = opts.env.AZURE_CONFIG_DIR || join(opts.home, '.azure');
  const target = join(scratch, 'azure');
  mkdirSync(join(target, 'cliextensions'), { recursive: true, mode: 0o700 });
  if (existsSync(source)) {
    for (const file of readdirSync(source)) {
      if (AZ_LOGIN_FILES.includes(file)) cpSync(join(source, file), join(target, file), { dereference: false });
    }
  }
  writePrivate(
    join(target, 'config'),
    ['[core]', 'output = json', 'no_color = True', 'collect_telemetry = False', '[extension]', 'use_dynamic_install = no', '[logging]', 'enable_log_file = no', '[auto-upgrade]', 'enable = no', ''].join('\n'),
  );
  return { AZURE_CONFIG_DIR: target, AZURE_EXTENSION_DIR: join(target, 'cliextensions'), AZURE_CORE_NO_COLOR: 'true', AZURE_CORE_OUTPUT: 'json', AZURE_CORE_COLLECT_TELEMETRY: 'false' };
}

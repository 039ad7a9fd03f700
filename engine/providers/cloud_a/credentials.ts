/**
 * cloud_a's `credentials` capability: its sources in the aws CLI's own order, after the profile the steps
 * run with (target.ts) — with an explicit --profile the profile's credentials win over AWS_ACCESS_KEY_ID;
 * without, the environment's keys come first, then the profile (AWS_PROFILE, else default) — what the
 * backend store keeps (access keys, read from an aws profile with `--profile`), and how `onboarding scan`
 * checks them (`aws sts get-caller-identity`, credentials-check.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ini from 'ini';
import type { CredentialSource, CredentialsCapability, SourceInput } from '../../core/capabilities.js';
import { envSet, halfNote, iniSections, isSet, markUsed, plainField, secretField, tidyPath } from '../../core/credential-sources.js';
import { InvalidInputError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import { resolveAwsTarget } from './target.js';

const AWS_PROFILE_KEYS = ['aws_access_key_id', 'sso_session', 'sso_start_url', 'role_arn', 'credential_process', 'web_identity_token_file'];

const awsFiles = (env: Record<string, string | undefined>, home: string) => ({
  credFile: env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials'),
  confFile: env.AWS_CONFIG_FILE || join(home, '.aws', 'config'),
});

async function awsProfileSource(input: SourceInput, profile: string): Promise<CredentialSource> {
  const { env, home } = input;
  const { credFile, confFile } = awsFiles(env, home);
  const has = (section: Record<string, unknown> | undefined) => Boolean(section && AWS_PROFILE_KEYS.some((k) => isSet(section[k] as string)));
  const inCred = has((await iniSections(credFile))?.get(profile));
  const conf = await iniSections(confFile);
  const inConf = has(conf?.get(profile === 'default' ? 'default' : `profile ${profile}`) ?? conf?.get(profile));
  const where = `profile [${profile}] in ${tidyPath(credFile, home)} or ${tidyPath(confFile, home)}`;
  const found = inCred ? tidyPath(credFile, home) : inConf ? tidyPath(confFile, home) : undefined;
  return { kind: 'cli-profile', where, present: inCred || inConf, ...(found ? { note: `found in ${found}` } : {}) };
}

async function cloudASources(input: SourceInput): Promise<CredentialSource[]> {
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
    const profile = await awsProfileSource(input, target.profile);
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
  const profileName = isSet(env.AWS_PROFILE) ? env.AWS_PROFILE!.trim() : 'default';
  const profile = await awsProfileSource(input, profileName);
  if (isSet(env.AWS_PROFILE)) profile.note = [profile.note, 'selected by AWS_PROFILE'].filter(Boolean).join('; ');
  sources.push(keys, profile);
  return markUsed(sources, (s) => s.kind !== 'config');
}

/** The keys of a profile from the aws CLI's credentials file (and its region from the config file). */
function readAwsProfile(profile: string, { env, home }: { env: Record<string, string | undefined>; home: string }): Record<string, string> {
  const { credFile, confFile } = awsFiles(env, home);
  const read = (file: string, section: string): Record<string, unknown> | undefined => {
    if (!existsSync(file)) return undefined;
    const parsed = ini.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
    return parsed[section];
  };
  const creds = read(credFile, profile) ?? read(confFile, profile === 'default' ? 'default' : `profile ${profile}`);
  const conf = read(confFile, profile === 'default' ? 'default' : `profile ${profile}`) ?? {};
  const id = typeof creds?.aws_access_key_id === 'string' ? creds.aws_access_key_id : undefined;
  const secret = typeof creds?.aws_secret_access_key === 'string' ? creds.aws_secret_access_key : undefined;
  if (!id || !secret) {
    const sso = conf.sso_start_url || conf.sso_session || conf.credential_process || conf.role_arn;
    throw new InvalidInputError('no_profile_keys', `profile "${profile}" has no access keys in ${credFile}${sso ? ' (it gets them from SSO, a role or a process: those are session keys)' : ''}`, {
      hint: sso ? 'store long-term keys with --access-key-id/--secret-access-key, or session keys with --allow-session' : 'check the profile name (aws configure list-profiles)',
    });
  }
  registerSecret(secret);
  const out: Record<string, string> = { access_key_id: id, secret_access_key: secret };
  if (typeof creds?.aws_session_token === 'string') {
    out.session_token = creds.aws_session_token;
    registerSecret(out.session_token);
  }
  if (typeof conf.region === 'string') out.region = conf.region;
  return out;
}

export const cloudACredentials: CredentialsCapability = {
  sources: cloudASources,
  what: "cloud_a access keys (a profile's long-term keys; session keys only with --allow-session)",
  fields: [
    plainField('access_key_id', '--access-key-id', 'access key id'),
    secretField('secret_access_key', '--secret-access-key', 'secret access key'),
    { name: 'session_token', flag: '--session-token', secret: true, required: false, description: 'session token (expiring keys; needs --allow-session)' },
    plainField('region', '--region', 'default region (optional)', false),
  ],
  profile: {
    about: "read the keys of this profile from the aws CLI's files",
    read: readAwsProfile,
    // A session token, or an ASIA… key id: keys that stop working within hours.
    expiring: (values) => values.session_token !== undefined || /^ASIA/.test(values.access_key_id ?? ''),
  },
  scan: {
    title: 'cloud_a (AWS, through the aws CLI)',
    check: async (input) => (await import('./credentials-check.js')).checkCloudA(input),
    setup: () => [{ why: 'cloud_a: log in the aws CLI (access keys; or `aws configure sso`)', command: 'aws configure' }],
    login: (input) => {
      let profile: string | undefined;
      try {
        profile = resolveAwsTarget(input.config, input.env).profile ?? (isSet(input.env.AWS_PROFILE) ? input.env.AWS_PROFILE : undefined);
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
};

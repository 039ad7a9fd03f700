/**
 * Readers a provider's `credentials` capability (engine/core/credentials-capability.ts) builds its
 * `sources` from: whether a value is set (secret-named values registered for redaction on the way),
 * half-set environment families, INI profiles of other tools' files, the one source in use, and the
 * sources of an integration configured by one config section and its environment variables.
 *
 * Sources report names and paths only, never values: a config key, an environment variable's name, a
 * file's path, a CLI profile's name. A value is read only to decide whether it is set (and registered
 * with the redactor on the way, as the resolvers do).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResult, CredentialField, CredentialScan, CredentialSource, SourceInput } from './credentials-capability.js';
import { maskSecretsInText, redactText, registerSecret } from './redact.js';

// ---------------------------------------------------------------------------------------------
// Small readers (presence only; values are registered as secrets and dropped)

export function isSet(value: string | undefined | null): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/** Whether env vars are set; the values of the secret ones (not the `_ID` halves) are registered for redaction. */
export function envSet(env: Record<string, string | undefined>, ...names: string[]): boolean {
  for (const n of names) if (isSet(env[n]) && /SECRET|TOKEN|KEY|PASSWORD/.test(n) && !/_ID$/.test(n)) registerSecret(env[n]);
  return names.every((n) => isSet(env[n]));
}

export function halfNote(env: Record<string, string | undefined>, names: string[]): string | undefined {
  const setNames = names.filter((n) => isSet(env[n]));
  if (setNames.length === 0 || setNames.length === names.length) return undefined;
  const missing = names.filter((n) => !isSet(env[n]));
  return `${setNames.join(', ')} set but ${missing.join(', ')} missing`;
}

/** `~/x` for paths under home, so reports stay short and do not spell out the user's home. */
export function tidyPath(path: string, home: string): string {
  return home && (path === home || path.startsWith(home + '/') || path.startsWith(home + '\\')) ? `~${path.slice(home.length)}` : path;
}

export function fileExists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** INI sections of a file (aws, gcloud), or undefined when it cannot be read. */
export async function iniSections(path: string): Promise<Map<string, Record<string, unknown>> | undefined> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const out = new Map<string, Record<string, unknown>>();
  // Imported here, when a file is read: a command that reads no other tool's INI files never loads it.
  const ini = await import('ini');
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
export function markUsed(sources: CredentialSource[], pick?: (s: CredentialSource) => boolean): CredentialSource[] {
  const used = sources.find((s) => s.present && (!pick || pick(s)));
  if (used) used.used = true;
  return sources;
}

export function configKey(input: SourceInput, keys: string[]): string {
  return `${tidyPath(input.configPath, input.home)}: ${keys.join(' + ')}`;
}

export function defaultConfigDir(input: SourceInput, name: string, windowsName = name): string {
  if (input.os === 'windows') return join(input.env.APPDATA ?? join(input.home, 'AppData', 'Roaming'), windowsName);
  return join(input.env.XDG_CONFIG_HOME || join(input.home, '.config'), name);
}

// ---------------------------------------------------------------------------------------------
// The integrations configured by a config section and environment variables (SPEC §2.5: "all
// credential keys may come from environment variables"). Variable names follow the one the project
// already reads (`REPOHOST_TOKEN` for `repohost.token`): `<SECTION>_<KEY>` in capitals.

export interface SectionSpec {
  provider: string;
  title: string;
  /** The config section (`vps_a`). */
  section: string;
  /** Credential keys that must all be set (cloud_d needs an id and a key). */
  keys: string[];
  /** Environment families, in order; each must be fully set to count. */
  envFamilies: string[][];
  setupNote?: string;
}

export function sectionSources(spec: SectionSpec, input: SourceInput): CredentialSource[] {
  const section = ((input.config as Record<string, unknown>)[spec.section] ?? {}) as Record<string, unknown>;
  const values = spec.keys.map((k) => section[k]);
  for (const v of values) if (typeof v === 'string') registerSecret(v);
  const setKeys = spec.keys.filter((k) => isSet(section[k] as string));
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

/** The sources and the scan of an integration configured by one section and its environment variables. */
export function sectionCredentials(spec: SectionSpec): { sources(input: SourceInput): CredentialSource[]; scan: CredentialScan } {
  return {
    sources: (input) => sectionSources(spec, input),
    scan: { title: spec.title, setup: (input) => [
      {
        why: `${spec.provider}: set ${spec.keys.map((k) => `${String(spec.section)}.${k}`).join(' and ')} in ${tidyPath(input.configPath, input.home)}, or export ${spec.envFamilies[0]!.join(' and ')}`,
        command: `export ${spec.envFamilies[0]!.map((n, i) => `${n}=<${spec.keys[i]!.toUpperCase()}>`).join(' ')}`,
      },
    ] },
  };
}


// ---------------------------------------------------------------------------------------------
// The fields a provider stores (`credentials store <provider>`) and its checks' small helpers

export const secretField = (name: string, flag: string, description: string): CredentialField => ({ name, flag, secret: true, required: true, description });
export const plainField = (name: string, flag: string, description: string, required = true): CredentialField => ({ name, flag, secret: false, required, description });
/** One secret token, given by the flag of its name (`api_token` → `--api-token`). */
export const tokenField = (name: string, description: string): CredentialField => secretField(name, `--${name.replace(/_/g, '-')}`, description);

/** A check that cannot tell: the tool it asks is not installed. */
export const notInstalled = (tool: string): CheckResult => ({ authenticated: null, detail: `${tool} is not installed, so its login cannot be checked` });

/** An error's first line for a check's report: secrets masked, at most 240 characters. */
export function shortError(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = maskSecretsInText(redactText(text.split('\n')[0] ?? text));
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}

export function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

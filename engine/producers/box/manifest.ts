/**
 * `box manifest`: compiles a box (an agent behind `assistant box serve`, in the image the Dockerfile
 * builds) into a plan document that deploys it as a gpucloud serverless container: the token's
 * digest as a gpucloud secret, then the container deployment (image, port, health check on /healthz,
 * 0..1 replicas with one request at a time, environment with every secret as a reference to a
 * gpucloud secret, never a value). The container pieces are deploy's (engine/providers/gpucloud/deploy-compile.ts), so a box
 * and `deploy --target container` describe containers the same way.
 */
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { InvalidInputError } from '../../core/errors.js';
import { maskSecretsInText } from '../../core/redact.js';
import { assistantVersion } from '../../core/version.js';
import { containerDeploymentBody, containerScaling, containerSpec, pinnedTag, type ContainerEnv } from '../../providers/gpucloud/deploy-compile.js';
import { slugName } from '../../core/kits/deploy/names.js';
import type { AgentSpec } from './agents.js';
import { containerRegions, sizeKey, type ContainerSize, type Region, type RegionCatalogue } from './regions.js';

/** The image the repository's Dockerfile builds, tagged with this version (a pinned tag: gpucloud refuses `latest`). */
export const defaultBoxImage = () => `ghcr.io/assistant-cli/assistant-box:${assistantVersion()}`;
export const DEFAULT_BOX_PORT = 8080;
export const BOX_HEALTH_PATH = '/healthz';
/** The environment variable the box reads its token's SHA-256 from (commands/box.ts, the serve kit's digest token). */
export const TOKEN_SHA256_ENV = 'ASSISTANT_BOX_TOKEN_SHA256';
export const TOKEN_ENV = 'ASSISTANT_BOX_TOKEN';
/** Set by the manifest itself; `--env`/`--secret` may not set them. */
const RESERVED_ENV = new Set(['PORT', TOKEN_ENV, TOKEN_SHA256_ENV]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_NAME = /^[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?$/;
/** Names that say "secret": such values go in gpucloud secrets (`--secret`), never plain in a plan. */
const SECRET_LOOKING = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIAL|AUTH/i;

export interface ManifestRequest {
  agent: AgentSpec;
  /** Deployment name (a URL slug); the token secret is named after it. */
  name: string;
  /** `--region`; when absent, `defaultRegion` if it offers containers, else the first region that does. */
  region?: string;
  defaultRegion?: string;
  /** `--size`: a serverless compute name; default the cheapest offered in the region. */
  size?: string;
  image: string;
  port: number;
  /** Hex SHA-256 of the box token (engine/producers/box/token.ts). */
  tokenSha256: string;
  /** The token was generated just now: a token secret that already exists cannot hold its digest. */
  tokenIsNew: boolean;
  /** `--secret NAME[=gpucloud-secret]`: more environment variables taken from existing gpucloud secrets. */
  secrets: { env: string; secret: string }[];
  /** `--env NAME=value`: plain environment variables. */
  env: { name: string; value: string }[];
  /** The box may apply the plans its agent makes (`box serve --allow-apply`). */
  allowApply: boolean;
}

/** What the compiler reads (plain API records, through the executor). */
export interface ManifestLive extends RegionCatalogue {
  secrets: unknown[];
  containers: unknown[];
}

export interface CompiledManifest {
  plan: Plan;
  /** The container description alone (`--format container-spec`). */
  container: Record<string, unknown>;
  region: Region;
  size: ContainerSize;
  tokenSecret: string;
  /** gpucloud secrets the container references that do not exist yet (create them before applying). */
  missingSecrets: string[];
}

const name = (r: unknown) => (r as { name?: unknown } | undefined)?.name;

/** The gpucloud secret an environment variable is read from by default: `ANTHROPIC_API_KEY` → `anthropic-api-key`. */
export const defaultSecretName = (env: string) => slugName(env);

/** Parses `NAME[=secret-name]` (`--secret`). */
export function parseSecretFlag(value: string): { env: string; secret: string } {
  const eq = value.indexOf('=');
  const env = (eq < 0 ? value : value.slice(0, eq)).trim();
  const secret = (eq < 0 ? defaultSecretName(env) : value.slice(eq + 1)).trim();
  if (!ENV_NAME.test(env)) throw new InvalidInputError('invalid_env_name', `--secret ${JSON.stringify(value)}: "${env}" is not an environment variable name`, { hint: 'e.g. --secret OPENAI_API_KEY=my-openai-key' });
  if (!SECRET_NAME.test(secret)) {
    throw new InvalidInputError('invalid_secret_name', `--secret ${JSON.stringify(value)}: "${secret}" is not a gpucloud secret name (letters, digits, '-', '_', '.'; at most 63)`, { hint: 'e.g. --secret OPENAI_API_KEY=my-openai-key' });
  }
  return { env, secret };
}

/**
 * Parses `NAME=value` (`--env`). A secret is refused — by its name, or by its value as the one masker
 * sees it (a key or token format such as ghp_…, hf_…, sk-…, AKIA…; a URL with a password; a registered
 * credential): a plain value is written into the plan, and a plan is printed, piped into files and
 * kept. It belongs in a gpucloud secret the plan references by name (`--secret`). Deciding by the
 * masker also means the plan never holds anything an output would mask: `> box.json` is the plan.
 */
export function parseEnvFlag(value: string): { name: string; value: string } {
  const eq = value.indexOf('=');
  const env = eq < 0 ? '' : value.slice(0, eq).trim();
  if (!ENV_NAME.test(env)) throw new InvalidInputError('invalid_env', `--env needs NAME=value (got ${JSON.stringify(maskSecretsInText(value.slice(0, 40)))})`, { hint: 'e.g. --env LOG_LEVEL=debug' });
  const hint = `store it as a gpucloud secret and reference it: --secret ${env}=<secret-name> (the plan then holds only the secret's name)`;
  if (SECRET_LOOKING.test(env)) {
    throw new InvalidInputError('secret_in_plain_env', `--env ${env}=…: the name says it is a secret, and a plain value would be written into the plan`, { hint });
  }
  const plain = value.slice(eq + 1);
  if (maskSecretsInText(plain) !== plain) {
    throw new InvalidInputError('secret_in_plain_env', `--env ${env}=…: the value looks like a secret (a key or token, or a password in a URL), and a plain value would be written into the plan`, { hint });
  }
  return { name: env, value: plain };
}

/** The region asked for (or the default one), checked against the regions that offer containers. */
export function pickRegion(regions: readonly Region[], asked: string | undefined, fallback: string | undefined): Region {
  const list = regions.map((r) => r.code).join(', ') || 'none';
  if (!regions.length) throw new InvalidInputError('no_regions', 'no gpucloud location offers serverless containers right now', { hint: 'list them later with: assistant box catalog' });
  if (asked !== undefined) {
    const region = regions.find((r) => r.code.toLowerCase() === asked.trim().toLowerCase());
    if (!region) throw new InvalidInputError('unknown_region', `region "${asked}" does not offer serverless containers (or is not a gpucloud location)`, { hint: `valid regions: ${list}` });
    return region;
  }
  return regions.find((r) => r.code === fallback) ?? regions[0]!;
}

/** The size asked for, offered in the region, or the cheapest there. */
export function pickSize(region: Region, asked: string | undefined): ContainerSize {
  if (asked === undefined) return region.sizes[0]!;
  const size = region.sizes.find((s) => sizeKey(s.name) === sizeKey(asked));
  if (!size) {
    throw new InvalidInputError('unknown_size', `size "${asked}" is not offered in ${region.code}`, {
      hint: `valid sizes in ${region.code}: ${region.sizes.map((s) => `"${s.name}"`).join(', ')}`,
    });
  }
  return size;
}

export function compileManifest(req: ManifestRequest, live: ManifestLive): CompiledManifest {
  if (!pinnedTag(req.image)) {
    throw new InvalidInputError('image_not_pinned', `image "${req.image}" has no version tag (or uses "latest"); gpucloud refuses such images for container deployments`, {
      hint: 'name a pinned image with --image <registry/name:tag>',
    });
  }
  const region = pickRegion(containerRegions(live), req.region, req.defaultRegion);
  const size = pickSize(region, req.size);
  if (live.containers.some((c) => name(c) === req.name)) {
    throw new InvalidInputError('name_taken', `a container deployment named "${req.name}" exists already`, {
      hint: 'pick another name with --name, or delete that deployment first',
    });
  }
  const tokenSecret = slugName(`${req.name}-token-sha256`);
  const existingSecrets = new Set(live.secrets.map((s) => name(s)).filter((n): n is string => typeof n === 'string'));
  if (existingSecrets.has(tokenSecret) && req.tokenIsNew) {
    throw new InvalidInputError('token_secret_exists', `gpucloud secret "${tokenSecret}" exists, but this machine keeps no token for box "${req.name}": the secret cannot hold the new token's digest`, {
      hint: `pick another name with --name, or delete secret ${tokenSecret} (gpucloud cannot change a secret's value)`,
    });
  }

  // Every secret the container reads is a reference by name; the agent's own keys first, then --secret.
  const secretRefs = new Map<string, string>();
  for (const env of req.agent.secrets) secretRefs.set(env, defaultSecretName(env));
  for (const s of req.secrets) secretRefs.set(s.env, s.secret);
  const plainNames = new Set<string>();
  for (const e of req.env) {
    if (plainNames.has(e.name)) throw new InvalidInputError('duplicate_env', `--env ${e.name} is given twice`);
    plainNames.add(e.name);
  }
  for (const n of [...secretRefs.keys(), ...plainNames]) {
    if (RESERVED_ENV.has(n)) throw new InvalidInputError('reserved_env', `${n} is set by the manifest itself`, { hint: n === 'PORT' ? 'use --port' : 'the token is generated; its digest is referenced from a gpucloud secret' });
    if (secretRefs.has(n) && plainNames.has(n)) throw new InvalidInputError('duplicate_env', `${n} is both --env and a secret`);
  }
  const env: ContainerEnv[] = [
    { type: 'plain', name: 'PORT', value_or_reference_to_secret: String(req.port) },
    { type: 'secret', name: TOKEN_SHA256_ENV, value_or_reference_to_secret: tokenSecret },
    ...[...secretRefs].map(([n, secret]): ContainerEnv => ({ type: 'secret', name: n, value_or_reference_to_secret: secret })),
    ...req.env.map((e): ContainerEnv => ({ type: 'plain', name: e.name, value_or_reference_to_secret: e.value })),
  ];
  const missingSecrets = [...new Set([...secretRefs.values()].filter((s) => !existingSecrets.has(s)))];

  const cmd = ['--agent', req.agent.name, '--listen', `0.0.0.0:${req.port}`, ...(req.allowApply ? ['--allow-apply'] : [])];
  const container = containerSpec({ image: req.image, port: req.port, healthPath: BOX_HEALTH_PATH, env, entrypoint: { entrypoint: ['assistant', 'box', 'serve'], cmd } });
  const scaling = containerScaling({ min: 0, max: 1, gpu: size.gpus > 0, concurrency: 1 });
  const commands: PlanCommand[] = [];
  if (!existingSecrets.has(tokenSecret)) {
    commands.push({
      args: ['gpucloud-api', 'POST', '/v1/secrets', JSON.stringify({ name: tokenSecret, value: req.tokenSha256 })],
      reason: `secret ${tokenSecret}: the SHA-256 of the box token (the token itself stays on this machine; the box compares digests)`,
    });
  }
  commands.push({
    args: ['gpucloud-api', 'POST', '/v1/container-deployments', JSON.stringify(containerDeploymentBody({ name: req.name, compute: { name: size.name, size: size.size }, scaling, container }))],
    reason: `create container deployment ${req.name}: agent ${req.agent.name} behind assistant box serve on port ${req.port}, ${size.name}, 0–1 replicas, one request at a time`,
    produces: { ENDPOINT: '$.endpoint_base_url' },
  });

  const notes = [
    `the box token is in ~/.assistant/box/${req.name}.token on this machine; the plan holds only its SHA-256. Talk to the box with: curl -H "Authorization: Bearer $(cat ~/.assistant/box/${req.name}.token)" -H 'content-type: application/json' -d '{"message":"…"}' <ENDPOINT>/v1/box/messages`,
    `region ${region.code}: gpucloud places serverless containers itself (its API takes no location); ${size.name} is offered there at ${size.per_hour} ${size.currency.toUpperCase()}/hour per running replica, nothing while scaled to zero`,
  ];
  if (existingSecrets.has(tokenSecret)) notes.push(`secret ${tokenSecret} exists and is referenced as it is (it holds the digest of the token kept for ${req.name})`);
  if (missingSecrets.length) notes.push(`create these gpucloud secrets before applying (the plan references them by name and never holds their values): ${missingSecrets.join(', ')}`);
  if (req.agent.kind === 'acp' && req.image === defaultBoxImage()) {
    notes.push(`the default image has no ${req.agent.command}: build one FROM it with the agent installed and pass it with --image`);
  }
  if (req.allowApply) notes.push('the box may apply the plans its agent makes (--allow-apply), never destructive ones');

  const plan: Plan = {
    version: 1,
    provider: 'gpucloud',
    summary: `box ${req.name}: agent ${req.agent.name} as a gpucloud serverless container (${size.name}, region ${region.code}); then <ENDPOINT>/v1/box/messages`,
    notes,
    commands,
  };
  return { plan, container, region, size, tokenSecret, missingSecrets };
}

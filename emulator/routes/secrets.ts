/** Secrets, file secrets and container registry credentials. Values are stored but never returned. */
import { badRequest, empty, json, notFound } from '../http.js';
import type { Ctx, RouteDef } from '../router.js';
import { iso } from '../state.js';
import { asObject, isObj, oneOf, reqString } from '../validate.js';
import { deploymentsUsing } from './deployments.js';

const NAME_RE = /^[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?$/;

function checkName(name: string, what: string): void {
  if (!NAME_RE.test(name))
    throw badRequest(`${what} name may contain letters, digits, '-', '_' and '.', must start and end with a letter or digit, at most 63 characters`);
}

const force = (ctx: Ctx) => ctx.query.get('force') === 'true';

function refuseInUse(ctx: Ctx, what: string, name: string, users: string[]): void {
  if (users.length && !force(ctx)) throw badRequest(`${what} ${name} is in use by deployment(s) ${users.join(', ')}; pass force=true to delete it anyway`);
}

/** DELETE …/{name} of a named collection: 404 when there is none, refused while a deployment uses it (unless force=true), else removed. */
function deleteNamed<K extends 'secrets' | 'fileSecrets' | 'registryCreds'>(ctx: Ctx, collection: K, what: string, use: { secret?: string; registry?: string }) {
  const name = ctx.params.name;
  const items = ctx.store.data[collection];
  if (!items.some((s) => s.name === name)) throw notFound(`${what} ${name} not found`);
  refuseInUse(ctx, what, name, deploymentsUsing(ctx.store, use));
  ctx.store.data[collection] = items.filter((s) => s.name !== name) as typeof items;
  return empty(200);
}

// ---------------------------------------------------------------- secrets

function createSecret(ctx: Ctx) {
  const b = asObject(ctx.body);
  const name = reqString(b, 'name');
  checkName(name, 'Secret');
  const value = reqString(b, 'value', { allowEmpty: false });
  if (ctx.store.data.secrets.some((s) => s.name === name) || ctx.store.data.fileSecrets.some((s) => s.name === name))
    throw badRequest(`Secret ${name} already exists`);
  ctx.store.data.secrets.push({ name, value, created_at: iso(ctx.now) });
  return empty(201);
}

const deleteSecret = (ctx: Ctx) => deleteNamed(ctx, 'secrets', 'Secret', { secret: ctx.params.name });

// ---------------------------------------------------------------- file secrets

function createFileSecret(ctx: Ctx) {
  const b = asObject(ctx.body);
  const name = reqString(b, 'name');
  checkName(name, 'File secret');
  if (!Array.isArray(b.files) || b.files.length === 0) throw badRequest('files should not be empty');
  const files = b.files.map((f, i) => {
    if (!isObj(f)) throw badRequest(`files.${i} must be an object`);
    const file_name = reqString(f, 'file_name', { label: `files.${i}.file_name` });
    if (file_name.includes('/')) throw badRequest(`files.${i}.file_name must not contain '/'`);
    const base64_content = reqString(f, 'base64_content', { label: `files.${i}.base64_content`, allowEmpty: true });
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64_content) || base64_content.length % 4 !== 0)
      throw badRequest(`files.${i}.base64_content must be base64 encoded`);
    return { file_name, base64_content };
  });
  if (ctx.store.data.fileSecrets.some((s) => s.name === name) || ctx.store.data.secrets.some((s) => s.name === name))
    throw badRequest(`Secret ${name} already exists`);
  ctx.store.data.fileSecrets.push({ name, files, created_at: iso(ctx.now) });
  return empty(201);
}

const deleteFileSecret = (ctx: Ctx) => deleteNamed(ctx, 'fileSecrets', 'File secret', { secret: ctx.params.name });

// ---------------------------------------------------------------- registry credentials

const REGISTRY_FIELDS: Record<string, string[]> = {
  dockerhub: ['username', 'access_token'],
  ghcr: ['username', 'access_token'],
  gcr: ['service_account_key'],
  'aws-ecr': ['access_key_id', 'secret_access_key', 'region', 'ecr_repo'],
  custom: ['docker_config_json'],
  scaleway: ['scaleway_domain', 'scaleway_uuid'],
  verda: [],
};

function createRegistryCred(ctx: Ctx) {
  const b = asObject(ctx.body);
  const name = reqString(b, 'name');
  checkName(name, 'Registry credentials');
  const type = oneOf(b.type, Object.keys(REGISTRY_FIELDS), 'type');
  const fields: Record<string, string> = {};
  for (const f of REGISTRY_FIELDS[type]) fields[f] = reqString(b, f);
  for (const f of ['service_account_key', 'docker_config_json']) {
    if (fields[f] === undefined) continue;
    try {
      JSON.parse(fields[f]);
    } catch {
      throw badRequest(`${f} must be a JSON document (as a string)`);
    }
  }
  if (ctx.store.data.registryCreds.some((r) => r.name === name)) throw badRequest(`Registry credentials ${name} already exist`);
  ctx.store.data.registryCreds.push({ name, type, fields, created_at: iso(ctx.now) });
  return empty(201);
}

const deleteRegistryCred = (ctx: Ctx) => deleteNamed(ctx, 'registryCreds', 'Registry credentials', { registry: ctx.params.name });

export const secretRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/secrets',
    handler: (ctx) => json(200, ctx.store.data.secrets.map((s) => ({ name: s.name, created_at: s.created_at, secret_type: 'generic' }))),
  },
  { method: 'POST', path: '/v1/secrets', handler: createSecret },
  { method: 'DELETE', path: '/v1/secrets/{name}', handler: deleteSecret },
  {
    method: 'GET',
    path: '/v1/file-secrets',
    handler: (ctx) =>
      json(
        200,
        ctx.store.data.fileSecrets.map((s) => ({
          name: s.name,
          created_at: s.created_at,
          secret_type: 'file-secret',
          file_names: s.files.map((f) => f.file_name),
        })),
      ),
  },
  { method: 'POST', path: '/v1/file-secrets', handler: createFileSecret },
  { method: 'DELETE', path: '/v1/file-secrets/{name}', handler: deleteFileSecret },
  {
    method: 'GET',
    path: '/v1/container-registry-credentials',
    handler: (ctx) => json(200, ctx.store.data.registryCreds.map((r) => ({ name: r.name, created_at: r.created_at }))),
  },
  { method: 'POST', path: '/v1/container-registry-credentials', handler: createRegistryCred },
  { method: 'DELETE', path: '/v1/container-registry-credentials/{name}', handler: deleteRegistryCred },
];

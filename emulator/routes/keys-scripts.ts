/** SSH keys (/v1/sshkeys and the /v1/ssh-keys alias) and startup scripts (/v1/scripts, paginated). */
import { randomUUID } from 'node:crypto';
import { sshFingerprint } from '../fixtures.js';
import { badRequest, forbidden, json, notFound, text } from '../http.js';
import type { Ctx, RouteDef } from '../router.js';
import { iso } from '../state.js';
import { asObject, reqString, stringList } from '../validate.js';

const KEY_RE = /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+[A-Za-z0-9+/]+={0,3}(\s.*)?$/;
const SCRIPT_QUOTA = 100;

// ---------------------------------------------------------------- ssh keys

const renderKey = (k: { id: string; name: string; key: string; fingerprint: string; created_at: string }) => ({
  id: k.id,
  name: k.name,
  key: k.key,
  fingerprint: k.fingerprint,
  created_at: k.created_at,
});

function listKeys(ctx: Ctx) {
  return json(200, ctx.store.data.sshKeys.map(renderKey));
}

/** GET …/{id}: the one item, as a list of one (as the API answers), or a 404 (`missing`). */
function getOne<T extends { id: string }>(ctx: Ctx, items: readonly T[], missing: string, render: (item: T) => unknown) {
  const item = items.find((x) => x.id === ctx.params.id);
  if (!item) throw notFound(missing);
  return json(200, [render(item)]);
}

const getKey = (ctx: Ctx) => getOne(ctx, ctx.store.data.sshKeys, 'Invalid ssh key id', renderKey);

function createKey(ctx: Ctx) {
  const b = asObject(ctx.body);
  const name = reqString(b, 'name', { max: 255 });
  const key = reqString(b, 'key').trim();
  if (!KEY_RE.test(key)) throw badRequest('key is not a valid public SSH key');
  const id = randomUUID();
  ctx.store.data.sshKeys.push({ id, name, key, fingerprint: sshFingerprint(key), created_at: iso(ctx.now) });
  return text(201, id);
}

/** Deletes every item of `collection` that `ids` names, all or none: an id it does not hold is a 404 (`missing`). */
function deleteAll<K extends 'sshKeys' | 'scripts'>(ctx: Ctx, collection: K, ids: string[], missing: string) {
  const items = ctx.store.data[collection];
  for (const id of ids) if (!items.some((x) => x.id === id)) throw notFound(missing);
  ctx.store.data[collection] = items.filter((x) => !ids.includes(x.id)) as typeof items;
  return { status: 200 };
}

/** The ids a bulk DELETE names in its body's `field`: a list of strings, not empty. */
function idsInBody(ctx: Ctx, field: string): string[] {
  const ids = stringList(asObject(ctx.body)[field], field);
  if (ids.length === 0) throw badRequest(`${field} should not be empty`);
  return ids;
}

const deleteKeys = (ctx: Ctx, ids: string[]) => deleteAll(ctx, 'sshKeys', ids, 'Invalid ssh key id');

// ---------------------------------------------------------------- scripts

const renderScript = (s: { id: string; name: string; script: string; created_at: string }) => ({
  id: s.id,
  name: s.name,
  script: s.script,
  created_at: s.created_at,
});

function pageParam(ctx: Ctx, name: string, def: number, max?: number): number {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw badRequest(`${name} must be a positive integer`);
  if (max !== undefined && n > max) throw badRequest(`${name} must not be greater than ${max}`);
  return n;
}

function listScripts(ctx: Ctx) {
  const page = pageParam(ctx, 'page', 1);
  const pageSize = pageParam(ctx, 'pageSize', 10, 100);
  const all = ctx.store.data.scripts;
  const slice = all.slice((page - 1) * pageSize, page * pageSize);
  return json(200, slice.map(renderScript), {
    'X-Page': String(page),
    'X-Page-Size': String(pageSize),
    'X-Total-Count': String(all.length),
  });
}

const getScript = (ctx: Ctx) => getOne(ctx, ctx.store.data.scripts, 'Invalid script id', renderScript);

function createScript(ctx: Ctx) {
  const b = asObject(ctx.body);
  const name = reqString(b, 'name', { max: 255 });
  const script = reqString(b, 'script');
  if (ctx.store.data.scripts.length >= SCRIPT_QUOTA)
    throw forbidden(`Startup script limit reached (${SCRIPT_QUOTA}); delete unused scripts first`);
  const id = randomUUID();
  ctx.store.data.scripts.push({ id, name, script, created_at: iso(ctx.now) });
  return text(200, id);
}

const deleteScripts = (ctx: Ctx, ids: string[]) => deleteAll(ctx, 'scripts', ids, 'Invalid script id');

export const keyScriptRoutes: RouteDef[] = [
  ...['/v1/sshkeys', '/v1/ssh-keys'].flatMap((base): RouteDef[] => [
    { method: 'GET', path: base, handler: listKeys },
    { method: 'POST', path: base, handler: createKey },
    { method: 'DELETE', path: base, handler: (ctx) => deleteKeys(ctx, idsInBody(ctx, 'keys')) },
    { method: 'GET', path: `${base}/{id}`, handler: getKey },
    { method: 'DELETE', path: `${base}/{id}`, handler: (ctx) => deleteKeys(ctx, [ctx.params.id]) },
  ]),
  { method: 'GET', path: '/v1/scripts', handler: listScripts },
  { method: 'POST', path: '/v1/scripts', handler: createScript },
  { method: 'DELETE', path: '/v1/scripts', handler: (ctx) => deleteScripts(ctx, idsInBody(ctx, 'scripts')) },
  { method: 'GET', path: '/v1/scripts/{id}', handler: getScript },
  { method: 'DELETE', path: '/v1/scripts/{id}', handler: (ctx) => deleteScripts(ctx, [ctx.params.id]) },
];

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

function getKey(ctx: Ctx) {
  const k = ctx.store.data.sshKeys.find((x) => x.id === ctx.params.id);
  if (!k) throw notFound('Invalid ssh key id');
  return json(200, [renderKey(k)]);
}

function createKey(ctx: Ctx) {
  const b = asObject(ctx.body);
  const name = reqString(b, 'name', { max: 255 });
  const key = reqString(b, 'key').trim();
  if (!KEY_RE.test(key)) throw badRequest('key is not a valid public SSH key');
  const id = randomUUID();
  ctx.store.data.sshKeys.push({ id, name, key, fingerprint: sshFingerprint(key), created_at: iso(ctx.now) });
  return text(201, id);
}

function deleteKeys(ctx: Ctx, ids: string[]) {
  for (const id of ids) if (!ctx.store.data.sshKeys.some((k) => k.id === id)) throw notFound('Invalid ssh key id');
  ctx.store.data.sshKeys = ctx.store.data.sshKeys.filter((k) => !ids.includes(k.id));
  return { status: 200 };
}

function deleteKeysBody(ctx: Ctx) {
  const ids = stringList(asObject(ctx.body).keys, 'keys');
  if (ids.length === 0) throw badRequest('keys should not be empty');
  return deleteKeys(ctx, ids);
}

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

function getScript(ctx: Ctx) {
  const s = ctx.store.data.scripts.find((x) => x.id === ctx.params.id);
  if (!s) throw notFound('Invalid script id');
  return json(200, [renderScript(s)]);
}

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

function deleteScripts(ctx: Ctx, ids: string[]) {
  for (const id of ids) if (!ctx.store.data.scripts.some((s) => s.id === id)) throw notFound('Invalid script id');
  ctx.store.data.scripts = ctx.store.data.scripts.filter((s) => !ids.includes(s.id));
  return { status: 200 };
}

function deleteScriptsBody(ctx: Ctx) {
  const ids = stringList(asObject(ctx.body).scripts, 'scripts');
  if (ids.length === 0) throw badRequest('scripts should not be empty');
  return deleteScripts(ctx, ids);
}

export const keyScriptRoutes: RouteDef[] = [
  ...['/v1/sshkeys', '/v1/ssh-keys'].flatMap((base): RouteDef[] => [
    { method: 'GET', path: base, handler: listKeys },
    { method: 'POST', path: base, handler: createKey },
    { method: 'DELETE', path: base, handler: deleteKeysBody },
    { method: 'GET', path: `${base}/{id}`, handler: getKey },
    { method: 'DELETE', path: `${base}/{id}`, handler: (ctx) => deleteKeys(ctx, [ctx.params.id]) },
  ]),
  { method: 'GET', path: '/v1/scripts', handler: listScripts },
  { method: 'POST', path: '/v1/scripts', handler: createScript },
  { method: 'DELETE', path: '/v1/scripts', handler: deleteScriptsBody },
  { method: 'GET', path: '/v1/scripts/{id}', handler: getScript },
  { method: 'DELETE', path: '/v1/scripts/{id}', handler: (ctx) => deleteScripts(ctx, [ctx.params.id]) },
];

/**
 * `assistant backend …`: run the credential backend (`serve`) and administer it (`keys`, `audit`,
 * `rotate-master-key`). The admin commands work on the data directory or database directly, or through
 * the running PGlite server's admin socket (backend/admin.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openAdmin, type AdminOps } from '../backend/admin.js';
import { defaultKeyFile } from '../backend/keyring.js';
import { pgliteDir, redactDatabaseUrl } from '../backend/storage.js';
import { startBackend } from '../backend/server.js';
import { loadConfig } from '../engine/providers/config.js';
import { isLoopbackHost } from '../engine/core/loopback.js';
import { InvalidInputError, UsageError } from '../engine/core/errors.js';
import { parseListen } from '../engine/core/listen.js';
import { mustEndWithin, whenStopped } from '../engine/core/kits/serve/lifecycle.js';
import { registerSecret } from '../engine/core/redact.js';
import { columnsOf } from '../engine/core/render/columns.js';
import { BACKEND_ENVS, DEFAULT_BACKEND_PORT, TenantSchema } from '../schemas/backend-api.js';
import { warn, type CommandContext } from './context.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';

export const DATABASE_URL_ENV = 'ASSISTANT_BACKEND_DATABASE_URL';

/** Where the backend's data and master key are: every subcommand's flags end with these. */
const STORAGE = {
  dataDir: flag.path().option('--data-dir <dir>', 'Embedded database directory (default ~/.assistant/backend)'),
  database: flag.text().option('--database <url>', `A PostgreSQL server instead: postgres://user:password@host:5432/db (or ${DATABASE_URL_ENV}, which keeps the password out of shell history)`),
  masterKeyFile: flag.path().option('--master-key-file <file>', 'Master key file, created 0600 on first start (default ~/.assistant/backend-master.key; ASSISTANT_BACKEND_MASTER_KEY overrides it)'),
} satisfies FlagSpec;

/** What each subcommand's flags are (in --help order); their options types are derived from it. */
const FLAGS = {
  serve: {
    listen: flag.text().option('--listen <host:port>', `Address to listen on (default 127.0.0.1:${DEFAULT_BACKEND_PORT}; PORT sets the port)`),
    tlsCert: flag.path().option('--tls-cert <file>', 'TLS certificate (PEM); with --tls-key serves https'),
    tlsKey: flag.path().option('--tls-key <file>', 'TLS private key (PEM)'),
    insecure: flag.bool().option('--insecure', 'Allow plain HTTP on a non-loopback address (behind a TLS proxy only)'),
    ...STORAGE,
  },
  keys: {
    tenant: flag.text().option('--tenant <tenant>', 'The team the key belongs to'),
    env: flag.list(flag.oneOf(BACKEND_ENVS)).option('--env <env>', 'An env the key may read and write: testing, staging or production; repeatable, at least one'),
    label: flag.text().option('--label <label>', 'A note on the key (who or what uses it)'),
    ...STORAGE,
  },
  audit: {
    tenant: flag.text().option('--tenant <tenant>', 'Only this tenant'),
    limit: flag.int(1, 10_000).option('--limit <n>', 'The last n entries (default 100)'),
    ...STORAGE,
  },
  'rotate-master-key': STORAGE,
} satisfies Record<string, FlagSpec>;

type StorageFlags = OptionsOf<typeof STORAGE>;
type ServeFlags = OptionsOf<typeof FLAGS.serve>;
type KeysFlags = OptionsOf<typeof FLAGS.keys>;
type AuditFlags = OptionsOf<typeof FLAGS.audit>;

/** What `assistant backend --help` says after the commands. */
const FOOTER = 'The client side: credentials store|list|delete|test (assistant credentials --help).';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('backend', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('serve', 'Run the credential backend (HTTP JSON API under /v1)'), FLAGS.serve)
      .example('  assistant backend serve                                   # http://127.0.0.1:8790, data in ~/.assistant/backend')
      .example(`  ${DATABASE_URL_ENV}=postgres://assistant:pw@db:5432/assistant assistant backend serve`)
      .example('  assistant backend serve --listen 0.0.0.0:8790 --tls-cert cert.pem --tls-key key.pem')
      .action((o: ServeFlags) => start(() => serve(ctx, o)));
    withFlags(cli.command('keys <action> [prefix]', 'API keys: create --tenant T --env E… (prints the key once), list [--tenant T], revoke <prefix>'), FLAGS.keys)
      .example('  assistant backend keys create --tenant ml-team --env testing --label "alice laptop"   # the key alone on stdout')
      .example('  assistant backend keys create --tenant ml-team --env staging --env production --label ci')
      .example('  assistant backend keys list')
      .example('  assistant backend keys revoke k3x9q0b2mz')
      .action((action: string, prefix: string | undefined, o: KeysFlags) => start(() => keys(ctx, action, prefix === undefined ? undefined : String(prefix), o)));
    withFlags(cli.command('audit', 'Who read or wrote which credential when (key prefix, address, action; never values)'), FLAGS.audit)
      .example('  assistant backend audit --tenant ml-team -o json')
      .action((o: AuditFlags) => start(() => audit(ctx, o)));
    withFlags(cli.command('rotate-master-key', 'Re-wrap every data key under a new master key (the server keeps serving)'), FLAGS['rotate-master-key'])
      .example('  assistant backend rotate-master-key')
      .action((o: StorageFlags) => start(() => rotate(ctx, o)));
  });
}

function storageOptions(ctx: CommandContext, o: StorageFlags) {
  const expand = (p: string) => (p === '~' ? ctx.home : p.startsWith('~/') ? join(ctx.home, p.slice(2)) : p);
  const database = o.database ?? (ctx.env[DATABASE_URL_ENV]?.trim() || undefined);
  if (database) {
    if (!/^postgres(ql)?:\/\//.test(database)) throw new UsageError(`--database must be a postgres:// URL (got "${redactDatabaseUrl(database)}")`);
    try {
      registerSecret(decodeURIComponent(new URL(database).password));
    } catch {
      // An unparsable URL fails at connect with its own message.
    }
    if (o.database && new URL(o.database).password) warn(ctx, `a password on the command line lands in shell history; prefer ${DATABASE_URL_ENV}`);
  }
  return {
    dataDir: expand(o.dataDir ?? join(ctx.home, '.assistant', 'backend')),
    database,
    keyFile: expand(o.masterKeyFile ?? defaultKeyFile(ctx.home)),
    env: ctx.env,
  };
}

async function serve(ctx: CommandContext, o: ServeFlags): Promise<number> {
  const port = ctx.env.PORT?.trim();
  const listen = parseListen(o.listen ?? `127.0.0.1:${port || DEFAULT_BACKEND_PORT}`, `127.0.0.1:${DEFAULT_BACKEND_PORT}`);
  if (Boolean(o.tlsCert) !== Boolean(o.tlsKey)) throw new UsageError('--tls-cert and --tls-key go together', { hint: 'give both PEM files' });
  const tls = o.tlsCert && o.tlsKey ? { cert: readPem(o.tlsCert, '--tls-cert'), key: readPem(o.tlsKey, '--tls-key') } : undefined;
  if (!isLoopbackHost(listen.host) && !tls) {
    if (!o.insecure) {
      throw new UsageError(`listening on ${listen.host} without TLS would send API keys and secrets in clear text`, {
        hint: 'give --tls-cert and --tls-key, or --insecure when a TLS proxy in front of it terminates TLS',
      });
    }
    warn(ctx, `serving plain HTTP on ${listen.host} (--insecure): API keys and secrets cross the network unencrypted unless a TLS proxy is in front`);
  }
  const storage = storageOptions(ctx, o);
  const log = (line: string) => ctx.io.stderr.write(`backend: ${line}\n`);
  // SIGTERM (systemd, docker stop) stops it as gracefully as Ctrl-C, and always ends it (the serve kit's lifecycle).
  const stop = whenStopped(ctx.signal);
  // The embedded database's first start lays out a whole PostgreSQL cluster (about 10 s): say so, not silence.
  if (storage.database) log(`connecting to PostgreSQL ${redactDatabaseUrl(storage.database)}…`);
  else log(existsSync(pgliteDir(storage.dataDir)) ? `opening the embedded database in ${storage.dataDir}…` : `preparing the embedded database in ${storage.dataDir} (first start: this takes about 10 s)…`);
  try {
    // The console's live page reaches the clouds named by the server's own configuration (never a tenant's).
    const { config } = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
    const server = await startBackend({ ...storage, ...listen, tls, log, config, home: ctx.home });
    if (server.keyCreated) {
      warn(ctx, `created the master key file ${storage.keyFile} (mode 0600): back it up apart from the database; without it no stored credential can be read`);
    }
    const where = server.storage === 'pglite' ? `embedded PostgreSQL in ${server.where}` : `PostgreSQL ${server.where}`;
    ctx.io.stderr.write(`assistant backend listening on ${server.url} (${where}; master key from ${server.keySource}); Ctrl-C stops it\n`);
    const why = await stop.stopped;
    ctx.io.stderr.write(`backend: stopping (${why}): finishing requests in flight\n`);
    mustEndWithin(25_000, log);
    await server.close();
  } finally {
    stop.dispose();
  }
  ctx.io.stderr.write('backend stopped\n');
  return 0;
}

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new InvalidInputError('invalid_tls', `${flag}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

async function withAdmin<T>(ctx: CommandContext, o: StorageFlags, fn: (admin: AdminOps) => Promise<T>): Promise<T> {
  const admin = await openAdmin(storageOptions(ctx, o));
  try {
    return await fn(admin);
  } finally {
    await admin.close();
  }
}


const KEY_COLUMNS = columnsOf([
  ['PREFIX', 'prefix'], ['TENANT', 'tenant'], ['ENVS', 'envs', 5], ['VALID', 'valid', 5], ['LABEL', 'label', 2], ['CREATED', 'created_at', 3], ['LAST USED', 'last_used_at', 1],
  ['REVOKED', 'revoked_at', 4],
]);

async function keys(ctx: CommandContext, action: string, prefix: string | undefined, o: KeysFlags): Promise<number> {
  const { tenant } = o;
  if (tenant !== undefined) {
    const r = TenantSchema.safeParse(tenant);
    if (!r.success) throw new UsageError(`--tenant: ${r.error.issues[0]!.message}`);
  }
  switch (action) {
    case 'create': {
      if (!tenant) throw new UsageError('keys create needs --tenant <tenant>', { hint: 'e.g. assistant backend keys create --tenant ml-team --env testing' });
      const envs = o.env ?? [];
      if (envs.length === 0) throw new UsageError('keys create needs --env <env> (testing, staging or production; repeatable): a key reads and writes only the envs it is given', { hint: 'e.g. assistant backend keys create --tenant ml-team --env testing' });
      const made = await withAdmin(ctx, o, (a) => a.createKey(tenant, o.label ?? '', envs));
      // The key alone on stdout (pipe it into a secret store); it is shown this once and never again.
      ctx.out.text(`${made.key}\n`, { reveal: true });
      ctx.io.stderr.write(`created API key ${made.prefix} for tenant ${tenant}, envs ${made.envs.join(', ')}; it is shown only now (the backend keeps its hash). Give it as ASSISTANT_BACKEND_API_KEY or backend.api_key\n`);
      return 0;
    }
    case 'list': {
      const list = await withAdmin(ctx, o, (a) => a.listKeys(tenant));
      ctx.out.records(list, KEY_COLUMNS, { keep: 'prefix', empty: 'No API keys.\n' });
      return 0;
    }
    case 'revoke': {
      if (!prefix) throw new UsageError('keys revoke needs the key prefix', { hint: "the PREFIX column of 'assistant backend keys list'" });
      const r = await withAdmin(ctx, o, (a) => a.revokeKey(prefix));
      if (!r.revoked) throw new InvalidInputError('unknown_key', `no API key with prefix "${prefix}"`, { hint: "see 'assistant backend keys list'" });
      ctx.io.stderr.write(r.already ? `API key ${prefix} (tenant ${r.tenant}) was already revoked\n` : `revoked API key ${prefix} (tenant ${r.tenant}); it is refused from now on\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown keys action "${action}"`, { hint: 'use keys create|list|revoke' });
  }
}

const AUDIT_COLUMNS = columnsOf([
  ['AT', 'at'], ['TENANT', 'tenant', 3], ['KEY', 'key_prefix', 4], ['ADDRESS', 'address', 2], ['ACTION', 'action'], ['ENV', 'env', 3], ['PROVIDER', 'provider', 3],
  ['NAME', 'name', 2], ['OUTCOME', 'outcome'],
]);

async function audit(ctx: CommandContext, o: AuditFlags): Promise<number> {
  const limit = o.limit ?? 100;
  const entries = await withAdmin(ctx, o, (a) => a.audit({ tenant: o.tenant, limit }));
  ctx.out.records(entries, AUDIT_COLUMNS, { keep: 'action', empty: 'No audit entries.\n' });
  return 0;
}

async function rotate(ctx: CommandContext, o: StorageFlags): Promise<number> {
  const r = await withAdmin(ctx, o, async (a) => {
    ctx.io.stderr.write(`rotating the master key through ${a.via}…\n`);
    return a.rotateMasterKey();
  });
  ctx.out.value(r, { table: `master key rotated: ${r.rewrapped} record(s) re-wrapped from ${r.from.join(', ') || '(none)'} to ${r.to}\n` });
  return 0;
}

/**
 * `assistant credentials store|list|delete|test`: provider credentials in the team's credential
 * backend (backend/, `assistant backend serve`), and a check that they work.
 *
 * Which fields a provider stores comes from its `credentials` capability (engine/core/credentials-capability.ts),
 * asked of the registry: no provider is named here. Secrets are
 * taken from standard input (`--client-secret -`) or a hidden prompt; one given on the command line
 * works but is warned about (shell history). Nothing read from the backend is written anywhere.
 */
import type { CredentialField, CredentialsCapability } from '../engine/core/capabilities.js';
import { loadConfig } from '../engine/providers/config.js';
import { backendClient, DEFAULT_CREDENTIAL_NAME, type BackendClient } from '../engine/core/config/backend-store.js';
import { providersWith, type CapableProvider } from '../engine/providers/index.js';
import { AssistantError, InvalidInputError, SafetyRefusal, UsageError } from '../engine/core/errors.js';
import { columnsOf } from '../engine/core/render/columns.js';
import { registerSecret } from '../engine/core/redact.js';
import { CredentialNameSchema } from '../schemas/backend-api.js';
import { warn, type CommandContext } from './context.js';
import { runGroup } from './group.js';
import { declared, flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { confirmByTyping, prompt } from './prompt.js';
import { readPlan } from '../machines/apply/reads.js';
import { withSession } from './session.js';

const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const MAX_STDIN_BYTES = 64 * 1024;

/**
 * What each subcommand's own flags are; store's help names the providers that take them, known once the
 * registry is read (its per-provider field flags: storeFlags).
 */
function flagTable(known: Stores) {
  const profiled = known.storable.filter((p) => p.capabilities.credentials.profile);
  const expiring = profiled.filter((p) => p.capabilities.credentials.profile!.expiring);
  return {
    store: {
      name: flag.text().option('--name <name>', `Name of the credential (default "${DEFAULT_CREDENTIAL_NAME}"${profiled.length ? `; ${forProviders(profiled, 'the profile')}` : ''})`),
      profile: flag.text().option('--profile <profile>', profiled.map((p) => `${p.name}: ${p.capabilities.credentials.profile!.about}`).join('; ') || 'no provider reads a profile'),
      allowSession: flag.bool().option('--allow-session', expiring.length ? forProviders(expiring, 'store expiring session keys too') : 'no provider has expiring keys'),
    },
    list: { all: flag.bool().option('--all', 'Every env (testing, staging, production), not only the configured one') },
    delete: { name: flag.text().option('--name <name>', `Name of the credential (default "${DEFAULT_CREDENTIAL_NAME}")`) },
  } satisfies Record<string, FlagSpec>;
}

type Flags = ReturnType<typeof flagTable>;
type StoreOptions = OptionsOf<Flags['store']>;
type ListOptions = OptionsOf<Flags['list']>;
type DeleteOptions = OptionsOf<Flags['delete']>;

/** store's table: its own flags and a text flag per credential field any provider stores (not in StoreOptions: read with `declared`). */
const storeFlags = (known: Stores, own: FlagSpec): FlagSpec => ({
  ...own,
  ...Object.fromEntries(known.flags.map((f) => [camel(f.flag), flag.text().option(`${f.flag} <value>`, f.secret ? `${f.description} ("-" reads it from stdin; left out on a terminal: asked without echo)` : f.description)])),
});

/** The providers with credentials, and among them those whose fields the backend stores, in registry order. */
interface Stores {
  all: CapableProvider<'credentials'>[];
  storable: CapableProvider<'credentials'>[];
  /** Every flag any provider's fields use (the store command declares them all, then checks per provider). */
  flags: CredentialField[];
}

async function stores(): Promise<Stores> {
  const all = await providersWith('credentials');
  const storable = all.filter((p) => p.capabilities.credentials.fields?.length);
  const seen = new Map<string, CredentialField>();
  for (const p of storable) for (const f of p.capabilities.credentials.fields!) if (!seen.has(f.flag)) seen.set(f.flag, f);
  return { all, storable, flags: [...seen.values()] };
}

/** `cloud_a: …` for a flag only some providers take. */
const forProviders = (ps: CapableProvider<'credentials'>[], text: string) => `${ps.map((p) => p.name).join(', ')}: ${text}`;

/** What `assistant credentials --help` says after the commands. */
const FOOTER = 'The backend is chosen by backend.url / backend.urls.<env> / ASSISTANT_BACKEND_URL, its key by ASSISTANT_BACKEND_API_KEY or backend.api_key,\n' +
  'the env (namespace) by ASSISTANT_BACKEND_ENV or backend.env (default production). k8s kubeconfigs: not yet.';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  const known = await stores();
  const providers = known.storable.map((p) => p.name).join(', ');
  const table = flagTable(known);
  const flagSpecs = { ...table, store: storeFlags(known, table.store) };
  // `--client-secret -` (read it from stdin): cac would take a lone "-" for a missing value.
  const flags = new Set(known.flags.map((f) => f.flag));
  argv = argv.map((arg, i) => (arg === '-' && flags.has(argv[i - 1] ?? '') ? '\0stdin' : arg)).reduce<string[]>((out, arg) => {
    if (arg === '\0stdin') out[out.length - 1] = `${out[out.length - 1]}=-`;
    else out.push(arg);
    return out;
  }, []);
  return runGroup('credentials', argv, ctx, { footer: FOOTER, flags: flagSpecs }, (cli, start) => {
    withFlags(cli.command('store <provider>', `Store a provider's credentials in the backend (providers: ${providers})`), flagSpecs.store)
      .example('  printf %s "$SECRET" | assistant credentials store gpucloud --client-id <CLIENT_ID> --client-secret -')
      .example('  assistant credentials store gpucloud --client-id <CLIENT_ID>      # asks for the secret without echo')
      .example('  assistant credentials store cloud_a --profile prod')
      .example('  assistant credentials store repohost --token -  < token.txt')
      .action((provider: string, o: StoreOptions) => start(() => storeCommand(ctx, known, provider, o)));
    withFlags(cli.command('list', 'What the backend holds for this env: provider, name, env, updated (never values)'), flagSpecs.list)
      .example('  assistant credentials list')
      .example('  ASSISTANT_BACKEND_ENV=testing assistant credentials list -o json')
      .action((o: ListOptions) => start(() => listCommand(ctx, o)));
    withFlags(cli.command('delete <provider>', 'Delete a stored credential (asks first; --yes skips)'), flagSpecs.delete)
      .example('  assistant credentials delete gpucloud')
      .example('  assistant credentials delete cloud_a --name prod --yes')
      .action((provider: string, o: DeleteOptions) => start(() => deleteCommand(ctx, known, provider, o)));
    cli
      .command('test [provider]', 'Check that credentials work (gpucloud: a fresh token and the balance); without a provider, every stored one')
      .example('  assistant credentials test gpucloud            # whichever source resolves first; says which')
      .example('  assistant credentials test                     # each credential stored in the backend')
      .action((provider: string | undefined) => start(() => testCommand(ctx, known, provider)));
  });
}

async function client(ctx: CommandContext): Promise<BackendClient> {
  const { config, warnings } = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of warnings) warn(ctx, w);
  return backendClient(config, ctx.env, { signal: ctx.signal, timeoutMs: (ctx.globals.timeout ?? config.timeout ?? 30) * 1000, debug: ctx.debug.callback });
}

/** The credentials of a provider the backend stores fields for. */
function providerSpec(known: Stores, provider: string): CredentialsCapability & { fields: readonly CredentialField[] } {
  const spec = known.storable.find((p) => p.name === provider)?.capabilities.credentials;
  if (!spec) {
    const why = known.all.find((p) => p.name === provider)?.capabilities.credentials.notStored;
    throw new UsageError(`"${provider}" has no credentials to store${why ? ` (${why})` : ''}`, { hint: `providers: ${known.storable.map((p) => p.name).join(', ')}` });
  }
  return spec as CredentialsCapability & { fields: readonly CredentialField[] };
}

function credentialName(value: string | undefined): string {
  const name = value ?? DEFAULT_CREDENTIAL_NAME;
  const r = CredentialNameSchema.safeParse(name);
  if (!r.success) throw new UsageError(`--name: ${r.error.issues[0]!.message}`);
  return name;
}

// ---- store ----------------------------------------------------------------------------------------

async function storeCommand(ctx: CommandContext, known: Stores, provider: string, o: StoreOptions): Promise<number> {
  const spec = providerSpec(known, provider);
  const mine = new Set(spec.fields.map((f) => f.flag));
  const field = (f: CredentialField) => declared(o, camel(f.flag), flag.text());
  const stray = known.flags.filter((f) => !mine.has(f.flag) && field(f) !== undefined);
  if (stray.length) {
    throw new UsageError(`${stray.map((f) => f.flag).join(', ')} ${stray.length > 1 ? 'are not fields' : 'is not a field'} of ${provider}`, {
      hint: `${provider} takes ${spec.fields.map((f) => f.flag).join(', ')}`,
    });
  }
  if ((o.profile !== undefined || o.allowSession) && !spec.profile) throw new UsageError(`--profile and --allow-session are for ${profiledNames(known)}, not ${provider}`);

  const values: Record<string, string> = {};
  let name = o.name;
  if (o.profile !== undefined) {
    Object.assign(values, spec.profile!.read(o.profile, { env: ctx.env, home: ctx.home }));
    name ??= o.profile;
  }
  const stdinUsers = spec.fields.filter((f) => field(f) === '-');
  if (stdinUsers.length > 1) throw new UsageError(`only one value can come from stdin ("-"): ${stdinUsers.map((f) => f.flag).join(', ')}`);
  for (const f of spec.fields) {
    let value = field(f);
    if (value === undefined) continue;
    if (value === '-') value = await readStdin(ctx, f);
    else if (f.secret) warn(ctx, `${f.flag} on the command line lands in your shell history; next time use "${f.flag} -" (stdin) or leave it out to be asked`);
    values[f.name] = value;
  }
  for (const f of spec.fields) {
    if (values[f.name] !== undefined || !f.required) continue;
    if (!ctx.io.stdinIsTTY) {
      throw new UsageError(`${provider} needs ${f.flag}`, { hint: f.secret ? `give "${f.flag} -" and pipe the value in, or run it on a terminal to be asked` : `give ${f.flag} <value>` });
    }
    values[f.name] = await prompt(ctx, `${f.description} (${f.flag}): `, f.secret);
  }
  for (const f of spec.fields) {
    const v = values[f.name]?.trim();
    if (v === undefined || v === '') {
      delete values[f.name];
      if (f.required) throw new UsageError(`${f.flag} cannot be empty`);
      continue;
    }
    values[f.name] = v;
    if (f.secret) registerSecret(v);
  }
  if (spec.profile?.expiring?.(values) && !o.allowSession) refuseSessionKeys();

  const backend = await client(ctx);
  const stored = await backend.put(provider, credentialName(name), values);
  // People get a line on stderr; -o json|yaml puts the record on stdout.
  ctx.out.value(
    { ...stored, backend: backend.url },
    {
      table: '',
      withTable: () => ctx.io.stderr.write(`${stored.created ? 'stored' : 'replaced'} ${provider}/${stored.name} (${Object.keys(values).join(', ')}) in env ${stored.env} of ${backend.url}\n`),
    },
  );
  return 0;
}

async function readStdin(ctx: CommandContext, f: CredentialField): Promise<string> {
  if (ctx.io.stdinIsTTY) return prompt(ctx, `${f.description}: `, f.secret);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.io.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > MAX_STDIN_BYTES) throw new InvalidInputError('invalid_input', `${f.flag} -: more than ${MAX_STDIN_BYTES} bytes on stdin`);
    chunks.push(b);
  }
  // One trailing newline (echo, a file) is not part of the value.
  const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (!value) throw new UsageError(`${f.flag} -: stdin was empty`, { hint: `pipe the value in: printf %s "$VALUE" | assistant credentials store … ${f.flag} -` });
  return value;
}

/** The providers that read a profile (`--profile`), for messages. */
const profiledNames = (known: Stores) => known.storable.filter((p) => p.capabilities.credentials.profile).map((p) => p.name).join(', ') || 'no provider';

/** Expiring keys stop working within hours: storing them for a team is a mistake unless asked for. */
function refuseSessionKeys(): never {
  throw new SafetyRefusal('these are expiring session keys (a session token, or an ASIA… key id); teammates would get keys that stop working; nothing was stored', {
    hint: 'store long-term keys, or add --allow-session to store these anyway',
  });
}

// ---- list / delete --------------------------------------------------------------------------------

const LIST_COLUMNS = columnsOf([['PROVIDER', 'provider'], ['NAME', 'name'], ['ENV', 'env', 3], ['UPDATED', 'updated_at', 2]]);


async function listCommand(ctx: CommandContext, o: ListOptions): Promise<number> {
  const backend = await client(ctx);
  const list = await backend.list(o.all ? 'all' : backend.env);
  ctx.out.records(list, LIST_COLUMNS, { keep: 'provider', empty: `No credentials stored in ${o.all ? 'any env' : `env ${backend.env}`} of ${backend.url}.\n` });
  return 0;
}

async function deleteCommand(ctx: CommandContext, known: Stores, provider: string, o: DeleteOptions): Promise<number> {
  providerSpec(known, provider);
  const name = credentialName(o.name);
  const backend = await client(ctx);
  const present = (await backend.list()).some((c) => c.provider === provider && c.name === name);
  if (!present) throw new InvalidInputError('credential_not_found', `nothing stored as ${provider}/${name} in env ${backend.env} of ${backend.url}`, { hint: "see 'assistant credentials list'" });
  await confirmByTyping(ctx, `Delete the stored credential ${provider}/${name} from env ${backend.env} of ${backend.url}`, `${provider}/${name}`, 'Everyone using it through the backend loses it.');
  await backend.delete(provider, name);
  ctx.io.stderr.write(`deleted ${provider}/${name} from env ${backend.env}\n`);
  return 0;
}

// ---- test -----------------------------------------------------------------------------------------

interface TestResult {
  provider: string;
  name: string;
  ok: boolean;
  tested: boolean;
  source?: string;
  balance?: unknown;
  detail?: string;
  error?: string;
}

/** The providers `credentials test` can check: those whose credentials capability has a test. */
const testable = (known: Stores) => known.all.filter((p) => p.capabilities.credentials.test);

/**
 * Tests one provider's credentials through its own capability (a fresh token and the balance for
 * gpucloud): a read through the executor, with a session that uses no cached token.
 */
async function testProvider(ctx: CommandContext, known: Stores, provider: string, backendOnly: boolean, name?: string): Promise<{ source: string; detail: string; data?: unknown }> {
  const checkable = testable(known);
  const p = checkable.find((t) => t.name === provider);
  if (!p) {
    throw new UsageError(`credentials test can check ${checkable.map((t) => t.name).join(', ')}; ${provider} has no check here`, { hint: "'assistant credentials list' shows whether it is stored" });
  }
  // A cached token proves nothing about the secret: always have the token endpoint check it.
  return withSession(
    ctx,
    async (session) => {
      const result = await p.capabilities.credentials.test!((plan) => readPlan(session, plan), { config: session.config, name });
      const source = await session.credentialSource(provider);
      return { source, ...result };
    },
    { freshCredentials: true, backendOnly },
  );
}

async function testCommand(ctx: CommandContext, known: Stores, provider: string | undefined): Promise<number> {
  if (provider === undefined) return testStored(ctx, known);
  const { source, detail, data } = await testProvider(ctx, known, provider, false);
  ctx.out.value({ provider, ok: true, source, ...(data as object | undefined) }, { table: `${provider} credentials work (source: ${source}); ${detail}\n` });
  return 0;
}

const TEST_COLUMNS = columnsOf([['PROVIDER', 'provider'], ['NAME', 'name'], ['RESULT', 'result'], ['DETAIL', 'detail']]);

/** Every credential stored in the backend (this env): gpucloud's through a fresh token and the balance. */
async function testStored(ctx: CommandContext, known: Stores): Promise<number> {
  const backend = await client(ctx);
  const stored = await backend.list();
  const results: TestResult[] = [];
  for (const c of stored) {
    const checkable = testable(known);
    const canTest = checkable.some((t) => t.name === c.provider);
    // A provider whose stored names are its own (postgres connections) tests each; the others use `default`.
    const named = checkable.find((t) => t.name === c.provider)?.capabilities.credentials.namedBy !== undefined;
    if (!canTest || (c.name !== DEFAULT_CREDENTIAL_NAME && !named)) {
      results.push({ provider: c.provider, name: c.name, ok: true, tested: false, error: canTest ? `assistant uses ${c.provider}/${DEFAULT_CREDENTIAL_NAME}` : 'no client here to test with' });
      continue;
    }
    try {
      const { source, detail, data } = await testProvider(ctx, known, c.provider, true, named ? c.name : undefined);
      results.push({ provider: c.provider, name: c.name, ok: true, tested: true, source, detail, balance: (data as { balance?: unknown } | undefined)?.balance });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      results.push({ provider: c.provider, name: c.name, ok: false, tested: true, error: err instanceof AssistantError ? `${err.code}: ${err.message}` : (err as Error).message });
    }
  }
  const failed = results.filter((r) => !r.ok).length;
  ctx.out.value(results, {
    table: (colors) => {
      if (!results.length) return `No credentials stored in env ${backend.env} of ${backend.url}.\n`;
      const rows = results.map((r) => ({
      provider: r.provider,
      name: r.name,
      result: !r.tested ? 'not tested' : r.ok ? 'ok' : 'FAILED',
      detail: r.tested && r.ok ? r.detail : r.error,
    }));
      return ctx.out.table(rows, TEST_COLUMNS, { keep: 'provider' });
    },
  });
  return failed ? 1 : 0;
}

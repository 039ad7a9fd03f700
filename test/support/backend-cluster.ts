/**
 * An empty embedded-database cluster for backends under test, laid out once and copied (issue 40).
 *
 * Why: a first start of `backend serve` on PGlite runs initdb (PostgreSQL's, compiled to WASM): about
 * 9 s of CPU, against about 1 s to open an existing cluster, and nearly every backend test starts its
 * server on a new HOME. A copy of a cluster that initdb made and nothing has used yet is what the
 * product finds after any start that stopped before its schema set-up: an existing cluster with no
 * tables. On it `backend serve` runs its own migrations and makes its master key, as on a first start
 * (backend/store.ts CredentialStore.open decides from the tables, never from how the cluster came to
 * be); only the "preparing the embedded database" line becomes "opening". The real first start from an
 * empty directory stays proven by backend.serve.test.ts, whose server asks for `freshCluster`.
 *
 * The template is made by the product's own `openPglite` (the same PGlite options as a first start),
 * then closed, and kept under dist/.cache/ (beside the runner's test durations): once per checkout and
 * key, where the key is the installed PGlite version and the compiled backend/storage.js (a change of
 * how the product opens PGlite makes a new template). One process makes it while the others wait (the
 * runner starts several backend files at once); it is built in a directory of its own and renamed into
 * place, so a template that exists is whole, and a maker killed half-way leaves only its scratch
 * directory behind (removed by the next maker, with the templates of other keys).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLock, lockHolder, lockPath } from '../../backend/lock.js';
import { openPglite, pgliteDir } from '../../backend/storage.js';
import { until } from './wait.js';

/** dist/test/support/backend-cluster.js → dist/.cache/pglite-cluster/ */
const CACHE = fileURLToPath(new URL('../../.cache/pglite-cluster/', import.meta.url));

/** The installed PGlite's version and the compiled storage module, which together decide what a first start lays out. */
function templateKey(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
  const storage = readFileSync(fileURLToPath(new URL('../../backend/storage.js', import.meta.url)));
  return `${pkg.version}-${createHash('sha256').update(storage).digest('hex').slice(0, 12)}`;
}

/** How long a waiter gives the maker before it fails (a bound against a hang: initdb takes ~25 s on a loaded 2-core machine). */
const MAKE_BOUND_MS = 300_000;

let made: Promise<string> | undefined;

/** The template's pgdata directory, made on first use (once per key, whichever process gets there first). */
export function emptyClusterTemplate(): Promise<string> {
  return (made ??= findOrMake());
}

async function findOrMake(): Promise<string> {
  const key = templateKey();
  const template = join(CACHE, key);
  mkdirSync(CACHE, { recursive: true, mode: 0o700 });
  while (!existsSync(template)) {
    const lock = acquireLock(CACHE);
    if ('heldBy' in lock) {
      // Another test process is making it: wait for the template, or for that process to die (then take over).
      await until(() => existsSync(template) || lockHolder(CACHE) === undefined, `the empty PGlite cluster made by process ${lock.heldBy}`, MAKE_BOUND_MS);
      continue;
    }
    try {
      if (!existsSync(template)) await make(template, key);
    } finally {
      lock.release();
    }
  }
  return template;
}

async function make(template: string, key: string): Promise<void> {
  // Scratch left by a maker that was killed, and templates of other keys (an earlier PGlite or storage.js,
  // 39 MB each): only the lock holder makes, so none of these is in use by this checkout's tests.
  for (const name of readdirSync(CACHE)) if (name !== key && name !== basename(lockPath(CACHE))) rmSync(join(CACHE, name), { recursive: true, force: true });
  const scratch = join(CACHE, `scratch-${key}-${process.pid}`);
  const storage = await openPglite(scratch);
  await storage.close();
  renameSync(pgliteDir(scratch), template);
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * Copies the empty cluster into `<dataDir>/pgdata` when no cluster is there (a data directory that
 * holds one is a restart, and stays as it is).
 */
export async function seedEmptyCluster(dataDir: string): Promise<void> {
  const target = pgliteDir(dataDir);
  if (existsSync(target)) return;
  const template = await emptyClusterTemplate();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  cpSync(template, target, { recursive: true, errorOnExist: true, force: false });
}

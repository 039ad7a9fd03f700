/**
 * `assistant migrate config [--write]`: a config file written for the original tool, renamed to this
 * build's names (issue 39 §2). Without --write it only shows the renames; with it the file is rewritten
 * (comments and order kept, 0600) after a backup beside it. The renames themselves are
 * engine/core/config/migrate.ts, their table the manifest's `formerly` rows (engine/providers/config.ts).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { resolveConfigPath } from '../engine/core/config/load.js';
import { migrateConfigText } from '../engine/core/config/migrate.js';
import { InvalidInputError, OperationError } from '../engine/core/errors.js';
import { writePrivateFile } from '../engine/core/private-file.js';
import { redactText } from '../engine/core/redact.js';
import { configRenames, parseConfigText } from '../engine/providers/config.js';
import { warn, type CommandContext } from './context.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';

/** What `migrate config`'s flags are; its options type is derived from it. */
const FLAGS = {
  config: { write: flag.bool().option('--write', 'Rewrite the file (a backup is kept beside it as <file>.bak); without it nothing is written') },
} satisfies Record<string, FlagSpec>;

/** What `assistant migrate --help` says after the commands. */
const FOOTER = 'Comments, key order and values are kept; only the renamed keys change. Running it again changes nothing.\n' +
  'A file holding a section under both names (verda: and gpucloud:) is refused: merge them by hand first.';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('migrate', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('config', "Rename the original tool's config sections (verda:, infra.aws, github:, …) to this build's names"), FLAGS.config)
      .example('  assistant migrate config                 # show what would be renamed')
      .example('  assistant migrate config --write         # rename, keeping ~/.assistant.yaml.bak')
      .example('  assistant --config ./old.yaml migrate config --write')
      .action((opts: OptionsOf<typeof FLAGS.config>) => start(async () => migrateConfig(ctx, Boolean(opts.write))));
  });
}

async function migrateConfig(ctx: CommandContext, write: boolean): Promise<number> {
  const path = resolveConfigPath(ctx.globals.config, ctx.home);
  if (!existsSync(path)) {
    throw new InvalidInputError('config_not_found', `config file not found: ${path}`, { hint: "nothing to migrate; 'assistant config init' writes a new one" });
  }
  // A dotfiles manager's symlink stays a symlink: the file it points at is the one rewritten.
  const target = realpathSync(path);
  const text = readFileSync(target, 'utf8');
  let result;
  try {
    result = migrateConfigText(text, await configRenames());
  } catch (err) {
    throw new InvalidInputError('invalid_config', `${path}: ${(err as Error).message}`, { hint: `fix the YAML in ${path} first` });
  }
  if (result.conflicts.length > 0) {
    throw new InvalidInputError('config_conflict', `${path}: ${result.conflicts.join('; ')}`, {
      hint: 'which values win is yours to decide: merge each pair into the new name by hand, delete the old one, and run this again',
    });
  }
  const renames = result.renames.map((r) => ({ line: r.line, from: r.from, to: r.to }));
  const document = { file: path, written: false, backup: undefined as string | undefined, renames };
  if (renames.length === 0) {
    ctx.out.value(document, { table: `${path}: nothing to migrate (no section uses the original tool's names)\n` });
    return 0;
  }
  if (write) {
    document.backup = freeBackupName(target);
    writePrivateFile(document.backup, text);
    writePrivateFile(target, result.text);
    document.written = true;
  }
  // What the renamed file still gets wrong (a key the original had and this build has not) is said, not fatal.
  try {
    for (const w of (await parseConfigText(result.text, path)).warnings) warn(ctx, redactText(w));
  } catch (err) {
    warn(ctx, `after the renames ${path} still has problems:\n${redactText((err as Error).message)}`);
  }
  const lines = renames.map((r) => `  line ${String(r.line).padStart(3)}  ${r.from} → ${r.to}`).join('\n');
  const tail = write ? `written; the original is kept as ${document.backup}` : 'dry run: nothing written; run again with --write to rename (a backup is kept)';
  ctx.out.value(document, { table: `${path}: ${renames.length} rename${renames.length === 1 ? '' : 's'}\n${lines}\n${tail}\n` });
  return 0;
}

/** `<file>.bak`, or `.bak.1`, `.bak.2`… when an earlier backup is there (it is never overwritten). */
function freeBackupName(file: string): string {
  for (let n = 0; n < 1000; n++) {
    const candidate = `${file}.bak${n === 0 ? '' : `.${n}`}`;
    if (!existsSync(candidate)) return candidate;
  }
  throw new OperationError('backup_failed', `too many backups of ${file}`, { hint: `remove old ${file}.bak.* files` });
}

/**
 * The rename of a config file written for the original tool (`verda:`, `infra.aws`, `vercel.team_id`)
 * into this build's names, as `assistant migrate config` shows and writes it (issue 39 §2).
 *
 * The renames are data handed in (engine/providers/config.ts derives them from the manifest's
 * `formerly` rows): this module names no provider. It edits the parsed YAML Document's key nodes in
 * place, so comments, order, quoting and anchors survive; only the renamed keys change.
 *
 * A file holding a section under both names (`verda:` and `gpucloud:`) is a conflict: which values win
 * is the user's call, not ours, so nothing is renamed and every conflict is reported.
 */
import type { Pair, Scalar, YAMLMap } from 'yaml';
import { lazyYaml, yaml } from '../yaml.js';

export interface ConfigRenames {
  /** Top-level sections: former name → name (`verda` → `gpucloud`). */
  readonly sections: ReadonlyMap<string, string>;
  /** Blocks under `infra` (and the value of `infra.default_provider`): former → name (`aws` → `cloud_a`). */
  readonly infra: ReadonlyMap<string, string>;
  /** Keys inside a section, by the section's new name: former key → key (`appplatform`: `team_id` → `workspace_id`). */
  readonly keys: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export interface ConfigRename {
  /** Dotted path as written (`infra.aws`), and what it becomes (`infra.cloud_a`). */
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

export interface ConfigMigration {
  /** The file with the renames applied (the input unchanged when there is none or a conflict). */
  readonly text: string;
  readonly renames: ConfigRename[];
  /** `verda and gpucloud are both present (line 3 and line 9)`: with any, nothing is renamed. */
  readonly conflicts: string[];
}

const [parseDocument, isMap, isScalar] = [lazyYaml('parseDocument'), lazyYaml('isMap'), lazyYaml('isScalar')];

/**
 * Renames what `renames` names in `text`. Running it on its own output changes nothing (the former
 * names are gone). Throws on YAML the loader would refuse too (the caller reports it as invalid_config).
 */
export function migrateConfigText(text: string, renames: ConfigRenames): ConfigMigration {
  const lineCounter = new (yaml().LineCounter)();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message.split('\n')[0]).join('; '));
  const root = doc.contents;
  if (!isMap(root)) return { text, renames: [], conflicts: [] };

  const lineOf = (node: Scalar): number => (node.range ? lineCounter.linePos(node.range[0]).line : 0);
  const found: ConfigRename[] = [];
  const conflicts: string[] = [];

  /** Renames the keys of `map` per `table`; `prefix` is the dotted path of `map` for messages. */
  const renameKeys = (map: YAMLMap, table: ReadonlyMap<string, string>, prefix: string): void => {
    for (const pair of map.items as Pair<Scalar, unknown>[]) {
      const key = pair.key;
      if (!isScalar(key) || typeof key.value !== 'string') continue;
      const to = table.get(key.value);
      if (to === undefined) continue;
      const twin = (map.items as Pair<Scalar, unknown>[]).find((p) => isScalar(p.key) && p.key.value === to);
      if (twin) {
        conflicts.push(`${prefix}${key.value} (line ${lineOf(key)}) and ${prefix}${to} (line ${lineOf(twin.key)}) are both present`);
        continue;
      }
      found.push({ from: prefix + key.value, to: prefix + to, line: lineOf(key) });
      key.value = to;
    }
  };

  renameKeys(root, renames.sections, '');
  for (const [section, table] of renames.keys) {
    const node = root.get(section, true);
    if (isMap(node)) renameKeys(node, table, `${section}.`);
  }
  const infra = root.get('infra', true);
  if (isMap(infra)) {
    renameKeys(infra, renames.infra, 'infra.');
    const chosen = infra.get('default_provider', true);
    if (isScalar(chosen) && typeof chosen.value === 'string' && renames.infra.has(chosen.value)) {
      const to = renames.infra.get(chosen.value)!;
      found.push({ from: `infra.default_provider: ${chosen.value}`, to: `infra.default_provider: ${to}`, line: lineOf(chosen) });
      chosen.value = to;
    }
  }

  if (conflicts.length > 0 || found.length === 0) return { text, renames: conflicts.length ? [] : found, conflicts };
  found.sort((a, b) => a.line - b.line);
  return { text: doc.toString({ lineWidth: 0, flowCollectionPadding: false }), renames: found, conflicts };
}

/**
 * The former names written in a parsed config (top-level sections and `infra` blocks), for the loader's
 * one warning: `[{ from: 'verda', to: 'gpucloud' }]`.
 */
export function formerNamesIn(data: unknown, renames: ConfigRenames): { from: string; to: string }[] {
  if (!data || typeof data !== 'object') return [];
  const top = data as Record<string, unknown>;
  const out: { from: string; to: string }[] = [];
  for (const key of Object.keys(top)) {
    const to = renames.sections.get(key);
    if (to !== undefined) out.push({ from: key, to });
  }
  const infra = top.infra;
  if (infra && typeof infra === 'object') {
    for (const key of Object.keys(infra)) {
      const to = renames.infra.get(key);
      if (to !== undefined) out.push({ from: `infra.${key}`, to: `infra.${to}` });
    }
    const chosen = (infra as Record<string, unknown>).default_provider;
    const to = typeof chosen === 'string' ? renames.infra.get(chosen) : undefined;
    if (to !== undefined) out.push({ from: `infra.default_provider: ${String(chosen)}`, to });
  }
  return out;
}

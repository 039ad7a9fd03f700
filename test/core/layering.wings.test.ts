/**
 * The wings of engine/ (issues 23 and 37): the core (plan, executor support, contract, config, kits) never
 * imports a provider, the manifest or a producer, and names no provider and no provider's config section
 * in its code; a provider imports the core and its own folder, never another provider, the manifest or a
 * producer; nothing in engine/ imports the layers above it; a surface (commands, machines, mcp, box,
 * backend, cli) reaches a provider through the manifest (engine/providers/index.ts, config.ts), never
 * into its folder, except that provider's own command group (commands/gpucloud.ts).
 *
 * Imports are read from the TypeScript sources, every form: static, `import type`, `export … from`,
 * `import()`, inline `import('…').T` types and `require('…')`. Names are read from the code with comments
 * removed, against the manifest (its names and its rows' config sections). Each rule is proven to fail
 * on a fixture of the form it forbids. What still breaks a rule today is listed below by name, with the
 * item of issue 37 that removes it; the list may only shrink (an entry that no longer breaks fails too).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROVIDER_MANIFEST } from '../../engine/providers/index.js';
import { tempDir } from '../support/temp.js';

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'));
const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+|export\s+\*\s+from\s+|require\s*\(\s*)['"](\.\.?\/[^'"]+)['"]/g;
const SURFACES = ['commands', 'machines', 'mcp', 'box', 'backend'];

interface Edge {
  from: string;
  to: string;
}

function sourcesUnder(dir: string, root = ROOT): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourcesUnder(p, root));
    else if (e.name.endsWith('.ts')) out.push(p.split(sep).join('/'));
  }
  return out;
}

/** The relative imports of one source, as repo paths (`../x.js` of `engine/core/a.ts` → `engine/x.js`). */
function importsOf(from: string, text: string): Edge[] {
  return [...text.matchAll(SPECIFIER)].map((m) => ({ from, to: relative(ROOT, join(ROOT, dirname(from), m[1]!)).split(sep).join('/') }));
}

type Wing =
  | { wing: 'core' }
  | { wing: 'provider'; name: string }
  | { wing: 'manifest' }
  | { wing: 'producer'; name: string }
  | { wing: 'surface'; group?: string }
  | { wing: 'other' };

function wingOf(path: string): Wing {
  const parts = path.split('/');
  if (parts[0] !== 'engine') {
    // A command group is its file (`commands/gpucloud.ts`), its helpers (`commands/k8s-create.ts`) or its folder.
    if (parts[0] === 'commands') return { wing: 'surface', group: parts[1]!.replace(/\.[jt]s$/, '').split('-')[0] };
    if (SURFACES.includes(parts[0]!) || ['cli.ts', 'cli.js'].includes(parts[0]!)) return { wing: 'surface' };
    return { wing: 'other' };
  }
  if (parts[1] === 'core') return { wing: 'core' };
  if (parts[1] === 'providers') return parts.length === 3 ? { wing: 'manifest' } : { wing: 'provider', name: parts[2]! };
  if (parts[1] === 'producers') return { wing: 'producer', name: parts[2]! };
  return { wing: 'other' };
}

/** The import rules: each says whether an edge breaks it. */
const RULES = {
  'the core imports no provider, manifest or producer': (a: Wing, b: Wing) => a.wing === 'core' && ['provider', 'producer', 'manifest'].includes(b.wing),
  'a provider imports no other provider and not the manifest': (a: Wing, b: Wing) =>
    a.wing === 'provider' && ((b.wing === 'provider' && b.name !== a.name) || b.wing === 'manifest'),
  'a provider imports no producer': (a: Wing, b: Wing) => a.wing === 'provider' && b.wing === 'producer',
  'nothing in engine/ imports the layers above it': (a: Wing, b: Wing) => ['core', 'provider', 'manifest', 'producer'].includes(a.wing) && b.wing === 'surface',
  "a surface reaches a provider through the manifest, never into its folder (its own command group aside)": (a: Wing, b: Wing) =>
    a.wing === 'surface' && b.wing === 'provider' && a.group !== b.name,
} as const;
type RuleName = keyof typeof RULES;

/**
 * What breaks a rule today, each with the item of issue 37 that removes it (none is left: providers point
 * down only, and surfaces reach providers through the manifest's capabilities); a new entry needs a reason
 * and the item that removes it. Everything not listed here is held to the rules.
 */
const KNOWN: Record<RuleName, { from: string; to: string; until: string }[]> = {
  'the core imports no provider, manifest or producer': [],
  'a provider imports no other provider and not the manifest': [],
  'a provider imports no producer': [],
  'nothing in engine/ imports the layers above it': [],
  "a surface reaches a provider through the manifest, never into its folder (its own command group aside)": [],
};

/** Code with its comments blanked (strings kept, line numbers kept): a name in a comment names nothing. */
function withoutComments(text: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (quote) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === quote) quote = undefined;
    } else if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && next === '*') {
      for (i += 2; i < text.length && !(text[i] === '*' && text[i + 1] === '/'); i++) if (text[i] === '\n') out += '\n';
      i++;
    } else {
      if (c === "'" || c === '"' || c === '`') quote = c;
      else if (c === '/' && /(?:[=(,:!&|?{};]|\breturn)\s*$/.test(out)) {
        // A regular expression literal: copied whole, so a quote inside it opens no string.
        let j = i + 1;
        for (let inClass = false; j < text.length && text[j] !== '\n' && (inClass || text[j] !== '/'); j++) {
          if (text[j] === '\\') j++;
          else if (text[j] === '[') inClass = true;
          else if (text[j] === ']') inClass = false;
        }
        out += text.slice(i, j + 1);
        i = j;
        continue;
      }
      out += c;
    }
  }
  return out;
}

/** The words of the manifest the core must not use: every provider's name and every section its config adds. */
const MANIFEST_WORDS = await (async () => {
  const words = new Set<string>();
  for (const row of PROVIDER_MANIFEST) {
    words.add(row.name);
    for (const key of Object.keys((await row.config?.())?.sections ?? {})) words.add(key);
  }
  return [...words];
})();
function manifestWords(): string[] {
  return MANIFEST_WORDS;
}

/** Uses of the core's own vocabulary that happen to spell a provider's word; each names where and why. */
const NOT_A_PROVIDER: { file?: string; text: RegExp; why: string }[] = [
  { file: 'engine/core/plan/shape.ts', text: /\bnotes\b/, why: "the plan document's own `notes` key (SPEC 2.4), not the notes integration" },
  { file: 'engine/core/plan/notes.ts', text: /\bnotes\b/, why: "the plan document's own `notes` key (what a maker chose), not the notes integration" },
  { file: 'engine/core/plan/preview.ts', text: /\bnotes\b/, why: "the dry run's copy of the plan's `notes`, not the notes integration" },
  { file: 'engine/core/process/contain.ts', text: /\/etc\/ssh/, why: "the system's /etc/ssh folder (host keys hidden from a sandbox), not the ssh provider" },
  { text: /client\.authentication\.k8s\.io/, why: 'the API group of a kubeconfig exec credential (Kubernetes itself)' },
  { file: 'engine/core/kubeconfig/kubeconfig.ts', text: /assistant k8s create/, why: 'the command that writes a kubeconfig, named in advice when there is none' },
];

interface Hit {
  file: string;
  line: number;
  word: string;
  text: string;
}

/** Where a source's code (comments removed) names one of `words` as a whole word (`config.gpucloud`, `'cloud_a'`). */
function wordsIn(file: string, text: string, words: readonly string[]): Hit[] {
  const pattern = new RegExp(`(?<![\\w$-])(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\w$-])`, 'g');
  const hits: Hit[] = [];
  withoutComments(text)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(pattern)) {
        const excused = NOT_A_PROVIDER.some((x) => (!x.file || x.file === file) && x.text.test(line) && line.match(x.text)![0].includes(m[1]!));
        if (!excused) hits.push({ file, line: i + 1, word: m[1]!, text: line.trim() });
      }
    });
  return hits;
}

/** Every source of a tree's engine/ and surfaces (the real tree, or a fixture's). */
const scanned = (root: string) => [...sourcesUnder('engine', root), ...SURFACES.filter((d) => existsSync(join(root, d))).flatMap((d) => sourcesUnder(d, root))];

const files = [...scanned(ROOT), 'cli.ts'];
const texts = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const edges = files.flatMap((f) => importsOf(f, texts.get(f)!));
const show = (bad: Edge[]) => bad.map((e) => `${e.from} -> ${e.to}`).join('\n');
const breaking = (rule: RuleName, list: Edge[]) => list.filter((e) => RULES[rule](wingOf(e.from), wingOf(e.to)));
const known = (rule: RuleName, e: Edge) => KNOWN[rule].some((k) => k.from === e.from && k.to === e.to);

test('engine/ holds only the three wings and the manifest: core, providers, producers', () => {
  const top = readdirSync(join(ROOT, 'engine'));
  assert.equal(top.sort(), ['core', 'producers', 'providers']);
});

test('the scan sees the imports and the names (a layering test that reads nothing would pass anything)', () => {
  assert.ok(edges.length > 500, `only ${edges.length} imports found`);
  assert.ok(edges.some((e) => e.from.startsWith('engine/providers/gpucloud/') && e.to.startsWith('engine/core/')));
  assert.ok(edges.some((e) => e.from === 'engine/providers/index.ts' && e.to === 'engine/providers/gpucloud/config.js'), 'require() is read');
  assert.ok(edges.some((e) => e.from.startsWith('commands/') && e.to === 'engine/providers/index.js'), 'the surfaces are read');
  const words = manifestWords();
  assert.ok(words.includes('gpucloud') && words.includes('cloud_a') && words.includes('edge'), words.join(', '));
  assert.ok(wordsIn('engine/providers/gpucloud/credentials.ts', texts.get('engine/providers/gpucloud/credentials.ts')!, words).length > 5, 'names are found in code');
});

for (const rule of Object.keys(RULES) as RuleName[]) {
  test(`${rule} (nothing but the named exceptions)`, () => {
    const bad = breaking(rule, edges).filter((e) => !known(rule, e));
    assert.is(show(bad), '');
  });
}

test('every named exception still breaks its rule (the list only shrinks: remove what was fixed)', () => {
  for (const rule of Object.keys(KNOWN) as RuleName[]) {
    for (const k of KNOWN[rule]) {
      assert.ok(RULES[rule](wingOf(k.from), wingOf(k.to)), `${k.from} -> ${k.to} does not break "${rule}"`);
      assert.ok(edges.some((e) => e.from === k.from && e.to === k.to), `${k.from} -> ${k.to} is gone: remove it from the list (${k.until})`);
    }
  }
});

test("the core's code names no provider and no provider's config section (comments aside)", () => {
  const words = manifestWords();
  const hits = files.filter((f) => wingOf(f).wing === 'core').flatMap((f) => wordsIn(f, texts.get(f)!, words));
  assert.is(hits.map((h) => `${h.file}:${h.line}: ${h.word}: ${h.text}`).join('\n'), '');
});

// ---- each rule fails on the form it forbids -------------------------------------------------------

/** The edges of one fixture source, through the same scanner. */
const fixture = (from: string, text: string) => importsOf(from, text);

test('fixture: the core importing a provider, the manifest or a producer breaks its rule, in every import form', () => {
  const rule: RuleName = 'the core imports no provider, manifest or producer';
  const forms = [
    "import { x } from '../providers/gpucloud/client.js';",
    "import type { X } from '../providers/gpucloud/types.js';",
    "export * from '../providers/gpucloud/client.js';",
    "const m = await import('../providers/gpucloud/client.js');",
    "type T = import('../providers/gpucloud/types.js').GpuCloudClient;",
    "const c = require('../providers/gpucloud/config.js');",
    "import { PROVIDERS } from '../providers/index.js';",
    "import { planBuiltin } from '../producers/planner/builtin.js';",
  ];
  for (const form of forms) assert.is(breaking(rule, fixture('engine/core/x.ts', form)).length, 1, form);
  assert.is(breaking(rule, fixture('engine/core/x.ts', "import { y } from './plan/validate.js';")).length, 0);
});

test('fixture: a provider importing another provider or the manifest breaks its rule; its own folder does not', () => {
  const rule: RuleName = 'a provider imports no other provider and not the manifest';
  assert.is(breaking(rule, fixture('engine/providers/cloud_a/x.ts', "import { findKind } from '../gpucloud/catalogue.js';")).length, 1);
  assert.is(breaking(rule, fixture('engine/providers/cloud_a/x.ts', "import { PROVIDERS } from '../index.js';")).length, 1);
  assert.is(breaking(rule, fixture('engine/providers/cloud_a/x.ts', "import { awsArgs } from './provider.js';")).length, 0);
});

test('fixture: a provider importing a producer breaks its rule', () => {
  const rule: RuleName = 'a provider imports no producer';
  assert.is(breaking(rule, fixture('engine/providers/gpucloud/x.ts', "import { planBuiltin } from '../../producers/planner/builtin.js';")).length, 1);
  assert.is(breaking(rule, fixture('engine/providers/gpucloud/verbs/x.ts', "const p = await import('../../../producers/deploy/plan.js');")).length, 1);
  assert.is(breaking(rule, fixture('engine/providers/gpucloud/x.ts', "import { x } from '../../core/errors.js';")).length, 0);
});

test('fixture: engine/ importing a surface breaks its rule', () => {
  const rule: RuleName = 'nothing in engine/ imports the layers above it';
  assert.is(breaking(rule, fixture('engine/producers/ai/x.ts', "import { openSession } from '../../../commands/session.js';")).length, 1);
  assert.is(breaking(rule, fixture('engine/core/x.ts', "import { runPlan } from '../../machines/run-plan.js';")).length, 1);
});

test("fixture: a surface importing a provider's module breaks its rule, except the provider's own command group", () => {
  const rule: RuleName = "a surface reaches a provider through the manifest, never into its folder (its own command group aside)";
  assert.is(breaking(rule, fixture('commands/cost.ts', "import { findKind } from '../engine/providers/gpucloud/catalogue.js';")).length, 1);
  assert.is(breaking(rule, fixture('machines/x.ts', "import type { X } from '../engine/providers/cloud_a/read.js';")).length, 1);
  assert.is(breaking(rule, fixture('mcp/x.ts', "const c = await import('../engine/providers/gpucloud/client.js');")).length, 1);
  assert.is(breaking(rule, fixture('commands/gpucloud.ts', "import { findKind } from '../engine/providers/gpucloud/catalogue.js';")).length, 0, 'its own command group');
  assert.is(breaking(rule, fixture('commands/cost.ts', "import { providersWith } from '../engine/providers/index.js';")).length, 0, 'the manifest');
  assert.is(breaking(rule, fixture('commands/cost.ts', "import { loadConfig } from '../engine/providers/config.js';")).length, 0, 'the composed config');
});

test("fixture: a provider's name or config section in the core's code is found, in every form; in a comment it is not", () => {
  const words = manifestWords();
  const named = [
    "const fallback = known[0] ?? 'gpucloud';",
    'const g = config.gpucloud ?? {};',
    'if (plan.provider === "cloud_a") return;',
    'const where = `config file (repohost.token)`;',
    'type R = Pick<Config, \'cloud_a\'>;',
    'const { edge } = config;',
  ];
  for (const line of named) assert.is(wordsIn('engine/core/x.ts', line, words).length, 1, line);
  const notNamed = [
    '// falls back to gpucloud when nothing else answers',
    '/** reads config.gpucloud (multi-line\n * cloud_a too) */ const x = 1;',
    "const re = /a'b/; const y = 'plain words';",
    "const apiVersion = 'client.authentication.k8s.io/v1';",
    "const gpucloudish = 1; const vps_a2 = 2; const edgeCase = 3;",
  ];
  for (const text of notNamed) assert.equal(wordsIn('engine/core/x.ts', text, words), [], text);
});

test('fixture tree: a fake tree holding each forbidden form is caught by the whole scan (walk, imports, wings, rules, names)', () => {
  // The forms the item-3 moves removed among them: a provider reaching a producer through createRequire,
  // through `export … from`, and from a nested folder (verbs/); a surface reaching a provider's internals.
  const tree: Record<string, string> = {
    'engine/core/reaches-provider.ts': "import { x } from '../providers/alpha/client.js';",
    'engine/core/plan/reaches-producer.ts': "type T = import('../../producers/planner/answer.js').T;",
    'engine/core/names-provider.ts': "const fallback = known[0] ?? 'gpucloud';",
    'engine/core/fine.ts': "import { y } from './plan/validate.js';\n// gpucloud in a comment names nothing",
    'engine/providers/alpha/other-provider.ts': "const m = await import('../beta/client.js');",
    'engine/providers/alpha/manifest.ts': "import { PROVIDERS } from '../index.js';",
    'engine/providers/alpha/require-trick.ts': "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nconst a = () => require('../../producers/planner/answer.js');",
    'engine/providers/alpha/re-export.ts': "export * from '../../producers/deploy/plan.js';",
    'engine/providers/alpha/verbs/nested.ts': "import { checkAutostop } from '../../../producers/autostop/plan-check.js';",
    'engine/providers/alpha/own.ts': "import { z } from './own-helper.js';\nimport { e } from '../../core/errors.js';",
    'engine/producers/gamma/climbs.ts': "import type { Session } from '../../../commands/session.js';",
    'engine/producers/gamma/fine.ts': "import { c } from '../../providers/alpha/catalogue.js';",
    'machines/into-provider.ts': "import { findKind } from '../engine/providers/alpha/catalogue.js';",
    'commands/alpha.ts': "import { findKind } from '../engine/providers/alpha/catalogue.js';",
    'commands/cost.ts': "import { providersWith } from '../engine/providers/index.js';",
  };
  const root = tempDir('assistant-layering-');
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const sources = scanned(root);
  assert.equal([...sources].sort(), Object.keys(tree).sort(), 'the walk finds every file, nested folders included');
  const found = sources.flatMap((f) => importsOf(f, readFileSync(join(root, f), 'utf8')));
  const breakers = (rule: RuleName) => [...new Set(breaking(rule, found).map((e) => e.from))].sort();
  assert.equal(breakers('the core imports no provider, manifest or producer'), ['engine/core/plan/reaches-producer.ts', 'engine/core/reaches-provider.ts']);
  assert.equal(breakers('a provider imports no other provider and not the manifest'), ['engine/providers/alpha/manifest.ts', 'engine/providers/alpha/other-provider.ts']);
  assert.equal(breakers('a provider imports no producer'), ['engine/providers/alpha/re-export.ts', 'engine/providers/alpha/require-trick.ts', 'engine/providers/alpha/verbs/nested.ts']);
  assert.equal(breakers('nothing in engine/ imports the layers above it'), ['engine/producers/gamma/climbs.ts']);
  assert.equal(breakers("a surface reaches a provider through the manifest, never into its folder (its own command group aside)"), ['machines/into-provider.ts']);
  const named = sources.filter((f) => wingOf(f).wing === 'core').flatMap((f) => wordsIn(f, readFileSync(join(root, f), 'utf8'), manifestWords()));
  assert.equal(named.map((h) => `${h.file}:${h.line}`), ['engine/core/names-provider.ts:1']);
});

// ---- no createRequire: every module is imported, so a bundler can follow it (issue 40 item 1) ----------

/**
 * A synchronous `require` made with createRequire is invisible to a bundler (esbuild leaves it as a
 * run-time require of a path that no longer exists beside the bundle) and to the import graph; lazy
 * loading is a literal `import()`. What still uses one is named here with why; the list only shrinks.
 */
const KNOWN_REQUIRES: { file: string; until: string }[] = [
  // It requires only the yaml package (external to a bundle, so found at run time as today), never a
  // module of ours; rendering -o yaml is synchronous, so an import() here means loading yaml when -o
  // yaml is parsed.
  { file: 'engine/core/yaml.ts', until: 'rendering -o yaml is synchronous: load yaml when -o yaml is parsed' },
];
const CREATE_REQUIRE = /\bcreateRequire\b|\bgetBuiltinModule\s*\(\s*['"](?:node:)?module['"]/;
const requiring = (file: string, text: string) => CREATE_REQUIRE.test(withoutComments(text));
/** The shipped sources: engine/, the surfaces, cli.ts, and what they load besides (schemas/, emulator/ for --sandbox, bin/). */
const shipped = [...files, ...['schemas', 'emulator'].flatMap((d) => sourcesUnder(d)), 'bin/assistant.js'];

test('no shipped source makes a require with createRequire (but the named ones, each of which still does)', () => {
  assert.ok(shipped.length > files.length + 40, `${shipped.length} sources`);
  const text = (f: string) => texts.get(f) ?? readFileSync(join(ROOT, f), 'utf8');
  const found = shipped.filter((f) => requiring(f, text(f)));
  assert.equal(found.filter((f) => !KNOWN_REQUIRES.some((k) => k.file === f)), [], 'createRequire in shipped code: use a literal import()');
  for (const k of KNOWN_REQUIRES) assert.ok(found.includes(k.file), `${k.file} no longer uses createRequire: remove it from the list (${k.until})`);
});

test('fixture: createRequire is found in every form, and not in a comment or in a plain import()', () => {
  const forms = [
    "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nconst ini = require('ini');",
    "import * as m from 'node:module';\nconst r = m.createRequire(import.meta.url);",
    "const ini = (await import('node:module')).createRequire(import.meta.url)('ini');",
    "const { createRequire: cr } = process.getBuiltinModule('node:module');",
    "const r = process.getBuiltinModule('module').createRequire(import.meta.url);",
  ];
  for (const form of forms) assert.ok(requiring('engine/core/x.ts', form), form);
  const fine = [
    "// no createRequire here: the parser is imported\nconst { parse } = await import('ini');",
    "/** createRequire would hide this from the bundler */ const m = await import('./x.js');",
    "const { JSONPath } = await import('jsonpath-plus');",
  ];
  for (const text of fine) assert.not.ok(requiring('engine/core/x.ts', text), text);
  // The whole scan on a fake tree: the walk reaches a nested file that uses it.
  const root = tempDir('assistant-requires-');
  mkdirSync(join(root, 'engine', 'core', 'deep'), { recursive: true });
  writeFileSync(join(root, 'engine', 'core', 'deep', 'lazy.ts'), forms[0]!);
  writeFileSync(join(root, 'engine', 'core', 'fine.ts'), fine[0]!);
  const hits = scanned(root).filter((f) => requiring(f, readFileSync(join(root, f), 'utf8')));
  assert.equal(hits, ['engine/core/deep/lazy.ts']);
});

test.run();

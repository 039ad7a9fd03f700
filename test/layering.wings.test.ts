/**
 * The wings of engine/ (issue 23): the core (plan, executor support, contract, config, kits) never
 * imports a provider or a producer; a provider never imports another provider (the manifest in
 * engine/providers/index.ts loads them all, lazily); nothing in engine/ imports the layers above it
 * (commands, machines, mcp, box, backend, cli). Read from the TypeScript sources, every import form:
 * static, `import type`, `export … from`, `import()` and inline `import('…').T` types.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '..', '..'));
const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+|export\s+\*\s+from\s+)['"](\.\.?\/[^'"]+)['"]/g;

interface Edge {
  from: string;
  to: string;
}

function sourcesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourcesUnder(p));
    else if (e.name.endsWith('.ts')) out.push(p.split(sep).join('/'));
  }
  return out;
}

/** Every relative import of every engine source, as repo paths. */
function engineImports(): Edge[] {
  const edges: Edge[] = [];
  for (const from of sourcesUnder('engine')) {
    const text = readFileSync(join(ROOT, from), 'utf8');
    for (const m of text.matchAll(SPECIFIER)) {
      const to = relative(ROOT, join(ROOT, dirname(from), m[1])).split(sep).join('/');
      edges.push({ from, to });
    }
  }
  return edges;
}

type Wing = { wing: 'core' } | { wing: 'provider'; name: string } | { wing: 'manifest' } | { wing: 'producer'; name: string } | { wing: 'above' } | { wing: 'other' };

function wingOf(path: string): Wing {
  const parts = path.split('/');
  if (parts[0] !== 'engine') {
    if (['commands', 'machines', 'mcp', 'box', 'backend', 'cli.ts', 'cli.js'].includes(parts[0])) return { wing: 'above' };
    return { wing: 'other' };
  }
  if (parts[1] === 'core') return { wing: 'core' };
  if (parts[1] === 'providers') return parts.length === 3 ? { wing: 'manifest' } : { wing: 'provider', name: parts[2] };
  if (parts[1] === 'producers') return { wing: 'producer', name: parts[2] };
  return { wing: 'other' };
}

const edges = engineImports();
const show = (bad: Edge[]) => bad.map((e) => `${e.from} -> ${e.to}`).join('\n');

test('engine/ holds only the three wings: core, providers, producers', () => {
  const top = readdirSync(join(ROOT, 'engine'));
  assert.equal(top.sort(), ['core', 'producers', 'providers']);
});

test('the scan sees the imports (a layering test that reads nothing would pass anything)', () => {
  assert.ok(edges.length > 500, `only ${edges.length} imports found`);
  assert.ok(edges.some((e) => e.from.startsWith('engine/providers/gpucloud/') && e.to.startsWith('engine/core/')));
});

test('the core imports no provider and no producer', () => {
  const bad = edges.filter((e) => wingOf(e.from).wing === 'core' && ['provider', 'producer', 'manifest'].includes(wingOf(e.to).wing));
  assert.is(show(bad), '');
});

test('a provider imports no other provider (only the manifest knows them all)', () => {
  const bad = edges.filter((e) => {
    const a = wingOf(e.from), b = wingOf(e.to);
    return a.wing === 'provider' && ((b.wing === 'provider' && b.name !== a.name) || b.wing === 'manifest');
  });
  assert.is(show(bad), '');
});

test('nothing in engine/ imports the layers above it (commands, machines, mcp, box, backend, cli)', () => {
  const bad = edges.filter((e) => wingOf(e.to).wing === 'above');
  assert.is(show(bad), '');
});

test.run();

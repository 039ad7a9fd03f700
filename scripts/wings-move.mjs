#!/usr/bin/env node
/**
 * The one-time move of engine/ into wings (issue 23 item 2), kept so that branches started before the
 * move can be merged: `node scripts/wings-move.mjs move` does the `git mv`s and rewrites every import;
 * `node scripts/wings-move.mjs repair` rewrites only imports that no longer resolve (files a merge brought
 * in from the old layout) and old paths named in text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const root = process.cwd();
const CORE = ['plan', 'deadline.ts', 'errors.ts', 'redact.ts', 'yaml.ts', 'listen.ts', 'version.ts', 'process',
  'did-you-mean.ts', 'provider.ts', 'capabilities.ts', 'config', 'routing', 'render', 'cli-raw-flags.ts'];
const PROVIDERS = ['gpucloud', 'cloud_a', 'cloud_b', 'cloud_c', 'cloud_d', 'k8s', 'ssh', 'postgres', 'terraform',
  'repohost', 'errtracker', 'issuetracker', 'notes', 'appplatform', 'edge', 'vps_a', 'vps_b'];
const PRODUCERS = ['ai', 'planner', 'deploy', 'cost', 'k8s-create', 'drift', 'autostop', 'onboarding', 'talk', 'box',
  'acp', 'reports', 'charts', 'iac', 'sandbox'];

/** old path (under engine/) → new path; the most specific first. */
const MOVES = [
  ['k8s/kubeconfig-write.ts', 'core/kubeconfig/kubeconfig-write.ts'],
  ['k8s/kubeconfig.ts', 'core/kubeconfig/kubeconfig.ts'],
  ['k8s/sanitise.ts', 'core/kubeconfig/sanitise.ts'],
  ['k8s/quote.ts', 'core/render/quote.ts'],
  ['drift/types.ts', 'core/drift-types.ts'],
  ['cost/cloud-a.ts', 'providers/cloud_a/cost.ts'],
  ['config/credentials-test.ts', 'providers/gpucloud/credentials-test.ts'],
  ['providers.ts', 'providers/index.ts'],
  ['cli', 'core/kits/cli'],
  ['http', 'core/kits/http'],
  ...CORE.map((n) => [n, `core/${n}`]),
  ...PROVIDERS.map((n) => [n, `providers/${n}`]),
  ...PRODUCERS.map((n) => [n, `producers/${n}`]),
].map(([a, b]) => [`engine/${a}`, `engine/${b}`]);

/** A path under the old layout → the new layout (`.js` specifiers name `.ts` sources). */
function mapOld(p) {
  const asTs = p.replace(/\.js$/, '.ts');
  for (const [a, b] of MOVES) {
    if (asTs === a) return p.endsWith('.js') ? b.replace(/\.ts$/, '.js') : b;
    if (p.startsWith(a + '/')) return b + p.slice(a.length);
  }
  return p;
}
/** A path under the new layout → where it was (for files a merge placed before their imports were rewritten). */
function unmapNew(p) {
  for (const [a, b] of MOVES) {
    if (p === b || p.startsWith(b + '/')) {
      const back = a + p.slice(b.length);
      return back;
    }
  }
  return p;
}

function sources() {
  const out = [];
  const skip = new Set(['node_modules', 'dist', '.git', '~']);
  (function walk(d) {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (skip.has(e.name)) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mts|mjs|js|md|json|sh)$/.test(e.name) || e.name === 'run') out.push(path.relative(root, p));
    }
  })(root);
  return out;
}

const SPEC = /((?:from\s+|import\s*\(\s*|import\s+|new URL\(\s*|require\(\s*)['"])(\.\.?\/[^'"]+)(['"])/g;
const exists = (rel) => fs.existsSync(path.join(root, rel.replace(/\.js$/, '.ts'))) || fs.existsSync(path.join(root, rel));
function relSpec(fromFile, target, like = '') {
  let r = path.relative(path.dirname(fromFile), target);
  if (!r.startsWith('.')) r = './' + r;
  // `new URL('../../', import.meta.url)` names a directory: keep its slash
  if (like.endsWith('/') && !r.endsWith('/')) r += '/';
  return r;
}

function rewriteImports(file, oldLocation, onlyBroken) {
  const src = fs.readFileSync(path.join(root, file), 'utf8');
  const out = src.replace(SPEC, (all, pre, spec, post) => {
    const now = path.normalize(path.join(path.dirname(file), spec));
    if (onlyBroken && exists(now)) return all;
    // a new-layout path whose file moved again (k8s/quote.ts → core/render/quote.ts)
    const again = mapOld(unmapNew(now));
    if (onlyBroken && again !== now && exists(again)) return pre + relSpec(file, again, spec) + post;
    const was = path.normalize(path.join(path.dirname(oldLocation), spec));
    const target = mapOld(was);
    if (onlyBroken && !exists(target)) return all;
    const next = relSpec(file, target, spec);
    return next === spec ? all : pre + next + post;
  });
  return out;
}

/** Old paths named in text (comments, docs, test strings): engine/core/plan/x → engine/core/plan/x. */
function rewriteText(src) {
  return src.replace(/engine\/([A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*)/g, (all, rest) => {
    if (/^(core|providers|producers)(\/|$)/.test(rest)) return all;
    const mapped = mapOld('engine/' + rest);
    if (mapped !== 'engine/' + rest) return mapped;
    // a path that names only a prefix (engine/providers/gpucloud/) or an unknown file: map by its first segment
    const first = rest.split('/')[0];
    const m = mapOld('engine/' + first);
    return m === 'engine/' + first ? all : m + rest.slice(first.length);
  });
}

const mode = process.argv[2];
if (mode === 'move') {
  const movedTo = new Map();
  const tracked = execFileSync('git', ['ls-files', 'engine'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const f of tracked) {
    const to = mapOld(f);
    if (to === f) continue;
    fs.mkdirSync(path.dirname(path.join(root, to)), { recursive: true });
    execFileSync('git', ['mv', f, to]);
    movedTo.set(to, f);
  }
  for (const f of sources()) {
    const old = movedTo.get(f) ?? f;
    let text = fs.readFileSync(path.join(root, f), 'utf8');
    let next = /\.(ts|mts|mjs|js)$/.test(f) ? rewriteImports(f, old, false) : text;
    next = rewriteText(next);
    if (next !== text) fs.writeFileSync(path.join(root, f), next);
  }
} else if (mode === 'repair') {
  for (const f of sources()) {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    let next = /\.(ts|mts|mjs|js)$/.test(f) ? rewriteImports(f, unmapNew(f), true) : text;
    next = rewriteText(next);
    if (next !== text) { fs.writeFileSync(path.join(root, f), next); console.log('repaired', f); }
  }
} else {
  console.error('usage: node scripts/wings-move.mjs move|repair');
  process.exit(2);
}

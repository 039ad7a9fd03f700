/**
 * Compiles the tools to install into a local install plan: for each tool the first recipe that fits
 * the platform (a package manager that is there, root through sudo only when that manager needs it,
 * or a pinned download for this OS and architecture), as exact steps the user sees before anything
 * runs. Local plans are not plan documents: they never come from makers or agents and never reach the
 * plan engine or MCP; only `onboarding install` builds and runs them.
 */
import { isLoopbackHost } from '../../core/loopback.js';
import { readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { ONBOARDING_SCHEMA_VERSION, RecipeFileSchema, type InstallPlan, type InstallStep, type Recipe, type ToolPlan } from '../../../schemas/onboarding.js';
import { InvalidInputError } from '../../core/errors.js';
import { managerCommand, type Platform } from './platform.js';
import { recipesFor } from './recipes.js';
import { toolNames, toolSpec } from './tools.js';
import type { ToolProbe } from './versions.js';

/** Time limits of steps (a package manager may take minutes on a slow mirror; downloads are tens of MB). */
export const STEP_TIMEOUT_S = { exec: 900, setup: 300, download: 600 } as const;

export interface PlanRequest {
  tool: string;
  /** Why it is installed: "named", "cloud_a needs it". */
  reason: string;
}

export interface CompileOptions {
  platform: Platform;
  env: Record<string, string | undefined>;
  home: string;
  /** --prefix: binaries go to `<prefix>/bin` (default `~/.local`). */
  prefix?: string;
  force: boolean;
  /** What the scan found for each requested tool. */
  probes: Map<string, ToolProbe>;
  /** Recipes from --recipes, tried first. */
  extra?: Readonly<Record<string, readonly Recipe[]>>;
}

export function defaultPrefix(home: string): string {
  return join(home, '.local');
}

export function binDirOf(prefix: string, platform: Platform): string {
  // npm's global layout on Windows puts executables at the prefix itself; elsewhere in <prefix>/bin.
  return platform.os === 'windows' ? prefix : join(prefix, 'bin');
}

function onPath(dir: string, env: Record<string, string | undefined>): boolean {
  return (env.PATH ?? env.Path ?? '').split(delimiter).some((d) => d && resolve(d) === resolve(dir));
}

/** Reads and validates a --recipes file (JSON); only tools onboarding knows may appear. */
export function loadRecipeFile(path: string): Record<string, Recipe[]> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new InvalidInputError('invalid_recipes', `--recipes ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `not JSON (${(err as Error).message})`}`);
  }
  const parsed = RecipeFileSchema.safeParse(data);
  if (!parsed.success) {
    const first = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new InvalidInputError('invalid_recipes', `--recipes ${path}: ${first.join('; ')}`, { hint: 'see schemas/onboarding-recipes.v1.schema.json' });
  }
  const unknown = Object.keys(parsed.data.recipes).filter((t) => !toolSpec(t));
  if (unknown.length) throw new InvalidInputError('invalid_recipes', `--recipes ${path}: unknown tool ${unknown.map((u) => `"${u}"`).join(', ')}`, { hint: `tools: ${toolNames().join(', ')}` });
  for (const [tool, recipes] of Object.entries(parsed.data.recipes)) {
    for (const r of recipes) {
      if (r.method !== 'download') continue;
      for (const [key, a] of Object.entries(r.artefacts)) {
        // A checksum makes the source irrelevant to integrity, but plain HTTP is still refused beyond this machine.
        const url = new URL(a.url);
        if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
          throw new InvalidInputError('invalid_recipes', `--recipes ${path}: ${tool} ${key}: plain http is allowed only to this machine (${a.url})`, { hint: 'use https' });
        }
      }
    }
  }
  return parsed.data.recipes;
}

/** Why a recipe cannot be used here, or undefined when it can. */
function unusable(r: Recipe, p: Platform): string | undefined {
  if (r.method === 'download') return r.artefacts[`${p.os}/${p.arch}`] ? undefined : `no ${p.os}/${p.arch} download`;
  if (r.os && !r.os.includes(p.os)) return `${r.method} recipe not for ${p.os}`;
  if (r.method === 'winget' && p.os !== 'windows') return `winget is for windows`;
  if ((r.method === 'apt' || r.method === 'dnf') && p.os !== 'linux') return `${r.method} is for linux`;
  if (!p.managers.includes(r.method)) return `${r.method} not found`;
  if (needsRoot(r.method, p) && !p.root && !p.sudo) return `${r.method} needs root and sudo is not installed`;
  return undefined;
}

function needsRoot(method: Recipe['method'], p: Platform): boolean {
  return (method === 'apt' || method === 'dnf') && p.os === 'linux';
}

function sudoed(argv: string[], p: Platform, method: Recipe['method']): { argv: string[]; sudo: boolean } {
  const sudo = needsRoot(method, p) && !p.root;
  return { argv: sudo ? ['sudo', ...argv] : argv, sudo };
}

function managerSteps(r: Exclude<Recipe, { method: 'download' }>, opts: CompileOptions, prefix: string): InstallStep[] {
  const p = opts.platform;
  const cmd = managerCommand(r.method, opts.env);
  const exec = (argv: string[]): InstallStep => {
    const s = sudoed(argv, p, r.method);
    return { kind: 'exec', argv: s.argv, sudo: s.sudo, timeout_s: STEP_TIMEOUT_S.exec };
  };
  switch (r.method) {
    case 'apt':
      // env, not an assignment sudo might drop: apt must never stop at a question nobody sees.
      return [exec(['env', 'DEBIAN_FRONTEND=noninteractive', cmd, 'install', '-y', '--no-install-recommends', ...r.packages])];
    case 'dnf':
      return [exec([cmd, 'install', '-y', ...r.packages])];
    case 'brew': {
      const casks = r.packages.filter((x) => x.startsWith('cask:')).map((x) => x.slice(5));
      const formulae = r.packages.filter((x) => !x.startsWith('cask:'));
      return [...(formulae.length ? [exec([cmd, 'install', ...formulae])] : []), ...(casks.length ? [exec([cmd, 'install', '--cask', ...casks])] : [])];
    }
    case 'winget':
      return r.packages.map((id) => exec([cmd, 'install', '--id', id, '--exact', '--source', 'winget', '--accept-package-agreements', '--accept-source-agreements', '--disable-interactivity']));
    case 'npm':
      // A global install under the user's prefix: no root, the executable lands in <prefix>/bin.
      return [exec([cmd, 'install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', ...r.packages])];
    case 'pipx':
      return r.packages.map((x) => exec([cmd, 'install', x]));
    case 'pip':
      return [exec([cmd, 'install', '--user', ...r.packages])];
  }
}

export function compilePlan(requests: PlanRequest[], opts: CompileOptions): InstallPlan {
  const p = opts.platform;
  const prefixRaw = opts.prefix ?? defaultPrefix(opts.home);
  const prefix = prefixRaw === '~' ? opts.home : prefixRaw.startsWith('~/') ? join(opts.home, prefixRaw.slice(2)) : isAbsolute(prefixRaw) ? prefixRaw : resolve(prefixRaw);
  const binDir = binDirOf(prefix, p);
  const plan: InstallPlan = {
    schema_version: ONBOARDING_SCHEMA_VERSION,
    platform: { os: p.os, arch: p.arch, package_managers: p.managers, root: p.root, injected: p.injected },
    prefix,
    bin_dir: binDir,
    bin_dir_on_path: onPath(binDir, opts.env),
    setup: [],
    tools: [],
    skipped: [],
    unavailable: [],
  };
  for (const req of requests) {
    const spec = toolSpec(req.tool)!;
    const probe = opts.probes.get(req.tool);
    if (probe?.found && !opts.force) {
      plan.skipped.push({
        tool: req.tool,
        reason: probe.versionOk === false ? `already installed but older than ${probe.minVersion} (use --force to install a newer one)` : 'already installed (use --force to install anyway)',
        ...(probe.path ? { path: probe.path } : {}),
        ...(probe.version ? { version: probe.version } : {}),
      });
      continue;
    }
    const candidates = recipesFor(req.tool, p, opts.extra);
    const why: string[] = [];
    const recipe = candidates.find((r) => {
      const problem = unusable(r, p);
      if (problem) why.push(problem);
      return !problem;
    });
    if (!recipe) {
      plan.unavailable.push({
        tool: req.tool,
        reason: candidates.length ? `no usable recipe on ${p.os}/${p.arch} (${[...new Set(why)].join('; ')})` : `no recipe for ${req.tool}`,
        manual: spec.manual,
      });
      continue;
    }
    let tp: ToolPlan;
    if (recipe.method === 'download') {
      const a = recipe.artefacts[`${p.os}/${p.arch}`]!;
      const exe = p.os === 'windows' ? `${recipe.binary}.exe` : recipe.binary;
      tp = {
        tool: req.tool,
        method: 'download',
        version: recipe.version,
        needs_sudo: false,
        reason: req.reason,
        steps: [
          { kind: 'download', url: a.url, sha256: a.sha256, ...(a.size ? { size: a.size } : {}), timeout_s: STEP_TIMEOUT_S.download },
          { kind: 'unpack', format: a.format, binary: exe, dest: join(binDir, exe) },
        ],
      };
    } else {
      const steps = managerSteps(recipe, opts, prefix);
      tp = { tool: req.tool, method: recipe.method, needs_sudo: steps.some((s) => s.kind === 'exec' && s.sudo), reason: req.reason, steps, ...(recipe.note ? { note: recipe.note } : {}) };
      if (recipe.method === 'apt' && !plan.setup.some((s) => s.method === 'apt')) {
        // Fresh machines often have no package lists yet: refresh them once, before the first apt install.
        const s = sudoed(['env', 'DEBIAN_FRONTEND=noninteractive', managerCommand('apt', opts.env), 'update'], p, 'apt');
        plan.setup.push({ method: 'apt', steps: [{ kind: 'exec', argv: s.argv, sudo: s.sudo, timeout_s: STEP_TIMEOUT_S.setup }] });
      }
    }
    if (probe?.found && probe.path) tp.replaces = probe.path;
    plan.tools.push(tp);
  }
  return plan;
}

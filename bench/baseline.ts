/**
 * The baseline build the bench measures beside this one (issue 40): BENCH_BASELINE names a checkout with
 * dist/ built, or a git revision (default `main`), which is exported with `git archive` into a temp dir
 * (kept per commit for the next run), given this checkout's node_modules and compiled with tsc. The bench
 * then sets BENCH_BASELINE to that dir for itself and its child processes (fixtures.ts builds()).
 * BENCH_BASELINE=none measures this build alone, and so does a baseline that is this very commit.
 * A revision whose `npm run build` bundles dist (scripts/bundle.mjs) is bundled too, as its own build did:
 * otherwise its start-up rows would measure tsc's files against this build's bundle.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { THIS_BUILD } from './fixtures.js';

function git(args: string[]): string {
  const r = spawnSync('git', args, { cwd: THIS_BUILD.root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** Resolves BENCH_BASELINE to a built checkout (building it when it names a revision); returns what it chose, for the header. */
export function prepareBaseline(): string {
  const wanted = process.env.BENCH_BASELINE ?? 'main';
  if (wanted === 'none' || wanted === '') {
    delete process.env.BENCH_BASELINE;
    return 'no baseline (BENCH_BASELINE=none)';
  }
  if (existsSync(join(wanted, 'dist', 'cli.js'))) return `baseline: the build in ${wanted}`;
  let sha: string;
  let head: string;
  try {
    sha = git(['rev-parse', '--verify', `${wanted}^{commit}`]);
    head = git(['rev-parse', 'HEAD']);
  } catch (err) {
    delete process.env.BENCH_BASELINE;
    return `no baseline (${(err as Error).message})`;
  }
  if (sha === head) {
    delete process.env.BENCH_BASELINE;
    return `no baseline (${wanted} is this commit)`;
  }
  const dir = join(tmpdir(), `assistant-bench-baseline-${sha.slice(0, 12)}`);
  if (!existsSync(join(dir, 'dist', 'cli.js'))) {
    process.stdout.write(`building the baseline ${wanted} (${sha.slice(0, 12)}) in ${dir} …\n`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = spawnSync('sh', ['-c', `git archive ${sha} | tar -x -C "$1"`, 'sh', dir], { cwd: THIS_BUILD.root, encoding: 'utf8' });
    if (archive.status !== 0) throw new Error(`git archive of ${wanted}: ${archive.stderr}`);
    symlinkSync(realpathSync(join(THIS_BUILD.root, 'node_modules')), join(dir, 'node_modules'));
    const tsc = spawnSync(process.execPath, [join(THIS_BUILD.root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8' });
    if (tsc.status !== 0) {
      rmSync(join(dir, 'dist', 'cli.js'), { force: true });
      throw new Error(`tsc of the baseline failed:\n${tsc.stdout}${tsc.stderr}`);
    }
  }
  bundleLikeItsOwnBuild(dir);
  process.env.BENCH_BASELINE = dir;
  return `baseline: ${wanted} (${sha.slice(0, 12)}), built in ${dir}`;
}

/** Runs the baseline's own bundler when it has one and its bundle is missing (a baseline built before it was bundled too). */
function bundleLikeItsOwnBuild(dir: string): void {
  if (!existsSync(join(dir, 'scripts', 'bundle.mjs')) || existsSync(join(dir, 'dist', 'bundle', 'cli.js'))) return;
  const bundle = spawnSync(process.execPath, [join(dir, 'scripts', 'bundle.mjs')], { cwd: dir, encoding: 'utf8' });
  if (bundle.status !== 0) throw new Error(`bundling the baseline failed:\n${bundle.stdout}${bundle.stderr}`);
}

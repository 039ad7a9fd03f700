/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and prints where the time went (issue 40 item 3):
 *   - self time by area: each of our modules (dist/…), each package (node_modules/<name>), Node's
 *     internals, garbage collection, idle;
 *   - by the nearest of our frames: a sample is counted to the innermost frame of our own code on its
 *     stack (so Node internals and packages we call count to the caller), else to the area of its leaf;
 *   - inclusive time of our own functions (a function counted once per sample, however deep it recurses).
 * Figures are µs per call when the number of calls is given, else ms; every sample counts as the
 * median sampling interval (see below), so the shares are shares of samples.
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile> [calls] [top]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, callsArg, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.js <file.cpuprofile> [calls] [top]');
const calls = Number(callsArg) || 0;
const top = Number(topArg) || 25;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Our own code: compiled modules under a dist/ that is not inside node_modules. */
const ours = (url: string) => url.includes('/dist/') && !url.includes('/node_modules/');
function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName || 'anonymous'}`;
  if (ours(url)) return url.slice(url.lastIndexOf('/dist/') + 1);
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  return url;
}

const self = new Map<string, number>();
/** Self time of each function (of any code). */
const selfFn = new Map<string, number>();
const nearest = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let busy = 0;
const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);

// Each sample counts as the median interval, not its own: on a busy machine the interval after a sample
// also holds the time the process waited for a core, which would be charged to whatever ran last.
const interval = [...profile.timeDeltas].sort((a, b) => a - b)[Math.floor(profile.timeDeltas.length / 2)] ?? 0;
for (let i = 0; i < profile.samples.length; i++) {
  const us = interval;
  const leaf = byId.get(profile.samples[i]!)!;
  const leafArea = area(leaf.callFrame);
  total += us;
  if (leafArea !== '(idle)') busy += us;
  add(self, leafArea, us);
  add(selfFn, `${leaf.callFrame.functionName || '(anonymous)'} ${leafArea}:${leaf.callFrame.lineNumber + 1}`, us);
  let near: string | undefined;
  const seen = new Set<string>();
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const f = byId.get(id)!.callFrame;
    if (!ours(f.url)) continue;
    const a = area(f);
    near ??= a;
    const fn = `${f.functionName || '(anonymous)'} ${a}:${f.lineNumber + 1}`;
    if (!seen.has(fn)) {
      seen.add(fn);
      add(inclusive, fn, us);
    }
  }
  add(nearest, near ?? leafArea, us);
}

const per = (us: number) => (calls ? `${(us / calls).toFixed(1).padStart(8)} µs` : `${(us / 1000).toFixed(1).padStart(8)} ms`);
const share = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
function print(title: string, m: Map<string, number>): void {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${per(us)} ${share(us)}  ${k}`);
}

console.log(`${file}: ${per(busy)} not idle (${per(total)} sampled)${calls ? `, ${calls} calls` : ''}; shares are of the time not idle`);
print('self time by area', self);
print('by the nearest of our frames', nearest);
print('inclusive, our functions', inclusive);
print('self time by function', selfFn);

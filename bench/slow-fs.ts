/**
 * A slow file system stand-in for the bench (issue 40): preloaded with `node --import`, it makes every
 * call of Node's `fs` module (sync, callback and promise forms) take BENCH_SLOW_FS_US more microseconds,
 * as a network or virtualised file system does per call. Sync calls block the thread for the delay
 * (Atomics.wait, no CPU spent), as a slow syscall would; async calls resolve that much later. Both the
 * plain client loop and the apply path run under it, so the ratio shows what per-step file work costs.
 * ES module loading is left as it is (Node reads those through its internal bindings); the measured
 * loops run after a warm-up, when what they load is loaded.
 *
 *   BENCH_SLOW_FS_US=500 node --import ./dist/bench/slow-fs.js dist/bench/apply-path.js
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const delayUs = Number(process.env.BENCH_SLOW_FS_US ?? 500);
const cell = new Int32Array(new SharedArrayBuffer(4));
/** Calls made through the stand-in, for the bench's report. */
export const slowFsCalls = { sync: 0, async: 0 };

function block(): void {
  Atomics.wait(cell, 0, 0, delayUs / 1000);
}

const later = () => new Promise<void>((resolve) => setTimeout(resolve, delayUs / 1000));

if (delayUs > 0) {
  const target = fs as unknown as Record<string, unknown>;
  for (const name of Object.keys(fs)) {
    const original = target[name];
    if (typeof original !== 'function' || /^[A-Z]/.test(name) || name === 'watch' || name === 'watchFile' || name === 'unwatchFile') continue;
    if (name.endsWith('Sync')) {
      // Own properties (realpathSync.native, promisify's custom form) are kept.
      target[name] = Object.assign(function (this: unknown, ...args: unknown[]) {
        slowFsCalls.sync++;
        block();
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      }, original);
    } else if (name !== 'createReadStream' && name !== 'createWriteStream') {
      // Callback form: the callback comes `delayUs` later than it would.
      target[name] = Object.assign(function (this: unknown, ...args: unknown[]) {
        slowFsCalls.async++;
        const cb = args[args.length - 1];
        if (typeof cb !== 'function') return (original as (...a: unknown[]) => unknown).apply(this, args);
        args[args.length - 1] = (...r: unknown[]) => setTimeout(() => (cb as (...x: unknown[]) => void)(...r), delayUs / 1000);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      }, original);
    }
  }
  const promises = fs.promises as unknown as Record<string, unknown>;
  for (const name of Object.keys(promises)) {
    const original = promises[name];
    if (typeof original !== 'function' || name === 'watch') continue;
    promises[name] = async function (this: unknown, ...args: unknown[]) {
      slowFsCalls.async++;
      await later();
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  // ES modules that import from 'node:fs' see the wrapped functions too.
  syncBuiltinESMExports();
}

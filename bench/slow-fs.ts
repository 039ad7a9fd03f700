/**
 * A slow file system stand-in for the bench (issue 40): preloaded with `node --import`, it makes every
 * call of Node's `fs` module (sync, callback and promise forms) take BENCH_SLOW_FS_US more microseconds,
 * as a network or virtualised file system does per call. Sync calls block the thread for the delay
 * (Atomics.wait, no CPU spent), as a slow syscall would; async calls resolve that much later. Both the
 * plain client loop and the apply path run under it, so the ratio shows what per-step file work costs.
 * ES module loading is left as it is (Node reads those through its internal bindings); the measured
 * loops run after a warm-up, when what they load is loaded. Only this process's `fs` calls are slowed:
 * in the apply-path bench that is the apply path's own (the emulator runs in this process but touches
 * no file, and the plain client loop, without a token cache or a shared limit record, none either).
 * An async call's delay is a timer, so at least 1 ms (Node's timers have no finer grain); the apply
 * path's per-step calls are all sync.
 *
 *   BENCH_SLOW_FS_US=500 node --import ./dist/bench/slow-fs.js dist/bench/apply-path.js
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const delayUs = Number(process.env.BENCH_SLOW_FS_US ?? 500);
const cell = new Int32Array(new SharedArrayBuffer(4));
/**
 * Calls made through the stand-in, and the time the sync ones really kept the thread blocked (the
 * wake-up after each wait needs a core: on a loaded machine a 500 µs wait takes 0.55–6 ms), for the
 * bench's report. Also on `globalThis.__benchSlowFs`, so a bench part can read it without importing
 * this module (an import would install the stand-in).
 */
export const slowFsCalls = { sync: 0, async: 0, blockedMs: 0 };
(globalThis as { __benchSlowFs?: typeof slowFsCalls }).__benchSlowFs = slowFsCalls;

function block(): void {
  const started = performance.now();
  Atomics.wait(cell, 0, 0, delayUs / 1000);
  slowFsCalls.blockedMs += performance.now() - started;
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

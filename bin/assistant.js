#!/usr/bin/env node
// Thin shim: the compiled entry point lives in dist/ (built by `npm ci` via the prepare script).
// dist/bundle/ (scripts/bundle.mjs) is the same code in a few files, which starts faster; it runs when it
// is newer than tsc's last build, so a `tsc` alone never runs a stale bundle. ASSISTANT_NO_BUNDLE=1 runs
// tsc's files.
import { statSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
const mtime = (name) => statSync(new URL(name, dist), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const bundled = !process.env.ASSISTANT_NO_BUNDLE && mtime('bundle/cli.js') >= mtime('.tsbuildinfo');
await import(bundled ? '../dist/bundle/cli.js' : '../dist/cli.js');

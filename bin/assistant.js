#!/usr/bin/env node
// Thin shim: the compiled entry point lives in dist/ (built by `npm ci` via the prepare script).
import '../dist/cli.js';

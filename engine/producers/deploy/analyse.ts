/**
 * Reads a checked-out repository into a stack description: language and framework, the port it
 * listens on, the start command, whether it needs a GPU (and how much GPU memory when a model size is
 * declared), the environment variables it reads (`.env.example`) and a prebuilt image when one is
 * named. It only reads files; what it cannot tell is left undefined with the candidates it saw, and
 * the command asks (terminal) or refuses naming the flag (pipe).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ComposeService, Runtime, Stack } from '../../core/deploy-types.js';

export type { ComposeService, Runtime, Stack };

/** Packages (Python) that mean the service wants a GPU. */
const GPU_PACKAGES = new Set(['torch', 'torchvision', 'torchaudio', 'jax', 'jaxlib', 'tensorflow', 'tensorflow-gpu', 'vllm', 'cupy', 'xformers', 'flash-attn', 'bitsandbytes', 'onnxruntime-gpu', 'tensorrt']);
/** Base images that mean a GPU. */
const GPU_IMAGE = /(^|\/)(cuda|nvidia\/|pytorch\/pytorch|vllm\/|tensorflow\/tensorflow:.*gpu)|cuda|-gpu\b/i;
/** Environment variable names whose values are secrets (become gpucloud secrets, never inlined). */
export const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIAL|AUTH|PRIVATE|DSN)/i;

const read = (dir: string, file: string): string | undefined => {
  try {
    const p = join(dir, file);
    // A byte-order mark (editors on Windows write one) would make package.json unparsable.
    return statSync(p).isFile() && statSync(p).size < 1_000_000 ? readFileSync(p, 'utf8').replace(/^\uFEFF/, '') : undefined;
  } catch {
    return undefined;
  }
};

/** Source files to look in for an app object or a listen call (shallow: the top two levels, no vendored trees). */
function sourceFiles(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (n.startsWith('.') || n === 'node_modules' || n === 'venv' || n === '.venv' || n === 'dist' || n === 'build') continue;
      const p = join(d, n);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory() && depth < 2) walk(p, depth + 1);
      else if (st.isFile() && ext.test(n) && st.size < 500_000) out.push(relative(dir, p));
    }
  };
  walk(dir, 0);
  return out;
}

const uniq = <T>(xs: T[]): T[] => [...new Set(xs)];
const validPort = (n: number) => Number.isInteger(n) && n > 0 && n < 65536;

/** Package names from requirements.txt lines and pyproject.toml dependency lists, lower case. */
function pythonPackages(dir: string): { names: Set<string>; files: string[] } {
  const names = new Set<string>();
  const files: string[] = [];
  const req = read(dir, 'requirements.txt');
  if (req !== undefined) {
    files.push('requirements.txt');
    for (const line of req.split('\n')) {
      const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line.replace(/#.*/, ''));
      if (m && !line.trim().startsWith('-')) names.add(m[1]!.toLowerCase().replace(/_/g, '-'));
    }
  }
  const pyproject = read(dir, 'pyproject.toml');
  if (pyproject !== undefined) {
    files.push('pyproject.toml');
    // PEP 621 arrays ("fastapi>=0.110") and poetry tables (fastapi = "^0.110").
    for (const m of pyproject.matchAll(/["']([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@ ][^"']*)?["']/g)) names.add(m[1]!.toLowerCase().replace(/_/g, '-'));
    let inDeps = false;
    for (const line of pyproject.split('\n')) {
      const table = /^\s*\[([^\]]+)\]/.exec(line);
      if (table) inDeps = /dependencies/.test(table[1]!);
      else if (inDeps) {
        const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*=/.exec(line);
        if (m) names.add(m[1]!.toLowerCase().replace(/_/g, '-'));
      }
    }
  }
  return { names, files };
}

/** `module:variable` of the first Python file that creates the app object (`app = FastAPI(`). */
function pythonAppRef(dir: string, constructor: string): { ref: string; file: string } | undefined {
  const re = new RegExp(String.raw`^(\w+)\s*(?::[^=]+)?=\s*${constructor}\(`, 'm');
  const files = sourceFiles(dir, /\.py$/).sort((a, b) => a.split(sep).length - b.split(sep).length);
  for (const file of files) {
    const m = re.exec(read(dir, file) ?? '');
    if (m) return { ref: `${file.replace(/\.py$/, '').split(sep).join('.').replace(/\.__init__$/, '')}:${m[1]}`, file };
  }
  return undefined;
}

/** Ports named in source: `port=8080`, `.listen(3000)`, `PORT || 3000`, `--port 8000`. */
function portsInText(text: string): number[] {
  const out: number[] = [];
  for (const re of [/\bport\s*[=:]\s*(\d{2,5})\b/gi, /\.listen\(\s*(\d{2,5})\b/g, /PORT\s*(?:\|\||\?\?|or|,)\s*["']?(\d{2,5})\b/g, /--port[= ](\d{2,5})\b/g, /-b\s+[\d.]+:(\d{2,5})\b/g]) {
    for (const m of text.matchAll(re)) out.push(Number(m[1]));
  }
  return out.filter(validPort);
}

function parseDockerfile(text: string): Stack['dockerfile'] {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const from: string[] = [];
  const expose: number[] = [];
  let cmd: string | undefined;
  let entry: string | undefined;
  for (const raw of lines) {
    const line = raw.trim();
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, instr, rest] = [m[0], m[1]!.toUpperCase(), m[2]!.trim()];
    if (instr === 'FROM') from.push(rest.replace(/^--platform=\S+\s+/, '').split(/\s+/)[0]!);
    if (instr === 'EXPOSE') for (const p of rest.split(/\s+/)) if (validPort(parseInt(p, 10))) expose.push(parseInt(p, 10));
    if (instr === 'CMD') cmd = execForm(rest);
    if (instr === 'ENTRYPOINT') entry = execForm(rest);
  }
  return { from, expose: uniq(expose), cmd: [entry, cmd].filter(Boolean).join(' ') || undefined };
}

/** `["uvicorn", "app:app"]` → `uvicorn app:app`; a shell-form command is kept as written. */
function execForm(rest: string): string {
  try {
    const arr: unknown = JSON.parse(rest);
    if (Array.isArray(arr)) return arr.map(String).join(' ');
  } catch {
    /* shell form */
  }
  return rest;
}

const COMPOSE_FILES = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'];

function parseCompose(dir: string): Stack['compose'] {
  for (const file of COMPOSE_FILES) {
    const text = read(dir, file);
    if (text === undefined) continue;
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch {
      return { file, services: [] };
    }
    const services = (doc as { services?: Record<string, unknown> })?.services;
    const out: ComposeService[] = [];
    for (const [name, raw] of Object.entries(services && typeof services === 'object' ? services : {})) {
      const s = (raw ?? {}) as Record<string, unknown>;
      const ports: number[] = [];
      for (const p of Array.isArray(s.ports) ? s.ports : []) {
        if (typeof p === 'object' && p !== null) {
          const target = Number((p as { target?: unknown }).target);
          if (validPort(target)) ports.push(target);
          continue;
        }
        // "8080:80", "127.0.0.1:8080:80/tcp", "80": the container side is last.
        const last = String(p).split('/')[0]!.split(':').pop()!;
        const n = parseInt(last, 10);
        if (validPort(n)) ports.push(n);
      }
      for (const p of Array.isArray(s.expose) ? s.expose : []) if (validPort(parseInt(String(p), 10))) ports.push(parseInt(String(p), 10));
      const devices = JSON.stringify((s.deploy as Record<string, unknown> | undefined)?.resources ?? {});
      const gpu = s.runtime === 'nvidia' || /nvidia|"gpu"/i.test(devices) || (typeof s.image === 'string' && GPU_IMAGE.test(s.image));
      out.push({ name, image: typeof s.image === 'string' ? s.image : undefined, build: s.build !== undefined, ports: uniq(ports), gpu });
    }
    return { file, services: out };
  }
  return undefined;
}

/** Variables from `.env.example` (or `.env.sample`, `.env.template`); names only, values are examples. */
function envExample(dir: string): { names: string[]; file?: string; text: string } {
  for (const file of ['.env.example', '.env.sample', '.env.template', 'example.env']) {
    const text = read(dir, file);
    if (text === undefined) continue;
    const names = [...text.matchAll(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/gm)].map((m) => m[1]!);
    return { names: uniq(names), file, text };
  }
  return { names: [], text: '' };
}

/**
 * GPU memory a declared model needs: a size in the name (`Llama-3.1-8B`, `mistral-7b`) at 16-bit
 * weights (2 bytes a parameter) plus a fifth for activations and the KV cache, or `MODEL_SIZE_GB`.
 */
export function modelMemoryGb(text: string): number | undefined {
  const explicit = /\b(?:MODEL_SIZE_GB|GPU_MEMORY_GB)\s*[=:]\s*["']?(\d+(?:\.\d+)?)/i.exec(text);
  if (explicit) return Math.ceil(Number(explicit[1]));
  let best: number | undefined;
  for (const m of text.matchAll(/[-_/](\d+(?:\.\d+)?)[bB](?![A-Za-z0-9])/g)) {
    const billions = Number(m[1]);
    if (billions > 0 && billions <= 2000) best = Math.max(best ?? 0, Math.ceil(billions * 2 * 1.2));
  }
  return best;
}

export function analyseRepo(dir: string): Stack {
  const stack: Stack = { portCandidates: [], gpu: { needed: false, reasons: [] }, env: [], evidence: [] };
  // Ports named in code, scripts and files beat a framework's default, which is only a fallback.
  const ports: number[] = [];
  const defaults: number[] = [];
  const gpuReason = (r: string) => {
    stack.gpu.needed = true;
    stack.gpu.reasons.push(r);
  };

  // Python
  const py = pythonPackages(dir);
  const hasManage = existsSync(join(dir, 'manage.py'));
  if (py.files.length || hasManage) {
    stack.language = 'python';
    stack.evidence.push(...py.files);
    for (const p of py.names) if (GPU_PACKAGES.has(p)) gpuReason(`${p} in ${py.files.join('/') || 'requirements'}`);
    if (py.names.has('fastapi')) {
      stack.framework = 'fastapi';
      const app = pythonAppRef(dir, 'FastAPI');
      if (app) stack.start = `uvicorn ${app.ref} --host 0.0.0.0 --port $PORT`;
      if (app) ports.push(...portsInText(read(dir, app.file) ?? ''));
      defaults.push(8000);
    } else if (py.names.has('flask')) {
      stack.framework = 'flask';
      const app = pythonAppRef(dir, 'Flask');
      if (app) stack.start = py.names.has('gunicorn') ? `gunicorn -b 0.0.0.0:$PORT ${app.ref}` : `flask --app ${app.ref} run --host 0.0.0.0 --port $PORT`;
      if (app) ports.push(...portsInText(read(dir, app.file) ?? ''));
      defaults.push(5000);
    } else if (py.names.has('django') || hasManage) {
      stack.framework = 'django';
      if (hasManage) stack.start = 'python manage.py runserver 0.0.0.0:$PORT';
      defaults.push(8000);
    }
  }

  // Node
  const pkgText = read(dir, 'package.json');
  if (pkgText !== undefined) {
    let pkg: { scripts?: Record<string, string>; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; main?: string } = {};
    try {
      pkg = JSON.parse(pkgText);
    } catch {
      /* an unreadable package.json still says Node */
    }
    stack.language ??= 'node';
    stack.evidence.push('package.json');
    const deps = { ...pkg.dependencies, ...pkg.devDependencies };
    if (deps.next) {
      stack.framework ??= 'next';
      defaults.push(3000);
    } else if (deps.express) stack.framework ??= 'express';
    else if (deps.fastify) stack.framework ??= 'fastify';
    for (const gpuPkg of ['@tensorflow/tfjs-node-gpu', 'onnxruntime-node-gpu']) if (deps[gpuPkg]) gpuReason(`${gpuPkg} in package.json`);
    if (pkg.scripts?.start) {
      stack.start ??= 'npm start';
      ports.push(...portsInText(pkg.scripts.start));
    }
    const mains = uniq([pkg.main, 'server.js', 'index.js', 'app.js', 'src/server.js', 'src/index.js', 'src/app.js', 'server.ts', 'src/index.ts'].filter((f): f is string => Boolean(f)));
    for (const f of mains) ports.push(...portsInText(read(dir, f) ?? ''));
    if (!stack.start && pkg.main) stack.start = `node ${pkg.main}`;
  }

  // Procfile `web:` names the start command outright.
  const procWeb = /^web:\s*(.+)$/m.exec(read(dir, 'Procfile') ?? '');
  if (procWeb) {
    stack.start = procWeb[1]!.trim();
    stack.evidence.push('Procfile');
    const named = portsInText(stack.start);
    if (named.length) ports.splice(0, ports.length, ...named);
  }

  // Dockerfile: its EXPOSE is the port, its CMD the start command, its FROM may need a GPU.
  const dockerText = read(dir, 'Dockerfile');
  if (dockerText !== undefined) {
    const df = parseDockerfile(dockerText)!;
    stack.dockerfile = df;
    stack.evidence.push('Dockerfile');
    stack.language ??= 'docker';
    stack.runtime = 'docker';
    for (const f of df.from) if (GPU_IMAGE.test(f)) gpuReason(`base image ${f}`);
    if (df.expose.length) ports.splice(0, ports.length, ...df.expose);
    if (df.cmd) stack.start = df.cmd;
  }

  // Compose: services, images, ports.
  const compose = parseCompose(dir);
  if (compose) {
    stack.compose = compose;
    stack.evidence.push(compose.file);
    const withPorts = compose.services.filter((s) => s.ports.length);
    const main = withPorts.length === 1 ? withPorts[0] : compose.services.length === 1 ? compose.services[0] : undefined;
    if (main?.image && !main.build) stack.image = main.image;
    if (!stack.dockerfile) {
      stack.runtime = 'compose';
      stack.language ??= 'docker';
      stack.start = 'docker compose up';
      const composePorts = (main ? main.ports : withPorts.flatMap((s) => s.ports));
      if (composePorts.length) ports.splice(0, ports.length, ...composePorts);
    }
    for (const s of compose.services) if (s.gpu) gpuReason(`compose service ${s.name}${s.image ? ` (${s.image})` : ''}`);
  }

  stack.runtime ??= stack.language === 'python' ? 'python' : stack.language === 'node' ? 'node' : undefined;

  const env = envExample(dir);
  if (env.file) stack.evidence.push(env.file);
  stack.env = env.names.map((name) => ({ name, secret: SECRET_NAME.test(name) }));
  const composeText = compose ? (read(dir, compose.file) ?? '') : '';
  const mem = modelMemoryGb(`${env.text}\n${composeText}`);
  if (mem !== undefined && stack.gpu.needed) stack.gpu.memoryGb = mem;

  stack.portCandidates = uniq(ports.length ? ports : defaults);
  if (stack.portCandidates.length === 1) stack.port = stack.portCandidates[0];
  stack.gpu.reasons = uniq(stack.gpu.reasons);
  return stack;
}

/** The stack for people (stderr), one fact a line. */
export function describeStack(stack: Stack, sha: string): string {
  const lines = [
    `commit:     ${sha}`,
    `language:   ${stack.language ?? 'not recognised'}${stack.framework ? ` (${stack.framework})` : ''}`,
    `runtime:    ${stack.runtime ?? 'none found'}`,
    `port:       ${stack.port ?? (stack.portCandidates.length ? `one of ${stack.portCandidates.join(', ')}` : 'not found')}`,
    `start:      ${stack.start ?? 'not found'}`,
    `gpu:        ${stack.gpu.needed ? `yes (${stack.gpu.reasons.join('; ')})${stack.gpu.memoryGb ? `, about ${stack.gpu.memoryGb} GB GPU memory for the declared model` : ''}` : 'no'}`,
  ];
  if (stack.image) lines.push(`image:      ${stack.image}`);
  if (stack.env.length) lines.push(`env:        ${stack.env.map((e) => (e.secret ? `${e.name} (secret)` : e.name)).join(', ')}`);
  if (stack.evidence.length) lines.push(`read:       ${uniq(stack.evidence).join(', ')}`);
  return lines.map((l) => `  ${l}`).join('\n');
}

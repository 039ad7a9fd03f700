/**
 * A workspace's state, read without running the workspace's code (DESIGN §8: reads never run code from
 * the folder they read). `terraform show` loads the provider binaries of `.terraform/` to print the
 * state, and `plan` also runs `data "external"` programs: neither is a read. Instead, by backend
 * (`.terraform/terraform.tfstate`, written by `terraform init`):
 *
 * - **local** (or none): the state file is read and parsed here; no process runs at all. Its path comes
 *   from the backend's `path` / `workspace_dir` and the selected workspace (`TF_WORKSPACE`, else
 *   `.terraform/environment`), relative to the workspace; it must be a regular file holding a state.
 * - **any other backend** (s3, gcs, azurerm, remote, http…): `terraform state pull`, which loads the
 *   backend (code inside the terraform binary) but no provider plugin. It is still not safe to run as
 *   the user: a backend's configuration can name programs (s3's shared config with `credential_process`,
 *   kubernetes' exec plugins, a CLI config's credential helper), and the workspace writes that
 *   configuration. So it runs contained (engine/core/process/contain.ts): the network (it must reach the
 *   backend), the workspace read-only, the credential folders of that backend read-only under the
 *   user's HOME path, the terraform child's environment allowlist — never the assistant's secrets,
 *   config or data.
 *
 * The state is JSON (format version 4, terraform 0.12 and later) and parsed here: resources with their
 * instances, outputs with their `sensitive` flag.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { OperationError } from '../../core/errors.js';
import { contain, type SandboxSettings } from '../../core/process/contain.js';
import { runCli, type CliTool } from '../../core/kits/cli/runner.js';

export interface StateInstance {
  /** `module.net.aws_subnet.a["x"]`, `data.aws_ami.ubuntu`. */
  address: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  /** The instance's attributes as stored. */
  values: Record<string, unknown>;
  /** Whether the state marks its `id` as sensitive. */
  sensitiveId: boolean;
}

export interface TfState {
  terraform_version?: string;
  instances: StateInstance[];
  outputs: { name: string; sensitive: boolean; value?: unknown }[];
}

/** Where a workspace keeps its state: a file we read, or a backend only terraform can reach. */
export type StateSource = { kind: 'local'; file: string } | { kind: 'backend'; type: string };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The largest state file read (a state is JSON; anything bigger is not one we should load whole). */
const MAX_STATE_BYTES = 256 * 1024 * 1024;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** A `backend "x"` or `cloud {}` block in the workspace's own configuration (root module files only). */
function declaredBackend(wsPath: string): string | undefined {
  let files: string[];
  try {
    files = readdirSync(wsPath).filter((f) => f.endsWith('.tf') || f.endsWith('.tf.json'));
  } catch {
    return undefined;
  }
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(join(wsPath, f), 'utf8');
    } catch {
      continue;
    }
    const named = /^\s*backend\s+"([^"]+)"/m.exec(text) ?? /"backend"\s*:\s*\{\s*"([^"]+)"/.exec(text);
    if (named) return named[1];
    if (/^\s*cloud\s*\{/m.test(text)) return 'cloud';
  }
  return undefined;
}

/**
 * The backend of a workspace, and where a local one keeps the selected workspace's state. `terraform
 * init` records a backend's settings in `.terraform/terraform.tfstate` (the default local backend needs
 * none); a configuration that names another backend without that record was never initialised, so
 * where its state lives is unknown and nothing is read (a stray terraform.tfstate beside it may be stale).
 */
export function stateSource(ws: { name: string; path: string }, env: Record<string, string | undefined>): StateSource {
  const wsPath = ws.path;
  const dataDir = env.TF_DATA_DIR ? resolve(wsPath, env.TF_DATA_DIR) : join(wsPath, '.terraform');
  const recorded = obj(obj(readJson(join(dataDir, 'terraform.tfstate'))).backend);
  const declared = declaredBackend(wsPath);
  if (!str(recorded.type) && declared && declared !== 'local') {
    throw new OperationError('terraform_not_initialised', `the terraform workspace "${ws.name}" (${wsPath}) is not initialised: its configuration names the ${declared} backend, which terraform init has not set up, so where its state is is unknown`, {
      hint: `run \`terraform init\` in ${wsPath}`,
    });
  }
  const type = str(recorded.type) ?? 'local';
  if (type !== 'local') return { kind: 'backend', type };
  const config = obj(recorded.config);
  let selected = env.TF_WORKSPACE?.trim();
  if (!selected) {
    try {
      selected = readFileSync(join(dataDir, 'environment'), 'utf8').trim();
    } catch {
      selected = 'default';
    }
  }
  const file =
    selected && selected !== 'default'
      ? join(str(config.workspace_dir) ?? 'terraform.tfstate.d', selected, 'terraform.tfstate')
      : (str(config.path) ?? 'terraform.tfstate');
  return { kind: 'local', file: isAbsolute(file) ? file : resolve(wsPath, file) };
}

/** The state of a local backend: undefined when there is none yet (nothing applied). */
export function readLocalState(ws: { name: string; path: string }, file: string): unknown {
  if (!existsSync(file)) return undefined;
  const st = statSync(file);
  // A path the workspace chose: only a regular file of reasonable size is read, and its text is never shown.
  if (!st.isFile() || st.size > MAX_STATE_BYTES) throw notAState(ws, file);
  const state = readJson(file);
  if (!isState(state)) throw notAState(ws, file);
  return state;
}

/** Format 4 (terraform 0.12 and later; older states are upgraded by any newer terraform run). */
const isState = (v: unknown): boolean => {
  const s = obj(v);
  return s.version === 4 && (s.resources === undefined || Array.isArray(s.resources));
};

const notAState = (ws: { name: string; path: string }, file: string) =>
  new OperationError('terraform_state_unreadable', `the state of the terraform workspace "${ws.name}" (${file}) is not a terraform state file (JSON, format version 4)`, {
    hint: `check the local backend's path in ${ws.path}; \`terraform state pull\` there shows what terraform reads`,
  });

/** The folders (under HOME) where a backend's own credentials live: granted read-only to `terraform state pull`. */
const BACKEND_CREDENTIALS: Record<string, readonly string[]> = {
  s3: ['.aws'],
  gcs: ['.config/gcloud'],
  azurerm: ['.azure'],
  kubernetes: ['.kube'],
  oss: ['.aliyun'],
  cos: ['.tccli'],
};
/** terraform's own CLI configuration and credentials (remote and cloud backends, the plugin cache). */
const TERRAFORM_HOME = ['.terraformrc', '.terraform.d'];
/** Variables naming credential or configuration files: granted read-only where set. */
const CREDENTIAL_FILE_VARS = ['TF_CLI_CONFIG_FILE', 'TF_PLUGIN_CACHE_DIR', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE', 'GOOGLE_APPLICATION_CREDENTIALS', 'GOOGLE_CREDENTIALS', 'KUBECONFIG', 'ARM_CLIENT_CERTIFICATE_PATH'];

/**
 * Where the workspace's installed providers really are: `terraform init` links `.terraform/providers/…`
 * to a filesystem mirror or the plugin cache. terraform checks they are there even for `state pull`
 * (it never starts them for it); a plan starts them.
 */
function providerTargets(wsPath: string, env: Record<string, string | undefined>): string[] {
  const dataDir = env.TF_DATA_DIR ? resolve(wsPath, env.TF_DATA_DIR) : join(wsPath, '.terraform');
  const out: string[] = [];
  // registry host / namespace / type / version / platform: five levels below providers/.
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isSymbolicLink()) {
        try {
          out.push(realpathSync(path));
        } catch {
          // a dangling link: terraform will say the provider is missing
        }
      } else if (e.isDirectory() && depth < 5) walk(path, depth + 1);
    }
  };
  walk(join(dataDir, 'providers'), 0);
  return out;
}

/** What a contained terraform may read: the workspace and its providers, and credentials (all clouds' for a plan; one backend's for a pull). */
export function terraformGrants(wsPath: string, env: Record<string, string | undefined>, home: string, clouds: readonly string[]): string[] {
  const fromVars = CREDENTIAL_FILE_VARS.map((v) => env[v]).filter((p): p is string => Boolean(p && isAbsolute(p)));
  return [wsPath, ...providerTargets(wsPath, env), ...[...TERRAFORM_HOME, ...clouds].map((p) => join(home, p)), ...fromVars];
}

/** Every cloud's credential folders (a plan's providers may need any of them). */
export const ALL_CLOUD_CREDENTIALS = [...new Set(Object.values(BACKEND_CREDENTIALS).flat())];

/** `terraform state pull` of a non-local backend, contained. */
async function pullState(tool: CliTool, ws: { name: string; path: string }, type: string, env: Record<string, string>, sandbox: SandboxSettings, signal: AbortSignal): Promise<unknown> {
  const args = [`-chdir=${ws.path}`, 'state', 'pull'];
  const contained = contain({
    what: `reading the state of terraform workspace "${ws.name}" (backend ${type}, through \`terraform state pull\`)`,
    command: tool.command,
    args,
    env,
    network: true,
    readOnly: terraformGrants(ws.path, env, sandbox.home, BACKEND_CREDENTIALS[type] ?? []),
    hidden: sandbox.hidden,
    home: sandbox.home,
    unsandboxed: sandbox.unsandboxed,
  });
  const out = await runCli({ tool, args, env, signal, contained });
  // runCli parses JSON stdout; no state at all prints nothing (null).
  const state = out.data === null ? undefined : out.data;
  if (state !== undefined && !isState(state)) throw new OperationError('terraform_state_unreadable', `terraform state pull of workspace "${ws.name}" (backend ${type}) did not print a terraform state`);
  return state;
}

/** The raw state of a workspace (undefined: no state yet), by its backend; runs no code from the workspace. */
export async function workspaceState(
  tool: CliTool,
  ws: { name: string; path: string },
  o: { env: Record<string, string>; sandbox: SandboxSettings; signal: AbortSignal },
): Promise<unknown> {
  const source = stateSource(ws, o.env);
  if (source.kind === 'local') return readLocalState(ws, source.file);
  return pullState(tool, ws, source.type, o.env, o.sandbox, o.signal);
}

/** `module.a["k"].` prefix and `[0]` / `["k"]` suffix as terraform writes addresses. */
function indexSuffix(key: unknown): string {
  if (typeof key === 'number') return `[${key}]`;
  if (typeof key === 'string') return `[${JSON.stringify(key)}]`;
  return '';
}

/** Whether a state instance marks `id` sensitive (`sensitive_attributes` paths, either form terraform has written). */
function idIsSensitive(instance: Obj): boolean {
  return arr(instance.sensitive_attributes).some((path) => {
    const steps = Array.isArray(path) ? path : [path];
    const first = obj(steps[0]);
    return steps.length === 1 && first.type === 'get_attr' && first.value === 'id';
  });
}

/** The state as records: every resource instance with its address, and the outputs. */
export function parseState(state: unknown): TfState {
  const s = obj(state);
  const instances: StateInstance[] = [];
  // In address order, as terraform prints them (instances keep their index order).
  const base = (r: Obj) => `${str(r.module) ?? ''}\u0000${r.mode === 'data' ? 1 : 0}\u0000${str(r.type) ?? ''}\u0000${str(r.name) ?? ''}`;
  const resources = arr(s.resources).map(obj).sort((a, b) => (base(a) < base(b) ? -1 : base(a) > base(b) ? 1 : 0));
  for (const raw of resources) {
    const r = obj(raw);
    const type = str(r.type);
    const name = str(r.name);
    if (!type || !name) continue;
    const mode = r.mode === 'data' ? 'data' : 'managed';
    const base = `${str(r.module) ? `${str(r.module)}.` : ''}${mode === 'data' ? 'data.' : ''}${type}.${name}`;
    for (const i of arr(r.instances)) {
      const instance = obj(i);
      instances.push({ address: `${base}${indexSuffix(instance.index_key)}`, mode, type, name, values: obj(instance.attributes), sensitiveId: idIsSensitive(instance) });
    }
  }
  // By name, as terraform prints them.
  const outputs = Object.entries(obj(s.outputs))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, o]) => {
    const sensitive = obj(o).sensitive === true;
    return sensitive ? { name, sensitive } : { name, sensitive, value: obj(o).value };
  });
  return { terraform_version: str(s.terraform_version), instances, outputs };
}

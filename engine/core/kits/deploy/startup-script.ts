/**
 * The startup script an instance runs on first boot: install the runtime, fetch the repository at the
 * resolved commit, and run the service under systemd (directly, or in docker when the repository has a
 * Dockerfile or a compose file). It also leaves `/usr/local/sbin/assistant-deploy-<name> <sha>` on the
 * instance, which rolls out another commit the same way (startup scripts run only once, and gpucloud
 * has no call to run one again).
 *
 * Everything the script embeds is public: the URL without user info, the commit, the start command,
 * plain environment values. Secret values never go into it (the script is stored by the provider and
 * shown in the plan).
 */
import type { DeployRequest, Runtime } from '../../deploy-types.js';
import { withWatcher } from '../autostop/watcher.js';

export interface ScriptInput {
  name: string;
  url: string;
  sha: string;
  runtime: Runtime;
  port: number;
  start?: string;
  gpu: boolean;
  /** Plain (non-secret) environment values. */
  env: { name: string; value: string }[];
  /** Secret variable names the operator must add on the instance (listed in a comment, never their values). */
  secretNames: string[];
}

/** POSIX single-quoting: safe for any byte string. */
export const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A heredoc delimiter that does not occur in `text`. */
function delimiter(text: string, base: string): string {
  let d = base;
  for (let i = 1; text.split('\n').includes(d); i++) d = `${base}_${i}`;
  return d;
}

function file(path: string, content: string, mode?: string): string {
  const d = delimiter(content, 'ASSISTANT_EOF');
  return `cat > ${path} <<'${d}'\n${content}${content.endsWith('\n') ? '' : '\n'}${d}\n${mode ? `chmod ${mode} ${path}\n` : ''}`;
}

/** The commands that build and start the service for each runtime (run from the checkout). */
function runtimeSetup(input: ScriptInput): { install: string; build: string; exec: string } {
  const gpuFlag = input.gpu ? '--gpus all ' : '';
  switch (input.runtime) {
    case 'docker':
      return {
        install: 'command -v docker >/dev/null || curl -fsSL https://get.docker.com | sh',
        build: `docker build -t "assistant-deploy/$APP:$COMMIT" .`,
        exec: `exec docker run --rm --name "$APP" ${gpuFlag}-p "$PORT:$PORT" -e PORT="$PORT" --env-file "$ENV_FILE" "assistant-deploy/$APP:$COMMIT"`,
      };
    case 'compose':
      return {
        install: 'command -v docker >/dev/null || curl -fsSL https://get.docker.com | sh',
        build: 'docker compose pull --ignore-buildable || true; docker compose build',
        exec: 'exec docker compose --env-file "$ENV_FILE" up --remove-orphans',
      };
    case 'python':
      return {
        install: 'apt-get install -y python3 python3-venv python3-pip',
        build: [
          '[ -d .venv ] || python3 -m venv .venv',
          '.venv/bin/pip install --upgrade pip',
          'if [ -f requirements.txt ]; then .venv/bin/pip install -r requirements.txt; elif [ -f pyproject.toml ]; then .venv/bin/pip install .; fi',
        ].join('\n'),
        exec: `. .venv/bin/activate\nexec ${input.start ?? 'false'}`,
      };
    case 'node':
      return {
        install: 'command -v node >/dev/null || { curl -fsSL https://deb.nodesource.com/setup_20.x | bash - && apt-get install -y nodejs; }',
        build: 'if [ -f package-lock.json ]; then npm ci; else npm install; fi\nnpm run build --if-present',
        exec: `exec ${input.start ?? 'npm start'}`,
      };
    case 'shell':
      return { install: 'true', build: 'true', exec: `exec ${input.start ?? 'false'}` };
  }
}

export function startupScript(input: ScriptInput): string {
  const setup = runtimeSetup(input);
  const base = `/opt/assistant-deploy/${input.name}`;
  const envFile = `/etc/assistant-deploy/${input.name}.env`;
  const envLines = [`PORT=${input.port}`, ...input.env.map((e) => `${e.name}=${e.value.replace(/\n/g, ' ')}`)].join('\n');

  // Rolls out one commit: fetch it, build, restart the unit. Used at first boot and for later updates.
  const update = `#!/bin/bash
# Roll out commit $1 of ${input.url} (assistant deploy ${input.name}).
set -euo pipefail
APP=${shQuote(input.name)}
REPO=${shQuote(input.url)}
COMMIT="\${1:?usage: assistant-deploy-${input.name} <commit sha>}"
DIR=${base}/src
ENV_FILE=${envFile}
mkdir -p "$DIR"
[ -d "$DIR/.git" ] || { git init -q "$DIR" && git -C "$DIR" remote add origin "$REPO"; }
git -C "$DIR" fetch --depth 1 origin "$COMMIT"
git -C "$DIR" checkout -q --force FETCH_HEAD
cd "$DIR"
${setup.build}
echo "$COMMIT" > ${base}/commit
systemctl daemon-reload
systemctl enable "assistant-deploy-$APP.service"
systemctl restart "assistant-deploy-$APP.service"
`;
  const run = `#!/bin/bash
# Started by systemd (EnvironmentFile=${envFile}): the service itself, in the foreground.
APP=${shQuote(input.name)}
COMMIT="$(cat ${base}/commit)"
ENV_FILE=${envFile}
cd ${base}/src
${setup.exec}
`;
  const unit = `[Unit]
Description=${input.name} (assistant deploy of ${input.url})
After=network-online.target${input.runtime === 'docker' || input.runtime === 'compose' ? ' docker.service' : ''}
Wants=network-online.target

[Service]
EnvironmentFile=${envFile}
ExecStart=${base}/run.sh
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
`;
  const secrets = input.secretNames.length
    ? `# Secret variables are not in this script; add them to ${envFile} and restart the unit: ${input.secretNames.join(', ')}\n`
    : '';
  return `#!/bin/bash
# assistant deploy: ${input.name} from ${input.url} at ${input.sha}
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
${secrets}apt-get update -y
apt-get install -y git curl ca-certificates
${setup.install}
mkdir -p ${base} /etc/assistant-deploy
${file(envFile, envLines, '600')}${file(`${base}/run.sh`, run, '755')}${file(`/etc/systemd/system/assistant-deploy-${input.name}.service`, unit)}${file(`/usr/local/sbin/assistant-deploy-${input.name}`, update, '755')}/usr/local/sbin/assistant-deploy-${input.name} ${input.sha}
`;
}

/**
 * The startup script of an instance deploy (any provider's VM: the same script runs on each): plain env
 * values only, the secret ones named for the operator; the auto-stop watcher goes first when asked.
 */
export function deployScript(req: DeployRequest): string {
  const script = startupScript({
    name: req.name,
    url: req.url,
    sha: req.sha,
    runtime: req.stack.runtime ?? 'shell',
    port: req.port,
    start: req.start,
    gpu: req.stack.gpu.needed,
    env: req.env.filter((e) => !e.secret),
    secretNames: req.env.filter((e) => e.secret).map((e) => e.name),
  });
  return req.autostop ? withWatcher(script, req.autostop) : script;
}

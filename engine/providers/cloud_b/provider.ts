/**
 * cloud_b (Google Cloud) as a provider: steps are `gcloud` command lines run through the installed
 * gcloud CLI with JSON output (`--format=json`) and the project of `infra.cloud_b.project_id`
 * (`--project`), unless the step gives its own. Prompts are disabled: the destroyer gate decided.
 * `bq` steps (bq.ts) run the billing export query of `cost --provider cloud_b` and nothing else.
 */
import { option, parseCommand } from '../../core/kits/cli/argv.js';
import { isolateGcloud } from '../../core/kits/cli/isolation.js';
import { cliProvider, withOption, type CliIsolation } from '../../core/kits/cli/provider.js';
import type { CliTool } from '../../core/kits/cli/runner.js';
import type { ArgProblem } from '../../core/provider.js';
import { BQ_COMPANION } from './bq.js';
import { cloudBCapabilities } from './capabilities.js';
import { GCLOUD_RULE_SET, GCLOUD_SYNTAX } from './destroyer.js';
import { burnCloudB, previewCloudB } from './prices.js';

export const GCLOUD_TOOL: CliTool = {
  command: 'gcloud',
  installHint: 'install the Google Cloud CLI (https://cloud.google.com/sdk/docs/install), then `gcloud auth login`',
  authFailures: [
    /You do not currently have an active account selected/i,
    /Reauthentication required|problem refreshing your current auth tokens|does not have any valid credentials/i,
    /gcloud auth login|gcloud auth application-default login/,
  ],
  authHint: 'log in with `gcloud auth login` (and `gcloud config set account <account>`), check with `gcloud auth list`',
};

/** What of the user's environment gcloud may see: the interpreter it needs and its account, project and location settings. */
export const GCLOUD_ENV = [
  'CLOUDSDK_PYTHON',
  'CLOUDSDK_PYTHON_SITEPACKAGES',
  'CLOUDSDK_GSUTIL_PYTHON',
  'CLOUDSDK_CORE_PROJECT',
  'CLOUDSDK_CORE_ACCOUNT',
  'CLOUDSDK_COMPUTE_REGION',
  'CLOUDSDK_COMPUTE_ZONE',
  'GCE_METADATA_HOST',
  'GCE_METADATA_IP',
  'USE_GKE_GCLOUD_AUTH_PLUGIN',
];

/** `gke-gcloud-auth-plugin` as `gcloud container clusters get-credentials` writes it, and nothing else. */
function gkePlugin(exec: { command: string; args: string[]; env: { name: string; value: string }[] }): string | undefined {
  if (exec.command !== 'gke-gcloud-auth-plugin') return 'only the gke-gcloud-auth-plugin gcloud writes is accepted';
  if (exec.args.some((a) => a !== '--use_application_default_credentials')) return `unexpected arguments ${JSON.stringify(exec.args)}`;
  return exec.env.length ? 'the plugin sets environment variables' : undefined;
}

export const GCLOUD_ISOLATION: CliIsolation = {
  allowEnv: GCLOUD_ENV,
  configure: (scratch, _args, opts) => isolateGcloud(scratch, opts),
  kubeconfig: {
    writes: (args) => {
      const w = parseCommand(args, GCLOUD_SYNTAX).words;
      return w[0] === 'container' && w[1] === 'clusters' && w[2] === 'get-credentials';
    },
    redirect: (args, path) => ({ args: [...args], env: { KUBECONFIG: path } }),
    exec: gkePlugin,
  },
};

export const cloudBProvider = cliProvider({
  name: 'cloud_b',
  tool: GCLOUD_TOOL,
  syntax: GCLOUD_SYNTAX,
  rules: GCLOUD_RULE_SET,
  minWords: 2,
  refuse: { '--log-http': 'prints request details, tokens included; use `assistant --debug`' },
  usage: '["gcloud", "<group>", …, "<command>", …arguments], e.g. ["gcloud", "compute", "instances", "list"]',
  check(cmd) {
    const problems: ArgProblem[] = [];
    for (const v of option(cmd, '--format') ?? []) {
      if (!/^json\b/i.test(v)) problems.push({ field: 'args', message: `--format ${v}: gcloud steps always print JSON (the step's data); leave --format out or use json(...)` });
    }
    if ((option(cmd, '--verbosity') ?? []).some((v) => v.toLowerCase() === 'debug')) {
      problems.push({ field: 'args', message: '--verbosity debug is not allowed in a gcloud step: it prints request details, tokens included; use `assistant --debug`' });
    }
    return problems;
  },
  // bq for the billing export query of `cost --provider cloud_b` only (bq.ts).
  companions: [BQ_COMPANION],
  capabilities: cloudBCapabilities,
  preview: previewCloudB,
  burn: burnCloudB,
  isolation: GCLOUD_ISOLATION,
  target(opts) {
    const project = opts.config.infra?.cloud_b?.project_id;
    return {
      add: (args) => {
        const out = withOption(args, { syntax: GCLOUD_SYNTAX }, ['--format'], ['--format=json']);
        return project ? withOption(out, { syntax: GCLOUD_SYNTAX }, ['--project'], ['--project', project]) : out;
      },
      env: { CLOUDSDK_CORE_DISABLE_PROMPTS: '1' },
      // The query job runs (and its bytes are billed) in the configured project, else gcloud's.
      companions: { bq: (args) => (project ? [`--project_id=${project}`, ...args] : [...args]) },
      source: project ? `infra.cloud_b.project_id (${project})` : 'the gcloud CLI configuration (infra.cloud_b.project_id is not set)',
    };
  },
});

/** The `gcloud` step verb. */
export const gcloudVerb = cloudBProvider.verb;

/** The `bq` step verb (the billing export query only, bq.ts). */
export const bqVerb = cloudBProvider.verbs[1]!;

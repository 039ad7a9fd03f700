/**
 * The command-line tools onboarding knows: which provider of this project uses each one and how much
 * (required, optional, or one of a set), how its version is asked for, and a minimum version where the
 * project depends on a feature. The SPEC names the integrations neutrally; the CLIs probed for the
 * integrations whose vendor it leaves open (edge, vps_a, vps_b, cloud_d, appplatform, errtracker) are
 * this table's choice, said in the README.
 */

/** How a provider depends on a tool: it cannot work without it, it is a convenience, or any one of a group will do. */
export type ToolNeed = 'required' | 'optional' | 'one-of';

export interface ToolSpec {
  name: string;
  title: string;
  /** Providers (by name, as the scan lists them: scan-entries.ts) that use this tool, and how. */
  providers: Record<string, ToolNeed>;
  /** Arguments that print the version (stdout or stderr). */
  versionArgs: string[];
  /** Lowest version the project works with, and why. */
  minVersion?: { version: string; why: string };
  /** Where a person installs it by hand when no recipe fits the machine. */
  manual: string;
}

export const TOOLS: readonly ToolSpec[] = [
  { name: 'aws', title: 'AWS CLI (cloud_a)', providers: { cloud_a: 'required' }, versionArgs: ['--version'], manual: 'https://docs.aws.amazon.com/cli/latest/userguide/getting-started-install.html' },
  { name: 'gcloud', title: 'Google Cloud CLI (cloud_b)', providers: { cloud_b: 'required' }, versionArgs: ['--version'], manual: 'https://cloud.google.com/sdk/docs/install' },
  { name: 'az', title: 'Azure CLI (cloud_c)', providers: { cloud_c: 'required' }, versionArgs: ['--version'], manual: 'https://learn.microsoft.com/cli/azure/install-azure-cli' },
  { name: 'kubectl', title: 'kubectl (k8s; assistant talks to the API itself, kubectl is for you)', providers: { k8s: 'optional' }, versionArgs: ['version', '--client'], manual: 'https://kubernetes.io/docs/tasks/tools/' },
  // `terraform show -json` (engine/producers/iac/terraform.ts) exists since 0.12.
  { name: 'terraform', title: 'Terraform (infrastructure-as-code workspaces)', providers: { terraform: 'one-of' }, versionArgs: ['version'], minVersion: { version: '0.12.0', why: '`terraform show -json` needs 0.12' }, manual: 'https://developer.hashicorp.com/terraform/install' },
  { name: 'tofu', title: 'OpenTofu (a Terraform alternative)', providers: { terraform: 'one-of' }, versionArgs: ['version'], minVersion: { version: '1.6.0', why: '1.6.0 is the first stable OpenTofu' }, manual: 'https://opentofu.org/docs/intro/install/' },
  { name: 'ssh', title: 'OpenSSH client (assistant uses its own SSH library; ssh is for you)', providers: { ssh: 'optional' }, versionArgs: ['-V'], manual: 'https://www.openssh.com/portable.html' },
  // engine/producers/ai/resolve.ts runs `gh auth token`, which gh has since 2.17.0.
  { name: 'gh', title: 'GitHub CLI (repohost; the github-models AI provider reads its token)', providers: { repohost: 'optional' }, versionArgs: ['--version'], minVersion: { version: '2.17.0', why: '`gh auth token` (github-models) needs 2.17.0' }, manual: 'https://cli.github.com/' },
  { name: 'git', title: 'git (deploy clones repositories with it)', providers: { repohost: 'required' }, versionArgs: ['--version'], manual: 'https://git-scm.com/downloads' },
  { name: 'psql', title: 'PostgreSQL client (postgres)', providers: { postgres: 'optional' }, versionArgs: ['--version'], manual: 'https://www.postgresql.org/download/' },
  { name: 'docker', title: 'Docker CLI (to build and try what deploy runs)', providers: {}, versionArgs: ['--version'], manual: 'https://docs.docker.com/get-docker/' },
  { name: 'wrangler', title: 'edge CLI (wrangler)', providers: { edge: 'optional' }, versionArgs: ['--version'], manual: 'https://developers.cloudflare.com/workers/wrangler/install-and-update/' },
  { name: 'hcloud', title: 'vps_a CLI (hcloud)', providers: { vps_a: 'optional' }, versionArgs: ['version'], manual: 'https://github.com/hetznercloud/cli' },
  { name: 'doctl', title: 'vps_b CLI (doctl)', providers: { vps_b: 'optional' }, versionArgs: ['version'], manual: 'https://docs.digitalocean.com/reference/doctl/how-to/install/' },
  { name: 'tccli', title: 'cloud_d CLI (tccli)', providers: { cloud_d: 'optional' }, versionArgs: ['--version'], manual: 'https://www.tencentcloud.com/document/product/1013/33464' },
  { name: 'railway', title: 'appplatform CLI (railway)', providers: { appplatform: 'optional' }, versionArgs: ['--version'], manual: 'https://docs.railway.com/guides/cli' },
  { name: 'sentry-cli', title: 'errtracker CLI (sentry-cli)', providers: { errtracker: 'optional' }, versionArgs: ['--version'], manual: 'https://docs.sentry.io/cli/installation/' },
];

export function toolSpec(name: string): ToolSpec | undefined {
  return TOOLS.find((t) => t.name === name);
}

export function toolNames(): string[] {
  return TOOLS.map((t) => t.name);
}

/** The tools a provider uses, with how much it needs each. */
export function toolsOf(provider: string): { tool: ToolSpec; need: ToolNeed }[] {
  return TOOLS.filter((t) => t.providers[provider]).map((t) => ({ tool: t, need: t.providers[provider]! }));
}

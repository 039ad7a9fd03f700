/**
 * How each tool is installed, per platform: a package manager's package, or a pinned download.
 *
 * Downloads are pinned to one version with the SHA-256 its publisher released for each artefact. The
 * values below were taken from the publishers' checksum files (HashiCorp's terraform_1.9.8_SHA256SUMS,
 * OpenTofu's tofu_1.8.5_SHA256SUMS, dl.k8s.io's kubectl .sha256 files for v1.31.0, GitHub CLI's
 * gh_2.62.0_checksums.txt) as quoted verbatim by independent public repositories that pin them
 * (HashiCorp's own Homebrew tap formula for terraform 1.9.8; the GitHub CLI's release notes for the
 * macOS arm64 gh archive), each value seen identically in at least two places except where noted. They
 * cannot be fetched from here; to bump a version, replace the version, URLs, sizes and checksums
 * together from the publisher's checksum file. Tools without a downloadable single binary (aws, az,
 * gcloud, the vendor CLIs) are installed with package managers only: this table has no checksum for
 * them, so it offers no download.
 */
import type { Artefact, DownloadRecipe, Recipe } from '../../../schemas/onboarding.js';
import type { OsName, PackageManager, Platform } from './platform.js';

type Target = 'linux/x64' | 'linux/arm64' | 'darwin/x64' | 'darwin/arm64' | 'windows/x64';
/** The publisher's SHA-256 of a target's artefact, with its size in bytes where the publisher lists one. */
type Checksum = string | [sha256: string, size: number];

/**
 * A pinned download: where each target's artefact lives (the publishers name them by one pattern, with
 * Go's `amd64`/`arm64`) and the checksum the publisher released for it.
 */
function pinned(binary: string, version: string, where: (os: OsName, arch: string) => Pick<Artefact, 'url' | 'format'>, sums: Record<Target, Checksum>): DownloadRecipe {
  const artefacts: Record<string, Artefact> = {};
  for (const [target, sum] of Object.entries(sums) as [Target, Checksum][]) {
    const [os, arch] = target.split('/') as [OsName, string];
    const { url, format } = where(os, arch === 'x64' ? 'amd64' : arch);
    const [sha256, size] = typeof sum === 'string' ? [sum] : sum;
    artefacts[target] = { url, sha256, ...(size === undefined ? {} : { size }), format };
  }
  return { method: 'download', version, binary, artefacts };
}

const KUBECTL = pinned('kubectl', '1.31.0', (os, arch) => ({ url: `https://dl.k8s.io/release/v1.31.0/bin/${os}/${arch}/kubectl${os === 'windows' ? '.exe' : ''}`, format: 'binary' }), {
  'linux/x64': '7c27adc64a84d1c0cc3dcf7bf4b6e916cc00f3f576a2dbac51b318d926032437',
  'linux/arm64': 'f42832db7d77897514639c6df38214a6d8ae1262ee34943364ec1ffaee6c009c',
  'darwin/x64': 'fb6e07a69acc4e16885eda55b524c13b84bfbcf78cfac8d6c378d2bad321e105',
  'darwin/arm64': 'b7472df17a885574ed7273947a8a274c156357db21b981208e8e109b9ed4022d',
  'windows/x64': 'a618de26c86421a394de7041f9d0a87752dd4e555894d2278421cf12097fa531',
});

const TERRAFORM = pinned('terraform', '1.9.8', (os, arch) => ({ url: `https://releases.hashicorp.com/terraform/1.9.8/terraform_1.9.8_${os}_${arch}.zip`, format: 'zip' }), {
  'linux/x64': '186e0145f5e5f2eb97cbd785bc78f21bae4ef15119349f6ad4fa535b83b10df8',
  'linux/arm64': 'f85868798834558239f6148834884008f2722548f84034c9b0f62934b2d73ebb',
  'darwin/x64': 'be591e8c59c49d0cfbc7664d24910a4b43840b89d0a4bbca662149bbf0397e91',
  'darwin/arm64': '873d7b925d08578fb6bb9c12c7cd92ae73e289e07c360f2fdd69f9036b7baaab',
  // Only in the SHA256SUMS document (its signature checked with gpgv by the repository quoting it).
  'windows/x64': '2667de56106bc6707968286357e29c20f8dbbb2f429ef57099b04994f82d9684',
});

const TOFU = pinned('tofu', '1.8.5', (os, arch) => ({ url: `https://github.com/opentofu/opentofu/releases/download/v1.8.5/tofu_1.8.5_${os}_${arch}.zip`, format: 'zip' }), {
  'linux/x64': 'e2951ba6be8ae9427aabbd5c6f243855e8b526cb2ae6bc33a05dae22d7e82632',
  // linux/arm64 and windows/x64: only in the signed SHA256SUMS document, as for terraform's windows zip.
  'linux/arm64': '2535e8d4979806cbf79a1b704dccf1fae45b4d50ccaee3e54c1771044db4a573',
  'darwin/x64': 'cb6d1b949691e50bed6c9cc17aefc999cf27e52200521efa9f107ce3ee08260f',
  'darwin/arm64': 'c77e545ab847c0d6acd322c010f457e1a30448476945c04074a48882c4b86dfe',
  'windows/x64': '8bcd1317392a7b1ce149c5dafc886497219f560527fe10ed0d58863120d59e67',
});

// gh names macOS `macOS` and ships a tarball on Linux, a zip elsewhere.
const GH = pinned('gh', '2.62.0', (os, arch) => {
  const format = os === 'linux' ? 'tar.gz' : 'zip';
  return { url: `https://github.com/cli/cli/releases/download/v2.62.0/gh_2.62.0_${os === 'darwin' ? 'macOS' : os}_${arch}.${format}`, format };
}, {
  'linux/x64': ['41c8b0698ad3003cb5c44bde672a1ffd5f818595abd80162fbf8cc999418446a', 13065800],
  'linux/arm64': ['a165413209aab98bfb1db9629b97bc9c59778d38bb7378a33a0363cf822e7965', 12118266],
  'darwin/x64': ['cd547c05c175a79e5af6f95ba4881a11ca550c0ff37a63f234bc5c79a58435d5', 13725376],
  'darwin/arm64': ['fdb77f31b8a6dd23c3fd858758d692a45f7fc76383e37d475bdcae038df92afc', 12793347],
  'windows/x64': ['7fd29acdf2714d0129b7aedde215fa12e1cfb3ad5d39280893259bdeeceba209', 13139194],
});

const pm = (method: PackageManager, packages: string[], extra: { os?: OsName[]; note?: string } = {}): Recipe => ({ method, packages, ...extra }) as Recipe;

/** Built-in recipes per tool, in no particular order: `preference` orders them per platform. */
export const BUILTIN_RECIPES: Readonly<Record<string, readonly Recipe[]>> = {
  aws: [pm('brew', ['awscli']), pm('winget', ['Amazon.AWSCLI']), pm('apt', ['awscli']), pm('dnf', ['awscli2']), pm('pipx', ['awscli']), pm('pip', ['awscli'])],
  gcloud: [pm('brew', ['cask:google-cloud-sdk']), pm('winget', ['Google.CloudSDK'])],
  az: [pm('brew', ['azure-cli']), pm('winget', ['Microsoft.AzureCLI']), pm('apt', ['azure-cli']), pm('dnf', ['azure-cli']), pm('pipx', ['azure-cli'])],
  kubectl: [KUBECTL, pm('brew', ['kubernetes-cli']), pm('winget', ['Kubernetes.kubectl'])],
  terraform: [TERRAFORM, pm('brew', ['hashicorp/tap/terraform']), pm('winget', ['Hashicorp.Terraform'])],
  tofu: [TOFU, pm('brew', ['opentofu']), pm('winget', ['OpenTofu.Tofu'])],
  ssh: [pm('apt', ['openssh-client']), pm('dnf', ['openssh-clients']), pm('brew', ['openssh'])],
  gh: [GH, pm('brew', ['gh']), pm('winget', ['GitHub.cli']), pm('apt', ['gh']), pm('dnf', ['gh'])],
  git: [pm('apt', ['git']), pm('dnf', ['git']), pm('brew', ['git']), pm('winget', ['Git.Git'])],
  psql: [pm('apt', ['postgresql-client']), pm('dnf', ['postgresql']), pm('brew', ['libpq'], { note: 'Homebrew keeps libpq out of PATH: run `brew link --force libpq` afterwards' })],
  docker: [pm('apt', ['docker.io']), pm('dnf', ['moby-engine']), pm('brew', ['cask:docker']), pm('winget', ['Docker.DockerDesktop'])],
  wrangler: [pm('npm', ['wrangler'])],
  hcloud: [pm('brew', ['hcloud']), pm('winget', ['HetznerCloud.CLI'])],
  doctl: [pm('brew', ['doctl']), pm('winget', ['DigitalOcean.Doctl'])],
  tccli: [pm('pipx', ['tccli']), pm('pip', ['tccli'])],
  railway: [pm('npm', ['@railway/cli']), pm('brew', ['railway'])],
  'sentry-cli': [pm('npm', ['@sentry/cli']), pm('brew', ['getsentry/tools/sentry-cli']), pm('pipx', ['sentry-cli'])],
};

/**
 * The order recipes are tried on a platform. macOS and Windows: their package manager first (what the
 * user updates anyway). Linux: a pinned download first (no root needed, a known version), then the
 * distribution's packages, then language package managers.
 */
export function preference(os: OsName): (Recipe['method'])[] {
  if (os === 'darwin') return ['brew', 'download', 'pipx', 'npm', 'pip'];
  if (os === 'windows') return ['winget', 'download', 'pipx', 'npm', 'pip'];
  return ['download', 'apt', 'dnf', 'brew', 'pipx', 'npm', 'pip'];
}

/** The recipes of a tool for a platform, best first: the user's own (--recipes) before the built-in ones. */
export function recipesFor(tool: string, platform: Platform, extra: Readonly<Record<string, readonly Recipe[]>> = {}): Recipe[] {
  const order = preference(platform.os);
  const rank = (r: Recipe) => {
    const i = order.indexOf(r.method);
    return i === -1 ? order.length : i;
  };
  const builtin = [...(BUILTIN_RECIPES[tool] ?? [])].sort((a, b) => rank(a) - rank(b));
  return [...(extra[tool] ?? []), ...builtin];
}

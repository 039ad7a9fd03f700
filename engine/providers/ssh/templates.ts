/**
 * The named commands an `ssh-exec` step may run without `--destroyer` (DESIGN §7, default deny): a
 * shell line on a remote root account can do anything, so only a command that is exactly one of these
 * templates, with each parameter matching its own strict pattern, is known to be harmless. Anything
 * else is free-form: destructive, and the dry run shows it verbatim.
 *
 * A parameter may be written literally, as a placeholder bound by an earlier step (`<UNIT>`), or, after
 * substitution, single-quoted (ssh-exec quotes bound values: `'nginx'`): the quoted text must match the
 * same pattern. Matching is on the whole command, so nothing can be appended (`uptime; rm -rf /`).
 *
 * `renderTemplate` builds a command from a template for code that runs one itself (the kubeadm
 * compiler, an idle check that reads `nvidia-smi`): the same table, so what code writes always matches.
 */
import { InvalidInputError } from '../../core/errors.js';

export interface SshTemplate {
  name: string;
  effect: 'read' | 'update';
  why: string;
  /** The command with `{PARAM}` holes. */
  command: string;
  /** Each hole's pattern (anchored by the matcher). */
  params: Record<string, RegExp>;
}

const UNIT = /[A-Za-z0-9@._:-]{1,128}/;
/** Kubernetes resources (`pods`, `deploy/web`, `nodes`), never Secrets: their values would be printed. */
const KUBE_RESOURCE = /(?!secrets?(?:[/.]|$))[a-z][a-z0-9.-]{0,62}(?:\/[a-z0-9][a-z0-9.-]{0,252})?/;
const KUBE_FLAGS = /(?: (?:-A|--all-namespaces|-n [a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?|-o (?:json|yaml|wide|name)|--no-headers|-l [A-Za-z0-9._\/-]+=[A-Za-z0-9._-]+))*/;

/** Host names or IP addresses as kubeadm takes them (`--apiserver-cert-extra-sans`). */
const HOST = /[A-Za-z0-9](?:[A-Za-z0-9.:-]{0,252}[A-Za-z0-9])?/;

export function kubeadmInstallScript(version: string): string {
  return [
    'set -e',
    'swapoff -a',
    'modprobe br_netfilter',
    "printf 'net.ipv4.ip_forward=1\\nnet.bridge.bridge-nf-call-iptables=1\\n' > /etc/sysctl.d/99-kubernetes.conf && sysctl --system >/dev/null",
    'if ! command -v kubeadm >/dev/null; then',
    '  export DEBIAN_FRONTEND=noninteractive',
    '  apt-get update -q && apt-get install -y -q apt-transport-https ca-certificates curl gpg containerd',
    '  mkdir -p /etc/apt/keyrings /etc/containerd',
    `  curl -fsSL https://pkgs.k8s.io/core:/stable:/${version}/deb/Release.key | gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg`,
    `  echo 'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/${version}/deb/ /' > /etc/apt/sources.list.d/kubernetes.list`,
    '  apt-get update -q && apt-get install -y -q kubelet kubeadm kubectl',
    "  containerd config default | sed 's/SystemdCgroup = false/SystemdCgroup = true/' > /etc/containerd/config.toml && systemctl restart containerd",
    'fi',
  ].join('\n');
}

export const KUBEADM_POD_CIDR = '10.244.0.0/16';

export function kubeadmInitScript(host: string): string {
  return [
    'set -e',
    `test -f /etc/kubernetes/admin.conf || kubeadm init --pod-network-cidr=${KUBEADM_POD_CIDR} --apiserver-cert-extra-sans=${host}`,
    'mkdir -p /root/.kube && cp /etc/kubernetes/admin.conf /root/.kube/config && chmod 600 /root/.kube/config',
    'kubectl --kubeconfig /etc/kubernetes/admin.conf apply -f https://github.com/flannel-io/flannel/releases/latest/download/kube-flannel.yml',
  ].join('\n');
}

// kubeadm prints "kubeadm join <endpoint> --token <t> --discovery-token-ca-cert-hash <h>"; as JSON for `produces`.
export const KUBEADM_TOKEN_COMMAND = `kubeadm token create --ttl 30m --print-join-command | awk '{print "{\\"endpoint\\":\\"" $3 "\\",\\"token\\":\\"" $5 "\\",\\"ca_cert_hash\\":\\"" $7 "\\"}"}'`;

export const SSH_TEMPLATES: readonly SshTemplate[] = [
  { name: 'nvidia-smi', effect: 'read', why: 'GPU state', command: 'nvidia-smi', params: {} },
  { name: 'nvidia-smi-list', effect: 'read', why: 'the GPUs', command: 'nvidia-smi -L', params: {} },
  {
    name: 'nvidia-smi-query',
    effect: 'read',
    why: 'GPU figures (utilisation, memory)',
    command: 'nvidia-smi --query-gpu={FIELDS} --format={FORMAT}',
    params: { FIELDS: /[a-z_.]+(?:,[a-z_.]+)*/, FORMAT: /csv(?:,noheader)?(?:,nounits)?/ },
  },
  { name: 'df', effect: 'read', why: 'disk use', command: 'df -h', params: {} },
  { name: 'df-path', effect: 'read', why: 'disk use of a path', command: 'df -h {PATH}', params: { PATH: /\/[A-Za-z0-9._/-]{0,255}/ } },
  { name: 'uptime', effect: 'read', why: 'uptime and load', command: 'uptime', params: {} },
  { name: 'free', effect: 'read', why: 'memory', command: 'free -{UNIT}', params: { UNIT: /[hmg]/ } },
  { name: 'uname', effect: 'read', why: 'the kernel', command: 'uname -a', params: {} },
  { name: 'hostname', effect: 'read', why: 'the host name', command: 'hostname', params: {} },
  { name: 'nproc', effect: 'read', why: 'the CPU count', command: 'nproc', params: {} },
  { name: 'loadavg', effect: 'read', why: 'the load average', command: 'cat /proc/loadavg', params: {} },
  { name: 'os-release', effect: 'read', why: 'the OS release', command: 'cat /etc/os-release', params: {} },
  { name: 'docker-ps', effect: 'read', why: 'running containers', command: 'docker ps', params: {} },
  { name: 'journalctl', effect: 'read', why: "a unit's last log lines", command: 'journalctl -u {UNIT} --no-pager -n {N}', params: { UNIT, N: /[0-9]{1,5}/ } },
  { name: 'systemctl-status', effect: 'read', why: "a unit's state", command: 'systemctl status {UNIT} --no-pager', params: { UNIT } },
  { name: 'systemctl-is-active', effect: 'read', why: "whether a unit runs", command: 'systemctl is-active {UNIT}', params: { UNIT } },
  {
    name: 'kubectl-read',
    effect: 'read',
    why: 'reads cluster objects (never Secrets)',
    command: 'kubectl {VERB} {RESOURCE}{FLAGS}',
    params: { VERB: /get|describe/, RESOURCE: KUBE_RESOURCE, FLAGS: KUBE_FLAGS },
  },
  {
    name: 'kubectl-admin-read',
    effect: 'read',
    why: 'reads cluster objects with the node\'s admin kubeconfig (never Secrets)',
    command: 'kubectl --kubeconfig /etc/kubernetes/admin.conf {VERB} {RESOURCE}{FLAGS}',
    params: { VERB: /get|describe/, RESOURCE: KUBE_RESOURCE, FLAGS: KUBE_FLAGS },
  },
  { name: 'kubectl-top', effect: 'read', why: 'resource use', command: 'kubectl top {WHAT}{FLAGS}', params: { WHAT: /nodes?|pods?/, FLAGS: KUBE_FLAGS } },
  { name: 'kubectl-version', effect: 'read', why: 'versions', command: 'kubectl version', params: {} },
  // The kubeadm compiler's steps (engine/producers/k8s-create/kubeadm.ts): they install and join, never remove.
  { name: 'kubeadm-install', effect: 'update', why: 'installs containerd and the Kubernetes packages (skipped when present)', command: kubeadmInstallScript('{VERSION}'), params: { VERSION: /v[0-9]{1,2}\.[0-9]{1,3}/ } },
  { name: 'kubeadm-init', effect: 'update', why: 'initialises the control plane (skipped when done) and the pod network', command: kubeadmInitScript('{HOST}'), params: { HOST } },
  { name: 'kubeadm-token', effect: 'update', why: 'creates a 30-minute join token (masked)', command: KUBEADM_TOKEN_COMMAND, params: {} },
  {
    name: 'kubeadm-join',
    effect: 'update',
    why: 'joins the node to the cluster (skipped when joined)',
    command: 'test -f /etc/kubernetes/kubelet.conf || kubeadm join {ENDPOINT} --token {TOKEN} --discovery-token-ca-cert-hash {HASH}',
    // Values are shell-quoted when bound, so a pattern only keeps the command recognisable. A resumed run
    // gets `***` for the token (the journal keeps no secret): the verb says so before connecting.
    params: { ENDPOINT: /[A-Za-z0-9.:[\]-]{1,260}/, TOKEN: /[A-Za-z0-9.]{1,128}|\*\*\*/, HASH: /sha256:[A-Za-z0-9]{1,128}/ },
  },
];

/** A pattern's groups made non-capturing, so the template's holes are the only captures. */
const nonCapturing = (source: string) => source.replace(/(^|[^\\])\((?!\?)/g, '$1(?:');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PLACEHOLDER = /^<[A-Z][A-Z0-9_]*>$/;

interface Compiled {
  template: SshTemplate;
  re: RegExp;
  names: string[];
}

const COMPILED: Compiled[] = SSH_TEMPLATES.map((template) => {
  const names: string[] = [];
  const source = template.command
    .split(/(\{[A-Z]+\})/)
    .map((part) => {
      const hole = /^\{([A-Z]+)\}$/.exec(part);
      if (!hole) return escape(part);
      names.push(hole[1]!);
      // A literal value, a placeholder, or a single-quoted value (checked against the pattern below).
      return `(<[A-Z][A-Z0-9_]*>|'[^']*'|${nonCapturing(template.params[hole[1]!]!.source)})`;
    })
    .join('');
  return { template, re: new RegExp(`^${source}$`), names };
});

/** The template a command is, with its parameters, or undefined when it is free-form. */
export function matchTemplate(command: string): { template: SshTemplate; params: Record<string, string> } | undefined {
  for (const { template, re, names } of COMPILED) {
    const m = re.exec(command);
    if (!m) continue;
    const params: Record<string, string> = {};
    let ok = true;
    names.forEach((name, i) => {
      const v = m[i + 1] ?? '';
      params[name] = v;
      if (PLACEHOLDER.test(v)) return;
      const inner = v.startsWith("'") && v.endsWith("'") && v.length >= 2 ? v.slice(1, -1) : v;
      if (!new RegExp(`^(?:${template.params[name]!.source})$`).test(inner)) ok = false;
    });
    if (ok) return { template, params };
  }
  return undefined;
}

/** A command from a template; every parameter must match its pattern (InvalidInputError otherwise). */
export function renderTemplate(name: string, params: Record<string, string> = {}): string {
  const template = SSH_TEMPLATES.find((t) => t.name === name);
  if (!template) throw new InvalidInputError('unknown_template', `no ssh template "${name}" (known: ${SSH_TEMPLATES.map((t) => t.name).join(', ')})`);
  return template.command.replace(/\{([A-Z]+)\}/g, (_whole, p: string) => {
    const v = params[p] ?? '';
    if (!PLACEHOLDER.test(v) && !new RegExp(`^(?:${template.params[p]!.source})$`).test(v)) {
      throw new InvalidInputError('invalid_template_value', `${JSON.stringify(v)} is not a valid ${p} for the ssh template "${name}"`);
    }
    return v;
  });
}

/** The templates as a Markdown table (README, the destroyer gate): what runs without --destroyer. */
export function templatesMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, '⏎ ');
  const shown = (t: SshTemplate) => (t.command.includes('\n') ? `(the kubeadm compiler's ${t.name} script)` : `\`${cell(t.command)}\``);
  return [
    '| template | command | effect | what |',
    '|---|---|---|---|',
    ...SSH_TEMPLATES.map((t) => `| ${t.name} | ${shown(t)} | ${t.effect === 'read' ? 'runs freely (reads)' : 'runs freely (changes, removes nothing)'} | ${cell(t.why)} |`),
    '| anything else | free-form | needs --destroyer | not known to be safe; the dry run shows the command verbatim |',
  ].join('\n');
}

/**
 * Default deny is complete for what this tool itself writes (issue 21): every step the built-in makers
 * compile (the cloud_a planner, `k8s create eks|gke|kubeadm`, `deploy --provider cloud_a`, the cloud_a
 * reports, cost and read catalogue) and every step of the README's examples is classified by the
 * allowlist as harmless (or as exactly the destruction its request asked for), none is refused; an
 * operation no table names needs --destroyer through the real validation; and docs/safety.md's tables are
 * the tables.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rulesMarkdown } from '../../engine/core/kits/cli/rules.js';
import { AWS_RULE_SET } from '../../engine/providers/cloud_a/destroyer.js';
import { AWS_READS } from '../../engine/providers/cloud_a/reads.js';
import { GCLOUD_RULE_SET } from '../../engine/providers/cloud_b/destroyer.js';
import { AZ_RULE_SET } from '../../engine/providers/cloud_c/destroyer.js';
import { ceUsagePlan } from '../../engine/providers/cloud_a/cost.js';
import { compileCloudA } from '../../engine/providers/cloud_a/deploy-compile.js';
import { compileEksCreate } from '../../engine/producers/k8s-create/eks.js';
import { compileGkeCreate } from '../../engine/producers/k8s-create/gke.js';
import { compileKubeadmCreate } from '../../engine/producers/k8s-create/kubeadm.js';
import { planCloudA } from '../../engine/providers/cloud_a/planner.js';
import { validatePlan } from '../../engine/core/plan/validate.js';
import { allProviders } from '../../engine/providers/index.js';
import { complianceReport } from '../../engine/producers/reports/compliance.js';
import { iamReport } from '../../engine/producers/reports/iam.js';
import { renderTemplate, SSH_TEMPLATES, templatesMarkdown } from '../../engine/providers/ssh/templates.js';
import type { Plan } from '../../schemas/plan.js';

// Every provider, loaded: these tests validate plans of any provider synchronously.
const PROVIDERS = await allProviders();

const classify = (args: string[]) => PROVIDERS.verb(args[0]!)!.verb.classify(args);

/** Every step of a plan is classified as harmless (read, create, update) and none is refused. */
function harmless(plan: Plan, what: string, bound: string[] = []): void {
  plan.commands.forEach((c, i) => {
    const cls = classify(c.args);
    assert.not.ok(cls.refused, `${what}: step ${i} (${c.args.slice(0, 4).join(' ')}) is refused: ${cls.refused?.join('; ')}`);
    assert.is.not(cls.effect, 'destroy', `${what}: step ${i} (${c.args.slice(0, 4).join(' ')}) needs --destroyer: ${cls.reasons.join('; ')}`);
  });
  // The engine agrees: valid without --destroyer (placeholders bound by earlier steps or predefined).
  const v = validatePlan(plan, { providers: PROVIDERS, destroyer: false, predefined: ['DEFAULT_SSH_KEY_ID', 'DEFAULT_LOCATION', 'PROJECT_ID', ...bound] });
  assert.ok(v.ok, `${what}: ${v.problems.map((p) => p.message).join('; ')}`);
}

test('the cloud_a planner: every list, create, start/stop/reboot runs freely; delete and terminate need --destroyer and nothing else', () => {
  const instances = [{ id: 'i-0123456789abcdef0', name: 'web-1' }];
  for (const q of ['list my ec2 instances', 'list the instances in eu-west-1', 'list my s3 buckets', 'create a bucket called logs-eu', 'create a bucket called logs-eu in eu-west-1', 'stop the instance web-1', 'start instance i-0123456789abcdef0', 'reboot instance web-1']) {
    harmless(planCloudA(q, instances), q);
  }
  for (const q of ['delete the bucket logs-eu', 'terminate instance web-1']) {
    const plan = planCloudA(q, instances);
    for (const c of plan.commands) {
      const cls = classify(c.args);
      assert.is(cls.effect, 'destroy', q);
      assert.not.ok(cls.refused, q);
      assert.not.match(cls.reasons.join(' '), /not known to be safe/, `${q}: a known destruction, named as such`);
    }
  }
});

test('k8s create eks, gke and kubeadm compile to steps that run freely (the kubeconfig is merged by the provider, sanitised)', async () => {
  harmless(await compileEksCreate({ name: 'e1', roleArn: 'arn:aws:iam::123456789012:role/eks', subnets: 'subnet-a,subnet-b', region: 'eu-west-1', profile: 'p' }), 'k8s create eks');
  harmless(compileGkeCreate({ name: 'g1', gcpProject: 'proj-1', location: 'europe-west4-a' }), 'k8s create gke');
  harmless(compileKubeadmCreate({ name: 'k1', host: '10.0.0.5', workers: '10.0.0.6,10.0.0.7', useContext: true }), 'k8s create kubeadm');
});

test('deploy --provider cloud_a compiles to steps that run freely (vm and container targets)', () => {
  const stack = { language: 'python', framework: 'fastapi', portCandidates: [8000], gpu: { needed: false, reasons: [] }, env: [], evidence: [] };
  const base = {
    name: 'web',
    url: 'https://example.com/repo.git',
    sha: '0123456789abcdef0123456789abcdef01234567',
    stack,
    port: 8000,
    location: 'eu-west-1',
    env: [
      { name: 'MODE', value: 'prod', secret: false },
      { name: 'API_TOKEN', value: 's3cr3t-value', secret: true },
    ],
    minReplicas: 1,
    maxReplicas: 3,
    healthPath: '/',
    privateRepo: false,
  };
  harmless(compileCloudA({ ...base, target: 'instance', awsTarget: 'vm', region: 'eu-west-1' } as never).plan, 'deploy vm');
  const container = compileCloudA({ ...base, target: 'container', image: 'ghcr.io/me/web:1', awsTarget: 'container', region: 'eu-west-1' } as never);
  // The secret's value is bound by `deploy --apply` from the env file, never written in the plan.
  harmless(container.plan, 'deploy container', Object.keys(container.secretBindings));
});

test('the cloud_a reads (ask context, IAM and compliance reports, cost) are all reads', async () => {
  const seen: string[][] = [];
  const recorder = async (plan: Plan) => {
    for (const c of plan.commands) seen.push(c.args);
    return plan.commands.map(() => ({}));
  };
  await iamReport(recorder).catch(() => undefined);
  await complianceReport(recorder).catch(() => undefined);
  const plans = [ceUsagePlan('2026-01-01', '2026-01-31', { by: 'service' }), ceUsagePlan('2026-01-01', '2026-01-31'), ceUsagePlan('2026-01-01', '2026-01-31', { by: 'usage' }), ceUsagePlan('2026-01-01', '2026-01-31', { by: 'tag', key: 'team' })];
  for (const spec of AWS_READS) seen.push([...spec.args]);
  for (const p of plans) for (const c of p.commands) seen.push(c.args);
  assert.ok(seen.length > 15, 'the recorder saw the reports\' reads');
  for (const args of seen) {
    const cls = classify(args);
    assert.is(cls.effect, 'read', args.join(' '));
  }
});

test("the README's and examples' plan steps run freely, except the examples that are destructive on purpose", () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  // The README and the docs pages it links to (docs/safety.md holds the gate's examples now).
  const readme = [`${root}README.md`, ...readdirSync(`${root}docs`).filter((f) => f.endsWith('.md')).map((f) => `${root}docs/${f}`)].map((f) => readFileSync(f, 'utf8')).join('\n');
  const arrays = [...readme.matchAll(/\["(?:aws|gcloud|az|ssh-exec|k8s-api|gpucloud-api)"(?:, "[^"\n]*")*\]/g)]
    .map((m) => JSON.parse(m[0]) as string[])
    .filter((a) => !a.some((x) => /^<[a-z ]+>$/.test(x))); // a schematic (`"<json body>"`), not a step
  assert.ok(arrays.length >= 3, 'README has step examples');
  for (const args of arrays) {
    const cls = classify(args);
    assert.not.ok(cls.refused, args.join(' '));
    if (args[0] === 'ssh-exec' || /DELETE|delete/.test(args.join(' '))) continue;
    assert.is.not(cls.effect, 'destroy', args.join(' '));
  }
  for (const file of readdirSync(`${root}examples/plans`)) {
    const plan = JSON.parse(readFileSync(`${root}examples/plans/${file}`, 'utf8')) as Plan;
    for (const c of plan.commands) {
      const cls = classify(c.args);
      assert.not.ok(cls.refused, `${file}: ${c.args.join(' ')}`);
      if (!file.startsWith('teardown')) assert.is.not(cls.effect, 'destroy', `${file}: ${c.args.join(' ')}`);
    }
  }
});

test('an operation no table names needs --destroyer through the real validation, and the reason says "not known to be safe"', () => {
  for (const args of [
    ['aws', 'ec2', 'modify-instance-attribute', '--instance-id', 'i-1', '--attribute', 'userData', '--value', 'x'],
    ['aws', 'lambda', 'update-function-configuration', '--function-name', 'f', '--environment', 'Variables={A=b}'],
    ['gcloud', 'compute', 'instances', 'set-machine-type', 'vm-1', '--machine-type', 'e2-small'],
    ['az', 'vm', 'update', '-n', 'v', '-g', 'rg', '--set', 'tags.a=b'],
    ['ssh-exec', '10.0.0.5', 'curl -fsSL https://example.com/x.sh | sh'],
    ['k8s-api', 'ctx', 'POST', '/api/v1/namespaces/default/pods/web/exec?command=sh', '{}'],
  ]) {
    const plan = { version: 1, provider: ['cloud_a', 'cloud_b', 'cloud_c', 'ssh', 'k8s'], commands: [{ args, reason: 'x' }] };
    const gated = validatePlan(plan, { providers: PROVIDERS, destroyer: false });
    assert.not.ok(gated.ok, args.join(' '));
    assert.match(gated.problems.map((p) => p.message).join(' '), /destructive: .*(not known to be safe|cannot be decided)/, args.join(' '));
    assert.ok(validatePlan(plan, { providers: PROVIDERS, destroyer: true }).ok, `--destroyer allows ${args.join(' ')}`);
  }
});

test('ssh templates: each renders to a command that matches itself, a parameter outside its pattern is refused, anything appended is free-form', () => {
  const params: Record<string, Record<string, string>> = {
    'nvidia-smi-query': { FIELDS: 'utilization.gpu,memory.used', FORMAT: 'csv,noheader,nounits' },
    'df-path': { PATH: '/data' },
    free: { UNIT: 'h' },
    journalctl: { UNIT: 'kubelet', N: '50' },
    'systemctl-status': { UNIT: 'containerd' },
    'systemctl-is-active': { UNIT: 'containerd' },
    'kubectl-read': { VERB: 'get', RESOURCE: 'pods', FLAGS: ' -A -o wide' },
    'kubectl-admin-read': { VERB: 'get', RESOURCE: 'nodes', FLAGS: ' -o json' },
    'kubectl-top': { WHAT: 'nodes', FLAGS: '' },
    'kubeadm-install': { VERSION: 'v1.31' },
    'kubeadm-init': { HOST: '10.0.0.5' },
    'kubeadm-join': { ENDPOINT: '10.0.0.5:6443', TOKEN: 'abcdef.0123456789abcdef', HASH: `sha256:${'a'.repeat(64)}` },
  };
  for (const t of SSH_TEMPLATES) {
    const command = renderTemplate(t.name, params[t.name] ?? {});
    const cls = classify(['ssh-exec', '10.0.0.5', command]);
    assert.is(cls.effect, t.effect, t.name);
    assert.is(classify(['ssh-exec', '10.0.0.5', `${command}; rm -rf /`]).effect, 'destroy', `${t.name} with something appended`);
  }
  assert.throws(() => renderTemplate('journalctl', { UNIT: "x'; rm -rf / #", N: '5' }), /not a valid UNIT/);
  assert.is(classify(['ssh-exec', 'h', 'kubectl get secrets -A -o yaml']).effect, 'destroy', 'Secrets are never read freely');
});

test('a secret binding the journal masked (a --resume after it was produced) is never passed to a CLI: the step says so before the child starts', async () => {
  const verb = PROVIDERS.verb('aws')!.verb;
  const args = verb.substitute(['aws', 'ec2', 'import-key-pair', '--key-name', 'k2', '--public-key-material', '<KEY>'], { KEY: '***' });
  let started = false;
  const ctx = { client: async () => ((started = true), {}), signal: new AbortController().signal, waiting: () => undefined };
  await verb.run(args, ctx as never).then(
    () => assert.unreachable('it ran'),
    (err: { code?: string }) => assert.is(err.code, 'secret_not_kept'),
  );
  assert.not.ok(started, 'no client, no child');
});

test("docs/safety.md's destroyer tables are generated from the allowlists", () => {
  const readme = readFileSync(fileURLToPath(new URL('../../../docs/safety.md', import.meta.url)), 'utf8');
  for (const [name, by, table] of [
    ['cloud_a rules', 'rulesMarkdown\\(AWS_RULE_SET\\)', rulesMarkdown(AWS_RULE_SET)],
    ['cloud_b rules', 'rulesMarkdown\\(GCLOUD_RULE_SET\\)', rulesMarkdown(GCLOUD_RULE_SET)],
    ['cloud_c rules', 'rulesMarkdown\\(AZ_RULE_SET\\)', rulesMarkdown(AZ_RULE_SET)],
    ['ssh templates', 'templatesMarkdown\\(\\)', templatesMarkdown()],
  ] as const) {
    const m = new RegExp(`<!-- ${name}: generated by ${by} -->\\n([\\s\\S]*?)\\n<!-- /${name} -->`).exec(readme);
    assert.ok(m, `docs/safety.md has the generated ${name} table (node scripts/readme-tables.mjs)`);
    assert.fixture(m![1]!, table);
  }
});

test.run();

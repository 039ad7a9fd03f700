/**
 * cloud_d: a Tencent-Cloud-style API, where every call is a signed POST naming an action. One verb,
 * `["cloud-d-api", SERVICE, ACTION, BODY?, REGION?]` (e.g. `["cloud-d-api", "cvm", "DescribeInstances",
 * "{\"Limit\":100}", "ap-guangzhou"]`; without REGION the configured one, default ap-singapore).
 * Default deny by action name: `Describe*` and `Inquiry*` (price inquiries) read; every other action
 * (RunInstances, TerminateInstances, ResetInstance…) is destructive and needs --destroyer, and so is an
 * action written as a placeholder.
 */
import { PLACEHOLDER_PATTERN } from '../../../schemas/plan.js';
import { plainField, secretField, sectionCredentials } from '../../core/credential-sources.js';
import { apiCapabilities } from '../../core/kits/http/api-reads.js';
import { baseUrlFor } from '../../core/kits/http/provider.js';
import { hasPlaceholder, substituteBody } from '../../core/plan/bindings.js';
import type { ArgProblem, Provider, StepClass, StepVerb } from '../../core/provider.js';
import { obj } from '../../core/kits/cli/reads.js';
import { CLOUD_D_SERVICES, cloudDClient, type CloudDClient } from './client.js';
import { resolveCloudDCredentials } from './credentials.js';
import { CLOUD_D_READS, CLOUD_D_VERB, expandByRegion, instancesByRegion } from './reads.js';
import { oneRead } from '../../core/kits/http/token-integration.js';

/** Actions that only read: descriptions and price inquiries. Anything else is not known to be safe. */
export const CLOUD_D_READ_ACTION = /^(Describe|Inquiry)[A-Z][A-Za-z0-9]*$/;


const parts = (args: readonly string[]) => ({ service: args[1] ?? '', action: args[2] ?? '', body: args[3], region: args[4] });

export const cloudDVerb: StepVerb<CloudDClient> = {
  verb: CLOUD_D_VERB,
  checkArgs(args) {
    const problems: ArgProblem[] = [];
    const { service, action, body, region } = parts(args);
    if (args.length < 3 || args.length > 5) problems.push({ field: 'args', message: `${CLOUD_D_VERB} steps are ["${CLOUD_D_VERB}", SERVICE, ACTION, BODY?, REGION?]` });
    if (!Object.hasOwn(CLOUD_D_SERVICES, service)) problems.push({ field: 'args[1]', message: `unknown cloud_d service "${service}" (known: ${Object.keys(CLOUD_D_SERVICES).join(', ')})` });
    if (!/^[A-Z][A-Za-z0-9]{1,80}$/.test(action) && !hasPlaceholder(action)) problems.push({ field: 'args[2]', message: `"${action}" is not an action name (DescribeInstances, …)` });
    if (body !== undefined) {
      try {
        const parsed: unknown = JSON.parse(body.replace(PLACEHOLDER_PATTERN, '"x"'));
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) problems.push({ field: 'args[3]', message: 'the body must be a JSON object' });
      } catch {
        problems.push({ field: 'args[3]', message: 'the body is not JSON' });
      }
    }
    if (region !== undefined && !/^[a-z]{2,}-[a-z0-9-]{2,40}$/.test(region) && !hasPlaceholder(region)) problems.push({ field: 'args[4]', message: `"${region}" is not a region (ap-singapore, …)` });
    return problems;
  },
  classify(args): StepClass {
    const { service, action } = parts(args);
    if (CLOUD_D_READ_ACTION.test(action)) return { effect: 'read', kind: service, reasons: [] };
    return { effect: 'destroy', kind: service, reasons: [`${service} ${action}: not known to be safe (cloud_d steps only read — Describe*, Inquiry* — without --destroyer)`] };
  },
  substitute(args, bindings) {
    const sub = (a: string) => a.replace(PLACEHOLDER_PATTERN, (w, n: string) => (n in bindings ? bindings[n]! : w));
    return args.map((a, i) => (i === 3 ? substituteBody(a, bindings) : i === 0 ? a : sub(a)));
  },
  async run(args, ctx) {
    const { service, action, body, region } = parts(args);
    const client = await ctx.client();
    const out = await client.call(service, action, body ?? '{}', region, ctx.signal);
    if (out.truncated) ctx.waiting({ reason: 'retry', waitMs: 0, message: `cloud_d: ${out.truncated}` });
    return { status: 200, data: out.truncated ? { items: out.data, truncated: out.truncated } : out.data };
  },
  describe(args) {
    const { service, action, region } = parts(args);
    return `cloud_d ${service} ${action}${region ? ` (${region})` : ''}`;
  },
  detail: (args) => (args[3] ? JSON.parse(args[3]) : undefined),
};

export const cloudDProvider: Provider<CloudDClient> = {
  name: 'cloud_d',
  verbs: [cloudDVerb],
  async connect(opts) {
    if (opts.override) {
      const creds = { secretId: opts.override.credentials.secretId!, secretKey: opts.override.credentials.secretKey!, region: opts.config.cloud_d?.region ?? 'ap-singapore', source: 'the sandbox fake' };
      return { client: cloudDClient(creds, { baseUrl: opts.override.baseUrl, timeoutMs: opts.timeoutMs, debug: opts.debug }), source: creds.source };
    }
    const creds = await resolveCloudDCredentials(opts);
    // `cloud_d.base_url` / ASSISTANT_CLOUD_D_BASE_URL send every service to one URL; else each service's own host.
    const baseUrl = baseUrlFor('cloud_d', opts.config.cloud_d?.base_url, opts.env, '') || undefined;
    opts.debug?.(`cloud_d: ${baseUrl ?? 'https://<service>.tencentcloudapi.com'}, region ${creds.region} (keys from ${creds.source})`);
    return { client: cloudDClient(creds, { baseUrl, timeoutMs: opts.timeoutMs, debug: opts.debug }), source: creds.source };
  },
  capabilities: {
    ...apiCapabilities({
      provider: 'cloud_d',
      label: 'the cloud_d account (CVM instances by region)',
      prompt: 'cloud_d is a cloud whose CVM instances are listed per region (DescribeInstances): name, state, instance type, CPU/memory, zone, IP and charge type.',
      specific: ['cvm', 'cvm instances'],
      generic: ['instances', 'vms'],
      reads: CLOUD_D_READS,
      expand: expandByRegion,
      summary: instancesByRegion,
    }),
    credentials: {
      // SPEC §2.5: config, then a first family of environment variables, then a second family.
      ...sectionCredentials({
        provider: 'cloud_d',
        title: 'cloud_d',
        section: 'cloud_d',
        keys: ['secret_id', 'secret_key'],
        envFamilies: [
          ['CLOUD_D_SECRET_ID', 'CLOUD_D_SECRET_KEY'],
          ['CLOUD_D_API_SECRET_ID', 'CLOUD_D_API_SECRET_KEY'],
        ],
      }),
      what: 'cloud_d API keys',
      fields: [plainField('secret_id', '--secret-id', 'SecretId'), secretField('secret_key', '--secret-key', 'SecretKey'), plainField('region', '--region', 'region (optional; ap-singapore when omitted)', false)],
      async test(read) {
        const [data] = await read(oneRead('cloud_d', [CLOUD_D_VERB, 'cvm', 'DescribeRegions', '{}'], 'a cheap read: the regions'));
        const n = Array.isArray(data) ? data.length : Number(obj(data).TotalCount ?? 0);
        return { detail: `${n} regions visible` };
      },
    },
    sandbox: {
      async start() {
        const { startCloudDFake } = await import('../../../emulator/fakes/cloud_d.js');
        const fake = await startCloudDFake();
        return { baseUrl: fake.url, credentials: { secretId: fake.secretId, secretKey: fake.secretKey }, close: () => fake.close() };
      },
    },
  },
};

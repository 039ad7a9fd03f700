/**
 * cloud_d's catalogue of reads (a Tencent-Cloud-style API): CVM instances by region (DescribeInstances
 * in the configured region and in every region the question names) and the regions on offer
 * (DescribeRegions). Each is one signed POST, paged by the client (Offset/Limit against TotalCount).
 */
import type { Config } from '../../../schemas/config.js';
import type { ApiReadSpec, PricedRecord } from '../../core/kits/http/api-reads.js';
import { arr, cliRead, num, obj, str } from '../../core/kits/cli/reads.js';

export const CLOUD_D_VERB = 'cloud-d-api';

/** A region code as the API writes it (`ap-singapore`, `na-siliconvalley`, `eu-frankfurt`); a zone's trailing `-1` is dropped. */
const REGION = /\b((?:ap|na|eu|sa|me|af)-[a-z]+)(?:-\d+)?\b/gi;

export function regionsIn(question: string): string[] {
  return [...new Set([...question.matchAll(REGION)].map((m) => m[1]!.toLowerCase()))];
}

const regionOfZone = (zone: string | undefined) => zone?.replace(/-\d+$/, '');

function instanceRecord(i: unknown): PricedRecord {
  const o = obj(i);
  const zone = str(obj(o.Placement).Zone);
  const ip = str(arr(o.PublicIpAddresses)[0]) ?? str(arr(o.PrivateIpAddresses)[0]);
  const size = o.CPU !== undefined ? `${String(o.CPU)} vCPU, ${String(o.Memory ?? '?')} GB` : undefined;
  return { name: str(o.InstanceName) ?? str(o.InstanceId) ?? '?', state: str(o.InstanceState), detail: [str(o.InstanceType), size, zone, ip, str(o.InstanceChargeType)].filter(Boolean).join(', ') };
}

export const CLOUD_D_READS: ApiReadSpec[] = [
  cliRead('instances', 'CVM instance', ['cvm', 'instance', 'instances', 'server', 'servers', 'vm', 'vms', 'machines', 'running', 'stopped', 'region', 'regions', 'by region'], [CLOUD_D_VERB, 'cvm', 'DescribeInstances', '{"Limit":100}'], (items) => items.map(instanceRecord), { byDefault: true }),
  cliRead('regions', 'region', ['available regions', 'regions available', 'region list', 'which regions', 'what regions'], [CLOUD_D_VERB, 'cvm', 'DescribeRegions', '{}'], (items) => items.map(obj).map((r) => ({ name: str(r.Region) ?? '?', state: str(r.RegionState), detail: str(r.RegionName) }))),
];

/** DescribeInstances in the configured region (the step's default) and in each other region the question names. */
export function expandByRegion(spec: ApiReadSpec, question: string, config: Config): string[][] {
  if (spec.service !== 'instances') return [[...spec.args]];
  const home = config.cloud_d?.region;
  const named = regionsIn(question).filter((r) => r !== home);
  return [[...spec.args], ...named.map((r) => [...spec.args, r])];
}

/** How many instances each region has (by their zones), and the named regions that have none. */
export function instancesByRegion(spec: ApiReadSpec, steps: readonly (readonly string[])[], items: readonly unknown[]): string[] {
  if (spec.service !== 'instances') return [];
  const counts = new Map<string, number>();
  for (const i of items) {
    const r = regionOfZone(str(obj(obj(i).Placement).Zone));
    if (r) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  for (const s of steps) if (s[4] && !counts.has(s[4])) counts.set(s[4], 0);
  if (counts.size < 2 && steps.length < 2) return [];
  // Zones are the server's text: a control character in one never reaches the terminal.
  return [`By region: ${[...counts].map(([r, n]) => `${r} ${n}`).join(', ')}.`.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')];
}

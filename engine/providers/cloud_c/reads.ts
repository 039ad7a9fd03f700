/**
 * cloud_c (Azure) reads for `ask`: for each service the question words, the read-only `az` step that
 * lists it and how its JSON becomes named records (engine/core/kits/cli/reads.ts makes the context reads and the
 * answers without a model from this table).
 */
import { arr, cliRead, cliReadCatalogue, obj, str, type CliReadSpec } from '../../core/kits/cli/reads.js';

export const AZ_READS: readonly CliReadSpec[] = [
  cliRead('vm', 'virtual machine', ['vm', 'vms', 'virtual machine', 'virtual machines', 'instance', 'instances', 'server', 'servers'], ['az', 'vm', 'list', '--show-details'], (data) =>
    arr(data).map((v) => ({
      name: str(obj(v).name) ?? '?',
      state: str(obj(v).powerState)?.replace(/^VM /, ''),
      detail: [str(obj(obj(v).hardwareProfile).vmSize), str(obj(v).resourceGroup), str(obj(v).location)].filter(Boolean).join(', ') || undefined,
    })), { byDefault: true }),
  cliRead('group', 'resource group', ['resource group', 'resource groups', 'group', 'groups'], ['az', 'group', 'list'], (data) => arr(data).map((g) => ({ name: str(obj(g).name) ?? '?', state: str(obj(obj(g).properties).provisioningState), detail: str(obj(g).location) })), { byDefault: true }),
  cliRead('storage', 'storage account', ['storage', 'storage account', 'storage accounts', 'blob', 'blob storage'], ['az', 'storage', 'account', 'list'], (data) => arr(data).map((a) => ({ name: str(obj(a).name) ?? '?', detail: [str(obj(a).kind), str(obj(a).location)].filter(Boolean).join(', ') || undefined }))),
  cliRead('aks', 'AKS cluster', ['aks', 'kubernetes', 'cluster', 'clusters'], ['az', 'aks', 'list'], (data) => arr(data).map((c) => ({ name: str(obj(c).name) ?? '?', state: str(obj(obj(c).powerState).code), detail: [str(obj(c).kubernetesVersion), str(obj(c).location)].filter(Boolean).join(', ') || undefined }))),
  cliRead('webapp', 'web app', ['app service', 'web app', 'web apps', 'webapp', 'webapps'], ['az', 'webapp', 'list'], (data) => arr(data).map((w) => ({ name: str(obj(w).name) ?? '?', state: str(obj(w).state), detail: str(obj(w).defaultHostName) }))),
];

export const AZ_CATALOGUE = cliReadCatalogue(AZ_READS);

/**
 * cloud_c (Azure) reads for `ask`: for each service the question words, the read-only `az` step that
 * lists it and how its JSON becomes named records (engine/core/kits/cli/reads.ts makes the context reads and the
 * answers without a model from this table).
 */
import { arr, cliReadCatalogue, obj, str, type CliReadSpec } from '../../core/kits/cli/reads.js';

export const AZ_READS: readonly CliReadSpec[] = [
  {
    service: 'vm',
    label: 'virtual machines',
    singular: 'virtual machine',
    words: ['vm', 'vms', 'virtual machine', 'virtual machines', 'instance', 'instances', 'server', 'servers'],
    args: ['az', 'vm', 'list', '--show-details'],
    byDefault: true,
    records: (data) =>
      arr(data).map((v) => ({
        name: str(obj(v).name) ?? '?',
        state: str(obj(v).powerState)?.replace(/^VM /, ''),
        detail: [str(obj(obj(v).hardwareProfile).vmSize), str(obj(v).resourceGroup), str(obj(v).location)].filter(Boolean).join(', ') || undefined,
      })),
  },
  {
    service: 'group',
    label: 'resource groups',
    singular: 'resource group',
    words: ['resource group', 'resource groups', 'group', 'groups'],
    args: ['az', 'group', 'list'],
    byDefault: true,
    records: (data) => arr(data).map((g) => ({ name: str(obj(g).name) ?? '?', state: str(obj(obj(g).properties).provisioningState), detail: str(obj(g).location) })),
  },
  {
    service: 'storage',
    label: 'storage accounts',
    singular: 'storage account',
    words: ['storage', 'storage account', 'storage accounts', 'blob', 'blob storage'],
    args: ['az', 'storage', 'account', 'list'],
    byDefault: false,
    records: (data) => arr(data).map((a) => ({ name: str(obj(a).name) ?? '?', detail: [str(obj(a).kind), str(obj(a).location)].filter(Boolean).join(', ') || undefined })),
  },
  {
    service: 'aks',
    label: 'AKS clusters',
    singular: 'AKS cluster',
    words: ['aks', 'kubernetes', 'cluster', 'clusters'],
    args: ['az', 'aks', 'list'],
    byDefault: false,
    records: (data) => arr(data).map((c) => ({ name: str(obj(c).name) ?? '?', state: str(obj(obj(c).powerState).code), detail: [str(obj(c).kubernetesVersion), str(obj(c).location)].filter(Boolean).join(', ') || undefined })),
  },
  {
    service: 'webapp',
    label: 'web apps',
    singular: 'web app',
    words: ['app service', 'web app', 'web apps', 'webapp', 'webapps'],
    args: ['az', 'webapp', 'list'],
    byDefault: false,
    records: (data) => arr(data).map((w) => ({ name: str(obj(w).name) ?? '?', state: str(obj(w).state), detail: str(obj(w).defaultHostName) })),
  },
];

export const AZ_CATALOGUE = cliReadCatalogue(AZ_READS);

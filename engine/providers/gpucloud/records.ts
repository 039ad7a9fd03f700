/**
 * gpucloud's records capability (engine/core/capabilities.ts RecordsCapability): the catalogue's kinds,
 * their list plans and the name lookup, as one light module. `gpucloud list|get`, the MCP list and get
 * tools and `k8s delete gpucloud` reach it through machines/records/, so a list loads nothing else.
 */
import type { RecordsCapability } from '../../core/capabilities.js';
import { kindNames } from './catalogue.js';
import { requireKind, resolveRecord } from './lookup.js';
import { listPlan } from './static-plans.js';

export const gpucloudRecords: RecordsCapability = {
  kinds: kindNames,
  kind: requireKind,
  list: (kind) => listPlan(requireKind(kind)),
  resolve: (read, kind, idOrName) => resolveRecord(read, requireKind(kind), idOrName),
};

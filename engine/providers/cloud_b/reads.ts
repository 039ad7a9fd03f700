/**
 * cloud_b (Google Cloud) reads for `ask`: for each service the question words, the read-only `gcloud`
 * step that lists it and how its JSON becomes named records (engine/core/kits/cli/reads.ts makes the context
 * reads and the answers without a model from this table).
 */
import { arr, cliReadCatalogue, lastSegment, obj, str, type CliReadSpec } from '../../core/kits/cli/reads.js';

const base = (v: unknown) => (typeof v === 'string' && v ? lastSegment(v) : undefined);

export const GCLOUD_READS: readonly CliReadSpec[] = [
  {
    service: 'compute',
    label: 'Compute Engine instances',
    singular: 'Compute Engine instance',
    words: ['gce', 'compute engine', 'instance', 'instances', 'vm', 'vms', 'server', 'servers'],
    args: ['gcloud', 'compute', 'instances', 'list'],
    byDefault: true,
    records: (data) => arr(data).map((i) => ({ name: str(obj(i).name) ?? '?', state: str(obj(i).status), detail: [base(obj(i).machineType), base(obj(i).zone)].filter(Boolean).join(', ') || undefined })),
  },
  {
    service: 'storage',
    label: 'Cloud Storage buckets',
    singular: 'Cloud Storage bucket',
    words: ['gcs', 'bucket', 'buckets', 'cloud storage', 'storage'],
    args: ['gcloud', 'storage', 'buckets', 'list'],
    byDefault: true,
    global: true,
    records: (data) => arr(data).map((b) => ({ name: str(obj(b).name) ?? '?', detail: str(obj(b).location) })),
  },
  {
    service: 'gke',
    label: 'GKE clusters',
    singular: 'GKE cluster',
    words: ['gke', 'kubernetes', 'cluster', 'clusters'],
    args: ['gcloud', 'container', 'clusters', 'list'],
    byDefault: false,
    records: (data) => arr(data).map((c) => ({ name: str(obj(c).name) ?? '?', state: str(obj(c).status), detail: str(obj(c).location) })),
  },
  {
    service: 'run',
    label: 'Cloud Run services',
    singular: 'Cloud Run service',
    words: ['cloud run', 'service', 'services'],
    args: ['gcloud', 'run', 'services', 'list'],
    byDefault: false,
    records: (data) => arr(data).map((s) => ({ name: str(obj(obj(s).metadata).name) ?? '?', detail: str(obj(obj(s).status).url) })),
  },
  {
    service: 'sql',
    label: 'Cloud SQL instances',
    singular: 'Cloud SQL instance',
    words: ['cloud sql', 'sql', 'database', 'databases', 'postgres', 'mysql'],
    args: ['gcloud', 'sql', 'instances', 'list'],
    byDefault: false,
    records: (data) => arr(data).map((d) => ({ name: str(obj(d).name) ?? '?', state: str(obj(d).state), detail: [str(obj(d).databaseVersion), str(obj(d).region)].filter(Boolean).join(', ') || undefined })),
  },
];

export const GCLOUD_CATALOGUE = cliReadCatalogue(GCLOUD_READS);

/**
 * cloud_b (Google Cloud) reads for `ask`: for each service the question words, the read-only `gcloud`
 * step that lists it and how its JSON becomes named records (engine/core/kits/cli/reads.ts makes the context
 * reads and the answers without a model from this table).
 */
import { arr, cliRead, cliReadCatalogue, lastSegment, obj, str, type CliReadSpec } from '../../core/kits/cli/reads.js';

const base = (v: unknown) => (typeof v === 'string' && v ? lastSegment(v) : undefined);

export const GCLOUD_READS: readonly CliReadSpec[] = [
  cliRead('compute', 'Compute Engine instance', ['gce', 'compute engine', 'instance', 'instances', 'vm', 'vms', 'server', 'servers'], ['gcloud', 'compute', 'instances', 'list'], (data) => arr(data).map((i) => ({ name: str(obj(i).name) ?? '?', state: str(obj(i).status), detail: [base(obj(i).machineType), base(obj(i).zone)].filter(Boolean).join(', ') || undefined })), { byDefault: true }),
  cliRead('storage', 'Cloud Storage bucket', ['gcs', 'bucket', 'buckets', 'cloud storage', 'storage'], ['gcloud', 'storage', 'buckets', 'list'], (data) => arr(data).map((b) => ({ name: str(obj(b).name) ?? '?', detail: str(obj(b).location) })), { byDefault: true, global: true }),
  cliRead('gke', 'GKE cluster', ['gke', 'kubernetes', 'cluster', 'clusters'], ['gcloud', 'container', 'clusters', 'list'], (data) => arr(data).map((c) => ({ name: str(obj(c).name) ?? '?', state: str(obj(c).status), detail: str(obj(c).location) }))),
  cliRead('run', 'Cloud Run service', ['cloud run', 'service', 'services'], ['gcloud', 'run', 'services', 'list'], (data) => arr(data).map((s) => ({ name: str(obj(obj(s).metadata).name) ?? '?', detail: str(obj(obj(s).status).url) }))),
  cliRead('sql', 'Cloud SQL instance', ['cloud sql', 'sql', 'database', 'databases', 'postgres', 'mysql'], ['gcloud', 'sql', 'instances', 'list'], (data) => arr(data).map((d) => ({ name: str(obj(d).name) ?? '?', state: str(obj(d).state), detail: [str(obj(d).databaseVersion), str(obj(d).region)].filter(Boolean).join(', ') || undefined }))),
];

export const GCLOUD_CATALOGUE = cliReadCatalogue(GCLOUD_READS);

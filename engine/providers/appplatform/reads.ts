/**
 * What `ask` reads from the app platform: deployments and their status (newest first), and projects —
 * of the team in `appplatform.workspace_id` when set (`teamId`), else of the token's own account. Each
 * read is a read-only GET of the `appplatform-api` verb; its records feed the answers without a model.
 */
import type { Config } from '../../../schemas/config.js';
import { arr, obj, str } from '../../core/kits/cli/reads.js';
import type { HttpReadSpec } from '../../core/kits/http/read-catalogue.js';

/** `&teamId=…` when a workspace (team) is configured. */
export function teamQuery(config: Config): string {
  const team = config.appplatform?.workspace_id?.trim();
  return team ? `&teamId=${encodeURIComponent(team)}` : '';
}

const date = (ms: unknown) => (typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 16).replace('T', ' ') : undefined);

export const APPPLATFORM_READS: readonly HttpReadSpec[] = [
  {
    key: 'deployments',
    label: 'deployments',
    singular: 'deployment',
    words: ['deployment', 'deployments', 'deploy', 'deploys', 'build', 'builds', 'preview', 'previews', 'production', 'release', 'releases'],
    byDefault: true,
    commands: (config) => [{ args: ['appplatform-api', 'GET', `/v6/deployments?limit=100${teamQuery(config)}`], reason: 'context: deployments and their status, newest first' }],
    records: (data) =>
      arr(data)
        .map(obj)
        .map((d) => ({
          name: str(d.url) ?? str(d.uid) ?? '?',
          state: str(d.state) ?? str(d.readyState),
          detail: [str(d.name), str(d.target) ?? 'preview', str(obj(d.meta).githubCommitRef), date(d.created ?? d.createdAt)].filter(Boolean).join(', ') || undefined,
          tags: [str(d.target) === 'production' ? 'production' : 'preview'],
        })),
    tagWords: { production: ['production', 'prod'], preview: ['preview', 'previews'] },
    stateWords: {
      ERROR: ['failed', 'failing', 'fail', 'error', 'errors', 'errored', 'broken'],
      READY: ['ready', 'live', 'succeeded', 'successful'],
      BUILDING: ['building', 'in progress'],
      QUEUED: ['queued', 'pending', 'waiting'],
      CANCELED: ['canceled', 'cancelled'],
    },
  },
  {
    key: 'projects',
    label: 'projects',
    singular: 'project',
    words: ['project', 'projects', 'app', 'apps', 'framework', 'frameworks', 'site', 'sites'],
    byDefault: false,
    commands: (config) => [{ args: ['appplatform-api', 'GET', `/v9/projects?limit=100${teamQuery(config)}`], reason: 'context: the projects' }],
    records: (data) => arr(data).map(obj).map((p) => ({ name: str(p.name) ?? '?', detail: [str(p.framework), date(p.updatedAt) && `updated ${date(p.updatedAt)}`].filter(Boolean).join(', ') || undefined })),
  },
];

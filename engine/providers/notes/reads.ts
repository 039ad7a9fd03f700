/**
 * What `ask` reads from workspace notes: pages of the default database (`notes.default_database_id`;
 * without one, the pages shared with the integration, through search), the databases it can see, and
 * the workspace's users. Each read is a read-only step of the `notes-api` verb; its records feed the
 * answers without a model (engine/core/kits/http/read-catalogue.ts).
 */
import type { Config } from '../../../schemas/config.js';
import { arr, obj, str, type CliRecord } from '../../core/kits/cli/reads.js';
import type { HttpReadSpec } from '../../core/kits/http/read-catalogue.js';

/** Pages newest first, as many per request as the API allows (the toolkit follows the cursor). */
const PAGES_QUERY = JSON.stringify({ page_size: 100, sorts: [{ timestamp: 'last_edited_time', direction: 'descending' }] });
const PAGES_SEARCH = JSON.stringify({ filter: { property: 'object', value: 'page' }, sort: { direction: 'descending', timestamp: 'last_edited_time' }, page_size: 100 });

/** The plain text of a rich-text array (titles, database names). */
export function plainText(v: unknown): string {
  return arr(v).map((t) => str(obj(t).plain_text) ?? str(obj(obj(t).text).content) ?? '').join('');
}

/** A page's title: the one property of type `title`, whatever the database calls it. */
function titleOf(page: Record<string, unknown>): string {
  const props = Object.values(obj(page.properties)).map(obj);
  return plainText(props.find((p) => p.type === 'title')?.title) || '(untitled)';
}

/** A page's status: a `status` property, else a select named Status. */
function statusOf(page: Record<string, unknown>): string | undefined {
  const props = Object.entries(obj(page.properties)).map(([k, v]) => [k, obj(v)] as const);
  const status = props.find(([, p]) => p.type === 'status')?.[1];
  if (status) return str(obj(status.status).name);
  const select = props.find(([k, p]) => p.type === 'select' && /^status$/i.test(k))?.[1];
  return select ? str(obj(select.select).name) : undefined;
}

export function pageRecords(data: unknown): CliRecord[] {
  return arr(data)
    .map(obj)
    .filter((p) => p.object === 'page' && !p.archived && !p.in_trash)
    .map((p) => ({ name: titleOf(p), state: statusOf(p), detail: str(p.last_edited_time) ? `edited ${str(p.last_edited_time)!.slice(0, 10)}` : undefined }));
}

export function notesDatabaseId(config: Config): string | undefined {
  return config.notes?.default_database_id?.trim() || undefined;
}

export const NOTES_READS: readonly HttpReadSpec[] = [
  {
    key: 'pages',
    label: 'pages',
    singular: 'page',
    words: ['page', 'pages', 'notes', 'note', 'document', 'documents', 'doc', 'docs', 'edited', 'wiki'],
    byDefault: true,
    commands(config) {
      const db = notesDatabaseId(config);
      return db
        ? [{ args: ['notes-api', 'POST', `/v1/databases/${encodeURIComponent(db)}/query`, PAGES_QUERY], reason: 'context: pages of the default database, newest first' }]
        : [{ args: ['notes-api', 'POST', '/v1/search', PAGES_SEARCH], reason: 'context: pages shared with the integration, newest first' }];
    },
    records: pageRecords,
    nameWords: { runbook: ['runbook', 'runbooks'], postmortem: ['postmortem', 'postmortems'], 'meeting notes': ['meeting notes'], onboarding: ['onboarding'], checklist: ['checklist', 'checklists'] },
    stateWords: { Done: ['done', 'finished', 'complete', 'completed'], 'In progress': ['in progress', 'ongoing', 'open'], 'Not started': ['not started', 'todo', 'to do'] },
  },
  {
    key: 'databases',
    label: 'databases',
    singular: 'database',
    words: ['database', 'databases'],
    byDefault: false,
    commands: () => [{ args: ['notes-api', 'POST', '/v1/search', JSON.stringify({ filter: { property: 'object', value: 'database' }, page_size: 100 })], reason: 'context: databases shared with the integration' }],
    records: (data) => arr(data).map(obj).filter((d) => d.object === 'database').map((d) => ({ name: plainText(d.title) || '(untitled)', detail: str(d.id) })),
  },
  {
    key: 'users',
    label: 'workspace users',
    singular: 'workspace user',
    words: ['user', 'users', 'member', 'members', 'people', 'who'],
    byDefault: false,
    commands: () => [{ args: ['notes-api', 'GET', '/v1/users?page_size=100'], reason: 'context: the workspace users' }],
    records: (data) => arr(data).map(obj).map((u) => ({ name: str(u.name) ?? '(unnamed)', detail: str(u.type) })),
  },
];

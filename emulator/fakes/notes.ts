/**
 * A local fake of the workspace-notes API (Notion-style, `Notion-Version: 2022-06-28`): pages in a
 * database, search, users, the token's bot user. Wire format as the public reference gives it: list
 * responses `{object: "list", results, next_cursor, has_more, type}`, cursor paging with `start_cursor`
 * and `page_size` (at most 100) in the POST body (query string for GETs), errors
 * `{object: "error", status, code, message}`. Backs `--sandbox` and the tests.
 */
import { randomUUID } from 'node:crypto';
import { bearerToken, startJsonFake, type FakeReply, type FakeRequest, type HostileMode, type JsonFake } from './json-fake.js';

export const NOTES_FAKE_DATABASE_ID = '8a3c1f2e-5b7d-4e9a-9c11-2f4d6e8a0b13';

interface NotesPage {
  id: string;
  title: string;
  status: string;
  edited: string;
  archived?: boolean;
}

export interface NotesFakeOptions {
  token?: string;
  /** How many pages the default database holds (default: the seven seeded ones; more are generated). */
  pages?: number;
}

const SEED: Omit<NotesPage, 'id'>[] = [
  { title: 'On-call runbook', status: 'Done', edited: '2026-11-24T09:12:00.000Z' },
  { title: 'GPU cluster migration plan', status: 'In progress', edited: '2026-11-23T16:40:00.000Z' },
  { title: 'Postmortem: DNS outage', status: 'Done', edited: '2026-11-21T11:05:00.000Z' },
  { title: 'Q1 infrastructure budget', status: 'In progress', edited: '2026-11-20T08:30:00.000Z' },
  { title: 'Deploy checklist', status: 'Done', edited: '2026-11-18T14:00:00.000Z' },
  { title: 'Team offsite notes', status: 'Not started', edited: '2026-11-12T10:00:00.000Z' },
  { title: 'Old onboarding guide', status: 'Done', edited: '2026-10-02T10:00:00.000Z', archived: true },
];

const error = (status: number, code: string, message: string): FakeReply => ({ status, body: { object: 'error', status, code, message } });

const richText = (text: string) => [{ type: 'text', text: { content: text, link: null }, annotations: { bold: false, italic: false, code: false, color: 'default' }, plain_text: text, href: null }];

function pageObject(p: NotesPage) {
  return {
    object: 'page',
    id: p.id,
    created_time: '2026-09-01T10:00:00.000Z',
    last_edited_time: p.edited,
    created_by: { object: 'user', id: 'u-1' },
    last_edited_by: { object: 'user', id: 'u-1' },
    archived: Boolean(p.archived),
    in_trash: Boolean(p.archived),
    parent: { type: 'database_id', database_id: NOTES_FAKE_DATABASE_ID },
    url: `https://notes.example/${p.title.replace(/\W+/g, '-')}-${p.id.replace(/-/g, '')}`,
    properties: {
      Status: { id: 'st', type: 'status', status: { id: 's1', name: p.status, color: 'default' } },
      Name: { id: 'title', type: 'title', title: richText(p.title) },
    },
  };
}

const DATABASE = {
  object: 'database',
  id: NOTES_FAKE_DATABASE_ID,
  title: richText('Engineering wiki'),
  created_time: '2026-09-01T10:00:00.000Z',
  last_edited_time: '2026-11-24T09:12:00.000Z',
  url: 'https://notes.example/engineering-wiki',
  archived: false,
  properties: { Name: { id: 'title', name: 'Name', type: 'title', title: {} }, Status: { id: 'st', name: 'Status', type: 'status', status: {} } },
};

const USERS = [
  { object: 'user', id: 'u-1', type: 'person', name: 'Ada Lovelace', avatar_url: null, person: { email: 'ada@example.com' } },
  { object: 'user', id: 'u-2', type: 'person', name: 'Grace Hopper', avatar_url: null, person: { email: 'grace@example.com' } },
  { object: 'user', id: 'bot-1', type: 'bot', name: 'assistant', avatar_url: null, bot: { owner: { type: 'workspace', workspace: true }, workspace_name: 'Example Co' } },
];

/** One page of `items` after the cursor (an item's id, as Notion's opaque cursors stand for a position). */
function listPage<T extends { id: string }>(items: T[], cursor: unknown, size: unknown, type: string, mode: HostileMode | undefined): FakeReply {
  const pageSize = size === undefined ? 100 : Number(size);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) return error(400, 'validation_error', 'body failed validation: body.page_size should be ≤ `100`, instead was `' + String(size) + '`.');
  if (mode === 'endless') {
    // A hostile server: every page says there is another one.
    return { body: { object: 'list', results: items.slice(0, 1), next_cursor: randomUUID(), has_more: true, type, [type]: {} } };
  }
  let start = 0;
  if (cursor !== undefined && cursor !== null) {
    start = items.findIndex((i) => i.id === cursor);
    if (start < 0) return error(400, 'validation_error', 'body failed validation: body.start_cursor should be a valid cursor.');
  }
  const results = items.slice(start, start + pageSize);
  const next = items[start + pageSize];
  return { body: { object: 'list', results, next_cursor: next?.id ?? null, has_more: Boolean(next), type, [type]: {} } };
}

export async function startNotesFake(opts: NotesFakeOptions = {}): Promise<JsonFake> {
  const pages: NotesPage[] = SEED.map((p) => ({ ...p, id: randomUUID() }));
  for (let i = pages.length; i < (opts.pages ?? 0); i++) pages.push({ id: randomUUID(), title: `Meeting notes ${i + 1}`, status: 'Done', edited: new Date(Date.UTC(2026, 5, 1) - i * 3_600_000).toISOString() });
  pages.sort((a, b) => b.edited.localeCompare(a.edited));
  const huge = (): NotesPage[] => Array.from({ length: 100 }, (_, i) => ({ id: randomUUID(), title: `huge ${i} ${'x'.repeat(60_000)}`, status: 'Done', edited: '2026-01-01T00:00:00.000Z' }));

  function handle(req: FakeRequest, mode: HostileMode | undefined): FakeReply {
    if (req.headers['notion-version'] === undefined) return error(400, 'missing_version', 'Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.');
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const visible = (mode === 'huge' ? huge() : pages).filter((p) => !p.archived);
    const query = /^\/v1\/databases\/([^/]+)\/query$/.exec(req.path);
    if (query && req.method === 'POST') {
      if (query[1] !== NOTES_FAKE_DATABASE_ID && query[1]!.replace(/-/g, '') !== NOTES_FAKE_DATABASE_ID.replace(/-/g, '')) {
        return error(404, 'object_not_found', `Could not find database with ID: ${query[1]}. Make sure the relevant pages and databases are shared with your integration.`);
      }
      return listPage(visible.map(pageObject), body.start_cursor, body.page_size, 'page_or_database', mode);
    }
    if (req.path === '/v1/search' && req.method === 'POST') {
      const filter = (body.filter ?? {}) as { value?: string };
      const q = typeof body.query === 'string' ? body.query.toLowerCase() : '';
      const items = filter.value === 'database' ? [DATABASE] : [...visible.filter((p) => p.title.toLowerCase().includes(q)).map(pageObject), ...(filter.value === 'page' ? [] : [DATABASE])];
      return listPage(items, body.start_cursor, body.page_size, 'page_or_database', mode);
    }
    if (req.path === '/v1/databases/' + NOTES_FAKE_DATABASE_ID && req.method === 'GET') return { body: DATABASE };
    if (req.path === '/v1/users/me' && req.method === 'GET') return { body: USERS[2] };
    if (req.path === '/v1/users' && req.method === 'GET') return listPage(USERS, req.query.get('start_cursor') ?? undefined, req.query.get('page_size') ?? undefined, 'user', mode);
    const page = /^\/v1\/pages\/([^/]+)$/.exec(req.path);
    if (page && req.method === 'GET') {
      const p = pages.find((x) => x.id === page[1]);
      return p ? { body: pageObject(p) } : error(404, 'object_not_found', `Could not find page with ID: ${page[1]}.`);
    }
    return error(400, 'invalid_request_url', 'Invalid request URL.');
  }

  return startJsonFake(
    {
      tokenOf: bearerToken,
      unauthorized: () => ({ object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.' }),
      rateLimited: () => ({ object: 'error', status: 429, code: 'rate_limited', message: 'You have been rate limited. Please try again in a few minutes.' }),
      handle,
    },
    { token: opts.token },
  );
}

/**
 * notes (workspace notes, a Notion-style API) as a provider: steps are requests of the one verb
 * `notes-api` (`["notes-api", "POST", "/v1/databases/<id>/query", "{…}"]`) through the shared HTTP
 * toolkit. Reads: GETs, a database query and search (POSTs that only read); anything else (creating
 * or updating pages) needs --destroyer. Paging follows `next_cursor` while `has_more`, bounded by the
 * toolkit. The token: `notes.integration_token`, NOTES_INTEGRATION_TOKEN, then the credential backend.
 */
import type { Page } from '../../core/kits/http/provider.js';
import { httpReadCapabilities } from '../../core/kits/http/read-catalogue.js';
import { fakeSandbox, nextWithParam, oneRead, tokenCredentials, tokenHttpProvider, type TokenIntegrationSpec } from '../../core/kits/http/token-integration.js';
import { obj, str } from '../../core/kits/cli/reads.js';
import { NOTES_READS } from './reads.js';

/** The API version the requests are written for (the service answers in that version's shape). */
export const NOTES_API_VERSION = '2022-06-28';

/** POSTs that only read: querying a database and searching. */
export function notesIsRead(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  const p = path.split('?')[0]!;
  // The id is letters, digits and dashes (or a placeholder): no dot segment can turn the query into another endpoint.
  return /^\/v1\/databases\/(?:[A-Za-z0-9-]+|<[A-Z][A-Z0-9_]*>)\/query$/.test(p) || p === '/v1/search';
}

/** A list answer (`object: "list"`): its results, and the next page while `has_more` — the cursor in the POST body, or in the query of a GET. */
export function notesPage(body: unknown, _headers: Headers, request: { path: string; body?: string }): Page {
  const b = obj(body);
  if (b.object !== 'list' || !Array.isArray(b.results)) return { body };
  const cursor = b.has_more === true ? str(b.next_cursor) : undefined;
  if (!cursor) return { items: b.results, body };
  if (request.body !== undefined) {
    let sent: Record<string, unknown> = {};
    try {
      sent = obj(JSON.parse(request.body));
    } catch {
      /* the first request's body was checked as JSON by the verb */
    }
    return { items: b.results, body, next: { body: JSON.stringify({ ...sent, start_cursor: cursor }) } };
  }
  return { items: b.results, body, next: nextWithParam(request.path, 'start_cursor', cursor) };
}

const spec: TokenIntegrationSpec = {
  name: 'notes',
  label: 'workspace notes',
  tokenKey: 'integration_token',
  envNames: ['NOTES_INTEGRATION_TOKEN'],
  defaultBaseUrl: 'https://api.notion.com',
  headers: (token) => ({ authorization: `Bearer ${token}`, 'notion-version': NOTES_API_VERSION }),
  isRead: notesIsRead,
  page: notesPage,
};

export const notesProvider = tokenHttpProvider({
  ...spec,
  capabilities: {
    ...httpReadCapabilities({
      provider: 'notes',
      label: 'the workspace notes (notes)',
      prompt: 'Pages are from the notes workspace (only those shared with the integration); each has a title, a status and when it was last edited.',
      routing: {
        names: ['notes', 'workspace notes', 'notion'],
        specific: ['notion page', 'notion pages', 'wiki', 'wiki page', 'wiki pages', 'meeting notes', 'runbook', 'runbooks', 'postmortem', 'postmortems'],
        generic: ['page', 'pages', 'document', 'documents'],
      },
      reads: NOTES_READS,
    }),
    credentials: tokenCredentials(spec, { title: 'notes (workspace notes)', what: 'workspace notes integration token' }, async (read) => {
      const [me] = await read(oneRead('notes', ['notes-api', 'GET', '/v1/users/me'], 'the integration bot user (a cheap read)'));
      const bot = obj(me);
      const workspace = str(obj(bot.bot).workspace_name);
      return { detail: `bot user "${str(bot.name) ?? '?'}"${workspace ? ` of workspace ${workspace}` : ''}`, data: { bot: str(bot.name), workspace } };
    }),
    sandbox: fakeSandbox(async () => (await import('../../../emulator/fakes/notes.js')).startNotesFake()),
  },
});

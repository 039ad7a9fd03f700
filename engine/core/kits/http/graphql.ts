/**
 * Default deny for GraphQL requests: a POST whose document holds only `query` operations reads;
 * a `mutation` or `subscription` anywhere in it (or a document that cannot be parsed into operations
 * with certainty) does not. Decided from the request body as written, without a GraphQL parser:
 * strings, comments and fragments are stripped, then every top-level operation keyword is checked.
 */

/** Whether a GraphQL request body (`{"query": "…", "variables": …}`) only reads. */
export function isGraphqlRead(body: string | undefined): boolean {
  if (!body) return false;
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return false;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return false; // a batch: not known to be safe
  const query = (doc as Record<string, unknown>).query;
  if (typeof query !== 'string' || !query.trim()) return false;
  // Strings (block strings first) and comments cannot hide or fake a keyword.
  const text = query
    .replace(/"""[\s\S]*?"""/g, '""')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/#[^\n\r]*/g, ' ');
  if (/"""|"/.test(text.replace(/""/g, ''))) return false; // an unterminated string: unsure
  // Walk the top level: each definition is `{…}` (shorthand query), `query …{…}`, `fragment …{…}`, or
  // anything else (mutation, subscription, unknown): then it is not a read.
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth < 0) return false;
    } else if (depth === 0 && /[A-Za-z_]/.test(ch)) {
      const word = /^[A-Za-z_]\w*/.exec(text.slice(i))![0];
      if (word !== 'query' && word !== 'fragment') return false;
      // Skip to this definition's selection set (its name, variables and directives hold no keywords that matter).
      const open = text.indexOf('{', i);
      if (open === -1) return false;
      i = open;
      continue;
    }
    i++;
  }
  return depth === 0;
}

/**
 * Server-rendered HTML without a template engine: a tagged template that escapes every interpolated
 * value unless it is already `Html` (made by this tag). Escaping is the whole job a template engine
 * would do for these few pages; a dependency for it would be more code to trust, not less.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Html(out);
}

/** A whole page: no script anywhere; the one stylesheet is served from /ui/style.css (CSP: style-src 'self'). */
export function page(title: string, body: Html, signedIn?: { tenant: string; who: string }): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · assistant</title><link rel="stylesheet" href="/ui/style.css"></head>
<body><header><a class="brand" href="/ui/runs">assistant</a>${
    signedIn
      ? html`<span class="who">${signedIn.tenant} · ${signedIn.who}</span><form method="post" action="/ui/sign-out"><button type="submit">Sign out</button></form>`
      : ''
  }</header><main>${body}</main><footer>Read-only: nothing on these pages can change a resource.</footer></body></html>`.text;
}

export const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5a6472; --line: #d0d7de; --bg: #fff; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --bg: #0d1117; --accent: #4493f8; } }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1em; align-items: center; padding: .6em 1.2em; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 600; color: var(--fg); text-decoration: none; margin-right: auto; }
header form { margin: 0; } main { padding: 1em 1.2em; max-width: 1100px; } footer { padding: 1em 1.2em; color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; } a { color: var(--accent); } code, pre { font: 12px ui-monospace, monospace; } pre { overflow-x: auto; padding: .6em; border: 1px solid var(--line); }
.succeeded, .previewed { color: var(--ok); } .failed, .refused, .invalid { color: var(--bad); } .cancelled { color: var(--warn); }
.added { color: var(--ok); } .removed { color: var(--bad); } .muted { color: var(--muted); }
nav.envs a { margin-right: 1em; } nav.envs a.on { font-weight: 600; text-decoration: none; color: var(--fg); }
.error { color: var(--bad); } form.sign-in { max-width: 28em; } form.sign-in input { width: 100%; font: inherit; padding: .4em; margin: .3em 0 .8em; }
svg.chart { width: 100%; max-width: 720px; height: auto; } svg.chart .bar { fill: var(--accent); } svg.chart .neg { fill: var(--bad); }
svg.chart text { fill: var(--muted); font: 11px system-ui, sans-serif; } svg.chart line { stroke: var(--line); }
svg.matrix { max-width: 100%; height: auto; } svg.matrix text { fill: var(--fg); font: 11px system-ui, sans-serif; } svg.matrix rect.cell { fill: transparent; stroke: var(--line); }
svg.matrix rect.both, svg.matrix rect.on-demand { fill: rgba(26, 127, 55, .18); } svg.matrix rect.spot { fill: rgba(154, 103, 0, .18); } svg.matrix text.col { fill: var(--muted); }
.error-box { border: 1px solid var(--bad); padding: .6em .9em; margin: .6em 0; } .note { border: 1px solid var(--line); padding: .6em .9em; }
.in_sync { color: var(--ok); } .drifted, .different, .missing { color: var(--bad); } .unknown, .unowned { color: var(--warn); }
.error-box.cannot-tell { border-color: var(--warn); } section.plan { border-top: 1px solid var(--line); margin-top: 1.2em; } section.plan h2 { font-size: 1.1em; }
`;

/**
 * Charts as SVG markup rendered on the server: no script, no chart library (they draw in the browser
 * with JavaScript, which the console's CSP forbids). A bar chart is all these pages need.
 */
import { html, type Html } from './html.js';

export interface Bar {
  label: string;
  value: number;
}

/** Bars for values that may be negative (a destroy lowers the burn), with the zero line drawn. */
export function barChart(title: string, bars: readonly Bar[], unit: string): Html {
  const W = 720;
  const H = 200;
  const pad = { left: 56, right: 8, top: 16, bottom: 36 };
  if (!bars.length) return html`<p class="muted">${title}: nothing to show yet.</p>`;
  const max = Math.max(0, ...bars.map((b) => b.value));
  const min = Math.min(0, ...bars.map((b) => b.value));
  const span = max - min || 1;
  const y = (v: number) => pad.top + ((max - v) / span) * (H - pad.top - pad.bottom);
  const step = (W - pad.left - pad.right) / bars.length;
  const width = Math.max(2, step * 0.7);
  const every = Math.ceil(bars.length / 12);
  return html`<figure><svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${title}" xmlns="http://www.w3.org/2000/svg">
<title>${title}</title>
<line x1="${pad.left}" x2="${W - pad.right}" y1="${y(0).toFixed(1)}" y2="${y(0).toFixed(1)}"></line>
<text x="4" y="${(y(max) + 4).toFixed(1)}">${max.toFixed(2)}</text><text x="4" y="${(y(min) + 4).toFixed(1)}">${min.toFixed(2)}</text>
${bars.map((b, i) => {
  const x = pad.left + i * step + (step - width) / 2;
  const top = Math.min(y(b.value), y(0));
  const h = Math.max(1, Math.abs(y(b.value) - y(0)));
  return html`<rect class="${b.value < 0 ? 'bar neg' : 'bar'}" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${width.toFixed(1)}" height="${h.toFixed(1)}"><title>${b.label}: ${b.value.toFixed(4)} ${unit}</title></rect>${
    i % every === 0 ? html`<text x="${x.toFixed(1)}" y="${H - pad.bottom + 14}">${b.label}</text>` : ''
  }`;
})}
</svg><figcaption class="muted">${title} (${unit})</figcaption></figure>`;
}

export interface MatrixChartRow {
  label: string;
  /** A cell per column: what it says, and how it is shaded. */
  cells: ReadonlyArray<{ text: string; state: 'both' | 'on-demand' | 'spot' | 'none' }>;
}

/**
 * A grid of labelled cells (the availability matrix: instance types × locations), shaded by state,
 * with each cell's text inside it and in its tooltip. The rows and columns are the data's, none dropped.
 */
export function matrixChart(title: string, columns: readonly string[], rows: readonly MatrixChartRow[]): Html {
  if (!rows.length || !columns.length) return html`<p class="muted">${title}: nothing to show.</p>`;
  const labelW = 150;
  const cellW = 96;
  const cellH = 22;
  const top = 28;
  const W = labelW + cellW * columns.length + 8;
  const H = top + cellH * rows.length + 8;
  return html`<figure><svg class="matrix" viewBox="0 0 ${W} ${H}" width="${W}" role="img" aria-label="${title}" xmlns="http://www.w3.org/2000/svg">
<title>${title}</title>
${columns.map((c, j) => html`<text class="col" x="${labelW + j * cellW + 4}" y="${top - 8}">${c}</text>`)}
${rows.map(
  (r, i) => html`<text class="row" x="4" y="${top + i * cellH + 15}">${r.label}</text>${r.cells.map(
    (cell, j) => html`<rect class="cell ${cell.state}" x="${labelW + j * cellW}" y="${top + i * cellH}" width="${cellW - 2}" height="${cellH - 2}"><title>${r.label} at ${columns[j] ?? ''}: ${cell.text}</title></rect><text class="cell" x="${labelW + j * cellW + 4}" y="${top + i * cellH + 15}">${cell.text}</text>`,
  )}`,
)}
</svg><figcaption class="muted">${title}: price per hour on demand; <code>s</code> spot; <code>-</code> not available now</figcaption></figure>`;
}

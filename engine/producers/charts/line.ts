/**
 * A terminal line chart of one series over labelled points (days), drawn with asciichart. asciichart
 * plots one column per value, so the series is stretched to the width by linear interpolation between
 * the known points; a point without a value (null) is bridged from its neighbours, and the stretch
 * never reaches before the first or after the last known value.
 */
import asciichart from 'asciichart';
import { colorCodes } from '../../core/render/sanitise.js';

export interface ChartPoint {
  label: string;
  value: number | null;
}

export interface LineChartOptions {
  title: string;
  /** Columns of the plot area (the labels on the left come on top). */
  width: number;
  /** Rows of the plot area. */
  height?: number;
  /** Digits of the y-axis labels. */
  digits?: number;
  /** A colour of the caller's palette for the line (`colors.green`); undefined: no escape codes. */
  color?: (text: string) => string;
}

const LABEL_WIDTH = 10;

export function lineChart(points: readonly ChartPoint[], opts: LineChartOptions): string {
  const known = points.map((p, i) => ({ i, v: p.value })).filter((p): p is { i: number; v: number } => p.v !== null && Number.isFinite(p.v));
  if (!known.length) return `${opts.title}\n  (no figures to draw)\n`;
  const first = known[0]!;
  const last = known[known.length - 1]!;
  const span = last.i - first.i;
  const width = Math.max(2, opts.width);
  const series: number[] = [];
  if (known.length > width) {
    // More points than columns: each column shows the highest point of its share, so no spike is lost.
    for (let x = 0; x < width; x++) {
      const from = Math.floor((x * known.length) / width);
      const to = Math.max(from + 1, Math.floor(((x + 1) * known.length) / width));
      series.push(Math.max(...known.slice(from, to).map((k) => k.v)));
    }
  }
  for (let x = 0; x < width && known.length <= width; x++) {
    const at = span === 0 ? first.i : first.i + (x * span) / (width - 1);
    const right = known.find((k) => k.i >= at)!;
    const left = [...known].reverse().find((k) => k.i <= at)!;
    series.push(right.i === left.i ? left.v : left.v + ((right.v - left.v) * (at - left.i)) / (right.i - left.i));
  }
  const digits = opts.digits ?? 2;
  // asciichart takes a colour as its opening code and closes it with its own reset: both made the palette's
  // (an output sink keeps only its own palette's codes).
  const codes = opts.color ? colorCodes(opts.color) : undefined;
  const drawn = asciichart.plot(series, {
    height: opts.height ?? 8,
    format: (v: number) => v.toFixed(digits).padStart(LABEL_WIDTH),
    colors: codes?.open ? [codes.open] : undefined,
  });
  const plot = codes?.open ? drawn.split(asciichart.reset).join(codes.close) : drawn;
  // x axis: the first and last labels under the ends of the line.
  const from = points[first.i]!.label;
  const to = points[last.i]!.label;
  const pad = ' '.repeat(LABEL_WIDTH + 1);
  const axis = span === 0 ? `${pad}${from}` : `${pad}${from}${' '.repeat(Math.max(1, width - from.length - to.length))}${to}`;
  return `${opts.title}\n${plot.replace(/[ \t]+$/gm, '')}\n${axis}\n`;
}

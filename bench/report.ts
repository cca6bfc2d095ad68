/** What every benchmark module hands to run.ts: one titled table, printed as it is. */
export interface Section {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  /** Lines printed under the table: targets met or missed, how to read it. */
  notes?: string[];
}

export type Benchmark = () => Promise<Section[]>;

/** One measured figure against its target, as the browser benchmarks report theirs. */
export interface Measure {
  name: string;
  value: number;
  unit: string;
  target?: string;
  note?: string;
}

export function measuresSection(title: string, rows: Measure[], notes: string[] = []): Section {
  return {
    title,
    columns: ['measure', 'value', 'unit', 'target'],
    rows: rows.map((r) => [r.name, r.value, r.unit, r.target ?? '']),
    notes: [...rows.filter((r) => r.note).map((r) => `${r.name}: ${r.note}`), ...notes],
  };
}

/** One pipeline's row of a throughput table: events, MB, ms, events/s, MB/s. */
export function throughputRow(name: string, events: number, mb: number, ms: number): (string | number)[] {
  return [name, events, mb.toFixed(1), ms.toFixed(0), Math.round(events / (ms / 1000)).toLocaleString('en'), (mb / (ms / 1000)).toFixed(1)];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The nearest-rank percentile `p` (0–100) of `xs`. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export function formatSection(s: Section): string {
  const cells = [s.columns, ...s.rows.map((r) => r.map(String))];
  const widths = s.columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [`## ${s.title}`, line(s.columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line), ...(s.notes ?? []).map((n) => `  ${n}`)].join('\n');
}

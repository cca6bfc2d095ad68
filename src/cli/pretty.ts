import type { ExchangeReport } from '../analyzer/index.ts';
import type { Finding } from '../rules/index.ts';
import { overview, PROBLEM_GROUPS, type Timing } from '../detail/index.ts';
import { printable as p } from './printable.ts';
import { sessionOf, type FileResult } from '../library/index.ts';

type Paint = (code: number, s: string) => string;

const colours: Paint = (code, s) => `\x1b[${code}m${s}\x1b[0m`;
const plain: Paint = (_code, s) => s;

/** Human-readable report; colour only when asked (a TTY without NO_COLOR). Every value from a file or the command line goes through `printable`. */
export function pretty(results: FileResult[], colour: boolean): string {
  const c = colour ? colours : plain;
  const out: string[] = [];
  let failed = 0;
  let total = 0;
  for (const r of results) {
    if (r.error !== undefined) {
      out.push(`${c(31, '✗')} ${p(r.file)}: ${p(r.error)}`);
      continue;
    }
    if (r.reports.length === 0) out.push(`${c(33, '-')} ${p(r.file)}: no AG-UI exchange found`);
    r.reports.forEach((x, i) => {
      total++;
      if (x.verdict === 'failed') failed++;
      out.push(...exchange(x, r.timings?.[i] ?? null, c));
    });
  }
  const session = sessionOf(results);
  const o = overview(session);
  out.push(...summary(o, session.map((x) => x.report.source), c));
  out.push(
    '',
    `${total - failed} completed, ${failed} failed` +
      (results.some((r) => r.error) ? `, ${results.filter((r) => r.error).length} unreadable` : '') +
      (o.pre10 ? `; ${o.pre10} pre-1.0 (1.0 readiness: ${o.pre10 - o.notReady} completed, ${o.notReady} failed)` : ''),
  );
  return out.join('\n') + '\n';
}

/** The session's ranked problems (detail/overview.ts), as the panel's Overview lists them: each group's lines under its title. */
function summary(o: ReturnType<typeof overview>, sources: string[], c: Paint): string[] {
  if (o.problems.length === 0) return [];
  const lines = ['', c(1, `What went wrong (${o.problems.length} problem${o.problems.length === 1 ? '' : 's'}, most harmful first)`)];
  for (const g of PROBLEM_GROUPS) {
    const mine = o.problems.filter((p) => p.group === g.id);
    if (mine.length === 0) continue;
    lines.push(`  ${c(g.id === 'failed' || g.id === 'runs' ? 31 : 33, g.title)}`);
    for (const pr of mine) lines.push(`    ${p(sources[pr.exchange]!)}${pr.event === null ? '' : ` #${pr.event}`}  ${p(pr.text)}`);
  }
  return lines;
}

function exchange(x: ExchangeReport, t: Timing | null, c: Paint): string[] {
  const ok = x.verdict === 'completed';
  const badge = x.era === 'pre-1.0' ? ` ${c(35, 'pre-1.0')}` : '';
  const judged = x.readiness ? 'judged as its own pre-1.0 client would' : `judged as a ${x.consumerVersion} consumer`;
  const lines = [`${ok ? c(32, '✓') : c(31, '✗')} ${c(1, p(x.source))}${badge}  ${ok ? c(32, 'completed') : c(31, 'failed')}  (${judged})`];
  const today = (fs: Finding[]) => fs.filter((f) => !f.readiness);
  const ready = (fs: Finding[]) => fs.filter((f) => f.readiness);
  const inputCount = today(x.input.findings).length;
  lines.push(`  input        ${x.input.present ? `${x.input.verdict}, ${inputCount} finding${inputCount === 1 ? '' : 's'}` : 'not captured'}`);
  const n = x.negotiation;
  lines.push(`  negotiation  consumer ${n.consumer === null ? '(undeclared)' : p(n.consumer)} · producer ${n.producer === null ? '(undeclared)' : p(n.producer)} → ${n.verdict}`);
  lines.push(`  timing       ${timingLine(t, c)}`);
  lines.push(`  runs         ${x.runs.length ? x.runs.map((r) => `${r.runId === null ? '(no id)' : p(r.runId)}${r.requested ? ' (requested)' : ''}: ${r.outcome}`).join(', ') : '(none)'}`);
  for (const f of today(x.input.findings)) lines.push(finding(f, 'input', c));
  for (const f of today(x.findings)) lines.push(finding(f, 'stream', c));
  if (x.readiness) {
    // Apart and after: what an upgrade to 1.0 would change, which never fails the exchange today.
    const verdict = x.readiness.verdict === 'completed' ? c(32, 'completed') : c(31, 'failed');
    const items = ready(x.input.findings).length + ready(x.findings).length;
    lines.push(`  ${c(35, '1.0 readiness')}  a 1.0 consumer would find it ${verdict}; ${items ? `${items} item${items === 1 ? '' : 's'} to change, none failing it today` : 'nothing to change'}`);
    for (const f of ready(x.input.findings)) lines.push(finding(f, 'input', c, '    '));
    for (const f of ready(x.findings)) lines.push(finding(f, 'stream', c, '    '));
  }
  lines.push('');
  return lines;
}

const ms = (v: number): string => (v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`);

/** First content (TTFT), duration and stalls; what a HAR entry's own timings say; or that the file kept no times. */
function timingLine(t: Timing | null, c: Paint): string {
  if (!t) return c(2, 'not recorded (the file kept no arrival times)');
  if (t.unusableTimes !== undefined) return c(33, `the recorded times are unusable: ${t.unusableTimes}`);
  const parts: string[] = [];
  if (t.source === 'entry') parts.push(`TTFB ${t.ttfbMs === null ? '?' : ms(t.ttfbMs)}`);
  else parts.push(`TTFT ${t.firstContentMs === null ? '(no content)' : ms(t.firstContentMs)}`);
  parts.push(`duration ${t.durationMs === null ? '?' : ms(t.durationMs)}`);
  if (t.stalls) {
    const longest = t.stalls.reduce((a, s) => (s.ms > a.ms ? s : a), t.stalls[0] ?? { afterEvent: 0, ms: 0 });
    parts.push(t.stalls.length === 0 ? `no stall ≥ ${ms(t.stallMs)}` : c(33, `${t.stalls.length} stall${t.stalls.length === 1 ? '' : 's'} ≥ ${ms(t.stallMs)} (longest ${ms(longest.ms)} after #${longest.afterEvent})`));
  } else parts.push('per-event times not recorded');
  if (t.buffering?.suspected) parts.push(c(33, `buffered: produced over ${ms(t.buffering.producedOverMs)}, arrived within ${ms(t.buffering.arrivedWithinMs)}`));
  return parts.join(' · ');
}

const LEVEL: Record<Finding['severity'], [number, string]> = { error: [31, 'error  '], warning: [33, 'warning'], info: [36, 'info   '] };

/** `scope` names what a finding without an event index is about: the request, or the stream as a whole. */
function finding(f: Finding, scope: 'input' | 'stream', c: Paint, indent = '  '): string {
  const [code, label] = LEVEL[f.severity];
  const where = [f.event !== null ? `#${f.event}` : scope, f.path ? p(f.path) : ''].filter(Boolean).join(' ');
  return `${indent}${c(code, label)} ${c(2, f.rule.padEnd(38))} ${where.padEnd(16)} ${p(f.message)}\n${indent}${' '.repeat(47)}${c(2, f.spec)}`;
}

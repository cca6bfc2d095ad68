/**
 * What went wrong across a whole session, in one ranked list: the model both the panel's Overview and the
 * CLI's `summary` render, so a CI log and the panel say the same thing. It reads what every exchange's
 * analysis already holds — its report and its timing — and nothing else, so it costs a pass
 * over the exchanges, not over their events. Problems are grouped by what they do to the person using the
 * app, most harmful first; within a group, in the order the exchanges began.
 */
import type { ExchangeReport } from '../analyzer/index.ts';
import type { Finding } from '../rules/index.ts';
import type { Timing } from './timing.ts';
import type { RejectedCall } from './tools.ts';

/** The groups, in the order they are listed: each names what the app's user suffers. */
export const PROBLEM_GROUPS = [
  { id: 'failed', title: 'Exchanges a conforming client rejects' },
  { id: 'runs', title: 'Runs that errored or were cut off' },
  { id: 'identity', title: 'Identity and version' },
  { id: 'readiness', title: '1.0 readiness of pre-1.0 exchanges' },
  { id: 'time', title: 'Slow first content, stalls and buffering' },
  { id: 'tools', title: 'Tool calls and interrupts left waiting' },
  { id: 'state', title: 'State and conversation' },
] as const;
export type ProblemGroup = (typeof PROBLEM_GROUPS)[number]['id'];

/** The panel view a problem opens on (panel/tabs.ts's ids). */
export type ProblemView = 'timeline' | 'findings' | 'identity' | 'negotiation' | 'waterfall' | 'tools' | 'state';

export interface Problem {
  group: ProblemGroup;
  /** What kind of problem, stable for tests and filters: a rule id, or one of the timing and waiting kinds. */
  kind: string;
  /** The exchange's index in the session (the JSON report's `exchanges`). */
  exchange: number;
  /** The frame it is about, to select it; null for the exchange as a whole. */
  event: number | null;
  view: ProblemView;
  /** One line of plain words; the exchange is named apart, by whoever shows it. */
  text: string;
}

export interface Overview {
  exchanges: number;
  failed: number;
  /** Pre-1.0 exchanges, and how many of them a 1.0 client would fail. */
  pre10: number;
  notReady: number;
  problems: Problem[];
}

export interface OverviewExchange {
  report: ExchangeReport;
  timing: Timing | null;
  /** The tool calls whose arguments their declared schema rejects; absent when the source did not read them (junit, sarif). */
  rejected?: readonly RejectedCall[];
}

/** First content this late is slow whatever the session's other exchanges did. */
export const SLOW_FIRST_CONTENT_MS = 5000;
/** Later than this many times the session's median first content, and at least `SLOW_RELATIVE_FLOOR_MS`, is slow for this app. */
export const SLOW_FACTOR = 3;
const SLOW_RELATIVE_FLOOR_MS = 1000;

const VIEW_OF_CATEGORY: Partial<Record<Finding['category'], ProblemView>> = { identity: 'identity', version: 'negotiation', state: 'state', conversation: 'state', 'tool-call': 'tools' };

const ms = (v: number): string => (v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(v < 10_000 ? 1 : 0)} s`);

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[(s.length - 1) >> 1]!;
}

const today = (fs: readonly Finding[]): Finding[] => fs.filter((f) => !f.readiness);

/** The finding that failed the exchange: its first error that the report does not mark as readiness, the input's first. */
function failing(r: ExchangeReport): Finding | undefined {
  return [...today(r.input.findings), ...today(r.findings)].find((f) => f.severity === 'error');
}

/** A finding's frame is shown on the Timeline; one about the input or the stream as a whole, in Findings. */
const findingView = (f: Finding | undefined): ProblemView => (f?.event != null ? 'timeline' : 'findings');

/** `session` in capture order; an exchange with no analysis (still pending, or failed) is null, and keeps its index. */
export function overview(all: readonly (OverviewExchange | null)[]): Overview {
  const session = all.flatMap((x, i) => (x ? [{ ...x, i }] : []));
  const problems: Problem[] = [];
  const add = (group: ProblemGroup, kind: string, exchange: number, event: number | null, view: ProblemView, text: string): void => {
    problems.push({ group, kind, exchange, event, view, text });
  };
  const firstContent = median(session.flatMap((x) => (x.timing?.firstContentMs != null ? [x.timing.firstContentMs] : [])));
  // The frontend calls a later request of the thread answered, and the threads' last runs.
  const answered = new Set(session.flatMap((x) => x.timing?.toolRoundTrips.map((t) => t.toolCallId) ?? []));
  const lastRun = new Map<string, { exchange: number; run: ExchangeReport['runs'][number] }>();
  for (const { report, i } of session) for (const run of report.runs) if (run.threadId !== null) lastRun.set(run.threadId, { exchange: i, run });

  for (const { report: r, timing: t, rejected, i } of session) {
    // An HTTP error status, a body that is no stream, a broken sequence: each is a finding, and the first error is why.
    const failedBy = r.verdict === 'failed' ? failing(r) : undefined;
    if (r.verdict === 'failed') add('failed', failedBy?.rule ?? 'failed', i, failedBy?.event ?? null, findingView(failedBy), failedBy?.message ?? 'a conforming client rejects it');
    for (const run of r.runs) {
      const id = run.runId === null ? 'a run' : `run ${run.runId}`;
      const end = run.finishedAt ?? run.startedAt;
      if (run.outcome === 'error') add('runs', 'run-error', i, end, 'identity', `${id} ended with RUN_ERROR`);
      // A cut-off run that failed the exchange is listed there already.
      if (run.outcome === 'truncated' && failedBy?.rule !== 'lifecycle/truncated') add('runs', 'run-truncated', i, run.startedAt, 'identity', `${id} was cut off before its terminal event`);
    }
    for (const f of [...today(r.input.findings), ...today(r.findings)]) {
      if (f === failedBy || f.severity === 'info') continue;
      if (f.category === 'identity' || f.category === 'version') add('identity', f.rule, i, f.event, VIEW_OF_CATEGORY[f.category]!, f.message);
      else if (f.category === 'state' || f.category === 'conversation') add('state', f.rule, i, f.event, 'state', f.message);
      else if (f.category === 'interrupt' && f.rule !== 'interrupt/asked-as-success') add('tools', f.rule, i, f.event, findingView(f), f.message);
    }
    if (r.readiness?.verdict === 'failed') {
      // The first error: a readiness item, or one the pre-1.0 client lets pass that a 1.0 one does not (a cut-off run, ids that disagree).
      const item = [...r.input.findings, ...r.findings].find((f) => f.severity === 'error');
      add('readiness', 'readiness', i, item?.event ?? null, findingView(item), `a 1.0 client would fail it${item ? `: ${item.message}` : ''}`);
    }
    for (const call of rejected ?? []) {
      const [first] = call.errors;
      // The parser's own words differ between engines, and the CLI's summary must read as the panel's: the Tools view has them.
      const why = call.status === 'unparsed' ? 'arguments that are not JSON, which the application cannot parse' : `arguments its declared parameters schema rejects${first ? ` (${first.path === '' ? 'the root' : first.path}: ${first.message})` : ''}`;
      add('tools', 'tool-args-rejected', i, call.startEvent, 'tools', `frontend tool call ${call.name} (${call.id}) has ${why}`);
    }
    if (t) {
      const fc = t.firstContentMs;
      if (fc !== null && firstContent !== null && (fc >= SLOW_FIRST_CONTENT_MS || (fc >= SLOW_FACTOR * firstContent && fc >= SLOW_RELATIVE_FLOOR_MS))) {
        add('time', 'slow-first-content', i, null, 'waterfall', `first content after ${ms(fc)}, where the session's median is ${ms(firstContent)}`);
      }
      if (t.stalls && t.stalls.length > 0) {
        const longest = t.stalls.reduce((a, s) => (s.ms > a.ms ? s : a));
        add('time', 'stall', i, longest.afterEvent, 'waterfall', `${t.stalls.length === 1 ? 'a stall' : `${t.stalls.length} stalls`} of at least ${ms(t.stallMs)}, the longest ${ms(longest.ms)} after event ${longest.afterEvent}`);
      }
      if (t.buffering?.suspected) add('time', 'buffering', i, null, 'waterfall', `events produced over ${ms(t.buffering.producedOverMs)} arrived within ${ms(t.buffering.arrivedWithinMs)}: something between agent and page held them back`);
      for (const call of t.toolCalls ?? []) {
        if (call.side !== 'frontend' || call.resultMs !== null || answered.has(call.id)) continue;
        add('tools', 'tool-unanswered', i, call.startEvent, 'tools', `frontend tool call ${call.name ?? call.id} was never answered by a later request`);
      }
    }
  }
  for (const [thread, { exchange, run }] of lastRun) {
    if (run.outcome !== 'interrupt') continue;
    const which = run.interrupts.length > 0 ? run.interrupts.join(', ') : 'its interrupt';
    add('tools', 'interrupt-unresumed', exchange, run.finishedAt, 'identity', `thread ${thread} ended waiting on ${which}, never resumed`);
  }
  const rank = new Map(PROBLEM_GROUPS.map((g, k) => [g.id, k]));
  problems.sort((a, b) => rank.get(a.group)! - rank.get(b.group)! || a.exchange - b.exchange || (a.event ?? -1) - (b.event ?? -1));
  const pre10 = session.filter((x) => x.report.readiness !== null);
  return {
    exchanges: all.length,
    failed: session.filter((x) => x.report.verdict === 'failed').length,
    pre10: pre10.length,
    notReady: pre10.filter((x) => x.report.readiness?.verdict === 'failed').length,
    problems,
  };
}

import type { ExchangeReport, RunReport } from '../analyzer/index.ts';
import { overview, type Overview, type OverviewExchange, type RejectedCall, type SessionExchange, type Timing } from '../detail/index.ts';

/** What one file (or one value handed to the library) produced: its exchanges' reports, or why it could not be read. */
export interface FileResult {
  file: string;
  reports: ExchangeReport[];
  /** Each report's timing, by the same index; absent or null where the file recorded no times. */
  timings?: (Timing | null)[];
  /** Each report's tool calls that their declared schemas reject, by the same index; absent where none were read. */
  rejected?: (readonly RejectedCall[] | undefined)[];
  error?: string;
}

/** A file's result from its analysed exchanges. */
export function fileResult(file: string, analysed: readonly SessionExchange[]): FileResult {
  return { file, reports: analysed.map((a) => a.report), timings: analysed.map((a) => a.timing), rejected: analysed.map((a) => a.rejected) };
}

/** Every file's exchanges as one session, in order: what the summary is made of. */
export function sessionOf(results: readonly FileResult[]): OverviewExchange[] {
  return results.flatMap((r) => r.reports.map((report, i) => {
    const rejected = r.rejected?.[i];
    return { report, timing: r.timings?.[i] ?? null, ...(rejected ? { rejected } : {}) };
  }));
}

/** One exchange in the documented `--format json` contract. */
export interface ContractExchange extends Pick<ExchangeReport, 'source' | 'era' | 'consumerVersion' | 'input' | 'negotiation' | 'verdict' | 'readiness' | 'findings' | 'transport'> {
  runs: Pick<RunReport, 'runId' | 'threadId' | 'requested' | 'outcome'>[];
  timing: Timing | null;
}

/** The JSON report `check --format json` prints and `check()` returns. */
export interface Contract {
  exchanges: ContractExchange[];
  /** What went wrong across them all, ranked (detail/overview.ts): what the panel's Overview lists; `exchange` indexes `exchanges`. */
  summary: Overview;
}

/** The documented `--format json` contract: exactly these keys, so consumers can rely on them. */
export function toContract(results: FileResult[]): Contract {
  return {
    exchanges: results.flatMap((r) =>
      r.reports.map((x, i) => ({
        source: x.source,
        era: x.era,
        consumerVersion: x.consumerVersion,
        input: x.input,
        negotiation: x.negotiation,
        runs: x.runs.map((run) => ({ runId: run.runId, threadId: run.threadId, requested: run.requested, outcome: run.outcome })),
        verdict: x.verdict,
        readiness: x.readiness,
        findings: x.findings,
        timing: r.timings?.[i] ?? null,
        ...(x.transport ? { transport: x.transport } : {}),
      })),
    ),
    summary: overview(sessionOf(results)),
  };
}

/** The CLI's exit status for reports: 1 when a consumer must reject an exchange, else 0. */
export const statusOf = (reports: readonly Pick<ExchangeReport, 'verdict'>[]): 0 | 1 => (reports.some((x) => x.verdict === 'failed') ? 1 : 0);

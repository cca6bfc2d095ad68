/**
 * A recorded session as a file for a bug report: HAR 1.2 holding the exact request bodies and
 * response bytes with their timing, and beside each exchange the analysis its source made of it.
 *
 * This is the one writer of the Inspector's HAR: the worker's `agui-inspector/export` and the panel's
 * Export menu both call `exportSession`, and for the same exchanges and redaction they write the same
 * bytes. Nothing in the file comes from the moment of writing, and what it holds reads back
 * (formats/har.ts) as what was written, so exporting an imported export writes the same file again.
 */
import { analyzeExchange, ThreadTracker } from '../analyzer/index.ts';
import type { ExchangeReport } from '../analyzer/index.ts';
import { analysedToTheEnd, bytesOnlyAnalysis, type AnalysisRecord, type CapturedExchange } from '../exchange/index.ts';
import { entryIndexes, writeHar } from '../formats/index.ts';
import { TOOL } from '../meta.ts';
import type { Finding, ProtocolVersion } from '../rules/index.ts';
import { DEFAULT_REDACTION, redactExchanges, type RedactionGroup, type RedactionReport } from './redact.ts';

export { DEFAULT_REDACTION, REDACTION_GROUPS, type RedactionGroup, type RedactionReport } from './redact.ts';

export interface ExportOptions {
  /** Groups of values to overwrite before anything is written; DEFAULT_REDACTION when absent. */
  redact?: readonly RedactionGroup[];
  /** Judge as this consumer version an exchange analysed here (one that carries no `analysis`). */
  as?: ProtocolVersion;
}

/** The log-level `_agui` of an exported session, after `format` and `version` (formats/har.ts HAR_FORMAT). */
export type SessionLogExtension = {
  /** The consumer version every report was judged as (absent when they differ, or there is none). */
  protocolVersion?: ProtocolVersion;
  redaction: RedactionReport & {
    /**
     * Whether the redacted bytes analyse as the original did (verdicts, runs, findings by rule,
     * severity, event and path). Fillers keep equal values equal only when both copies were
     * encoded alike; `changedExchanges` names the entries where that did not hold.
     */
    analysisPreserved: boolean;
    changedExchanges: number[];
  };
};

const findingShape = (f: Finding) => ({ rule: f.rule, severity: f.severity, event: f.event, path: f.path, readiness: f.readiness === true });

/** What an analysis says, without the words it says it in (messages may quote values; a redacted file quotes fillers). */
export function analysisShape(r: ExchangeReport): unknown {
  return {
    era: r.era,
    consumerVersion: r.consumerVersion,
    verdict: r.verdict,
    readiness: r.readiness,
    input: { present: r.input.present, verdict: r.input.verdict, findings: r.input.findings.map(findingShape) },
    negotiation: r.negotiation,
    runs: r.runs,
    findings: r.findings.map(findingShape),
  };
}

/**
 * The record's error with the socket's close reason as the file has it: the worker's error for an exchange
 * the close cut quotes the reason (background/session.ts), and redaction fills the reason.
 */
function errorOf(error: string | null, original: CapturedExchange, x: CapturedExchange): string | null {
  const before = original.socket?.connection.close?.reason;
  const after = x.socket?.connection.close?.reason;
  if (error === null || !before || after === undefined || before === after) return error;
  return error.split(JSON.stringify(before)).join(JSON.stringify(after)).split(before).join(after);
}

/** Analyses an exchange as its source did (`analysedToTheEnd`). */
function analyseAsSource(x: CapturedExchange, a: AnalysisRecord, source: string, thread: ThreadTracker, as?: ProtocolVersion): ExchangeReport {
  return analyzeExchange({ ...x, source }, x.chunks, { as, thread, end: analysedToTheEnd(a) });
}

/** The analysis an exchange carries, or one made here from its bytes for an exchange whose source made none. */
function analysisOf(exchanges: CapturedExchange[], as?: ProtocolVersion): AnalysisRecord[] {
  const thread = new ThreadTracker();
  return exchanges.map((x) => {
    if (x.analysis) return x.analysis;
    try {
      return bytesOnlyAnalysis(analyzeExchange(x, x.chunks, { as, thread }), null);
    } catch (e) {
      return bytesOnlyAnalysis(null, String(e).slice(0, 1024));
    }
  });
}

/**
 * HAR 1.2 text of the session. Each exchange's `analysis` is written as its source made it and is not
 * made again; an exchange without one is analysed here. Redaction comes first: the bytes and the URL
 * written are the redacted ones, a report naming its exchange by URL names the redacted URL, and when
 * bodies are redacted a report (whose messages may quote what was removed) is that of the redacted bytes,
 * analysed as the source analysed the original. `analysisPreserved` then compares it with the original's.
 */
export function exportSession(exchanges: CapturedExchange[], opts: ExportOptions = {}): string {
  const groups = opts.redact ?? DEFAULT_REDACTION;
  const given = analysisOf(exchanges, opts.as);
  // Redaction notes name an exchange; the entry it becomes is the name every path to this file shares.
  const entries = entryIndexes(exchanges);
  const named = exchanges.map((x, i) => ({ ...x, source: `entries/${entries[i]}` }));
  const { exchanges: redacted, report } = redactExchanges(named, groups);
  const bodies = report.groups.some((g) => g !== 'query');
  const threads = { original: new ThreadTracker(), redacted: new ThreadTracker() };
  const changedExchanges: number[] = [];
  const written = redacted.map((x, i): CapturedExchange => {
    const original = exchanges[i]!;
    const a = bodies ? { ...given[i]!, error: errorOf(given[i]!.error, original, x) } : given[i]!;
    if (!a.report) return { ...x, analysis: a };
    const source = a.report.source === original.url && x.url !== undefined ? x.url : a.report.source;
    if (!bodies) return { ...x, analysis: source === a.report.source ? a : { ...a, report: { ...a.report, source } } };
    const before = analyseAsSource(original, a, source, threads.original, opts.as);
    const after = analyseAsSource(x, a, source, threads.redacted, opts.as);
    if (JSON.stringify(analysisShape(before)) !== JSON.stringify(analysisShape(after))) changedExchanges.push(i);
    return { ...x, analysis: { ...a, report: after } };
  });
  const versions = new Set(written.flatMap((x) => (x.analysis?.report ? [x.analysis.report.consumerVersion] : [])));
  const extension: SessionLogExtension = {
    ...(versions.size === 1 ? { protocolVersion: [...versions][0] } : {}),
    redaction: { ...report, analysisPreserved: changedExchanges.length === 0, changedExchanges },
  };
  return writeHar(written, { creator: { name: TOOL.name, version: TOOL.version }, extension });
}

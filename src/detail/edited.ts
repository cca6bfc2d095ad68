/**
 * The edited answer judged as it is typed (issue #36): the findings the analyzer would raise for the stream
 * the override would send — each line one event, encoded as the recording's transport by `editedSource`, so
 * what is judged is what is sent. Run by the tab's worker, off the panel's thread.
 */
import { analyzeExchange } from '../analyzer/index.ts';
import { editedSource, type AnswerSource } from '../answer/index.ts';
import type { Finding } from '../rules/index.ts';

export interface EditedFinding extends Finding {
  /** The editor's line (from 1) holding the event the finding is about; null for the input or the stream as a whole. */
  line: number | null;
}

export type EditedVerdict = { verdict: 'completed' | 'failed'; events: number; findings: EditedFinding[] } | { error: string };

/** `text` (one JSON event a line) judged as an answer like `like`'s: its verdict, how many events, and the findings at their lines. */
export function judgeEdited(text: string, like: Omit<AnswerSource, 'chunks'>): EditedVerdict {
  let source: AnswerSource;
  try {
    source = editedSource(text, like);
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
  const chunks = [...(source.chunks as Iterable<{ time: number; bytes: Uint8Array }>)];
  // editedSource makes one frame of each line that is not blank, so frame k is the k-th such line.
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((l, i) => void (l.trim() === '' || lines.push(i + 1)));
  const report = analyzeExchange(
    { source: 'edited answer', responseContentType: like.responseContentType, status: like.status ?? 200, ...(like.requestBody === undefined ? {} : { requestBody: like.requestBody }) },
    chunks,
  );
  return {
    verdict: report.verdict,
    events: chunks.length,
    findings: report.findings.map((f) => ({ ...f, line: f.event === null ? null : (lines[f.event] ?? null) })),
  };
}

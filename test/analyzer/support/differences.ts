import type { Difference } from './differential.ts';

/*
 * Differences both reference consumers, @ag-ui/client 1.0.0 and 0.0.59, share with the analyzer: where
 * the spec decides against what the reference's code does. Each test composes its own table from these.
 */

/** Whether the bytes after the last blank line hold a whole JSON payload, which both references dispatch at end of body. */
function sseTailParses(body: Uint8Array): boolean {
  const text = new TextDecoder().decode(body);
  const tail = text.slice(text.lastIndexOf('\n\n') + 2);
  const data = tail.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
  try {
    return data.length > 0 && (JSON.parse(data.join('\n')), true);
  } catch {
    return false;
  }
}

export interface ZodIssue {
  code: string;
  path: (string | number)[];
}

/**
 * The issues of a zod error message (both references validate events with zod), or null when it is none.
 * 0.0.59's protobuf reader prefixes the decoder's zod error with its own words.
 */
export function zodIssues(error: string): ZodIssue[] | null {
  try {
    const parsed: unknown = JSON.parse(error.replace(/^Failed to decode protocol buffer message: /, ''));
    return Array.isArray(parsed) ? (parsed as ZodIssue[]) : null;
  } catch {
    return null;
  }
}

/** Identity across the input and the runs, which neither reference compares. */
export const UNCHECKED_IDENTITY: readonly Difference[] = [
  {
    kind: 'run-id-mismatch',
    spec: 'basic/run-input#identity',
    why: "a run's RUN_STARTED and RUN_FINISHED MUST carry the same runId; the reference never compares them",
    finding: (f) => f.rule === 'identity/run-id-mismatch',
  },
  {
    kind: 'thread-id-mismatch',
    spec: 'basic/run-input#identity',
    why: "every run's boundary events MUST carry the input's threadId; the reference never compares them with the input",
    finding: (f) => f.rule === 'identity/thread-id-mismatch',
  },
  {
    kind: 'requested-run-id',
    spec: 'basic/run-input#identity',
    why: "the stream's last run is the requested one and MUST echo the input's runId; the reference does not check",
    finding: (f) => f.rule === 'identity/requested-run-id',
  },
];

export const TRUNCATION: Difference = {
  kind: 'truncation',
  spec: 'basic/transports#truncation',
  why: 'a stream that ends while a run is active (or before any event) has no outcome and is never a success; the reference completes quietly',
  finding: (f) => f.rule === 'lifecycle/truncated',
};

export const UNTERMINATED_TAIL: Difference = {
  kind: 'unterminated-tail',
  spec: 'basic/transports/http-protobuf#framing',
  why: "a body that ends inside a frame is truncation, never malformed material: SSE discards the unterminated event as the SSE standard requires (http-sse#response), protobuf reports the partial frame; a run already closed keeps its outcome. The reference parses an SSE tail anyway and fails on the fragment (1.0.0 also fails any protobuf body ending mid-frame; 0.0.59 warns and completes)",
  rejection: (error, c) => {
    const cutNote = c.analyzer.findings.some((f) => f.rule === 'transport/sse-incomplete-event' || f.rule === 'transport/proto-truncated-frame');
    if (!cutNote || c.keep === undefined) return false;
    // A fragment fails the reference's JSON.parse; a tail missing only its blank line is an event the reference dispatches and SSE does not.
    return /JSON/.test(error) || error.startsWith('The binary stream ended mid-frame') || sseTailParses(c.body);
  },
};

export const ENCRYPTED_VALUE_PROVENANCE: Difference = {
  kind: 'encrypted-value-provenance',
  spec: 'events/subagents#attribution',
  why: "REASONING_ENCRYPTED_VALUE is standalone ('it opens nothing, closes nothing', events/reasoning), and a tag on a standalone event is provenance, not a continuation the ownership rule binds; the reference rejects one whose subagentRunId differs from its entity's owner",
  rejection: (error) => /^Cannot send 'REASONING_ENCRYPTED_VALUE': subagentRunId '[^']*' does not match/.test(error),
};

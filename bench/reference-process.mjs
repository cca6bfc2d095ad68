/**
 * The reference consumer as a whole process, for bench/process.ts: @ag-ui/client 1.0.0's pipeline
 * over one response body read from a file — transformHttpEventStream → CompatibilityBoundary →
 * enforceEvents → transformChunks → verifyEvents, as test/analyzer/support/harness.ts runReference
 * drives it in-process. Plain JavaScript, so the process pays Node's start-up and nothing of tsx.
 *
 *   node bench/reference-process.mjs <body> <RunAgentInput.json> <content-type>
 * Prints `completed <events>` or `rejected <error>`.
 */
import { readFileSync } from 'node:fs';
import { CompatibilityBoundary, enforceEvents, transformChunks, transformHttpEventStream, verifyEvents } from '@ag-ui/client';
import { Observable } from 'rxjs';

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';
const [bodyFile, inputFile, contentType] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const input = JSON.parse(readFileSync(inputFile, 'utf8'));
// A fetch body arrives in chunks; 64 KB is what Node's file streams read.
const CHUNK = 64 * 1024;

const http$ = new Observable((sub) => {
  queueMicrotask(() => {
    sub.next({ type: 'headers', status: 200, headers: new Headers({ 'content-type': contentType }) });
    for (let at = 0; at < body.length; at += CHUNK) sub.next({ type: 'data', data: body.subarray(at, at + CHUNK) });
    sub.complete();
  });
});
let delivered = 0;
new CompatibilityBoundary()
  .run(input, { run: () => transformHttpEventStream(http$) })
  .pipe(enforceEvents(), transformChunks(), verifyEvents())
  .subscribe({
    next: () => delivered++,
    error: (e) => console.log(`rejected ${e instanceof Error ? e.message : String(e)}`),
    complete: () => console.log(`completed ${delivered}`),
  });

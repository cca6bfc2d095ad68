/** A session recorded from the demo agent over real HTTP: every scenario, SSE and protobuf, with an interrupt and its resumes. */
import type { Interrupt } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { resumeEntriesFor, scenarios } from '../../demo/scenarios.ts';
import type { CapturedExchange } from '../../src/formats/exchange.ts';
import { inputFor } from '../demo/helpers.ts';
import { capture } from './support.ts';

const ACCEPT = { sse: 'text/event-stream', protobuf: `${AGUI_MEDIA_TYPE}, text/event-stream` } as const;
const RAISED: Interrupt[] = [
  { id: 'approve-send', reason: 'approval' },
  { id: 'choose-format', reason: 'input_required' },
];

/** Sources are named as readExchanges names HAR entries, so an export of a re-read session is comparable byte for byte. */
export async function recordDemoSession(base: string): Promise<CapturedExchange[]> {
  const out: CapturedExchange[] = [];
  const post = async (scenario: string, transport: 'sse' | 'protobuf', input: object) => {
    out.push(await capture(`${base}/agent/${scenario}`, JSON.stringify(input), ACCEPT[transport], `session.har#entries/${out.length}`));
  };
  for (const transport of ['sse', 'protobuf'] as const) {
    const threadId = `thread-${transport}`;
    for (const s of scenarios) {
      if (!s.transports.includes(transport)) continue;
      const runId = `${transport}-${s.name}`;
      await post(s.name, transport, inputFor({ threadId, runId }));
      if (s.name === 'interrupt') {
        await post(s.name, transport, inputFor({ threadId, runId: `${runId}-resumed`, resume: resumeEntriesFor(RAISED, 'all') }));
      }
    }
    // An incomplete resume on a thread of its own: the Inspector judges it against the exchange before.
    const partial = `thread-${transport}-partial`;
    await post('interrupt', transport, inputFor({ threadId: partial, runId: `${transport}-partial-1` }));
    await post('interrupt', transport, inputFor({ threadId: partial, runId: `${transport}-partial-2`, resume: resumeEntriesFor(RAISED, 'partial') }));
  }
  return out;
}

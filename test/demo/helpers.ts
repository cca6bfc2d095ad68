import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Message, ResumeEntry, RunAgentInput } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, decode } from '@ag-ui/proto';

export type Json = Record<string, unknown> & { type: string };

export { demoInput as inputFor, demoUserMessage as userMessage } from '../../demo/record.ts';

export interface Reply {
  status: number;
  contentType: string | null;
  body: Uint8Array;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), body: new Uint8Array(await res.arrayBuffer()) };
}

/** A strict reading of the SSE binding: LF framing, `data:` lines only, one JSON object per event. */
export function parseSse(body: Uint8Array): Json[] {
  const text = new TextDecoder().decode(body);
  if (text.length > 0 && !text.endsWith('\n\n')) throw new Error('SSE body does not end on an event boundary');
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      return JSON.parse(data) as Json;
    });
}

/** Length-prefixed protobuf frames, decoded with the official decoder. */
export function parseProto(body: Uint8Array): Json[] {
  const events: Json[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  while (at < body.length) {
    const size = view.getUint32(at, false);
    events.push(decode(body.subarray(at + 4, at + 4 + size)) as Json);
    at += 4 + size;
  }
  if (at !== body.length) throw new Error('protobuf body ends mid-frame');
  return events;
}

export async function runScenario(base: string, scenario: string, input: RunAgentInput, transport: 'sse' | 'protobuf' = 'sse'): Promise<Json[]> {
  const reply = await post(`${base}/agent/${scenario}?delay=0`, input, transport === 'protobuf' ? { Accept: `${AGUI_MEDIA_TYPE}, text/event-stream` } : {});
  if (reply.status !== 200) throw new Error(`${scenario}: HTTP ${reply.status}`);
  return reply.contentType === AGUI_MEDIA_TYPE ? parseProto(reply.body) : parseSse(reply.body);
}

export interface ClientPlan {
  transport: 'sse' | 'protobuf';
  threadId: string;
  messages: Message[];
  state: unknown;
  tools: RunAgentInput['tools'];
  steps: { runId?: string; resume?: ResumeEntry[] }[];
}

export interface ClientResult {
  runs: { events: Json[]; error?: string }[];
  state: unknown;
  messages: Message[];
  pendingInterrupts: { id: string }[];
}

const clientScript = fileURLToPath(new URL('./http-agent-client.mjs', import.meta.url));

/** Runs the official HttpAgent (see http-agent-client.mjs for why in a child process). */
export async function runHttpAgent(endpoint: string, plan: ClientPlan): Promise<ClientResult> {
  const { stdout } = await promisify(execFile)(process.execPath, [clientScript, endpoint, JSON.stringify(plan)]);
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`HttpAgent runner printed no result:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as ClientResult;
}

/**
 * A hand-built session with a distinctive secret in every place a redaction group covers, so a test
 * can show each one gone. A secret's prefix names its group; SECRET-BROKEN sits in frames that are
 * not JSON, which every group scrubs.
 */
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import type { CapturedExchange } from '../../src/exchange/exchange.ts';
import type { RedactionGroup } from '../../src/recording/redact.ts';
import { chunked, concat } from './support.ts';

export const SECRET_GROUPS: Record<string, RedactionGroup | 'any'> = {
  'SECRET-MSG-': 'messages',
  'SECRET-TOOLARG-': 'tools',
  'SECRET-RESULT-': 'tools',
  'SECRET-REASON-': 'reasoning',
  'SECRET-STATE-': 'state',
  'SECRET-FWD-': 'forwardedProps',
  'SECRET-QUERY-': 'query',
  'SECRET-BROKEN-': 'any',
};

/** Secrets that carry no prefix: a base64 data part (messages) and numbers (state, forwardedProps). */
export const BARE_SECRETS: Record<string, RedactionGroup> = {
  'U0VDUkVULURBVEEtOWU4Zg==': 'messages',
  '987654321': 'state',
  '987654322': 'state',
  '5551234': 'forwardedProps',
};

const encoder = new EventEncoder();
const sse = (events: object[]) => events.map((e) => encoder.encodeSSE(e as BaseEvent)).join('');
const proto = (events: object[]) => concat(events.map((e) => encoder.encodeProtobuf(e as BaseEvent)));

export function secretInput(runId: string, tag: string) {
  return {
    threadId: 'thread-secrets',
    runId,
    protocolVersion: '1.0',
    messages: [
      { id: 'sys-1', role: 'system', content: `SECRET-MSG-system-${tag}` },
      {
        id: 'user-1',
        role: 'user',
        content: [
          { type: 'text', text: `SECRET-MSG-part-${tag} with "quotes" and a \\ backslash` },
          { type: 'image', source: { type: 'url', value: `https://example.com/SECRET-MSG-url-${tag}.png`, mimeType: 'image/png' } },
          { type: 'document', source: { type: 'data', value: 'U0VDUkVULURBVEEtOWU4Zg==', mimeType: 'application/pdf' } },
        ],
      },
      {
        id: 'assistant-1',
        role: 'assistant',
        content: `SECRET-MSG-assistant-${tag} ünïcödé`,
        toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q: `SECRET-TOOLARG-input-${tag}` }) } }],
      },
      { id: 'tool-1', role: 'tool', toolCallId: 'call-1', content: `SECRET-RESULT-input-${tag}` },
      { id: 'reason-1', role: 'reasoning', content: `SECRET-REASON-input-${tag}`, encryptedValue: `SECRET-REASON-enc-${tag}` },
    ],
    tools: [{ name: 'lookup', description: `SECRET-TOOLARG-description-${tag}`, parameters: { type: 'object', properties: { q: { type: 'string', description: `SECRET-TOOLARG-param-${tag}` } } } }],
    context: [{ description: `SECRET-STATE-contextname-${tag}`, value: `SECRET-STATE-context-${tag}` }],
    state: { plan: `SECRET-STATE-plan-${tag}`, budget: 987654321, nested: { list: [`SECRET-STATE-item-${tag}`, 42.5] } },
    forwardedProps: { token: `SECRET-FWD-token-${tag}`, pin: 5551234, nested: { note: `SECRET-FWD-note-${tag}` } },
  };
}

export function secretEvents(input: ReturnType<typeof secretInput>, tag: string): object[] {
  const { threadId, runId } = input;
  return [
    { type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0', input },
    { type: 'TEXT_MESSAGE_START', messageId: `m-${tag}`, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: `m-${tag}`, delta: `SECRET-MSG-delta-${tag}` },
    { type: 'TEXT_MESSAGE_END', messageId: `m-${tag}` },
    { type: 'TEXT_MESSAGE_CHUNK', messageId: `mc-${tag}`, role: 'assistant', delta: `SECRET-MSG-chunk-${tag}` },
    { type: 'TOOL_CALL_START', toolCallId: `tc-${tag}`, toolCallName: 'lookup', parentMessageId: `mc-${tag}` },
    { type: 'TOOL_CALL_ARGS', toolCallId: `tc-${tag}`, delta: `{"q":"SECRET-TOOLARG-delta-${tag}"}` },
    { type: 'TOOL_CALL_END', toolCallId: `tc-${tag}` },
    { type: 'TOOL_CALL_RESULT', messageId: `tr-${tag}`, toolCallId: `tc-${tag}`, content: `SECRET-RESULT-event-${tag}`, role: 'tool' },
    { type: 'TOOL_CALL_CHUNK', toolCallId: `tcc-${tag}`, toolCallName: 'lookup', delta: `SECRET-TOOLARG-chunk-${tag}` },
    { type: 'REASONING_START', messageId: `r-${tag}` },
    { type: 'REASONING_MESSAGE_START', messageId: `rm-${tag}`, role: 'reasoning' },
    { type: 'REASONING_MESSAGE_CONTENT', messageId: `rm-${tag}`, delta: `SECRET-REASON-delta-${tag}` },
    { type: 'REASONING_MESSAGE_END', messageId: `rm-${tag}` },
    { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: `rm-${tag}`, encryptedValue: `SECRET-REASON-blob-${tag}` },
    { type: 'REASONING_END', messageId: `r-${tag}` },
    { type: 'STATE_SNAPSHOT', snapshot: { plan: `SECRET-STATE-snap-${tag}`, status: 'SECRET-STATE-planning', budget: 987654321, stops: [] } },
    {
      type: 'STATE_DELTA',
      delta: [
        { op: 'test', path: '/status', value: 'SECRET-STATE-planning' },
        { op: 'replace', path: '/budget', value: 987654322 },
        { op: 'add', path: '/stops/-', value: { name: `SECRET-STATE-stop-${tag}` } },
      ],
    },
    // Same length as the value it tests, but different: it must still fail once both are filled.
    { type: 'STATE_DELTA', delta: [{ op: 'test', path: '/status', value: 'SECRET-STATE-plannind' }] },
    { type: 'ACTIVITY_SNAPSHOT', messageId: `act-${tag}`, activityType: 'search', content: { query: `SECRET-STATE-activity-${tag}` } },
    { type: 'ACTIVITY_DELTA', messageId: `act-${tag}`, activityType: 'search', patch: [{ op: 'replace', path: '/query', value: `SECRET-STATE-patch-${tag}` }] },
    {
      type: 'MESSAGES_SNAPSHOT',
      messages: [
        ...input.messages,
        { id: `m-${tag}`, role: 'assistant', content: `SECRET-MSG-snapshot-${tag}` },
        { id: `act-msg-${tag}`, role: 'activity', activityType: 'search', content: { query: `SECRET-STATE-activitymsg-${tag}` } },
      ],
    },
    { type: 'CUSTOM', name: 'progress', value: { detail: `SECRET-STATE-custom-${tag}` } },
    { type: 'RUN_FINISHED', threadId, runId, result: { answer: `SECRET-STATE-result-${tag}` } },
  ];
}

/** SSE with both single-line frames and frames whose JSON is spread over several `data:` lines, CRLF included. */
function sseBody(evs: object[]): string {
  const single = sse(evs.slice(0, 2));
  const multi = evs
    .slice(2, 4)
    .map((e) => `data: ${JSON.stringify(e, null, 1).split('\n').join('\ndata:')}\n\n`)
    .join('');
  const crlf = `data: ${JSON.stringify(evs[4])}\r\n\r\n`;
  // Not JSON: the analysis quotes it back, so it must be scrubbed too.
  const broken = `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m-broken","delta":"SECRET-BROKEN-sse"\n\n`;
  return single + multi + crlf + sse(evs.slice(5, -1)) + broken + sse(evs.slice(-1));
}

export function secretSession(): CapturedExchange[] {
  const first = secretInput('run-sse', 'sse');
  const second = secretInput('run-proto', 'proto');
  const third = secretInput('run-jsonl', 'jsonl');
  const sseBytes = new TextEncoder().encode(sseBody(secretEvents(first, 'sse')));
  const protoEvents = secretEvents(second, 'proto');
  // Two fields holding one value: its bytes are not unique in the frame, so that frame is re-encoded.
  protoEvents.splice(1, 0, { type: 'STATE_SNAPSHOT', snapshot: { a: 'SECRET-STATE-twice', b: 'SECRET-STATE-twice' } });
  const protoBytes = proto(protoEvents);
  const jsonlBytes = new TextEncoder().encode(
    secretEvents(third, 'jsonl').map((e) => JSON.stringify(e)).join('\n') + '\n{"type":"TEXT_MESSAGE_CONTENT","delta":"SECRET-BROKEN-jsonl"\n',
  );
  const common = { method: 'POST', status: 200, requestContentType: 'application/json' };
  return [
    {
      ...common,
      source: 'secrets#sse',
      url: 'http://127.0.0.1:9/agent?api_key=SECRET-QUERY-key&mode=stream',
      startedDateTime: '2025-06-01T10:00:00.000Z',
      requestBody: JSON.stringify(first),
      responseContentType: 'text/event-stream',
      chunks: chunked(sseBytes, [7, 300, 1, 1000]),
    },
    {
      ...common,
      source: 'secrets#proto',
      url: 'http://127.0.0.1:9/agent?api_key=SECRET-QUERY-key',
      startedDateTime: '2025-06-01T10:01:00.000Z',
      requestBody: JSON.stringify(second, null, 2),
      responseContentType: AGUI_MEDIA_TYPE,
      chunks: chunked(protoBytes, [3, 250, 250]),
    },
    {
      ...common,
      source: 'secrets#jsonl',
      url: 'http://127.0.0.1:9/agent',
      startedDateTime: '2025-06-01T10:02:00.000Z',
      requestBody: JSON.stringify(third),
      responseContentType: 'application/x-ndjson',
      chunks: chunked(jsonlBytes, [500]),
    },
  ];
}

/** Valid 1.1 documents that reach the corners the conformance corpus does not: every message role, part, source, outcome and patch op. */

// Built afresh at each use: structuredClone keeps shared references shared, so a mutation would land twice.
const parts = (): unknown[] => [
  { type: 'text', text: 'look', id: 'p1', metadata: { k: null } },
  { type: 'image', source: { type: 'data', value: 'AAAA', mimeType: 'image/png' } },
  { type: 'audio', source: { type: 'url', value: 'https://x/a.mp3', mimeType: 'audio/mpeg' } },
  { type: 'video', source: { type: 'file', value: 'file-123', provider: 'openai' } },
  { type: 'document', id: 'd', source: { type: 'url', value: 'https://x/d.pdf' }, metadata: 0 },
];

const messages = (): unknown[] => [
  { id: 'm1', role: 'developer', content: 'be brief', name: 'dev' },
  { id: 'm2', role: 'system', content: 'sys', metadata: { 'ag-ui': { x: 1 } } },
  { id: 'm3', role: 'user', content: parts(), subagentRunId: 's1' },
  {
    id: 'm4', role: 'assistant', content: 'calling', encryptedValue: 'enc', encryptedValueType: 'anthropic/thinking',
    toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' }, encryptedValue: 'e', encryptedValueType: 't', metadata: {} }],
  },
  { id: 'm5', role: 'tool', content: parts(), toolCallId: 'c1', error: 'boom', encryptedValueType: 't' },
  { id: 'm6', role: 'activity', activityType: 'PLAN', content: { anything: [1, { deep: true }] } },
  { id: 'm7', role: 'reasoning', content: 'hmm', encryptedValue: 'x', encryptedValueType: 'y' },
];

const makeInput = (): Record<string, unknown> => ({
  threadId: 't', runId: 'r', parentRunId: 'p', protocolVersion: '1.1',
  state: { count: 1 }, messages: messages(),
  tools: [{ name: 'search', description: 'finds', parameters: { type: 'object', additionalProperties: false }, metadata: { a: 1 } }],
  context: [{ description: 'user', value: 'ada' }],
  forwardedProps: { nested: null },
  resume: [{ interruptId: 'i1', status: 'resolved', payload: { ok: true }, metadata: {} }, { interruptId: 'i2', status: 'cancelled' }],
});

export const input = makeInput();

const patch = (): unknown[] => [
  { op: 'add', path: '/a', value: null },
  { op: 'remove', path: '/b' },
  { op: 'replace', path: '/c~1d', value: 1 },
  { op: 'move', from: '/a', path: '/e' },
  { op: 'copy', from: '/e', path: '/f' },
  { op: 'test', path: '', value: {} },
];

export const events: Record<string, unknown>[] = [
  { type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.1', parentRunId: 'p', input: makeInput(), timestamp: 1700000000000, rawEvent: { src: 1 }, metadata: { m: null } },
  { type: 'MESSAGES_SNAPSHOT', messages: messages() },
  { type: 'TOOL_CALL_RESULT', messageId: 'm', toolCallId: 'c1', content: parts(), role: 'tool' },
  { type: 'STATE_DELTA', delta: patch() },
  { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: { steps: [] }, replace: false },
  { type: 'ACTIVITY_DELTA', messageId: 'a', activityType: 'PLAN', patch: patch() },
  { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'tool-call', entityId: 'c1', encryptedValue: 'x', encryptedValueType: 'provider/kind' },
  {
    type: 'RUN_FINISHED', threadId: 't', runId: 'r', result: 0,
    outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'approval', toolCallId: 'c1', responseSchema: { type: 'object' }, expiresAt: 'x', metadata: {}, subagentRunId: 's' }] },
    usage: [{ provider: 'openai', model: 'm', inputTokens: 1, outputTokens: 2, totalTokens: 3, reasoningTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 }],
  },
  { type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: { type: 'success', pendingToolCallIds: ['c1'] } },
  { type: 'RUN_ERROR', message: 'no', code: 'E', usage: [] },
  { type: 'SUBAGENT_STARTED', subagentRunId: 's', name: 'n', description: 'd', parentSubagentRunId: 'q', parentToolCallId: 'c', parentMessageId: 'm' },
  { type: 'SUBAGENT_FINISHED', subagentRunId: 's', result: [], outcome: { type: 'suspended', interruptIds: ['i1'] } },
  { type: 'SUBAGENT_ERROR', subagentRunId: 's', message: 'x', code: 'c' },
  { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', role: 'user', delta: '', name: 'n', subagentRunId: 's' },
  { type: 'TOOL_CALL_CHUNK', toolCallId: 'c', toolCallName: 'f', parentMessageId: 'm', delta: '{' },
  { type: 'CUSTOM', name: 'x', value: null },
  { type: 'RAW', event: { anything: 'goes' }, source: 'openai' },
];

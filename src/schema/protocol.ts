import type { ProtocolVersion } from '../rules/index.ts';
import { EVENT_TYPES } from './event-types.ts';

/**
 * The project's own JSON Schema 2020-12 description of AG-UI, authored as data so that the
 * build can compile it into standalone validators and the enforcement walker can read it.
 * The type admits exactly the keywords both of them understand; a schema using any other
 * keyword would be judged by ajv but silently ignored by the walker.
 */
export interface JsonSchema {
  readonly $schema?: string;
  readonly $id?: string;
  readonly $anchor?: string;
  readonly $ref?: string;
  readonly $defs?: Readonly<Record<string, JsonSchema>>;
  readonly title?: string;
  readonly description?: string;
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'boolean';
  readonly const?: string;
  readonly enum?: readonly string[];
  readonly pattern?: string;
  readonly contentEncoding?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly items?: JsonSchema;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: true;
  readonly unevaluatedProperties?: false;
  readonly allOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  /** Only ever "not null": the schema's way of saying "any JSON value except null". */
  readonly not?: { readonly type: 'null' };
  readonly default?: string | boolean;
}

type Props = Record<string, JsonSchema>;

const MAX_SAFE = 9007199254740991;

const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const str: JsonSchema = { type: 'string' };
const bool: JsonSchema = { type: 'boolean' };
const count: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_SAFE };
const anyJson: JsonSchema = {};
const nonNull: JsonSchema = { not: { type: 'null' } };
const openObject: JsonSchema = { type: 'object', additionalProperties: true };
const listOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const stringEnum = (...values: string[]): JsonSchema => ({ type: 'string', enum: values });
const textOrParts: JsonSchema = { oneOf: [str, listOf(ref('ContentPart'))] };
const unionOf = (...names: string[]): JsonSchema => ({ oneOf: names.map(ref) });

function closed(properties: Props, required: string[] = [], allOf: string[] = []): JsonSchema {
  return {
    type: 'object',
    ...(allOf.length > 0 ? { allOf: allOf.map(ref) } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    unevaluatedProperties: false,
  };
}

/** Run-scoped and conversation-wide events cannot belong to one subagent, so they are not Attributable. */
function event(type: string, properties: Props, required: string[], attributable = true): JsonSchema {
  return closed({ type: { const: type }, ...properties }, ['type', ...required], attributable ? ['BaseEvent', 'Attributable'] : ['BaseEvent']);
}

/** A variant of a discriminated union: `key` carries the constant that names it. */
function variant(key: string, value: string, properties: Props, required: string[] = []): JsonSchema {
  return closed({ [key]: { const: value }, ...properties }, [key, ...required]);
}

/** Messages built on BaseMessage restate its required `id` and `role`, as the reference does. */
function message(role: string, properties: Props, required: string[]): JsonSchema {
  return closed({ role: { const: role }, ...properties }, ['id', 'role', ...required], ['BaseMessage']);
}

/** JSON Patch operations stay open: RFC 6902 section 4 says undefined members are ignored, not rejected. */
function patchOp(op: string, properties: Props, required: string[]): JsonSchema {
  return { type: 'object', properties: { op: { const: op }, ...properties }, required: ['op', ...required] };
}

/**
 * RFC 6901's grammar: empty, or starting with `/`, with every `~` followed by `0` or `1`. The
 * reference spells it `^(/([^/~]|~[01])*)*$`, whose nested groups make V8's backtracking stack
 * grow with the string until a long pointer throws RangeError inside the validator. This form
 * accepts the same strings with only flat loops, which V8 runs in constant stack.
 */
export const JSON_POINTER = '^(?![\\s\\S]*~(?![01]))(?:/[\\s\\S]*)?$';


/** `TEXT_MESSAGE_START` → `TextMessageStartEvent`, the reference's naming. */
const eventDefName = (type: string): string =>
  type.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase()) + 'Event';

function buildDefs(version: ProtocolVersion): Record<string, JsonSchema> {
  // The one difference between the versions: 1.1 added encryptedValueType beside every encryptedValue.
  const encrypted: Props = version === '1.1'
    ? { encryptedValue: str, encryptedValueType: str }
    : { encryptedValue: str };
  const usage = listOf(ref('TokenUsage'));

  const events: Record<string, JsonSchema> = {
    TEXT_MESSAGE_START: event('TEXT_MESSAGE_START', { messageId: str, role: { $ref: '#/$defs/TextMessageRole', default: 'assistant' }, name: str }, ['messageId']),
    TEXT_MESSAGE_CONTENT: event('TEXT_MESSAGE_CONTENT', { messageId: str, delta: str }, ['messageId', 'delta']),
    TEXT_MESSAGE_END: event('TEXT_MESSAGE_END', { messageId: str }, ['messageId']),
    TEXT_MESSAGE_CHUNK: event('TEXT_MESSAGE_CHUNK', { messageId: str, role: ref('TextMessageRole'), delta: str, name: str }, []),
    TOOL_CALL_START: event('TOOL_CALL_START', { toolCallId: str, toolCallName: str, parentMessageId: str }, ['toolCallId', 'toolCallName']),
    TOOL_CALL_ARGS: event('TOOL_CALL_ARGS', { toolCallId: str, delta: str }, ['toolCallId', 'delta']),
    TOOL_CALL_END: event('TOOL_CALL_END', { toolCallId: str }, ['toolCallId']),
    TOOL_CALL_CHUNK: event('TOOL_CALL_CHUNK', { toolCallId: str, toolCallName: str, parentMessageId: str, delta: str }, []),
    TOOL_CALL_RESULT: event('TOOL_CALL_RESULT', { messageId: str, toolCallId: str, content: textOrParts, role: { const: 'tool' } }, ['messageId', 'toolCallId', 'content']),
    STATE_SNAPSHOT: event('STATE_SNAPSHOT', { snapshot: ref('State') }, ['snapshot']),
    STATE_DELTA: event('STATE_DELTA', { delta: ref('JsonPatch') }, ['delta']),
    MESSAGES_SNAPSHOT: event('MESSAGES_SNAPSHOT', { messages: listOf(ref('Message')) }, ['messages'], false),
    ACTIVITY_SNAPSHOT: event('ACTIVITY_SNAPSHOT', { messageId: str, activityType: str, content: openObject, replace: { type: 'boolean', default: true } }, ['messageId', 'activityType', 'content']),
    ACTIVITY_DELTA: event('ACTIVITY_DELTA', { messageId: str, activityType: str, patch: ref('JsonPatch') }, ['messageId', 'activityType', 'patch']),
    RAW: event('RAW', { event: anyJson, source: str }, ['event']),
    CUSTOM: event('CUSTOM', { name: str, value: anyJson }, ['name', 'value']),
    RUN_STARTED: event('RUN_STARTED', { threadId: str, runId: str, protocolVersion: str, parentRunId: str, input: ref('RunAgentInput') }, ['threadId', 'runId'], false),
    RUN_FINISHED: event('RUN_FINISHED', { threadId: str, runId: str, result: nonNull, outcome: ref('RunFinishedOutcome'), usage }, ['threadId', 'runId'], false),
    RUN_ERROR: event('RUN_ERROR', { message: str, code: str, usage }, ['message'], false),
    STEP_STARTED: event('STEP_STARTED', { stepName: str }, ['stepName']),
    STEP_FINISHED: event('STEP_FINISHED', { stepName: str }, ['stepName']),
    REASONING_START: event('REASONING_START', { messageId: str }, ['messageId']),
    REASONING_MESSAGE_START: event('REASONING_MESSAGE_START', { messageId: str, role: { const: 'reasoning' } }, ['messageId', 'role']),
    REASONING_MESSAGE_CONTENT: event('REASONING_MESSAGE_CONTENT', { messageId: str, delta: str }, ['messageId', 'delta']),
    REASONING_MESSAGE_END: event('REASONING_MESSAGE_END', { messageId: str }, ['messageId']),
    REASONING_MESSAGE_CHUNK: event('REASONING_MESSAGE_CHUNK', { messageId: str, delta: str }, []),
    REASONING_END: event('REASONING_END', { messageId: str }, ['messageId']),
    REASONING_ENCRYPTED_VALUE: event('REASONING_ENCRYPTED_VALUE', {
      subtype: ref('ReasoningEncryptedValueSubtype'), entityId: str, encryptedValue: str,
      ...(version === '1.1' ? { encryptedValueType: str } : {}),
    }, ['subtype', 'entityId', 'encryptedValue']),
    SUBAGENT_STARTED: event('SUBAGENT_STARTED', { subagentRunId: ref('SubagentRunId'), name: str, description: str, parentSubagentRunId: ref('SubagentRunId'), parentToolCallId: str, parentMessageId: str }, ['subagentRunId', 'name'], false),
    SUBAGENT_FINISHED: event('SUBAGENT_FINISHED', { subagentRunId: ref('SubagentRunId'), result: nonNull, outcome: ref('SubagentFinishedOutcome') }, ['subagentRunId'], false),
    SUBAGENT_ERROR: event('SUBAGENT_ERROR', { subagentRunId: ref('SubagentRunId'), message: str, code: str }, ['subagentRunId', 'message'], false),
  };
  const eventDefs = Object.fromEntries(EVENT_TYPES.map((t) => [eventDefName(t), events[t] as JsonSchema]));
  const media = (kind: string): JsonSchema => variant('type', kind, { id: str, source: ref('PartSource'), metadata: nonNull }, ['source']);

  return {
    Event: unionOf(...EVENT_TYPES.map(eventDefName)),
    EventType: stringEnum(...EVENT_TYPES),
    // The compositional fragments are open in themselves: the definitions composing them close the shape.
    BaseEvent: {
      type: 'object',
      properties: { type: ref('EventType'), timestamp: { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE }, rawEvent: nonNull, metadata: ref('Metadata') },
      required: ['type'],
    },
    Attributable: { type: 'object', properties: { subagentRunId: ref('SubagentRunId') } },
    SubagentRunId: str,
    Metadata: openObject,
    State: anyJson,
    TextMessageRole: stringEnum('developer', 'system', 'assistant', 'user'),
    Role: stringEnum('developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning'),
    ...eventDefs,
    ReasoningEncryptedValueSubtype: stringEnum('tool-call', 'message'),
    RunFinishedOutcome: unionOf('RunFinishedSuccessOutcome', 'RunFinishedInterruptOutcome', 'RunFinishedCancelledOutcome'),
    RunFinishedSuccessOutcome: variant('type', 'success', { pendingToolCallIds: listOf(str) }),
    RunFinishedInterruptOutcome: variant('type', 'interrupt', { interrupts: { type: 'array', minItems: 1, items: ref('Interrupt') } }, ['interrupts']),
    RunFinishedCancelledOutcome: variant('type', 'cancelled', {}),
    SubagentFinishedOutcome: unionOf('SubagentFinishedSuccessOutcome', 'SubagentFinishedSuspendedOutcome'),
    SubagentFinishedSuccessOutcome: variant('type', 'success', {}),
    SubagentFinishedSuspendedOutcome: variant('type', 'suspended', { interruptIds: listOf(str) }),
    Interrupt: closed(
      { id: str, reason: str, message: str, toolCallId: str, responseSchema: openObject, expiresAt: str, metadata: ref('Metadata') },
      ['id', 'reason'], ['Attributable'],
    ),
    ResumeEntry: closed({ interruptId: str, status: stringEnum('resolved', 'cancelled'), payload: nonNull, metadata: ref('Metadata') }, ['interruptId', 'status']),
    TokenUsage: closed({
      provider: str, model: str, inputTokens: count, outputTokens: count, totalTokens: count,
      reasoningTokens: count, cachedInputTokens: count, cacheWriteInputTokens: count,
    }),
    Message: unionOf('DeveloperMessage', 'SystemMessage', 'AssistantMessage', 'UserMessage', 'ToolMessage', 'ActivityMessage', 'ReasoningMessage'),
    BaseMessage: {
      type: 'object',
      allOf: [ref('Attributable')],
      properties: { id: str, role: str, name: str, ...encrypted, metadata: ref('Metadata') },
      required: ['id', 'role'],
    },
    DeveloperMessage: message('developer', { content: str }, ['content']),
    SystemMessage: message('system', { content: str }, ['content']),
    AssistantMessage: message('assistant', { content: str, toolCalls: listOf(ref('ToolCall')) }, []),
    UserMessage: message('user', { content: textOrParts }, ['content']),
    ToolMessage: closed(
      { id: str, role: { const: 'tool' }, content: textOrParts, toolCallId: str, error: str, ...encrypted, metadata: ref('Metadata') },
      ['id', 'role', 'content', 'toolCallId'], ['Attributable'],
    ),
    ActivityMessage: closed(
      { id: str, role: { const: 'activity' }, activityType: str, content: openObject, metadata: ref('Metadata') },
      ['id', 'role', 'activityType', 'content'], ['Attributable'],
    ),
    ReasoningMessage: closed(
      { id: str, role: { const: 'reasoning' }, content: str, ...encrypted, metadata: ref('Metadata') },
      ['id', 'role', 'content'], ['Attributable'],
    ),
    ToolCall: closed({ id: str, type: { const: 'function' }, function: ref('FunctionCall'), ...encrypted, metadata: ref('Metadata') }, ['id', 'type', 'function']),
    FunctionCall: closed({ name: str, arguments: str }, ['name', 'arguments']),
    ContentPart: unionOf('TextPart', 'ImagePart', 'AudioPart', 'VideoPart', 'DocumentPart'),
    TextPart: variant('type', 'text', { id: str, text: str, metadata: nonNull }, ['text']),
    ImagePart: media('image'),
    AudioPart: media('audio'),
    VideoPart: media('video'),
    DocumentPart: media('document'),
    PartSource: unionOf('DataSource', 'UrlSource', 'FileSource'),
    DataSource: variant('type', 'data', { value: { type: 'string', contentEncoding: 'base64' }, mimeType: str }, ['value', 'mimeType']),
    UrlSource: variant('type', 'url', { value: str, mimeType: str }, ['value']),
    FileSource: variant('type', 'file', { value: str, provider: str, mimeType: str }, ['value']),
    Context: closed({ description: str, value: str }, ['description', 'value']),
    Tool: closed({ name: str, description: str, parameters: nonNull, metadata: ref('Metadata') }, ['name', 'description']),
    RunAgentInput: closed({
      threadId: str, runId: str, protocolVersion: str, parentRunId: str,
      state: { not: { type: 'null' }, $ref: '#/$defs/State' },
      messages: listOf(ref('Message')), tools: listOf(ref('Tool')), context: listOf(ref('Context')),
      forwardedProps: nonNull, resume: listOf(ref('ResumeEntry')),
    }, ['threadId', 'runId', 'messages']),
    SubagentInfo: closed({ name: str, description: str }, ['name']),
    IdentityCapabilities: closed({ name: str, type: str, description: str, version: str, provider: str, documentationUrl: str, metadata: ref('Metadata') }),
    TransportCapabilities: closed({ streaming: bool, websocket: bool, httpBinary: bool, pushNotifications: bool, resumable: bool }),
    ToolsCapabilities: closed({ supported: bool, items: listOf(ref('Tool')), parallelCalls: bool, clientProvided: bool }),
    OutputCapabilities: closed({ structuredOutput: bool, supportedMimeTypes: listOf(str) }),
    StateCapabilities: closed({ snapshots: bool, deltas: bool, memory: bool, persistentState: bool }),
    MultiAgentCapabilities: closed({ supported: bool, delegation: bool, handoffs: bool, subagents: listOf(ref('SubagentInfo')) }),
    ReasoningCapabilities: closed({ supported: bool, streaming: bool, encrypted: bool }),
    MultimodalInputCapabilities: closed({ image: bool, audio: bool, video: bool, pdf: bool, file: bool }),
    MultimodalOutputCapabilities: closed({ image: bool, audio: bool }),
    MultimodalCapabilities: closed({ input: ref('MultimodalInputCapabilities'), output: ref('MultimodalOutputCapabilities') }),
    ExecutionCapabilities: closed({ codeExecution: bool, sandboxed: bool, maxIterations: count, maxExecutionTime: count }),
    HumanInTheLoopCapabilities: closed({ supported: bool, approvals: bool, interventions: bool, feedback: bool, interrupts: bool, approveWithEdits: bool }),
    AgentCapabilities: closed({
      identity: ref('IdentityCapabilities'), transport: ref('TransportCapabilities'), tools: ref('ToolsCapabilities'),
      output: ref('OutputCapabilities'), state: ref('StateCapabilities'), multiAgent: ref('MultiAgentCapabilities'),
      reasoning: ref('ReasoningCapabilities'), multimodal: ref('MultimodalCapabilities'), execution: ref('ExecutionCapabilities'),
      humanInTheLoop: ref('HumanInTheLoopCapabilities'), custom: openObject,
    }),
    JsonPatch: listOf(ref('JsonPatchOperation')),
    JsonPatchOperation: unionOf('AddOperation', 'RemoveOperation', 'ReplaceOperation', 'MoveOperation', 'CopyOperation', 'TestOperation'),
    AddOperation: patchOp('add', { path: ref('JsonPointer'), value: anyJson }, ['path', 'value']),
    RemoveOperation: patchOp('remove', { path: ref('JsonPointer') }, ['path']),
    ReplaceOperation: patchOp('replace', { path: ref('JsonPointer'), value: anyJson }, ['path', 'value']),
    MoveOperation: patchOp('move', { from: ref('JsonPointer'), path: ref('JsonPointer') }, ['from', 'path']),
    CopyOperation: patchOp('copy', { from: ref('JsonPointer'), path: ref('JsonPointer') }, ['from', 'path']),
    TestOperation: patchOp('test', { path: ref('JsonPointer'), value: anyJson }, ['path', 'value']),
    JsonPointer: { type: 'string', pattern: JSON_POINTER },
  };
}

function buildDocument(version: ProtocolVersion): JsonSchema {
  const defs = Object.fromEntries(Object.entries(buildDefs(version)).map(([name, def]) => [name, { $anchor: name, ...def }]));
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    // Our own identifier: this document is the inspector's reading of the spec, not the spec's file.
    $id: `urn:agui-inspector:schema:${version}`,
    title: `AG-UI ${version} (AG-UI Inspector)`,
    description: 'Validates one AG-UI event; #RunAgentInput names the request body. Protocol objects are closed; metadata, activity content, a carried JSON Schema, arbitrary-JSON fields and the JSON Patch operations are open.',
    $ref: '#/$defs/Event',
    $defs: defs,
  };
}

/** Built when a version is first asked for: a process that judges only 1.0 never builds 1.1's. */
const documents: Partial<Record<ProtocolVersion, JsonSchema>> = {};

/** The schema document for a version. Shared and read-only: callers must not mutate it. */
export function schemaFor(version: ProtocolVersion): JsonSchema {
  return (documents[version] ??= buildDocument(version));
}

const eventDefNames: Partial<Record<ProtocolVersion, ReadonlyMap<string, string>>> = {};

/** Every event type a version describes, mapped to the name of its definition; read off the Event union. */
export function eventDefinitions(version: ProtocolVersion): ReadonlyMap<string, string> {
  return (eventDefNames[version] ??= readEventDefinitions(schemaFor(version)));
}

function readEventDefinitions(doc: JsonSchema): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  for (const arm of doc.$defs?.Event?.oneOf ?? []) {
    const name = arm.$ref?.slice('#/$defs/'.length) ?? '';
    const type = doc.$defs?.[name]?.properties?.type?.const;
    if (type !== undefined) names.set(type, name);
  }
  return names;
}

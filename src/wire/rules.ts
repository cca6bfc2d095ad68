import { defineRules } from '../rules/index.ts';

/**
 * What a reader itself can say about the bytes. Anything a successfully read
 * event carries is the shared pipeline's question, never these rules'
 * (basic/processing#every-transport-answers-the-same-way).
 */
export const TRANSPORT_RULES = defineRules({
  sseLineEnding: {
    id: 'transport/sse-line-ending',
    category: 'transport',
    severity: 'warning',
    fatal: false,
    spec: 'basic/transports/http-sse#response',
    title: 'SSE stream framed with CR or CRLF line endings where the binding requires LF',
  },
  sseIncompleteEvent: {
    id: 'transport/sse-incomplete-event',
    category: 'transport',
    severity: 'warning',
    fatal: false,
    spec: 'basic/transports#truncation',
    title: 'Body ended inside an SSE event that no blank line terminated; the SSE standard discards it',
  },
  frameNotJson: {
    id: 'transport/frame-not-json',
    category: 'transport',
    severity: 'error',
    fatal: true,
    spec: 'basic/transports/http-sse#response',
    title: 'Frame payload is not JSON, so it maps to no event',
  },
  frameNotObject: {
    id: 'transport/frame-not-object',
    category: 'transport',
    severity: 'error',
    fatal: true,
    spec: 'basic/transports/http-sse#response',
    title: 'Frame payload is JSON but not an object, so it is not one protocol event',
  },
  invalidUtf8: {
    id: 'transport/invalid-utf8',
    category: 'transport',
    severity: 'warning',
    fatal: false,
    spec: 'basic/transports/http-sse#response',
    title: 'Frame bytes are not valid UTF-8; decoded with U+FFFD replacement as the SSE standard requires',
  },
  protoUnknownVariant: {
    id: 'transport/proto-unknown-variant',
    category: 'transport',
    severity: 'warning',
    fatal: false,
    spec: 'basic/processing#every-transport-answers-the-same-way',
    title: 'Protobuf frame carries only an envelope variant this build cannot name; dropped',
  },
  protoUndecodable: {
    id: 'transport/proto-undecodable',
    category: 'transport',
    severity: 'error',
    fatal: true,
    spec: 'basic/transports/http-protobuf#the-wire-schema',
    title: 'Protobuf frame bytes do not decode as an event message',
  },
  protoTruncatedFrame: {
    id: 'transport/proto-truncated-frame',
    category: 'transport',
    severity: 'warning',
    fatal: false,
    spec: 'basic/transports/http-protobuf#framing',
    title: 'Protobuf body ended mid-frame',
  },
  protoFrameTooLarge: {
    id: 'transport/proto-frame-too-large',
    category: 'transport',
    severity: 'error',
    fatal: true,
    spec: 'basic/transports/http-protobuf#framing',
    title: 'Protobuf length prefix declares a frame too large to buffer; reading stopped',
  },
  jsonlTruncatedLine: {
    id: 'transport/jsonl-truncated-line',
    category: 'transport',
    severity: 'warning',
    fatal: false,
    spec: 'basic/transports#truncation',
    title: 'JSONL body ended inside a line that does not parse',
  },
  jsonBodyMalformed: {
    id: 'transport/json-body-malformed',
    category: 'transport',
    severity: 'error',
    fatal: true,
    spec: 'basic/transports#custom-transports',
    title: 'JSON body is not an array of events',
  },
  jsonBodyTruncated: {
    id: 'transport/json-body-truncated',
    category: 'transport',
    severity: 'warning',
    fatal: false,
    spec: 'basic/transports#truncation',
    title: 'JSON array body ended before the array closed',
  },
});

/**
 * The public surface of src/exchange/: the captured exchange every reader hands on, what counts as AG-UI
 * traffic, and the report shape an analysis fills. It sits below the analyzer and the formats, which both
 * build on it and on nothing of each other.
 */
export { PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SsePeek, envelopeOf, isAgUiEventValue, isBareRunAgentInput, isRunAgentInputText, runAgentInputIn } from './detect.ts';
export { APIS, BODY_NOTES, OUTCOMES, analysedToTheEnd, bodyOf, bytesOnlyAnalysis, sentAtOf } from './exchange.ts';
export type { AnalysisRecord, Api, Arrival, BodyNote, CapturedExchange, Chunk, EntryTimings, Outcome, OverrideMark, SocketClose, SocketConnection, SocketExchange, SocketFrame } from './exchange.ts';
export { MAX_CAPTURE_BYTES } from './exchange.ts';
export { MAX_SOCKET_ROWS, SocketReader, lengthPrefixed, socketExchange, socketExchanges, socketView, type SocketFrameRow, type SocketStep, type SocketView } from './socket.ts';
export type { Era, ExchangeReport, NegotiationVerdict, RunOutcome, RunReport } from './report.ts';
export { withoutUserInfo } from './url.ts';
export { patternError, requestMatches, urlMatches, WILDCARD, type RequestMatch } from './match.ts';

/** The public surface of src/formats/: what code outside the folder may import. */
export { toCurl } from './curl.ts';
export { PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SsePeek, envelopeOf, isBareRunAgentInput, isRunAgentInputText, runAgentInputIn } from './detect.ts';
export { APIS, BODY_NOTES, OUTCOMES, analysedToTheEnd, bodyOf, bytesOnlyAnalysis, sentAtOf } from './exchange.ts';
export type { AnalysisRecord, Api, Arrival, BodyNote, CapturedExchange, Chunk, EntryTimings, Outcome } from './exchange.ts';
export { toFixture } from './fixture.ts';
export { writeHar } from './har.ts';
export { FormatError, HEAD_BYTES, isJsonLine, layoutOf, readExchanges } from './read.ts';
export { withoutUserInfo } from './url.ts';

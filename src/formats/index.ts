/** The public surface of src/formats/: what code outside the folder may import. Readers return exchanges (src/exchange); analysing them is the caller's. */
export { toCurl } from './curl.ts';
export { entryIndexes, writeHar } from './har.ts';
export { FormatError, HEAD_BYTES, isJsonLine, layoutOf, readExchanges, readFixture } from './read.ts';

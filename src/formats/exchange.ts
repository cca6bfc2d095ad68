/** One request/response pair as every reader hands it on: the response body exactly as it arrived. */
export interface CapturedExchange {
  /** Names the exchange in reports. */
  source: string;
  url?: string;
  method?: string;
  status?: number;
  startedDateTime?: string;
  requestContentType?: string;
  /** The request body text as sent. */
  requestBody?: string;
  responseContentType: string;
  /** The response body in arrival order; `time` is ms after the request started. */
  chunks: Chunk[];
  /** The page itself aborted the request or cancelled the body before it ended: a truncation of its own making. */
  abandoned?: boolean;
}

export interface Chunk {
  time: number;
  bytes: Uint8Array;
}

/** The whole response body. */
export function bodyOf(exchange: CapturedExchange): Uint8Array {
  const { chunks } = exchange;
  if (chunks.length === 1) return chunks[0]!.bytes;
  let total = 0;
  for (const c of chunks) total += c.bytes.length;
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c.bytes, at);
    at += c.bytes.length;
  }
  return body;
}

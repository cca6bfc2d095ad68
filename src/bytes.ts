/** Byte helpers shared by the readers, the redactor and the tests. */

const utf8 = new TextEncoder();

/** One buffer holding the parts in order; strings are taken as their UTF-8 bytes. */
export function concatBytes(parts: readonly (Uint8Array | string)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? utf8.encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

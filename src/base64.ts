/** Base64 for byte payloads: native where the platform has it, sliced for the stack where it does not. */

/** Native since Chromium 140 and Firefox 133; the extension supports older versions. */
interface NativeBase64 {
  toBase64?: (this: Uint8Array) => string;
}
const nativeToBase64 = (Uint8Array.prototype as NativeBase64).toBase64;
const nativeFromBase64 = (Uint8Array as { fromBase64?: (s: string) => Uint8Array }).fromBase64;

export function toBase64(bytes: Uint8Array): string {
  if (nativeToBase64) return nativeToBase64.call(bytes);
  // Small slices: spreading or applying tens of thousands of arguments is slow and can overflow the stack.
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 0x1000) parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x1000) as unknown as number[]));
  return btoa(parts.join(''));
}

/** Throws on characters outside the base64 alphabet. */
export function fromBase64(b64: string): Uint8Array {
  if (nativeFromBase64) return nativeFromBase64(b64);
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

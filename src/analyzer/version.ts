import type { ProtocolVersion } from '../rules/index.ts';
import type { NegotiationVerdict } from './types.ts';

/** Versions this tool can judge as, oldest first. */
export const KNOWN_VERSIONS: readonly ProtocolVersion[] = ['1.0', '1.1'];
const NEWEST: ProtocolVersion = '1.1';

/** `MAJOR.MINOR` as numbers, or null when the declaration cannot be interpreted (versioning#version-negotiation). */
export function parseVersion(v: unknown): [number, number] | null {
  if (typeof v !== 'string') return null;
  const m = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** Numeric, component by component: `1.10` is newer than `1.9`. */
export function compareVersions(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

/**
 * The version to judge as: the input's declaration when this tool knows it, the newest known for a
 * newer or uninterpretable one, and 1.0 (the line this tool is built for) when nothing is declared or
 * the peer predates 1.0.
 */
export function consumerVersionFor(declared: unknown): ProtocolVersion {
  const parsed = parseVersion(declared);
  if (!parsed) return declared === undefined ? '1.0' : NEWEST;
  const known = KNOWN_VERSIONS.find((k) => compareVersions(parseVersion(k)!, parsed) === 0);
  if (known) return known;
  return compareVersions(parsed, [1, 0]) < 0 ? '1.0' : NEWEST;
}

export function negotiate(consumer: string, producer: unknown): NegotiationVerdict {
  if (producer === undefined || producer === null) return 'undeclared';
  const p = parseVersion(producer);
  const c = parseVersion(consumer);
  if (!p || !c) return 'uninterpretable';
  const d = compareVersions(p, c);
  return d === 0 ? 'same' : d > 0 ? 'producer-newer' : 'producer-older';
}

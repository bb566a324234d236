/**
 * Numbers as tables print them. A value that rounds to zero prints without a sign: −0.001 is
 * "0.00", not "-0.00", which reads as a direction the figure does not have (an interval's end, a
 * paired difference). The renderer keeps its own copy (renderer/src/format.ts): it imports no
 * values from core/ but the contract.
 */

/** `x.toFixed(digits)`, unsigned when it rounds to zero. */
export function fixed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A difference with its sign always written, the minus as U+2212: "+1.2", "−0.3", "+0.0". */
export function signedFixed(x: number, digits: number): string {
  const s = fixed(x, digits);
  return s.startsWith('-') ? `−${s.slice(1)}` : `+${s}`;
}

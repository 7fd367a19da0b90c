import { randomInt } from 'node:crypto';

/** Probes per text: with ~9.6 bits per text, 1% of the texts never added pass at capacity. */
const PROBES = 7;
const BITS_PER_TEXT = 9.6;
/** Characters hashed, from the end: the last base58 digits are uniform for real signatures. */
const TAIL = 16;
/** FNV-1a's 32-bit prime. */
const FNV_PRIME = 16777619;

/**
 * A Bloom filter of texts (the signatures a store holds): `mightHave` is false only for a
 * text never added, so a lookup it rules out needs no read. A text added is always found;
 * one never added passes about 1% of the time at capacity, and more beyond it. Two
 * FNV-1a hashes from per-process seeds over the length and the last 16 characters, mixed,
 * one probe per bit by double hashing; the size is a power of two so a probe is a mask.
 */
export class SignatureBloom {
  private readonly words: Int32Array;
  private readonly mask: number;
  private readonly seed1 = randomInt(2 ** 30);
  private readonly seed2 = randomInt(2 ** 30);
  private count = 0;
  private h1 = 0;
  private h2 = 0;

  constructor(readonly capacity: number) {
    const bits = 2 ** Math.ceil(Math.log2(Math.max(1024, capacity * BITS_PER_TEXT)));
    this.words = new Int32Array(bits / 32);
    this.mask = bits - 1;
  }

  /** More texts than it was sized for: still right, but ruling out fewer misses. */
  get full(): boolean {
    return this.count > this.capacity;
  }

  add(text: string): void {
    this.hash(text);
    for (let i = 0, bit = this.h1; i < PROBES; i++, bit += this.h2) {
      const at = bit & this.mask;
      this.words[at >>> 5]! |= 1 << (at & 31);
    }
    this.count += 1;
  }

  mightHave(text: string): boolean {
    this.hash(text);
    for (let i = 0, bit = this.h1; i < PROBES; i++, bit += this.h2) {
      const at = bit & this.mask;
      if ((this.words[at >>> 5]! & (1 << (at & 31))) === 0) return false;
    }
    return true;
  }

  private hash(text: string): void {
    let h1 = this.seed1 ^ text.length;
    let h2 = this.seed2 ^ text.length;
    for (let i = Math.max(0, text.length - TAIL); i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, FNV_PRIME);
      h2 = Math.imul(h2 ^ c, FNV_PRIME);
    }
    this.h1 = mix(h1);
    // Odd, so the probes step through distinct bits of the power-of-two table.
    this.h2 = (mix(h2) | 1) >>> 0;
  }
}

/** murmur3's finalizer: FNV's low bits depend on few input bits, and the probes use the low bits. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

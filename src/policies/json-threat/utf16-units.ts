/**
 * Counts the UTF-16 code units that decoding a UTF-8 byte stream produces, one
 * byte at a time, without decoding. It follows the WHATWG UTF-8 decoder (what
 * Buffer#toString and TextDecoder do), replacement characters included, so an
 * invalid sequence counts exactly as the U+FFFD the gateway's JSON.parse will
 * see: malformed bytes can never make a string look shorter than it is.
 */
export class Utf16Counter {
  private needed = 0;
  private seen = 0;
  private lower = 0x80;
  private upper = 0xbf;

  /** The code units completed by this byte (0 while a sequence is still open). */
  take(byte: number): number {
    if (this.needed === 0) return this.lead(byte);
    if (byte < this.lower || byte > this.upper) {
      // The open sequence becomes one U+FFFD and this byte starts afresh.
      this.reset();
      return 1 + this.lead(byte);
    }
    this.lower = 0x80;
    this.upper = 0xbf;
    if (++this.seen < this.needed) return 0;
    // Only a complete 4-byte sequence lies beyond the BMP: a surrogate pair.
    const units = this.needed === 3 ? 2 : 1;
    this.reset();
    return units;
  }

  /** Ends the stream (or a string): a sequence left open becomes one U+FFFD. */
  flush(): number {
    if (this.needed === 0) return 0;
    this.reset();
    return 1;
  }

  private lead(byte: number): number {
    if (byte < 0x80) return 1;
    if (byte >= 0xc2 && byte <= 0xdf) {
      this.needed = 1;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      // E0 and ED narrow the next byte: no overlong forms, no encoded surrogates.
      if (byte === 0xe0) this.lower = 0xa0;
      if (byte === 0xed) this.upper = 0x9f;
      this.needed = 2;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      // F0 and F4 narrow the next byte: no overlong forms, nothing past U+10FFFF.
      if (byte === 0xf0) this.lower = 0x90;
      if (byte === 0xf4) this.upper = 0x8f;
      this.needed = 3;
    } else {
      // A stray continuation byte, C0, C1 or F5-FF: never valid, one U+FFFD.
      return 1;
    }
    return 0;
  }

  private reset(): void {
    this.needed = 0;
    this.seen = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }
}

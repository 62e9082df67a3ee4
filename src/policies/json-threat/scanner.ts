import { UNLIMITED, type JsonLimits, type JsonMeasurements } from './limits.js';
import { Utf16Counter } from './utf16-units.js';

/** An open object or array: all the scanner keeps per level, so its state is O(depth). */
interface Container {
  readonly isObject: boolean;
  count: number;
  /** After `{`, `[` or `,`: the next value (or name) starts a new entry or element. */
  awaitingEntry: boolean;
}

// Where the scanner is. Bytes outside strings are structure; inside, characters.
const STRUCTURE = 0;
const STRING = 1;
const ESCAPE = 2;
const HEX = 3;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isWhitespace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isHexDigit = (b: number) => (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66);

/**
 * Measures a JSON text as it streams in, byte by byte, without parsing or
 * keeping it, and names the first limit it passes. It does not check syntax
 * (JSON.parse does that later): on invalid input it measures what it can, but
 * never throws and never refuses valid JSON that is within the limits.
 */
export class JsonThreatScanner {
  private readonly stack: Container[] = [];
  private readonly utf16 = new Utf16Counter();
  private readonly seen: JsonMeasurements = { depth: 0, objectEntries: 0, arrayElements: 0, nameLength: 0, stringLength: 0, bytes: 0 };
  private mode = STRUCTURE;
  private hexLeft = 0;
  private inName = false;
  private stringLength = 0;
  private stringLimit = 0;
  private violation: string | undefined;

  constructor(private readonly limits: JsonLimits = UNLIMITED) {}

  /** Scans one chunk; returns the violation as soon as a limit is passed (and from then on). */
  write(chunk: Uint8Array): string | undefined {
    // Bytes are counted even past a violation, so the measurements never depend on how the body was cut.
    const allowed = Math.min(chunk.length, this.limits.maxBodySize - this.seen.bytes);
    this.seen.bytes += chunk.length;
    if (this.violation) return this.violation;
    for (let i = 0; i < allowed && !this.violation; i++) this.step(chunk[i] as number);
    if (!this.violation && allowed < chunk.length) this.fail(`body larger than ${counted(this.limits.maxBodySize, 'byte')}`);
    return this.violation;
  }

  /** Ends the text: a string left open is measured as far as it went. */
  end(): string | undefined {
    if (this.violation) return this.violation;
    if (this.mode !== STRUCTURE) {
      this.addUnits(this.utf16.flush());
      this.closeString();
    }
    return this.violation;
  }

  /** The measurements so far (after `end()`, of the whole text). */
  stats(): Readonly<JsonMeasurements> {
    return { ...this.seen };
  }

  private step(b: number): void {
    // No valid UTF-8 JSON holds a raw NUL (it must be escaped); UTF-16 is full
    // of them, and its escaped quotes would close strings early in this scan.
    if (b === 0) return this.fail('a NUL byte: the body is not UTF-8 JSON');
    switch (this.mode) {
      case STRUCTURE:
        return this.structure(b);
      case STRING:
        return this.character(b);
      case ESCAPE:
        // The escape's one unit was counted at the backslash; \u is followed by four hex digits.
        this.mode = b === 0x75 /* u */ ? HEX : STRING;
        this.hexLeft = 4;
        return;
      default:
        if (isHexDigit(b)) {
          if (--this.hexLeft === 0) this.mode = STRING;
          return;
        }
        // A short \u escape is invalid JSON; the byte is read as string content so a quote still ends the string.
        this.mode = STRING;
        return this.character(b);
    }
  }

  private structure(b: number): void {
    if (isWhitespace(b) || b === 0x3a /* : */) return;
    const top = this.stack[this.stack.length - 1];
    if (b === 0x5d /* ] */ || b === 0x7d /* } */) {
      this.stack.pop();
      return;
    }
    if (b === 0x2c /* , */) {
      if (top) top.awaitingEntry = true;
      return;
    }
    // Any other byte starts a value (in an object awaiting an entry, its name).
    const startsEntry = top?.awaitingEntry === true;
    if (top && startsEntry) this.countEntry(top);
    if (b === QUOTE) this.openString(startsEntry && top?.isObject === true);
    else if (b === 0x7b /* { */ || b === 0x5b /* [ */) this.openContainer(b === 0x7b);
  }

  private character(b: number): void {
    if (b === QUOTE) {
      this.addUnits(this.utf16.flush());
      this.closeString();
    } else if (b === BACKSLASH) {
      this.addUnits(this.utf16.flush() + 1);
      this.mode = ESCAPE;
    } else {
      this.addUnits(this.utf16.take(b));
    }
  }

  private countEntry(top: Container): void {
    top.awaitingEntry = false;
    top.count++;
    if (top.isObject) {
      if (top.count > this.seen.objectEntries) this.seen.objectEntries = top.count;
      if (top.count > this.limits.maxObjectEntries) this.fail(`object has more than ${counted(this.limits.maxObjectEntries, 'entry', 'entries')}`);
    } else {
      if (top.count > this.seen.arrayElements) this.seen.arrayElements = top.count;
      if (top.count > this.limits.maxArrayElements) this.fail(`array has more than ${counted(this.limits.maxArrayElements, 'element')}`);
    }
  }

  private openContainer(isObject: boolean): void {
    this.stack.push({ isObject, count: 0, awaitingEntry: true });
    const depth = this.stack.length;
    if (depth > this.seen.depth) this.seen.depth = depth;
    if (depth > this.limits.maxDepth) this.fail(`nested deeper than ${counted(this.limits.maxDepth, 'level')}`);
  }

  private openString(isName: boolean): void {
    this.mode = STRING;
    this.inName = isName;
    this.stringLength = 0;
    this.stringLimit = isName ? this.limits.maxNameLength : this.limits.maxStringLength;
  }

  private addUnits(units: number): void {
    if (units === 0) return;
    this.stringLength += units;
    if (this.stringLength <= this.stringLimit) return;
    this.fail(this.inName
      ? `object entry name longer than ${counted(this.limits.maxNameLength, 'character')}`
      : `string longer than ${counted(this.limits.maxStringLength, 'character')}`);
  }

  private closeString(): void {
    this.mode = STRUCTURE;
    if (this.inName) this.seen.nameLength = Math.max(this.seen.nameLength, this.stringLength);
    else this.seen.stringLength = Math.max(this.seen.stringLength, this.stringLength);
  }

  private fail(detail: string): void {
    this.violation = detail;
  }
}

/** The measurements of a whole text, given in chunks or at once; for tests and tooling. */
export function measureJson(chunks: Iterable<Uint8Array> | string): JsonMeasurements {
  const scanner = new JsonThreatScanner();
  for (const chunk of typeof chunks === 'string' ? [Buffer.from(chunks)] : chunks) scanner.write(chunk);
  scanner.end();
  return scanner.stats();
}

/** `1 level`, `10 levels`: a refusal's detail reads right at a limit of 1 too. Built only on a refusal. */
function counted(limit: number, one: string, many = `${one}s`): string {
  return `${limit} ${limit === 1 ? one : many}`;
}

import { patternSyntaxError } from '../../policies/regex-protection/pattern-set.js';

/**
 * Java regular expressions (what Apigee's RegularExpressionProtection runs,
 * with Matcher.find: found anywhere, case-sensitive unless the pattern says
 * (?i)) rewritten for RE2 with the same meaning, or refused with the reason.
 *
 * Where the two dialects read the same text differently, the Java meaning is
 * spelled out: `.` excludes every Java line terminator (RE2's excludes only
 * \n), `$` also matches before a final line terminator, `\s` includes \x0B,
 * `\v` is vertical whitespace (RE2: only \x0B). What RE2 cannot run at all
 * (lookaround, backreferences, possessive quantifiers, atomic groups) is
 * refused: matching stays linear, and a pattern is never silently weakened.
 */
export type RegexTranslation = { readonly re2: string; readonly notes: readonly string[] } | { readonly refused: string };

const TERMINATORS = String.raw`\n\r\x{85}\x{2028}\x{2029}`;
const JAVA_DOT = `[^${TERMINATORS}]`;
const JAVA_END = String.raw`(?:(?:\r\n|[${TERMINATORS}])?\z)`;
const SPACE = String.raw`\t\n\x0B\f\r `;
const HORIZONTAL = String.raw` \t\x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}`;
const VERTICAL = String.raw`\n\x0B\f\r\x{85}\x{2028}\x{2029}`;
const MAX_REPEAT = 1000; // RE2's own bound on {n,m}

/** Java's POSIX classes are ASCII-only (without UNICODE_CHARACTER_CLASS). */
const POSIX: Readonly<Record<string, string>> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: String.raw`\x00-\x7F`,
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: String.raw`!-/:-@\[-\x60{-~`,
  Graph: '!-~',
  Print: ' -~',
  Blank: String.raw` \t`,
  Cntrl: String.raw`\x00-\x1F\x7F`,
  XDigit: '0-9a-fA-F',
  Space: SPACE,
};

const CATEGORIES = new Set(
  'L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Co Cs Cn'.split(' '),
);

type Piece = { readonly text: string; readonly next: number } | { readonly refused: string };

const refuse = (refused: string): { refused: string } => ({ refused });

export function translateJavaRegex(source: string): RegexTranslation {
  const notes = new Set<string>();
  const unicodeCase = leadingUnicodeCase(source);
  let out = '';
  let at = 0;
  let inClass = false;
  let classStart = 0;
  while (at < source.length) {
    const char = source.charAt(at);
    if (char === '\\') {
      const piece = escapeAt(source, at, inClass, notes);
      if ('refused' in piece) return piece;
      out += piece.text;
      at = piece.next;
      continue;
    }
    if (inClass) {
      if (char === '[') return refuse('a "[" inside a character class (Java reads it as a nested class union, RE2 as a POSIX class)');
      if (char === '&' && source.charAt(at + 1) === '&') return refuse('a class intersection (&&), which RE2 does not have');
      if (char === ']' && at > classStart) inClass = false;
      out += char;
      at++;
      continue;
    }
    switch (char) {
      case '[':
        inClass = true;
        out += '[';
        at++;
        if (source.charAt(at) === '^') {
          out += '^';
          at++;
        }
        classStart = at; // a "]" right here is a literal, in both dialects
        continue;
      case '.':
        out += JAVA_DOT;
        at++;
        continue;
      case '$':
        out += JAVA_END;
        at++;
        continue;
      case '(': {
        const piece = groupAt(source, at, notes, unicodeCase);
        if ('refused' in piece) return piece;
        out += piece.text;
        at = piece.next;
        continue;
      }
      case '*':
      case '+':
      case '?':
        out += char;
        at++;
        if (source.charAt(at) === '+') return refuse('a possessive quantifier (*+, ++, ?+): it needs backtracking control that RE2 has no use for');
        continue;
      case '{': {
        const repeat = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(at));
        if (!repeat) return refuse('a "{" that is not a repetition {n}, {n,} or {n,m}');
        if (Number(repeat[1]) > MAX_REPEAT || (repeat[2] && Number(repeat[2]) > MAX_REPEAT)) {
          return refuse(`a repetition above ${MAX_REPEAT} (RE2's limit): ${repeat[0]}`);
        }
        out += repeat[0];
        at += repeat[0].length;
        if (source.charAt(at) === '+') return refuse('a possessive quantifier ({n,m}+)');
        continue;
      }
      default:
        out += char;
        at++;
    }
  }
  if (inClass) return refuse('an unclosed character class');
  const error = patternSyntaxError(out);
  if (error) return refuse(`RE2 cannot compile the translation: ${error}`);
  return { re2: out, notes: [...notes] };
}

/**
 * Whether the flag groups that open the pattern (`(?u)(?i)...`) leave Java's
 * UNICODE_CASE on: such groups hold for the whole pattern, so a later (?i)
 * folds by Unicode rules in Java too. A (?u) further in may be scoped to a
 * group, and is judged only where it stands.
 */
function leadingUnicodeCase(source: string): boolean {
  let unicode = false;
  for (const group of source.matchAll(/\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)/gy)) {
    if (group[1]?.includes('u')) unicode = true;
    if (group[2]?.includes('u')) unicode = false;
  }
  return unicode;
}

function groupAt(source: string, at: number, notes: Set<string>, unicodeCase: boolean): Piece {
  const rest = source.slice(at);
  if (rest.startsWith('(?:')) return { text: '(?:', next: at + 3 };
  if (/^\(\?<?[=!]/.test(rest)) return refuse('lookaround ((?=, (?!, (?<=, (?<!): RE2 runs in linear time and has none');
  if (rest.startsWith('(?>')) return refuse('an atomic group (?>...)');
  const named = /^\(\?<([A-Za-z][A-Za-z0-9]*)>/.exec(rest);
  if (named) return { text: `(?P<${named[1]}>`, next: at + named[0].length };
  const flags = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(rest);
  if (flags) {
    const on = flags[1] ?? '';
    const off = flags[2] ?? '';
    const unsupported = [...on, ...off].filter((flag) => flag !== 'i' && flag !== 'u');
    if (unsupported.length > 0) {
      return refuse(`the inline flag(s) ${unsupported.map((flag) => `(?${flag})`).join(', ')}; only (?i) (with or without u) is translated`);
    }
    if (on.includes('i') && !on.includes('u') && !unicodeCase) {
      notes.add('(?i) folds case by Unicode rules in RE2 and by ASCII rules in Java without (?u): non-ASCII case variants (like the Kelvin sign for k) also match here');
    }
    const re2On = on.replace(/u/g, '');
    const re2Off = off.replace(/u/g, '');
    const spelled = re2On || re2Off ? `(?${re2On}${re2Off ? `-${re2Off}` : ''}${flags[3]}` : flags[3] === ':' ? '(?:' : '';
    return { text: spelled, next: at + flags[0].length };
  }
  if (rest.startsWith('(?')) return refuse(`an unknown group construct "${rest.slice(0, 4)}"`);
  return { text: '(', next: at + 1 };
}

function escapeAt(source: string, at: number, inClass: boolean, notes: Set<string>): Piece {
  const letter = source.charAt(at + 1);
  const next = at + 2;
  const outsideOnly = (text: string, what: string): Piece => (inClass ? refuse(`${what} inside a character class`) : { text, next });
  const set = (members: string, negated: boolean, what: string): Piece =>
    inClass ? (negated ? refuse(`${what} inside a character class`) : { text: members, next }) : { text: `[${negated ? '^' : ''}${members}]`, next };
  switch (letter) {
    case '':
      return refuse('a trailing backslash');
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 't':
    case 'n':
    case 'r':
    case 'f':
    case 'a':
      return { text: `\\${letter}`, next };
    case 'b':
    case 'B':
      notes.add('\\b is a boundary between ASCII word characters in RE2; Java before version 19 also counted other letters and digits as word characters');
      return outsideOnly(`\\${letter}`, `\\${letter}`);
    case 'A':
    case 'z':
      return outsideOnly(`\\${letter}`, `\\${letter}`);
    case 'Z':
      return outsideOnly(JAVA_END, '\\Z');
    case 'G':
      return refuse('\\G (the end of the previous match), which has no meaning for a single search');
    case 's':
    case 'S':
      return set(SPACE, letter === 'S', '\\S');
    case 'h':
    case 'H':
      return set(HORIZONTAL, letter === 'H', '\\H');
    case 'v':
    case 'V':
      return set(VERTICAL, letter === 'V', '\\V');
    case 'R':
      return outsideOnly(String.raw`(?:\r\n|[${VERTICAL}])`, '\\R');
    case 'X':
      return refuse('\\X (a grapheme cluster)');
    case 'e':
      return { text: String.raw`\x1B`, next };
    case 'c': {
      const control = source.charAt(at + 2);
      if (!control) return refuse('\\c without a letter');
      return { text: codePoint(control.charCodeAt(0) ^ 64), next: at + 3 };
    }
    case '0': {
      const octal = /^[0-3]?[0-7]{1,2}/.exec(source.slice(next))?.[0];
      if (!octal) return refuse('\\0 without octal digits');
      return { text: codePoint(parseInt(octal, 8)), next: next + octal.length };
    }
    case 'x': {
      const hex = /^(?:[0-9a-fA-F]{2}|\{[0-9a-fA-F]{1,6}\})/.exec(source.slice(next))?.[0];
      if (!hex) return refuse('\\x without two hex digits or {hex}');
      return { text: `\\x${hex}`, next: next + hex.length };
    }
    case 'u':
      return unicodeEscape(source, at);
    case 'Q': {
      const end = source.indexOf('\\E', next);
      const literal = source.slice(next, end < 0 ? source.length : end);
      return { text: [...literal].map((char) => literalOf(char)).join(''), next: end < 0 ? source.length : end + 2 };
    }
    case 'E':
      return { text: '', next }; // a \E without \Q: Java ignores it
    case 'k':
      return refuse('a named backreference (\\k<name>)');
    case 'N':
      return refuse('a character by name (\\N{...})');
    case 'p':
    case 'P':
      return property(source, at, inClass, notes);
    default:
      if (/[1-9]/.test(letter)) return refuse(`a backreference (\\${letter}): RE2 matches in linear time and has none`);
      if (/[A-Za-z]/.test(letter)) return refuse(`the escape \\${letter}, which Java refuses too`);
      return { text: literalOf(letter), next };
  }
}

const codePoint = (code: number): string => `\\x{${code.toString(16).toUpperCase()}}`;

/** A character matched as itself, in or out of a class. */
function literalOf(char: string): string {
  if (/[A-Za-z0-9]/.test(char)) return char;
  const code = char.codePointAt(0) ?? 0;
  return code >= 0x21 && code <= 0x7e ? `\\${char}` : codePoint(code);
}

function unicodeEscape(source: string, at: number): Piece {
  const unit = (from: number): number | undefined => {
    const hex = /^\\u([0-9a-fA-F]{4})/.exec(source.slice(from))?.[1];
    return hex === undefined ? undefined : parseInt(hex, 16);
  };
  const first = unit(at);
  if (first === undefined) return refuse('\\u without four hex digits');
  if (first >= 0xd800 && first <= 0xdbff) {
    const second = unit(at + 6);
    if (second !== undefined && second >= 0xdc00 && second <= 0xdfff) {
      return { text: codePoint((first - 0xd800) * 0x400 + (second - 0xdc00) + 0x10000), next: at + 12 };
    }
  }
  if (first >= 0xd800 && first <= 0xdfff) return refuse('a lone surrogate (\\uD800-\\uDFFF)');
  return { text: codePoint(first), next: at + 6 };
}

function property(source: string, at: number, inClass: boolean, notes: Set<string>): Piece {
  const negated = source.charAt(at + 1) === 'P';
  const braced = /^\{\^?([A-Za-z_=]+[A-Za-z0-9_]*)\}/.exec(source.slice(at + 2));
  const bare = braced ? undefined : /^[A-Za-z]/.exec(source.slice(at + 2));
  const name = braced?.[1] ?? bare?.[0];
  if (!name) return refuse(`\\${negated ? 'P' : 'p'} without a property name`);
  const next = at + 2 + (braced ? braced[0].length : 1);
  const posix = POSIX[name];
  if (posix !== undefined) {
    if (inClass && negated) return refuse(`\\P{${name}} inside a character class`);
    return { text: inClass ? posix : `[${negated ? '^' : ''}${posix}]`, next };
  }
  const category = name.replace(/^(?:Is|gc=|general_category=)/, '');
  if (CATEGORIES.has(category)) {
    notes.add('Unicode properties (\\p{...}) follow the Unicode version of re2js, which may differ from the JVM Apigee runs');
    return { text: `\\${negated ? 'P' : 'p'}{${category}}`, next };
  }
  const script = /^(?:Is|script=|sc=)(\w+)$/.exec(name)?.[1];
  if (script) {
    const spelled = script.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()).join('_');
    const text = `\\${negated ? 'P' : 'p'}{${spelled}}`;
    if (patternSyntaxError(text) === undefined) {
      notes.add('Unicode properties (\\p{...}) follow the Unicode version of re2js, which may differ from the JVM Apigee runs');
      return { text, next };
    }
  }
  if (name.startsWith('In') || name.startsWith('block=') || name.startsWith('blk=')) return refuse(`the Unicode block \\p{${name}} (RE2 knows scripts, not blocks)`);
  return refuse(`the property \\p{${name}}, which RE2 does not have`);
}

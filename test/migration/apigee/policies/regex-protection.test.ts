import { describe, expect, it } from 'vitest';
import { translateRegexProtection } from '../../../../src/migration/apigee/policies/regex-protection.js';
import type { PolicyEntry } from '../../../../src/migration/apigee/policies/translation.js';
import { itemsOf, loadError, translateWith } from '../../../helpers/apigee.js';

const translate = (inner: string) => translateWith(translateRegexProtection, `<RegularExpressionProtection name="RE">${inner}</RegularExpressionProtection>`);
const NOTHING = { path: false, query: false, json_body: 'none' };
const pattern = (name: string, re2: string) => ({ name, pattern: re2, case_sensitive: true });
const patternsOf = (entry: PolicyEntry | undefined) => (entry?.patterns ?? []) as Array<{ name: string; pattern: string; case_sensitive: boolean }>;

describe('migration/apigee/policies/regex-protection: RegularExpressionProtection -> regex-protection', () => {
  it.each<[string, string, Record<string, unknown>, string]>([
    // One element: one entry, named as the policy, testing only what the element names (Apigee scopes each <Pattern> to its element).
    ['URIPath', '<URIPath><Pattern>/internal(/|$)</Pattern></URIPath>', { ...NOTHING, path: true }, 'uri-path.1'],
    ['QueryParam', '<QueryParam name="q"><Pattern>or\\s+1=1</Pattern></QueryParam>', { ...NOTHING, query_params: ['q'] }, 'query-q.1'],
    ['Header', '<Header name="X-Customer-Reference"><Pattern>&lt;script</Pattern></Header>', { ...NOTHING, headers: ['X-Customer-Reference'] }, 'header-X-Customer-Reference.1'],
    ['Variable request.header.*', '<Variable name="request.header.X-Ref"><Pattern>x</Pattern></Variable>', { ...NOTHING, headers: ['X-Ref'] }, 'header-X-Ref.1'],
    ['Variable request.queryparam.*', '<Variable name="request.queryparam.id"><Pattern>x</Pattern></Variable>', { ...NOTHING, query_params: ['id'] }, 'query-id.1'],
    ['Variable request.path', '<Variable name="request.path"><Pattern>x</Pattern></Variable>', { ...NOTHING, path: true }, 'uri-path.1'],
    ['JSONPayload', '<JSONPayload><JSONPath><Expression>$.name</Expression><Pattern>drop</Pattern></JSONPath></JSONPayload>', { ...NOTHING, json_body: ['$.name'], json_text: true }, 'json-1.1'],
  ])('scopes the patterns of one <%s> to what it names', (_element, inner, applyTo, patternName) => {
    const { result } = translate(inner);
    expect(result.entries).toHaveLength(1);
    expect(result.entries[0]).toMatchObject({ name: 'orders.P', kind: 'regex-protection', builtin: [], apply_to: applyTo });
    expect(patternsOf(result.entries[0]).map((each) => each.name)).toEqual([patternName]);
    expect(loadError(result.entries[0]!)).toBeUndefined();
  });

  it('writes one entry per element when there are several, each named after what it tests, run one after another', () => {
    const { result } = translate('<URIPath><Pattern>/internal</Pattern></URIPath><QueryParam name="q"><Pattern>a</Pattern><Pattern>b</Pattern></QueryParam><Header name="X-A"><Pattern>c</Pattern></Header>');
    expect(result.entries.map((entry) => entry.name)).toEqual(['orders.P.uri-path', 'orders.P.query-q', 'orders.P.header-X-A']);
    expect(result.entries[1]).toMatchObject({ patterns: [pattern('query-q.1', 'a'), pattern('query-q.2', 'b')] });
    for (const entry of result.entries) expect(loadError(entry)).toBeUndefined();
  });

  it.each<[string, string, Record<string, unknown>, string[]]>([
    // [case, elements that select one thing, what the one entry tests, its pattern names]
    ['two <QueryParam name="q">', '<QueryParam name="q"><Pattern>a</Pattern></QueryParam><QueryParam name="q"><Pattern>b</Pattern><Pattern>c</Pattern></QueryParam>', { ...NOTHING, query_params: ['q'] }, ['query-q.1', 'query-q.2', 'query-q.3']],
    ['<QueryParam name="q"> and request.queryparam.q', '<QueryParam name="q"><Pattern>a</Pattern></QueryParam><Variable name="request.queryparam.q"><Pattern>b</Pattern></Variable>', { ...NOTHING, query_params: ['q'] }, ['query-q.1', 'query-q.2']],
    ['<Header name="X-A"> and request.header.x-a (header names ignore case)', '<Header name="X-A"><Pattern>a</Pattern></Header><Variable name="request.header.x-a"><Pattern>b</Pattern></Variable>', { ...NOTHING, headers: ['X-A'] }, ['header-X-A.1', 'header-X-A.2']],
    ['<URIPath> and request.path', '<URIPath><Pattern>a</Pattern></URIPath><Variable name="request.path"><Pattern>b</Pattern></Variable>', { ...NOTHING, path: true }, ['uri-path.1', 'uri-path.2']],
    ['one JSONPath in two JSONPayloads', '<JSONPayload><JSONPath><Expression>$.a</Expression><Pattern>a</Pattern></JSONPath></JSONPayload><JSONPayload><JSONPath><Expression>$.a</Expression><Pattern>b</Pattern></JSONPath></JSONPayload>', { ...NOTHING, json_body: ['$.a'], json_text: true }, ['json-1.1', 'json-1.2']],
  ])('merges %s into one entry holding every pattern: Apigee tests that one thing with them all', (_case, inner, applyTo, patternNames) => {
    const { result, report } = translate(inner);
    expect(result.entries).toHaveLength(1);
    expect(result.entries[0]).toMatchObject({ name: 'orders.P', apply_to: applyTo });
    expect(patternsOf(result.entries[0]).map((each) => each.name)).toEqual(patternNames);
    expect(loadError(result.entries[0]!)).toBeUndefined();
    expect(report.translated).toHaveLength(2); // each element still has its line
  });

  it('names every entry of a policy once, whatever its elements repeat', () => {
    const { result } = translate(
      '<QueryParam name="q"><Pattern>a</Pattern></QueryParam><QueryParam name="q"><Pattern>b</Pattern></QueryParam><URIPath><Pattern>c</Pattern></URIPath><Variable name="request.path"><Pattern>d</Pattern></Variable>' +
        '<JSONPayload><JSONPath><Expression>$.a</Expression><Pattern>e</Pattern></JSONPath></JSONPayload><JSONPayload><JSONPath><Expression>$.b</Expression><Pattern>f</Pattern></JSONPath></JSONPayload>',
    );
    const names = result.entries.map((entry) => entry.name);
    expect(names).toEqual(['orders.P.query-q', 'orders.P.uri-path', 'orders.P.json-1', 'orders.P.json-2']);
    expect(new Set(names).size).toBe(names.length);
  });

  it('names the entry as the policy when only one element could be translated', () => {
    const { result } = translate('<URIPath><Pattern>a</Pattern></URIPath><FormParam name="f"><Pattern>b</Pattern></FormParam>');
    expect(result.entries.map((entry) => entry.name)).toEqual(['orders.P']);
  });

  it('matches case-sensitively and anywhere, as Java does, keeping the Java meaning in RE2', () => {
    const { result, report } = translate('<URIPath><Pattern>abc$</Pattern></URIPath>');
    const [only] = patternsOf(result.entries[0]);
    expect(only?.case_sensitive).toBe(true);
    expect(only?.pattern).not.toBe('abc$'); // Java's $ also matches before a final line terminator
    expect(report.notTranslated).toEqual([]);
  });

  it("says what to do with a pattern RE2 cannot run without claiming other patterns are in force when none is", () => {
    const { result, report } = translate('<QueryParam name="q"><Pattern>^(?!\\d+$).*</Pattern></QueryParam>');
    expect(result.entries).toEqual([]);
    expect(report.notTranslated.map((item) => item.todo)).toContainEqual(
      'rewrite the pattern without it (RE2 syntax, linear time) and add it to the policy file; whatever of this policy could be translated is written and in force',
    );
  });

  it('leaves a pattern RE2 cannot run behind, with the reason, and keeps the others in force', () => {
    const { result, report } = translate('<QueryParam name="q"><Pattern>^(?!\\d+$).*</Pattern><Pattern>(a)\\1</Pattern><Pattern>select</Pattern></QueryParam>');
    expect(result.entries[0]).toMatchObject({ patterns: [pattern('query-q.3', 'select')] });
    expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(/<Pattern>\^\(\?!\\d\+\$\)\.\*: not translated to RE2: .*lookaround/), expect.stringMatching(/<Pattern>\(a\)\\1: not translated to RE2: .*backreference/)]);
  });

  it('leaves a URIPath pattern for percent-encoded text behind: the gateway tests the decoded path', () => {
    const { result, report } = translate('<URIPath><Pattern>%27</Pattern><Pattern>\'</Pattern></URIPath>');
    expect(result.entries[0]).toMatchObject({ patterns: [pattern('uri-path.2', "'")] });
    expect(itemsOf(report).notTranslated).toEqual(['RegularExpressionProtection RE: <Pattern>%27: the pattern looks for percent-encoded text, and the gateway tests the decoded path']);
  });

  it.each<[string, string, RegExp]>([
    ['a FormParam', '<FormParam name="comment"><Pattern>x</Pattern></FormParam>', /^RegularExpressionProtection RE: <FormParam name="comment">: the gateway does not inspect form bodies/],
    ['an XMLPayload', '<XMLPayload><XPath><Expression>/a</Expression><Pattern>x</Pattern></XPath></XMLPayload>', /^RegularExpressionProtection RE: <XMLPayload>: the gateway does not inspect XML bodies/],
    ['a Variable that is no part of the request', '<Variable name="proxy.pathsuffix"><Pattern>x</Pattern></Variable>', /^RegularExpressionProtection RE: <Variable name="proxy.pathsuffix">: the gateway tests the path, query parameters, headers and JSON bodies/],
    ['a JSONPath the gateway\'s selectors cannot express', '<JSONPayload><JSONPath><Expression>$..name</Expression><Pattern>x</Pattern></JSONPath></JSONPayload>', /^RegularExpressionProtection RE: <JSONPath> \$\.\.name: the gateway's selectors are/],
    ['a JSONPayload with escapeSlashCharacter', '<JSONPayload escapeSlashCharacter="true"><JSONPath><Expression>$.a</Expression><Pattern>x</Pattern></JSONPath></JSONPayload>', /^RegularExpressionProtection RE: <JSONPayload escapeSlashCharacter="true">: Apigee then tests the selected text with every \/ written as \\\//],
    ['a response Source', '<Source>response</Source><URIPath><Pattern>x</Pattern></URIPath>', /^RegularExpressionProtection RE: <Source>response: the gateway tests requests only/],
  ])('leaves %s behind', (_what, inner, item) => {
    const { result, report } = translate(inner);
    expect(result.entries).toEqual([]);
    expect(itemsOf(report).notTranslated).toContainEqual(expect.stringMatching(item));
  });

  it('accounts for an element without a <Pattern>: it tests nothing, here as in Apigee, and the report says so', () => {
    const { result, report } = translate('<QueryParam name="q"/><Header name="X-A"><Pattern>a</Pattern></Header><JSONPayload><JSONPath><Expression>$.a</Expression></JSONPath></JSONPayload>');
    expect(result.entries.map((entry) => entry.name)).toEqual(['orders.P.header-X-A']);
    expect(itemsOf(report).translated).toEqual([
      'RegularExpressionProtection RE: <QueryParam name="q"> -> nothing (no <Pattern>: Apigee tests nothing there either)',
      'RegularExpressionProtection RE: <Header name="X-A"> -> regex-protection orders.P.header-X-A (1 pattern, case-sensitive)',
      'RegularExpressionProtection RE: <JSONPath> -> nothing (no <Pattern>: Apigee tests nothing there either)',
    ]);
    expect(report.complete).toBe(true);
  });

  it('says when nothing is left to test', () => {
    expect(itemsOf(translate('<FormParam name="a"><Pattern>x</Pattern></FormParam>').report).notTranslated).toContain('RegularExpressionProtection RE: nothing left to test');
  });

  it.each<[string, boolean]>([
    ['<IgnoreUnresolvedVariables>false</IgnoreUnresolvedVariables>', true],
    ['', true],
    ['<IgnoreUnresolvedVariables>true</IgnoreUnresolvedVariables>', false],
  ])('with %j, states that Apigee failed a request lacking the named input: %s', (inner, stated) => {
    const differences = itemsOf(translate(`${inner}<QueryParam name="q"><Pattern>x</Pattern></QueryParam>`).report).differences;
    expect(differences.some((difference) => difference.includes('Apigee fails (500) a request that lacks this header, parameter or variable'))).toBe(stated);
  });

  it.each<[string, string, RegExp]>([
    ['a header is tested value by value, whole', '<Header name="X-A"><Pattern>x</Pattern></Header>', /each value of the header is tested whole, as sent/],
    ['the path is tested decoded', '<URIPath><Pattern>x</Pattern></URIPath>', /the path is tested percent-decoded once/],
    ['a JSONPath with a wildcard tests each node on its own', '<JSONPayload><JSONPath><Expression>$.items[*].name</Expression><Pattern>x</Pattern></JSONPath></JSONPayload>', /\$\.items\[\*\]\.name selects several nodes: each is tested on its own/],
    ['only JSON bodies are tested, and invalid JSON as text', '<JSONPayload><JSONPath><Expression>$.a</Expression><Pattern>x</Pattern></JSONPath></JSONPayload>', /only JSON bodies .* are tested; a body that is not valid JSON is tested whole as text/],
  ])('states that %s', (_what, inner, difference) => {
    expect(itemsOf(translate(inner).report).differences).toContainEqual(expect.stringMatching(difference));
  });

  it('reports an element it does not know', () => {
    expect(itemsOf(translate('<URIPath><Pattern>x</Pattern></URIPath><Cookie name="a"/>').report).notTranslated).toEqual(['RegularExpressionProtection RE: <Cookie>: an element this import does not know for this policy type']);
  });
});

import { describe, expect, it } from 'vitest';
import { toXmlDocument } from '../../src/http/xml.js';

describe('XML for Accept: application/xml', () => {
  it('writes a flat record, every value as text, absent fields left out', () => {
    expect(toXmlDocument('TokenResponse', { token_type: 'Bearer', expires_in: 1800, ok: true, missing: undefined })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<TokenResponse><token_type>Bearer</token_type><expires_in>1800</expires_in><ok>true</ok></TokenResponse>\n',
    );
  });

  it('writes lists of records as items', () => {
    expect(toXmlDocument('Error', { errors: [{ errorCode: 'A' }, { errorCode: 'B' }] }, 'error')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><errors><error><errorCode>A</errorCode></error><error><errorCode>B</errorCode></error></errors></Error>\n',
    );
  });

  it('escapes the five XML special characters in values', () => {
    expect(toXmlDocument('r', { v: `<a href="x">&'</a>` })).toContain('<v>&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;</v>');
  });
});

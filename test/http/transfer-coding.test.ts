import { describe, expect, it } from 'vitest';
import { assertDecodableTransferCoding, isChunkedAlone } from '../../src/http/transfer-coding.js';

describe('the transfer codings a request may use', () => {
  it.each(['chunked', 'Chunked', 'CHUNKED', ' chunked ', '\tchunked', 'chunked,', ', chunked', 'chunked , '])('takes %j: chunked alone', (value) => {
    expect(isChunkedAlone(value)).toBe(true);
  });

  it.each(['gzip, chunked', 'GZIP,chunked', 'deflate, chunked', 'x-custom, chunked', 'chunked, chunked', 'identity, chunked', 'gzip', '', ' , ', 'chunkedx'])(
    'refuses %j: a coding other than chunked, or none, or chunked twice',
    (value) => {
      expect(isChunkedAlone(value)).toBe(false);
    },
  );
});

describe('assertDecodableTransferCoding: 501 with the connection closed for a coding the gateway does not decode', () => {
  it('passes no header and chunked alone', () => {
    expect(() => assertDecodableTransferCoding(undefined)).not.toThrow();
    expect(() => assertDecodableTransferCoding(' Chunked ')).not.toThrow();
  });
  it('refuses gzip, chunked as UNSUPPORTED_TRANSFER_CODING, closing the connection', () => {
    expect(() => assertDecodableTransferCoding('gzip, chunked')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_TRANSFER_CODING', headers: { Connection: 'close' } }));
  });
});

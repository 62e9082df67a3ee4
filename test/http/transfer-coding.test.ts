import { describe, expect, it } from 'vitest';
import { isChunkedAlone } from '../../src/http/transfer-coding.js';

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

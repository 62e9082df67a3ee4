import { describe, expect, it } from 'vitest';
import { RequestFileError, targetOf } from '../../src/cli/request-from-file.js';

describe('the target of a request from a file: its path and query, never its host', () => {
  it.each([
    ['https://api.example.com/a/b?c=1&d=%27', '/a/b?c=1&d=%27'],
    ['http://127.0.0.1:8080/a', '/a'],
    ['api.example.com/a?b', '/a?b'],
    ['/already/a/path?x', '/already/a/path?x'],
  ])('%s is %s', (url, target) => {
    expect(targetOf(url, 'request.har')).toBe(target);
  });

  it('refuses what is not a URL', () => {
    expect(() => targetOf('http://[', 'request.har')).toThrow(new RequestFileError('request.har: "http://[" is not a URL'));
  });
});

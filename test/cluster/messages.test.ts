import { describe, expect, it } from 'vitest';
import { isAsk, isReply } from '../../src/cluster/messages.js';

describe('messages between the primary and its workers', () => {
  it.each([
    [{ type: 'token-gateway:ask', id: 1, question: { kind: 'metrics' } }, true],
    [{ type: 'token-gateway:ask', id: '1', question: { kind: 'metrics' } }, false],
    [{ type: 'token-gateway:ask', id: 1 }, false],
    [{ type: 'token-gateway:ask', id: 1, question: null }, false],
    [{ type: 'token-gateway:reply', id: 1, answer: {} }, false],
    [{ cmd: 'NODE_CLUSTER', id: 1 }, false],
    ['token-gateway:ask', false],
    [null, false],
  ])('isAsk(%j) is %s', (message, expected) => {
    expect(isAsk(message)).toBe(expected);
  });

  it.each([
    [{ type: 'token-gateway:reply', id: 7, answer: { status: 200 } }, true],
    [{ type: 'token-gateway:reply', id: 7 }, true],
    [{ type: 'token-gateway:reply', id: 'seven' }, false],
    [{ type: 'token-gateway:ask', id: 7, question: {} }, false],
    [undefined, false],
    [42, false],
  ])('isReply(%j) is %s', (message, expected) => {
    expect(isReply(message)).toBe(expected);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';
import { rawConversation } from '../helpers/raw-http.js';
import { errorEnvelope } from '../../src/http/render-error.js';
import { catalogue } from '../../src/errors/catalogue.js';

describe('the error envelope', () => {
  it("is the reference service's envelope, its message from the catalogue", () => {
    expect(errorEnvelope('INVALID_USER_CREDENTIALS', 'req-1', false)).toEqual({
      success: false,
      requestId: 'req-1',
      errors: [{ errorCode: 'INVALID_USER_CREDENTIALS', errorType: 'Unauthorized', message: catalogue.INVALID_USER_CREDENTIALS.message }],
    });
  });

  it('adds RFC 6749 error and error_description on the OAuth endpoints', () => {
    expect(errorEnvelope('INVALID_USER_CREDENTIALS', 'req-1', true)).toMatchObject({ error: 'invalid_grant', error_description: catalogue.INVALID_USER_CREDENTIALS.message });
  });
});

describe('answering a request whose body was not read', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('reads and discards a small body refused before it mattered, answers, and keeps the connection (no reset)', async () => {
    const { text } = await rawConversation(
      tg.url,
      [
        'POST /business/score/v2/directors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n',
        '{"a":"bc"}',
        'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ],
      100,
    );
    const [refusal, next] = text.split(/(?=HTTP\/1\.1 )/);
    expect(refusal).toMatch(/^HTTP\/1\.1 401 /);
    expect(refusal).not.toMatch(/^connection: close/im);
    expect(next).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers with the connection closed when the announced body does not come (bounded wait)', async () => {
    const { text, closed } = await rawConversation(tg.url, ['POST /business/score/v2/directors HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n']);
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).toMatch(/^connection: close/im);
    expect(closed).toBe(true);
  });
});

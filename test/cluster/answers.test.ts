import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminOperation } from '../../src/admin/operation.js';
import { answerPrimary, type PrimaryLink } from '../../src/cluster/answers.js';
import type { Reply } from '../../src/cluster/messages.js';
import { eventually } from '../helpers/eventually.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

const ECHO: AdminOperation = { path: '/admin/v1/test/echo', method: 'POST', run: async (ctx, input) => ({ status: 201, body: { input, issuer: ctx.issuer } }) };
const BROKEN: AdminOperation = {
  path: '/admin/v1/test/broken',
  method: 'POST',
  run: async () => {
    throw new Error('defect in the operation');
  },
};

/** A worker's side of the conversation, on a real gateway's context, over an in-memory link. */
describe("a worker's answers to its primary", () => {
  let tg: TestGateway;
  const replies: Reply[] = [];
  let ask: (message: unknown) => void = () => undefined;
  beforeAll(async () => {
    tg = await bootGateway();
    const link: PrimaryLink = { onMessage: (listener) => void (ask = listener), send: (message) => void replies.push(message) };
    answerPrimary(() => tg.gateway.context, link, [ECHO, BROKEN]);
  });
  afterAll(() => tg.close());

  const answerTo = async (id: number, question: unknown) => {
    ask({ type: 'token-gateway:ask', id, question });
    return (await eventually(() => replies.find((reply) => reply.id === id), { what: `the reply to question ${id}` })).answer;
  };

  it('answers readiness with its own checks', async () => {
    expect(await answerTo(1, { kind: 'readiness' })).toMatchObject({ ready: true });
  });

  it("answers metrics with its whole registry, as prom-client's JSON", async () => {
    const metrics = (await answerTo(2, { kind: 'metrics' })) as Array<{ name: string }>;
    expect(metrics.map((metric) => metric.name)).toContain('token_gateway_requests_total');
  });

  it('runs an operation with its own context in force', async () => {
    expect(await answerTo(3, { kind: 'operation', path: ECHO.path, input: { a: 1 } })).toEqual({ status: 201, body: { input: { a: 1 }, issuer: tg.gateway.context.issuer } });
  });

  it('answers an operation it does not have with 404, and a failing one with 500, logged', async () => {
    expect(await answerTo(4, { kind: 'operation', path: '/admin/v1/none', input: {} })).toEqual({ status: 404, body: { error: 'no admin endpoint at /admin/v1/none' } });
    expect(await answerTo(5, { kind: 'operation', path: BROKEN.path, input: {} })).toEqual({ status: 500, body: { error: 'unexpected failure; see the gateway log' } });
    expect(tg.logs.some((line) => line.msg === 'admin request failed' && line.path === BROKEN.path)).toBe(true);
  });

  it('ignores messages that are not questions', async () => {
    const before = replies.length;
    ask({ cmd: 'NODE_CLUSTER' });
    ask({ type: 'token-gateway:reply', id: 6, answer: {} });
    await answerTo(7, { kind: 'readiness' });
    expect(replies.length).toBe(before + 1);
  });
});

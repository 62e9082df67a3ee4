import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { createLogger } from '../../src/log/logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', destination) };
}

describe('logger', () => {
  it('logs a GatewayError as err, with its cause, without throwing (it used to crash the process)', () => {
    const { lines, logger } = capture();
    const error = new GatewayError('SERVICE_UNAVAILABLE', { detail: 'redis is reconnecting', cause: new Error('connection lost') });
    expect(() => logger.warn({ err: error }, 'could not load the changed key ring')).not.toThrow();
    expect(() => logger.warn({ err: error }, 'the same error again')).not.toThrow();
    expect(lines[0]).toMatchObject({ msg: 'could not load the changed key ring', err: { type: 'GatewayError', code: 'SERVICE_UNAVAILABLE', detail: 'redis is reconnecting' } });
    expect(String((lines[0]?.err as { message: string }).message)).toContain('connection lost');
    expect(lines[0]).toHaveProperty('pid', process.pid);
  });
});

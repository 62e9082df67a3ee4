import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import { publicationLeadMs } from '../../../src/keys/publication.js';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, callProtected, type TestGateway } from '../../helpers/gateway.js';
import { cli, cliConfig, login, makeFolder, removeFolder } from '../../helpers/admin-cli.js';

beforeAll(makeFolder);
afterAll(removeFolder);

describe("token-gateway keys rotate (on the test's clock)", () => {
  const LEAD = publicationLeadMs(24 * 3_600_000);
  let tg: TestGateway;
  let clock: ManualClock;
  let config: string;
  beforeEach(async () => {
    clock = new ManualClock();
    tg = await bootGateway({ clock });
    config = await cliConfig(tg);
  });
  afterEach(() => tg.close());

  it('keys rotate: new tokens carry the published next key, earlier ones keep verifying', async () => {
    const before = await login(tg);
    clock.advance(LEAD);
    const outcome = await cli('keys', 'rotate', '--config', config);
    expect(outcome.code).toBe(0);
    const kid = /^new signing key: (\S+) \(signs from /.exec(outcome.stdout)?.[1];
    expect(kid).toBeDefined();
    expect(outcome.stdout).toContain(decodeProtectedHeader(before.access_token).kid);
    expect(outcome.stdout).toMatch(/^confirmed by: {4}\S+$/m);
    expect(decodeProtectedHeader((await login(tg)).access_token).kid).toBe(kid);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    expect(outcome.stderr).toBe('');
  });

  it('keys rotate: says until when the current key goes on signing when the next one is too new', async () => {
    const before = await login(tg);
    const outcome = await cli('keys', 'rotate', '--config', config);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^new signing key: \S+ \(signs only from \S+\)$/m);
    expect(outcome.stdout).toContain(`until then:      ${decodeProtectedHeader(before.access_token).kid} goes on signing`);
    expect(outcome.stderr).toMatch(/^note: /);
  });

  it('keys rotate --drop-previous: warns loudly, and tokens signed before are refused', async () => {
    const before = await login(tg);
    clock.advance(LEAD);
    const outcome = await cli('keys', 'rotate', '--drop-previous', '--config', config);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`dropped keys:    ${decodeProtectedHeader(before.access_token).kid}`);
    expect(outcome.stderr).toMatch(/^WARNING: every access token signed by a dropped key is refused/);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(401);
  });

  it('keys rotate --drop-previous too early: the refusal says from when, and about --emergency', async () => {
    const outcome = await cli('keys', 'rotate', '--drop-previous', '--config', config);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('"immediate": true');
  });

  it('keys rotate --emergency --drop-previous: a brand-new key at once, both warnings', async () => {
    const before = await login(tg);
    clock.advance(1_000);
    const outcome = await cli('keys', 'rotate', '--emergency', '--drop-previous', '--config', config);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain('brand-new key signs from now on');
    expect(outcome.stderr).toContain('every access token signed by a dropped key is refused');
    expect((await callProtected(tg.url, before.access_token)).status).toBe(401);
  });
});

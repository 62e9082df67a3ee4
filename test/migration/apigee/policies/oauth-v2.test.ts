import { describe, expect, it } from 'vitest';
import { translateOAuthV2 } from '../../../../src/migration/apigee/policies/oauth-v2.js';
import { itemsOf, translateWith } from '../../../helpers/apigee.js';

const translate = (inner: string) => translateWith(translateOAuthV2, `<OAuthV2 name="OA">${inner}</OAuthV2>`);

describe('migration/apigee/policies/oauth-v2: OAuthV2 -> the token service and protected routes', () => {
  it('marks a route protected for VerifyAccessToken (every route requires a Bearer token) and writes no policy', () => {
    const { result, report } = translate('<Operation>VerifyAccessToken</Operation>');
    expect(result).toEqual({ entries: [], verifiesToken: true });
    expect(itemsOf(report).translated).toEqual(['OAuthV2 OA -> the route requires a valid Bearer access token (every route does)']);
    expect(report.complete).toBe(true);
  });

  it('leaves a VerifyAccessToken Scope behind: the gateway\'s tokens carry no scopes', () => {
    const { result, report } = translate('<Operation>VerifyAccessToken</Operation><Scope>orders:read</Scope>');
    expect(result.verifiesToken).toBe(true);
    expect(itemsOf(report).notTranslated).toEqual(["OAuthV2 OA: <Scope>orders:read: the gateway's tokens carry no scopes"]);
  });

  it.each([['GenerateAccessToken'], ['RefreshAccessToken']])('carries %s lifetimes to tokens.access_ttl and tokens.refresh_ttl, in the largest exact unit', (operation) => {
    const { result, report } = translate(`<Operation>${operation}</Operation><ExpiresIn>1800000</ExpiresIn><RefreshTokenExpiresIn>86400000</RefreshTokenExpiresIn><SupportedGrantTypes><GrantType>password</GrantType><GrantType>refresh_token</GrantType></SupportedGrantTypes><GenerateResponse enabled="true"/>`);
    expect(result).toEqual({ entries: [], tokens: { access_ttl: '30m', refresh_ttl: '24h' } });
    expect(itemsOf(report).translated).toEqual(['OAuthV2 OA: <ExpiresIn>1800000 -> tokens.access_ttl: 30m', 'OAuthV2 OA: <RefreshTokenExpiresIn>86400000 -> tokens.refresh_ttl: 24h']);
    expect(itemsOf(report).differences).toEqual([expect.stringMatching(/tokens Apigee issued are not accepted/)]);
    expect(report.complete).toBe(true);
  });

  it('leaves the lifetimes unset when the policy sets none', () => {
    expect(translate('<Operation>GenerateAccessToken</Operation>').result).toEqual({ entries: [], tokens: {} });
  });

  it.each<[string, string]>([
    ['-1', 'a token that never expires'],
    ['999', 'not a lifetime of at least one second in milliseconds'],
    ['0', 'not a lifetime of at least one second in milliseconds'],
    ['30m', 'not a lifetime of at least one second in milliseconds'],
    ['', 'not a lifetime of at least one second in milliseconds'],
  ])('leaves an ExpiresIn of %j behind: %s', (text, why) => {
    const { result, report } = translate(`<Operation>GenerateAccessToken</Operation><ExpiresIn>${text}</ExpiresIn>`);
    expect(result.tokens).toEqual({});
    expect(itemsOf(report).notTranslated).toEqual([`OAuthV2 OA: <ExpiresIn>${text}: ${why}`]);
  });

  it('carries the literal default of a lifetime read from a variable, and states it', () => {
    const { result, report } = translate('<Operation>GenerateAccessToken</Operation><ExpiresIn ref="app.ttl">3600000</ExpiresIn>');
    expect(result.tokens).toEqual({ access_ttl: '1h' });
    expect(itemsOf(report).differences).toContain('OAuthV2 OA: the lifetime was read from app.ttl first; the literal default 3600000 ms is what was carried over');
  });

  it.each([['client_credentials'], ['authorization_code'], ['implicit']])('leaves the grant type %s behind: only password and refresh_token are issued here', (grant) => {
    const { report } = translate(`<Operation>GenerateAccessToken</Operation><SupportedGrantTypes><GrantType>password</GrantType><GrantType>${grant}</GrantType></SupportedGrantTypes>`);
    expect(itemsOf(report).notTranslated).toEqual([`OAuthV2 OA: grant type ${grant}: the gateway issues tokens for the password grant and the refresh grant only`]);
  });

  it.each([['InvalidateToken'], ['ValidateToken'], ['GenerateAuthorizationCode'], ['']])('leaves the operation %j behind, writing nothing', (operation) => {
    const { result, report } = translate(operation ? `<Operation>${operation}</Operation>` : '');
    expect(result).toEqual({ entries: [] });
    expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(new RegExp(`^OAuthV2 OA \\(Operation ${operation || 'missing'}\\): the gateway's token service`))]);
  });

  it('reports an element it does not know, whatever the operation', () => {
    const { report } = translate('<Operation>VerifyAccessToken</Operation><CacheExpiryInSeconds>60</CacheExpiryInSeconds>');
    expect(itemsOf(report).notTranslated).toEqual(['OAuthV2 OA: <CacheExpiryInSeconds>: an element this import does not know']);
  });
});

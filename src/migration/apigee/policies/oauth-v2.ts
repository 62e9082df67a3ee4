import { durationText } from '../names.js';
import type { PolicyXml } from '../policy-xml.js';
import { placeIn } from '../policy-xml.js';
import { childElement, childElements, childText, textOf, type Element } from '../xml.js';
import { titleOf, type TranslateContext, type TranslatedPolicy } from './translation.js';

/** Elements that change nothing the gateway's token service would do differently. */
const INERT = ['DisplayName', 'Properties', 'Operation', 'ExpiresIn', 'RefreshTokenExpiresIn', 'SupportedGrantTypes', 'GrantType', 'GenerateResponse', 'ExternalAuthorization', 'AccessToken', 'RefreshToken', 'Tokens', 'UserName', 'PassWord', 'Scope', 'AccessTokenPrefix', 'ReuseRefreshToken', 'Attributes', 'ClientId', 'StoreToken'];
const OUR_GRANTS = new Set(['password', 'refresh_token']);

/**
 * OAuthV2. GenerateAccessToken and RefreshAccessToken are what the gateway's
 * own token endpoint does: their lifetimes map to tokens.access_ttl and
 * tokens.refresh_ttl. VerifyAccessToken is what every route of the gateway
 * does: it marks the route protected. Other operations have no counterpart.
 */
export function translateOAuthV2(policy: PolicyXml, { report }: TranslateContext): TranslatedPolicy {
  const title = titleOf(policy);
  const operation = childText(policy.root, 'Operation') ?? '';
  for (const element of childElements(policy.root)) {
    if (!INERT.includes(element.localName ?? '')) {
      report.leftBehind(placeIn(policy.file, element), `${title}: <${element.localName}>`, 'an element this import does not know', 'check its meaning in Apigee\'s reference and carry it over by hand');
    }
  }
  if (operation === 'VerifyAccessToken') {
    const scope = childText(policy.root, 'Scope');
    if (scope) {
      report.leftBehind(placeIn(policy.file, childElement(policy.root, 'Scope') as Element), `${title}: <Scope>${scope}`, 'the gateway\'s tokens carry no scopes', 'check scopes at the upstream, or keep the API on Apigee');
    }
    report.carried(policy.place, title, 'the route requires a valid Bearer access token (every route does)');
    return { entries: [], verifiesToken: true };
  }
  if (operation !== 'GenerateAccessToken' && operation !== 'RefreshAccessToken') {
    report.leftBehind(policy.place, `${title} (Operation ${operation || 'missing'})`, 'the gateway\'s token service issues, refreshes, revokes and verifies tokens itself, and has no other OAuth operation', 'serve this operation elsewhere, or drop it');
    return { entries: [] };
  }
  const grants = childElements(childElement(policy.root, 'SupportedGrantTypes') ?? policy.root, 'GrantType').map((grant) => textOf(grant) ?? '');
  for (const grant of grants.filter((grant) => !OUR_GRANTS.has(grant))) {
    report.leftBehind(policy.place, `${title}: grant type ${grant}`, 'the gateway issues tokens for the password grant and the refresh grant only', 'keep the clients of this grant type on Apigee, or move them to the password grant');
  }
  const tokens: { access_ttl?: string; refresh_ttl?: string } = {};
  const lifetime = (name: string, key: 'access_ttl' | 'refresh_ttl'): void => {
    const element = childElement(policy.root, name);
    if (!element) return;
    const text = textOf(element) ?? '';
    const place = placeIn(policy.file, element);
    if (!/^\d+$/.test(text) || Number(text) < 1_000) {
      report.leftBehind(place, `${title}: <${name}>${text}`, text === '-1' ? 'a token that never expires' : 'not a lifetime of at least one second in milliseconds', `set tokens.${key} in gateway.yaml to the lifetime you want`);
      return;
    }
    tokens[key] = durationText(Number(text));
    report.carried(place, `${title}: <${name}>${text}`, `tokens.${key}: ${tokens[key]}`);
    const ref = element.getAttribute('ref');
    if (ref) report.differs(place, title, `the lifetime was read from ${ref} first; the literal default ${text} ms is what was carried over`);
  };
  lifetime('ExpiresIn', 'access_ttl');
  lifetime('RefreshTokenExpiresIn', 'refresh_ttl');
  report.differs(
    policy.place,
    title,
    'the gateway\'s own token endpoint (/oauth2/v1/token) issues the tokens: signed JWTs, refresh tokens rotated on every use; ' +
      'Apigee\'s token formats, GenerateResponse and custom attributes do not carry over, and tokens Apigee issued are not accepted',
  );
  return { entries: [], tokens };
}

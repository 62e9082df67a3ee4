import { describe, expect, it } from 'vitest';
import { describedFrom, titleOf } from '../../../../src/migration/apigee/policies/translation.js';
import { policyOf } from '../../../helpers/apigee.js';

describe('migration/apigee/policies/translation: how a translated policy names its origin', () => {
  it('titles a policy by its type and name, as the report does', () => {
    expect(titleOf(policyOf('<SpikeArrest name="SA-Token"/>'))).toBe('SpikeArrest SA-Token');
  });

  it.each<[string, string | undefined, string]>([
    ['no display name', undefined, 'Imported from Apigee SpikeArrest "SA-Token", bundles/orders/apiproxy/policies/P.xml.'],
    ['a display name of its own', 'Token requests per address', 'Imported from Apigee SpikeArrest "SA-Token" (Token requests per address), bundles/orders/apiproxy/policies/P.xml.'],
    ['a display name equal to the name', 'SA-Token', 'Imported from Apigee SpikeArrest "SA-Token", bundles/orders/apiproxy/policies/P.xml.'],
  ])('describes where an entry came from, with %s', (_case, displayName, description) => {
    expect(describedFrom(policyOf('<SpikeArrest name="SA-Token"/>'), displayName)).toBe(description);
  });
});

import { describe, expect, it } from 'vitest';
import { gatewayConfigSchema } from '../../src/config/schema.js';

/** gateway.yaml's `oauth` section (docs/standard-oauth-clients.md). */
describe('gateway.yaml oauth', () => {
  it('keeps the spec wire format only by default: form_encoded is false', () => {
    expect(gatewayConfigSchema.parse({}).oauth).toEqual({ form_encoded: false });
  });

  it('accepts form_encoded: true', () => {
    expect(gatewayConfigSchema.parse({ oauth: { form_encoded: true } }).oauth).toEqual({ form_encoded: true });
  });

  it.each([[{ form_encoded: 'yes' }], [{ form_encoded: 1 }], [{ forms: true }]])('refuses %j', (oauth) => {
    expect(gatewayConfigSchema.safeParse({ oauth }).success).toBe(false);
  });

  it('describes every key, for the configuration reference', () => {
    const section = gatewayConfigSchema.shape.oauth;
    expect(section.description).toBeTruthy();
    const inner = section.unwrap() as unknown as { shape: Record<string, { description?: string }> };
    for (const key of Object.keys(inner.shape)) expect(inner.shape[key]?.description, key).toBeTruthy();
  });
});

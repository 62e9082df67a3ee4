// token-gateway/client: the name the client SDK had while it lived inside the
// gateway, kept so that applications importing it go on working. The SDK is
// now its own package, @token-gateway/client (packages/client); this entry
// re-exports it unchanged. New code imports @token-gateway/client, which
// brings no gateway dependency. A folder named client/ at the package root
// also lets moduleResolution node10 (which ignores "exports") find it.
export * from '@token-gateway/client';

// The types of token-gateway/client: those of @token-gateway/client (see index.js).
export * from '@token-gateway/client';

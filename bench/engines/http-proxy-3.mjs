// http-proxy-3 (the maintained rewrite of http-proxy, same API) as a forwarding engine for the benchmark: the
// engine the gateway shipped with before undici.
import { createProxyServer } from 'http-proxy-3';
import { nodeHttpProxyEngine } from './node-http-proxy.mjs';

export const createForwarder = nodeHttpProxyEngine(createProxyServer);

// http-proxy 1.18 (the original, unmaintained since 2020) as a forwarding engine for the benchmark.
import httpProxy from 'http-proxy';
import { nodeHttpProxyEngine } from './node-http-proxy.mjs';

export const createForwarder = nodeHttpProxyEngine(httpProxy.createProxyServer);

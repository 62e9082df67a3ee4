import type { Forwarder, ForwarderOptions } from './forward.js';
import { createUndiciForwarder } from './undici-forwarder.js';

/** The forwarding engine the gateway ships with: undici, chosen by measurement (bench/engines/ keeps the others). */
export function createForwarder(options: ForwarderOptions): Forwarder {
  return createUndiciForwarder(options);
}

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Instances of one environment hear of each other through the store: each
 * writes a heartbeat with the key ring version it has installed (and, on
 * Redis, whether it holds the whole revocation list). A rotation waits for
 * the live ones to acknowledge it; an instance starting into a store that
 * lost its data waits for a live one to write it back.
 */

/** Every instance writes its heartbeat this often. */
export const HEARTBEAT_INTERVAL_MS = 1_000;

/** Heard from within this window: live. Three beats, so that one slow beat does not make an instance look gone. */
export const LIVE_WINDOW_MS = 3 * HEARTBEAT_INTERVAL_MS;

/** Whether an instance last heard from at `seenAt` counts as live at `now` (both epoch ms, real time). */
export const isLive = (seenAt: number, now: number): boolean => now - seenAt <= LIVE_WINDOW_MS;

/** Silent for longer: presumed stopped, forgotten, and no longer reported by a rotation. */
export const INSTANCE_HORIZON_MS = 10 * 60_000;

/** `host/pid/random`: what an operator recognises in a rotation's answer, unique even for processes sharing a host and pid. */
export const newInstanceId = (): string => `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;

import type { GatewayContext } from '../context.js';

/** What an admin operation answers: a status and a JSON body. */
export interface AdminResult {
  readonly status: number;
  readonly body: unknown;
}

/**
 * One admin API operation (rotate keys, revoke a user's tokens, list grants):
 * JSON in, JSON out, run against one gateway's context. Operations are data
 * plus a function so that a cluster primary, which has no context, can
 * publish the same paths and hand each call to a worker over IPC.
 */
export interface AdminOperation {
  /** Under /admin/v1, e.g. /admin/v1/keys/rotate */
  readonly path: string;
  readonly method: 'GET' | 'POST';
  /** `input` is the query (GET) or the JSON body (POST). */
  run(ctx: GatewayContext, input: Readonly<Record<string, unknown>>): Promise<AdminResult>;
  /**
   * For a read whose answer is each process's own (counters, recent refusals,
   * process state): with `workers`, the primary asks every worker and this
   * merges their answers (`input` as the caller gave it). Without it, one worker
   * runs the operation: what it does goes through the shared store.
   */
  combine?(answers: readonly WorkerResult[], input: Readonly<Record<string, unknown>>): AdminResult;
}

/** One worker's answer to an operation; `result` is undefined when it said nothing in time. */
export interface WorkerResult {
  readonly pid: number | undefined;
  readonly result: AdminResult | undefined;
}

/** Runs an operation for one HTTP call: authorise, read the input, answer. */
export type OperationRunner = (operation: AdminOperation, input: Record<string, unknown>) => Promise<AdminResult>;

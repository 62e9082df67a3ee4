#!/usr/bin/env -S node --v8-pool-size=2 --no-allocation-site-pretenuring
// The first line's node flags are NODE_FLAGS (node-flags.ts says why); a test holds the two alike.
import cluster from 'node:cluster';
import { holdHangups } from './held-hangups.js';

// Before the rest is loaded, which takes a while: a SIGHUP meanwhile must not end a starting `serve`.
if (process.argv[2] === 'serve') holdHangups();
const { run } = await import('./run.js');

const outcome = await run(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
if (outcome !== 'running') {
  process.exitCode = outcome;
  // A worker's channel to its primary keeps its event loop alive: a worker that failed to start (a missing
  // key-encryption key, say) lets go of it, so that it exits and its primary stops the gateway with its code.
  if (cluster.isWorker) cluster.worker?.disconnect();
}

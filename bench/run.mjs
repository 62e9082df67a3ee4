// `npm run bench`: every benchmark in turn, each bounded in count and time, traffic on loopback only.
import { instructions } from './instructions.mjs';
import { leak } from './leak.mjs';
import { lineCost } from './line-cost.mjs';
import { memory } from './memory.mjs';
import { policyMetrics } from './policy-metrics.mjs';
import { protectedCall } from './protected-call.mjs';
import { revocationPropagation } from './revocation-propagation.mjs';
import { rotationUnderLoad } from './rotation-under-load.mjs';
import { stageBudget } from './stage-budget.mjs';
import { tokenEndpoint } from './token-endpoint.mjs';
import { workers } from './workers.mjs';

for (const benchmark of [revocationPropagation, rotationUnderLoad, protectedCall, lineCost, stageBudget, instructions, policyMetrics, tokenEndpoint, memory, leak, workers]) {
  const { markdown, file } = await benchmark();
  process.stdout.write(`${markdown}\nwritten to ${file}\n`);
}

// `npm run bench`: every benchmark in turn, each bounded in count and time, traffic on loopback only.
import { protectedCall } from './protected-call.mjs';
import { revocationPropagation } from './revocation-propagation.mjs';

for (const benchmark of [revocationPropagation, protectedCall]) {
  const { markdown, file } = await benchmark();
  process.stdout.write(`${markdown}\nwritten to ${file}\n`);
}

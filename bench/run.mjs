// `npm run bench`: every benchmark in turn, each bounded in count and time, traffic on loopback only.
import { revocationPropagation } from './revocation-propagation.mjs';

const { markdown, file } = await revocationPropagation();
process.stdout.write(`${markdown}\nwritten to ${file}\n`);

#!/usr/bin/env node
import { run } from './run.js';

const outcome = await run(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
if (outcome !== 'running') process.exitCode = outcome;

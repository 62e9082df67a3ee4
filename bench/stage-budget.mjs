// Where the microseconds of a protected call go: the gateway as shipped (full default pipeline of protected-call.mjs,
// log level info, standard output to a file) and the bare undici forwarder (bench/peers/undici-forwarder.mjs), each
// pinned to core 0 under `node --cpu-prof` while wrk (core 1) drives it, then each profile's samples sorted into the
// stages of the request by the innermost frame of the stack that belongs to a stage. Microseconds per request are the
// stage's sampled time over the requests wrk completed. A CPU profile samples wall time of the main thread, so time
// the thread was descheduled lands in whatever it was doing; the thread pool's work (hashing, async file writes) is
// not in it. Bounded: BENCH_BUDGET_DURATION seconds of load per server (default 15, the first 5 of them JIT warm-up,
// which the per-request figure includes).
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_ACCOUNT, freePort, GATEWAY_NODE_FLAGS, knob, machineLine, writeBenchAccounts, writeResult, isMainScript, runBenchmark } from './lib.mjs';
import { runWrk, startPinned, waitForPort } from './load.mjs';
import { nginxArgs, upstreamConfig } from './peers/nginx.mjs';
import { benchGatewayYaml, passwordGrant, POLICIES } from './protected-call.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_DIR = dirname(BENCH_DIR);
const DURATION_S = knob('BENCH_BUDGET_DURATION', 15);
const PATH = '/business/score/v2/08041998';
const [SERVER_CORE, CLIENT_CORE] = os.availableParallelism() >= 2 ? ['0', '1'] : ['0', '0'];
const EXIT_ON_SIGTERM = `data:text/javascript,process.on('SIGTERM',()=>process.exit(0))`;

/**
 * The stages, tried in order on each frame from the innermost outwards; the first frame that matches one decides.
 * `fn` matches the function name, `url` the script's path.
 */
const STAGES = [
  { stage: 'access log (build the line, hand it to the destination)', url: /\/(pino|sonic-boom|@pinojs|fast-redact)\/|dist\/log\/|dist\/pipeline\/access-log/ },
  { stage: 'metrics', url: /prom-client|dist\/telemetry\// },
  { stage: 'policy: ip-range', url: /dist\/policies\/ip-range\// },
  { stage: 'policy: regex-protection', url: /re2js|dist\/policies\/regex-protection\// },
  { stage: 'policy: spike-arrest', url: /rate-limiter-flexible|dist\/policies\/spike-arrest\/|dist\/store\/memory/ },
  { stage: 'policy chain (enforce, figures)', url: /dist\/policies\/(enforce|figures|policy-set)|dist\/pipeline\/(policy-phase|policy-verdicts)/ },
  { stage: 'revocation check', url: /dist\/tokens\/access-token-revocation/ },
  { stage: 'Bearer check and verified-token cache', url: /dist\/proxy\/bearer|dist\/tokens\/|\/jose\//, fn: /^(hash|digest)$/ },
  { stage: 'forward: upstream request and relayed answer (undici)', url: /\/undici\/|dist\/proxy\/(undici-forwarder|forward|upstream-)|bench\/peers\/undici-forwarder/ },
  { stage: 'route and phases', url: /dist\/proxy\/(routes|safe-path)|dist\/pipeline\/(phases|route|served|endpoints)/ },
  { stage: 'open the exchange (request id, client address, drain count)', url: /dist\/pipeline\/request-handler|dist\/http\/|dist\/lifecycle\/|dist\/net\/|ipaddr/ },
  { stage: 'Node http: parse, sockets, response', url: /^node:(_http|net|internal\/(streams|stream_base|http|net))|^node:events/ },
];
const OTHER = 'other JavaScript and Node internals (promises, timers)';

function stageOf(stack) {
  for (const frame of stack) {
    for (const { stage, url, fn } of STAGES) {
      if ((url && url.test(frame.url)) || (fn && fn.test(frame.functionName))) return stage;
    }
  }
  return undefined;
}

/** Per stage, microseconds of sampled time per request. */
function budgetOf(profileFile, requests) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageById = new Map();
  const stageOfNode = (id) => {
    if (stageById.has(id)) return stageById.get(id);
    const stack = [];
    for (let at = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at).callFrame);
    const leaf = stack[0].functionName;
    let stage;
    if (leaf === '(garbage collector)') stage = 'garbage collection';
    else if (leaf === '(idle)') stage = 'idle';
    else if (leaf === '(program)') stage = 'V8 and native, unattributed';
    else stage = stageOf(stack) ?? (stack.some((frame) => /loader|bootstrap|modules/.test(frame.url)) ? 'start-up' : OTHER);
    stageById.set(id, stage);
    return stage;
  };
  const totals = new Map();
  profile.samples.forEach((id, i) => {
    const stage = stageOfNode(id);
    totals.set(stage, (totals.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  totals.delete('idle');
  totals.delete('start-up');
  return new Map([...totals].map(([stage, us]) => [stage, us / requests]));
}

async function profiled(dir, name, command, args, { stdout } = {}) {
  const profileDir = join(dir, `${name}-profile`);
  await mkdir(profileDir);
  const server = startPinned(name, SERVER_CORE, process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...command, ...args], { cwd: REPO_DIR, stdout });
  return { server, profileDir };
}

async function drive(server, url, token) {
  const run = await runWrk({
    url: `${url}${PATH}`,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    connections: 50,
    durationS: DURATION_S,
    cores: CLIENT_CORE,
    serverPgid: server.pid,
    serverCore: SERVER_CORE,
  });
  if (run.non2xx > 0 || run.socketErrors > 0) throw new Error(`${server.name}: ${run.non2xx} non-2xx, ${run.socketErrors} socket errors`);
  return run;
}

/** The profile the process wrote at exit (the main thread's: the largest file). */
function mainProfile(profileDir) {
  const files = readdirSync(profileDir).filter((file) => file.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no profile in ${profileDir}`);
  return files.map((file) => join(profileDir, file)).sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0];
}

export async function stageBudget() {
  const startedAt = Date.now();
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-budget-'));
  const upstreamPort = await freePort();
  await writeFile(join(dir, 'upstream.conf'), upstreamConfig(dir, 'upstream', upstreamPort));
  const upstream = startPinned('upstream', CLIENT_CORE, 'nginx', nginxArgs(dir, join(dir, 'upstream.conf'), 'upstream'));
  const stops = [upstream];
  try {
    await waitForPort(upstream, upstreamPort);
    // The gateway, as protected-call.mjs's headline row runs it.
    await writeBenchAccounts(join(dir, 'accounts.yaml'));
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'bench.yaml'), POLICIES);
    const gatewayPort = await freePort();
    await writeFile(
      join(dir, 'gateway.yaml'),
      benchGatewayYaml({ port: gatewayPort, accountsFile: join(dir, 'accounts.yaml'), logLevel: 'info', upstreamPort, policiesFolder: join(dir, 'policies') }),
    );
    const logFd = openSync(join(dir, 'gateway.log'), 'w');
    const gateway = await profiled(dir, 'gateway', [...GATEWAY_NODE_FLAGS, join(REPO_DIR, 'dist', 'cli', 'main.js')], ['serve', '--config', join(dir, 'gateway.yaml')], { stdout: logFd });
    closeSync(logFd);
    stops.push(gateway.server);
    await waitForPort(gateway.server, gatewayPort, 30_000);
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const token = await passwordGrant(gatewayUrl, BENCH_ACCOUNT);
    const gatewayRun = await drive(gateway.server, gatewayUrl, token);

    const forwarderPort = await freePort();
    const forwarder = await profiled(dir, 'undici', ['--import', EXIT_ON_SIGTERM, join(BENCH_DIR, 'peers', 'undici-forwarder.mjs')], [String(forwarderPort), `http://127.0.0.1:${upstreamPort}`]);
    stops.push(forwarder.server);
    await waitForPort(forwarder.server, forwarderPort);
    const forwarderRun = await drive(forwarder.server, `http://127.0.0.1:${forwarderPort}`, token);

    await gateway.server.stop(10_000);
    await forwarder.server.stop(10_000);
    const gatewayBudget = budgetOf(mainProfile(gateway.profileDir), gatewayRun.requests);
    const forwarderBudget = budgetOf(mainProfile(forwarder.profileDir), forwarderRun.requests);
    const markdown = report(gatewayBudget, forwarderBudget, gatewayRun, forwarderRun, startedAt);
    return { markdown, file: await writeResult('stage-budget', markdown) };
  } finally {
    for (const server of stops) await server.stop();
  }
}

const fixed = (value) => (value === undefined ? '-' : value.toFixed(1));

function report(gateway, forwarder, gatewayRun, forwarderRun, startedAt) {
  const stages = [...new Set([...STAGES.map(({ stage }) => stage), OTHER, 'garbage collection', 'V8 and native, unattributed'])].filter(
    (stage) => gateway.has(stage) || forwarder.has(stage),
  );
  const sum = (budget) => [...budget.values()].reduce((total, us) => total + us, 0);
  const rows = stages.map((stage) => `| ${stage} | ${fixed(gateway.get(stage))} | ${fixed(forwarder.get(stage))} |`);
  return [
    '# Protected call: where the microseconds go',
    '',
    machineLine(),
    '',
    `The gateway as shipped (full default pipeline of protected-call.mjs: ip-range, regex-protection with the five`,
    `built-in sets, spike arrest per client_id, then Bearer and revocation; log level info, standard output to a file)`,
    `and the bare undici forwarder (no auth, no log), each alone on core 0 under \`node --cpu-prof\`, wrk -c50 on core 1`,
    `for ${DURATION_S} s (the JIT's warm-up included). Microseconds of the main thread's sampled time per request, by the`,
    `innermost frame that belongs to a stage; time the profiler itself takes is in every row (both processes pay it).`,
    '',
    `| stage | gateway µs/req | bare undici forwarder µs/req |`,
    '|---|---:|---:|',
    ...rows,
    `| **total (sampled, idle excluded)** | **${fixed(sum(gateway))}** | **${fixed(sum(forwarder))}** |`,
    `| CPU per request from /proc (all threads, under the profiler) | ${fixed(gatewayRun.cpuUsPerRequest)} | ${fixed(forwarderRun.cpuUsPerRequest)} |`,
    `| requests / req/s under the profiler | ${gatewayRun.requests} / ${Math.round(gatewayRun.rps)} | ${forwarderRun.requests} / ${Math.round(forwarderRun.rps)} |`,
    '',
    `Whole benchmark: ${Math.round((Date.now() - startedAt) / 1000)} s.`,
    '',
  ].join('\n');
}

if (isMainScript(import.meta.url)) await runBenchmark(stageBudget);

import { describe, expect, it } from 'vitest';
// @ts-expect-error: a benchmark script in plain JavaScript, without type declarations
import { callgrindSelfCosts, callgrindTotals, countOf } from '../../bench/instructions.mjs';

describe('callgrindTotals (bench/instructions.mjs)', () => {
  it('reads every event of a dump by the names of its events line', () => {
    const dump = ['# callgrind format', 'version: 1', 'events: Ir Dr Dw', 'fn=(1) main', '0 5 2 1', 'totals: 741500000 12 7', ''].join('\n');
    expect(Object.fromEntries(callgrindTotals(dump))).toEqual({ Ir: 741500000, Dr: 12, Dw: 7 });
  });

  it('falls back to the summary line of a dump without totals', () => {
    expect(callgrindTotals('events: Ir\nsummary: 42\n').get('Ir')).toBe(42);
  });

  it('refuses a file that is not a callgrind dump', () => {
    expect(() => callgrindTotals('hello\n')).toThrow('not a callgrind dump');
  });
});

describe('callgrindSelfCosts and countOf (bench/instructions.mjs)', () => {
  // A dump as callgrind writes one: compressed names (defined once as "(id) name", then "(id)"), a callee's inclusive
  // cost on the line after "calls=", a recursion level as a "'2" suffix, relative positions, and a zero-cost line.
  const DUMP = [
    'version: 1',
    'positions: line',
    'events: Ir',
    '',
    'ob=(1) /usr/bin/node',
    'fl=(1) ???',
    'fn=(1) Builtins_LoadIC',
    '0 100',
    '+2 50',
    'cfn=(2) v8::internal::MarkCompactCollector::MarkLiveObjects()',
    'calls=3 0',
    '0 9000',
    '-1 25',
    'fn=(2)',
    '0 400',
    "fn=(3) v8::internal::compiler::GraphReducer::ReduceTop()'2",
    '* 300',
    '12',
    'fn=(4) v8::internal::Scavenger::ScavengeObject(int)',
    '0 125',
    // The young generation's collections evacuate and sweep too; they are the calls' own, not a full collection's.
    'fn=(5) v8::internal::Scavenger::EvacuateShortcutCandidate(v8::internal::Map)',
    '0 20',
    'fn=(6) v8::internal::ArrayBufferSweeper::SweepingJob::SweepYoung()',
    '0 10',
    'fn=(7) v8::internal::Sweeper::RawSweep(v8::internal::Page*)',
    '0 40',
    'fn=(1)',
    '0 5',
    '',
    'totals: 1075',
  ].join('\n');

  it("reads each function's own instructions from a dump, not its callees'", () => {
    const self = callgrindSelfCosts(DUMP);
    expect(Object.fromEntries(self)).toEqual({
      Builtins_LoadIC: 180,
      'v8::internal::MarkCompactCollector::MarkLiveObjects()': 400,
      'v8::internal::compiler::GraphReducer::ReduceTop()': 300,
      'v8::internal::Scavenger::ScavengeObject(int)': 125,
      'v8::internal::Scavenger::EvacuateShortcutCandidate(v8::internal::Map)': 20,
      'v8::internal::ArrayBufferSweeper::SweepingJob::SweepYoung()': 10,
      'v8::internal::Sweeper::RawSweep(v8::internal::Page*)': 40,
    });
    // The functions' own costs add up to the dump's total.
    expect([...self.values()].reduce((sum, ir) => sum + ir, 0)).toBe(1075);
  });

  it("splits a count's full collection and optimizing compiler from the rest; a scavenge stays in the rest", () => {
    // Full collection: the mark-compact collector's 400 and the sweeper's 40; the scavenger's 145 and the young
    // array buffers' sweep (10) stay with the calls' own 180.
    expect(countOf(DUMP, 5)).toEqual({ ir: 215, fullCollection: 88, compiler: 60, steady: 67 });
  });

  it('refuses a dump it would misread: other positions than lines, or events that do not start with Ir', () => {
    expect(() => callgrindSelfCosts(DUMP.replace('positions: line', 'positions: instr line'))).toThrow('got positions instr line, first event Ir');
    expect(() => callgrindSelfCosts(DUMP.replace('events: Ir', 'events: Dr Ir'))).toThrow('got positions line, first event Dr');
  });
});

import { describe, expect, it } from 'vitest';
import { ImportReport } from '../../../src/migration/apigee/report.js';

const AT = { file: 'bundles/orders/apiproxy/policies/SA.xml', line: 3 };

describe('migration/apigee/report: what an import did, for the operator', () => {
  it('is complete while nothing is left behind; differences never make it incomplete', () => {
    const report = new ImportReport();
    expect(report.complete).toBe(true);
    report.carried(AT, 'SpikeArrest SA', 'spike-arrest orders.SA');
    report.differs(AT, 'SpikeArrest SA', 'counted once for all instances');
    expect(report.complete).toBe(true);
    report.leftBehind(AT, 'Quota Q', 'no quota', 'keep quotas upstream');
    expect(report.complete).toBe(false);
  });

  it('puts each item in exactly one list, with its place', () => {
    const report = new ImportReport();
    report.carried(AT, 'a', 'b');
    report.differs({ file: 'f', line: undefined }, 'c', 'd');
    report.leftBehind(AT, 'e', 'f', 'g');
    expect({ translated: report.translated, differences: report.differences, notTranslated: report.notTranslated }).toEqual({
      translated: [{ ...AT, what: 'a', into: 'b' }],
      differences: [{ file: 'f', line: undefined, what: 'c', difference: 'd' }],
      notTranslated: [{ ...AT, what: 'e', why: 'f', todo: 'g' }],
    });
  });

  it('renders every list with its count, file:line (file alone without a line), what to do under each item left behind, and the verdict', () => {
    const report = new ImportReport();
    report.carried(AT, 'SpikeArrest SA', 'spike-arrest orders.SA');
    report.differs({ file: 'bundles/orders', line: undefined }, 'every refusal', 'rendered by the catalogue');
    report.leftBehind({ ...AT, line: 7 }, 'Quota Q', 'no quota', 'keep quotas upstream');
    expect(report.render()).toBe(
      [
        'translated (1):',
        '  bundles/orders/apiproxy/policies/SA.xml:3: SpikeArrest SA -> spike-arrest orders.SA',
        'differences (1):',
        '  bundles/orders: every refusal: rendered by the catalogue',
        'not translated (1):',
        '  bundles/orders/apiproxy/policies/SA.xml:7: Quota Q: no quota',
        '    what to do: keep quotas upstream',
        'import INCOMPLETE: 1 item(s) not translated; the files written hold what was.',
        '',
      ].join('\n'),
    );
  });

  it('says so when the import is complete', () => {
    expect(new ImportReport().render()).toBe('translated (0):\ndifferences (0):\nnot translated (0):\nimport complete: every policy and step above was translated (see the differences).\n');
  });
});

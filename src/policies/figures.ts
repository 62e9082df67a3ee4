/**
 * The running totals of one policy, by name and kind. The metrics keep them
 * (telemetry implements this), not the compiled policy: a reload compiles
 * new policies but asks for the same figures, so a policy's counts survive an
 * edit of its file, a change of its mode included. Each call is a property
 * increment; nothing is read back on the request path.
 */
export interface PolicyFigures {
  /** One evaluation, however it ended, and the seconds it took (what it awaited included). */
  evaluated(seconds: number): void;
  /** An enforcing policy refused the request. */
  refused(): void;
  /** A report-only policy would have refused it; the request went on. */
  wouldRefuse(): void;
}

/** The figures of the policy of this name and kind: the same object every time it is asked. */
export type FiguresOf = (name: string, kind: string) => PolicyFigures;

const UNCOUNTED: PolicyFigures = Object.freeze({
  evaluated() {},
  refused() {},
  wouldRefuse() {},
});

/** For sets that nothing counts: `token-gateway check` and the dry run. */
export const uncounted: FiguresOf = () => UNCOUNTED;

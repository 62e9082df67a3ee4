/** Where something was written in a bundle: the report's `file:line`. */
export interface Place {
  readonly file: string;
  readonly line: number | undefined;
}

/** One policy (or step, flow, route) carried over, with what it became. */
export interface Translated extends Place {
  readonly what: string;
  readonly into: string;
}

/** Carried over, with a stated way in which the gateway's verdict or behaviour is not Apigee's. */
export interface Difference extends Place {
  readonly what: string;
  readonly difference: string;
}

/** Left behind: the import is incomplete until the operator does `todo`. */
export interface NotTranslated extends Place {
  readonly what: string;
  readonly why: string;
  readonly todo: string;
}

/**
 * What an import did, for the operator: every policy and step it read lands
 * in exactly one list. The import is complete when nothing was left behind;
 * differences are stated, never hidden, and do not make it incomplete.
 */
export class ImportReport {
  readonly translated: Translated[] = [];
  readonly differences: Difference[] = [];
  readonly notTranslated: NotTranslated[] = [];

  get complete(): boolean {
    return this.notTranslated.length === 0;
  }

  carried(place: Place, what: string, into: string): void {
    this.translated.push({ ...place, what, into });
  }

  differs(place: Place, what: string, difference: string): void {
    this.differences.push({ ...place, what, difference });
  }

  leftBehind(place: Place, what: string, why: string, todo: string): void {
    this.notTranslated.push({ ...place, what, why, todo });
  }

  /**
   * Takes over a draft's items (a policy translated on its own report first),
   * or only its gaps when the policy is not written after all: a policy that
   * is not written must not also be listed as translated.
   */
  absorb(draft: ImportReport, { gapsOnly = false }: { gapsOnly?: boolean } = {}): void {
    if (!gapsOnly) {
      this.translated.push(...draft.translated);
      this.differences.push(...draft.differences);
    }
    this.notTranslated.push(...draft.notTranslated);
  }

  /** Takes back lines that turned out false (a lifetime another policy already set): the item is then left behind instead. */
  withdraw(items: { readonly translated: readonly Translated[]; readonly differences: readonly Difference[] }): void {
    const drop = <T>(list: T[], gone: readonly T[]): void => {
      for (const item of gone) {
        const at = list.indexOf(item);
        if (at >= 0) list.splice(at, 1);
      }
    };
    drop(this.translated, items.translated);
    drop(this.differences, items.differences);
  }

  /** The report as the command prints it on standard error. */
  render(): string {
    const at = ({ file, line }: Place) => (line ? `${file}:${line}` : file);
    const lines: string[] = [];
    lines.push(`translated (${this.translated.length}):`);
    for (const entry of this.translated) lines.push(`  ${at(entry)}: ${entry.what} -> ${entry.into}`);
    lines.push(`differences (${this.differences.length}):`);
    for (const entry of this.differences) lines.push(`  ${at(entry)}: ${entry.what}: ${entry.difference}`);
    lines.push(`not translated (${this.notTranslated.length}):`);
    for (const entry of this.notTranslated) lines.push(`  ${at(entry)}: ${entry.what}: ${entry.why}`, `    what to do: ${entry.todo}`);
    lines.push(
      this.complete
        ? 'import complete: every policy and step above was translated (see the differences).'
        : `import INCOMPLETE: ${this.notTranslated.length} item(s) not translated; the files written hold what was.`,
    );
    return `${lines.join('\n')}\n`;
  }
}

import { RELOAD_RULES } from '../lifecycle/reload-plan.js';
import { code, table } from './markdown.js';

/** What a reload applies and what needs a restart, from RELOAD_RULES: live keys first, each group in the rules' order. */
export function reloadTable(): string {
  const entries = Object.entries(RELOAD_RULES);
  const ordered = [...entries.filter(([, rule]) => rule.live), ...entries.filter(([, rule]) => !rule.live)];
  return table(
    ['gateway.yaml key', 'on reload', 'why'],
    ordered.map(([key, rule]) => [code(key), rule.live ? 'applied live' : 'needs a restart', rule.why]),
  );
}

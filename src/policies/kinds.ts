import { ipRange } from './ip-range/check.js';
import { jsonThreat } from './json-threat/check.js';
import { regexProtection } from './regex-protection/check.js';
import { spikeArrest } from './spike-arrest/check.js';
import { timeOfDay } from './time-of-day/check.js';

/** Every policy kind, by the name operators write as `kind:` (STYLE: one folder per kind, schema beside check). */
export const POLICY_KINDS = [regexProtection, jsonThreat, spikeArrest, ipRange, timeOfDay] as const;

import type { Difference, ImportReport, Translated } from '../report.js';
import type { PolicyXml } from '../policy-xml.js';

/** One entry of our policy files, as it will be written (`name`, `kind`, settings). */
export interface PolicyEntry {
  readonly name: string;
  readonly kind: string;
  readonly [setting: string]: unknown;
}

/** What one Apigee policy became. */
export interface TranslatedPolicy {
  /** Our policies, in the order they run where the Apigee policy ran; empty when nothing could be enforced. */
  readonly entries: readonly PolicyEntry[];
  /** VerifyAccessToken: the route that runs it needs a Bearer token. */
  readonly verifiesToken?: boolean;
  /** OAuthV2 GenerateAccessToken / RefreshAccessToken: the token service's lifetimes. */
  readonly tokens?: { readonly access_ttl?: string; readonly refresh_ttl?: string };
  /**
   * Not written at all: a setting it needs (a limit, an identifier) could not
   * be translated, and writing the rest with a stand-in would enforce a
   * weaker (or another) protection than Apigee's under the same name. Its
   * translated lines are dropped; what was left behind says what to do.
   */
  readonly withheld?: boolean;
  /** The report lines this translation wrote, to take back if the import later finds them false. */
  readonly reported?: { readonly translated: readonly Translated[]; readonly differences: readonly Difference[] };
}

export interface TranslateContext {
  readonly report: ImportReport;
  /** Our name for this policy (bundle-qualified, sanitised); a policy that becomes several entries suffixes it. */
  readonly baseName: string;
  /** Names already given to entries in this import (name -> the Apigee policy): each name must be written once. */
  readonly taken?: Map<string, string>;
}

export type Translator = (policy: PolicyXml, context: TranslateContext) => TranslatedPolicy;

/** `SpikeArrest some-name` as the report names a policy. */
export const titleOf = (policy: PolicyXml): string => `${policy.type} ${policy.name}`;

/** The description our entry carries: where it came from, so an operator can find the original. */
export const describedFrom = (policy: PolicyXml, displayName: string | undefined): string =>
  `Imported from Apigee ${policy.type} "${policy.name}"${displayName && displayName !== policy.name ? ` (${displayName})` : ''}, ${policy.place.file}.`;

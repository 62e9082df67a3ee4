import type { Bundle } from './bundle.js';
import { ourName } from './names.js';
import type { TranslatedPolicy } from './policies/translation.js';
import type { PolicyXml } from './policy-xml.js';
import { placeIn } from './policy-xml.js';
import type { ImportReport, Place } from './report.js';
import { translatePolicy } from './translate-policy.js';
import { childElements, childText, type Element } from './xml.js';

/** A bundle's policies, and where their translations are collected for its policy file. */
export interface BundleScope {
  readonly bundle: Bundle;
  readonly policies: ReadonlyMap<string, PolicyXml>;
  /** Every translated policy of the bundle, once, by Apigee name. */
  readonly translated: Map<string, TranslatedPolicy>;
  /** The policies a step of a reached flow names, translated or not: the policies no flow runs are the others. */
  readonly stepped?: Set<string>;
}

/** A shared flow a FlowCallout can run: its scope and its steps. */
export interface SharedFlow {
  readonly scope: BundleScope;
  readonly steps: Element | undefined;
  readonly file: string;
}

/** What one step (or a shared flow's steps) adds to a chain. */
export interface Link {
  readonly names: readonly string[];
  readonly verifiesToken: boolean;
  readonly tokens?: TranslatedPolicy['tokens'];
  /** The policy's report lines, taken back if its token lifetimes clash with another policy's. */
  readonly reported?: TranslatedPolicy['reported'];
  readonly place: Place;
  readonly step: string;
}

export interface StepContext {
  readonly report: ImportReport;
  readonly sharedFlows: ReadonlyMap<string, SharedFlow>;
  /** Our entry names given so far, across every bundle of the import (name -> Apigee policy). */
  readonly taken?: Map<string, string>;
}

/**
 * The links of the <Step>s of a <Request> (or a shared flow), in order.
 * Every step is accounted for in the report: translated, skipped as Apigee
 * skips it (enabled="false"), or left behind with what to do.
 */
export function linksOf(steps: Element | undefined, scope: BundleScope, file: string, context: StepContext, calling: readonly string[] = []): Link[] {
  const links: Link[] = [];
  for (const step of steps ? childElements(steps, 'Step') : []) {
    const name = childText(step, 'Name') ?? '';
    const place = placeIn(file, step);
    const condition = childText(step, 'Condition');
    const policy = scope.policies.get(name);
    const what = `step ${name}`;
    scope.stepped?.add(name);
    if (!policy) {
      context.report.leftBehind(place, what, 'no policy of that name in the bundle (Apigee would not deploy it)', 'fix the bundle and import again');
      continue;
    }
    if (condition) {
      context.report.leftBehind(place, `${what} (Condition ${condition})`, 'a step condition: the gateway runs a route\'s policies on every request of the route', 'attach the policy to a route that covers exactly those requests, or drop the condition if it always held');
      continue;
    }
    if (!policy.enabled) {
      context.report.carried(place, what, 'nothing (enabled="false": Apigee skips it too)');
      continue;
    }
    if (policy.continueOnError) {
      context.report.leftBehind(
        place,
        `${what} (continueOnError="true")`,
        'Apigee lets the request go on when this policy refuses it, so its verdict never counted; a gateway policy\'s refusal always does',
        'the nearest equivalent is mode: report (the policy runs, counts and logs what it would refuse, and lets the request go on): set continueOnError to false in Apigee, import again, and add mode: report to the entry by hand; or leave it out if it only set variables or logged',
      );
      continue;
    }
    if (policy.type === 'FlowCallout') {
      links.push(...sharedFlowLinks(policy, place, context, calling));
      continue;
    }
    let translated = scope.translated.get(name);
    if (!translated) {
      translated = translatePolicy(policy, { report: context.report, baseName: ourName(scope.bundle.name, name), taken: context.taken });
      scope.translated.set(name, translated);
    }
    links.push({ names: translated.entries.map((entry) => entry.name), verifiesToken: translated.verifiesToken === true, tokens: translated.tokens, reported: translated.reported, place, step: name });
  }
  return links;
}

function sharedFlowLinks(policy: PolicyXml, place: Place, context: StepContext, calling: readonly string[]): Link[] {
  const target = childText(policy.root, 'SharedFlowBundle') ?? '';
  const flow = context.sharedFlows.get(target);
  if (!flow) {
    context.report.leftBehind(place, `step ${policy.name} (FlowCallout to ${target})`, `the shared flow "${target}" is not among the bundles imported`, `import its bundle in the same command (token-gateway import apigee <proxy> <${target} bundle> --out DIR)`);
    return [];
  }
  if (calling.includes(target)) {
    context.report.leftBehind(place, `step ${policy.name} (FlowCallout to ${target})`, `a shared flow that calls itself (${[...calling, target].join(' -> ')})`, 'fix the bundles');
    return [];
  }
  if (childElements(policy.root, 'Parameters').length > 0) {
    context.report.leftBehind(place, `step ${policy.name} (FlowCallout Parameters)`, 'parameters set flow variables, and the gateway has none', 'write the values the shared flow read from them into its policies');
  }
  context.report.carried(place, `step ${policy.name}`, `the steps of shared flow ${target}, in place`);
  return linksOf(flow.steps, flow.scope, flow.file, context, [...calling, target]);
}

import type { GatewayContext } from '../context.js';
import { catalogue } from '../errors/catalogue.js';
import type { Exchange } from '../http/exchange.js';
import type { CompiledPolicy, Rejection } from '../policies/policy.js';

/**
 * A report-only policy would have refused this request: one structured line
 * (the access line follows as for any request) and an entry in the recent
 * refusals. The detail is the verdict's, written for logs: which pattern and
 * where, which limit, which range, which window; never the matched text.
 */
export function reportWouldRefuse(ctx: GatewayContext, exchange: Exchange, policy: CompiledPolicy, rejection: Rejection): void {
  const route = exchange.route ?? '';
  const detail = `policy ${policy.name}: ${rejection.detail}`;
  ctx.logger.info(
    { requestId: exchange.requestId, route, policy: policy.name, kind: policy.kind, mode: policy.mode, errorCode: rejection.code, detail },
    'policy would refuse (report mode); the request goes on',
  );
  ctx.refusals.record({
    at: ctx.clock.now(),
    route,
    policy: policy.name,
    kind: policy.kind,
    mode: 'report',
    status: catalogue[rejection.code].status,
    errorCode: rejection.code,
    clientId: exchange.clientId,
    clientAddress: exchange.clientAddress(),
    requestId: exchange.requestId,
  });
}

/** An enforcing policy refused the request (the error about to be rendered names it): an entry in the recent refusals. */
export function recordRefusal(ctx: GatewayContext, exchange: Exchange): void {
  const { error } = exchange;
  if (error?.policy === undefined) return;
  ctx.refusals.record({
    at: ctx.clock.now(),
    route: exchange.route ?? '',
    policy: error.policy,
    kind: error.policyKind ?? 'unknown',
    mode: 'enforce',
    status: error.status,
    errorCode: error.code,
    clientId: exchange.clientId,
    clientAddress: exchange.clientAddress(),
    requestId: exchange.requestId,
  });
}

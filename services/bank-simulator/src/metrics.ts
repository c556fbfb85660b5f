import type { Metrics } from '@rp/runtime';

export interface SimulatorMetrics {
  received(route: string, memberId: string): void;
  accepted(route: string, memberId: string): void;
  duplicate(route: string, memberId: string): void;
  signatureFailure(memberId: string): void;
  outOfOrder(memberId: string): void;
  fault(route: string, kind: string): void;
}

export function simulatorMetrics(metrics: Metrics): SimulatorMetrics {
  const received = metrics.counter(
    'rp_banksim_requests_received_total',
    'Requests received, by route and bank',
    ['route', 'member_id'],
  );
  const accepted = metrics.counter('rp_banksim_requests_accepted_total', 'Requests stored and answered 202', [
    'route',
    'member_id',
  ]);
  const duplicates = metrics.counter(
    'rp_banksim_duplicates_total',
    'Repeated event ids or message identifications',
    ['route', 'member_id'],
  );
  const signatures = metrics.counter(
    'rp_banksim_signature_failures_total',
    'Event postings and credits refused for their signature',
    ['member_id'],
  );
  const outOfOrder = metrics.counter(
    'rp_banksim_postings_out_of_order_total',
    'Transaction state postings that arrived after one of the same transaction with the same or a later stage',
    ['member_id'],
  );
  const faults = metrics.counter('rp_banksim_faults_injected_total', 'Requests a fault rule applied to', [
    'route',
    'kind',
  ]);
  return {
    received: (route, memberId) => received.inc({ route, member_id: memberId }),
    accepted: (route, memberId) => accepted.inc({ route, member_id: memberId }),
    duplicate: (route, memberId) => duplicates.inc({ route, member_id: memberId }),
    signatureFailure: (memberId) => signatures.inc({ member_id: memberId }),
    outOfOrder: (memberId) => outOfOrder.inc({ member_id: memberId }),
    fault: (route, kind) => faults.inc({ route, kind }),
  };
}

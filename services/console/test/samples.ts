import type { Target } from '../src/upstream.ts';

/**
 * /metrics pages as the services write them (prom-client's format, the `service` default label), with
 * every counter scaled by `n`: a later scrape is the same pipeline with more traffic.
 */
export function sampleMetrics(n: number): Record<Target, string> {
  const line = (name: string, labels: Record<string, string>, value: number) =>
    `${name}{${Object.entries(labels)
      .map(([key, text]) => `${key}="${text}"`)
      .join(',')}} ${value}`;
  return {
    ingress: [
      '# HELP rp_ingress_messages_received_total Bank messages received',
      '# TYPE rp_ingress_messages_received_total counter',
      line(
        'rp_ingress_messages_received_total',
        { operation: 'outboundDirectDebit', service: 'ingress' },
        10 * n,
      ),
      line(
        'rp_ingress_messages_received_total',
        { operation: 'inboundDirectDebitResponse', service: 'ingress' },
        9 * n,
      ),
    ].join('\n'),
    validator: [
      '# TYPE rp_validator_debits_validated_total counter',
      line('rp_validator_debits_validated_total', { outcome: 'accepted', service: 'validator' }, 8 * n),
      line('rp_validator_debits_validated_total', { outcome: 'rejected', service: 'validator' }, 2 * n),
    ].join('\n'),
    scheduler: [
      '# TYPE rp_scheduler_debits_queued_total counter',
      line('rp_scheduler_debits_queued_total', { service: 'scheduler' }, 8 * n),
      line('rp_scheduler_debits_released_total', { service: 'scheduler' }, 6 * n),
      '# TYPE rp_scheduler_queue_depth gauge',
      line('rp_scheduler_queue_depth', { stage: 'queued', service: 'scheduler' }, 2),
      line('rp_scheduler_queue_depth', { stage: 'awaiting-status-report', service: 'scheduler' }, 1),
    ].join('\n'),
    dispatcher: [
      line(
        'rp_dispatcher_delivered_total',
        { operation: 'outboundDirectDebitResponse', service: 'dispatcher' },
        10 * n,
      ),
      line(
        'rp_dispatcher_delivered_total',
        { operation: 'inboundDirectDebit', service: 'dispatcher' },
        6 * n,
      ),
      line(
        'rp_dispatcher_attempts_total',
        { operation: 'inboundDirectDebit', bank: '250655', result: 'ACKNOWLEDGED', service: 'dispatcher' },
        6 * n,
      ),
      line(
        'rp_dispatcher_attempts_total',
        {
          operation: 'outboundDirectDebitResponse',
          bank: '250655',
          result: 'ACKNOWLEDGED',
          service: 'dispatcher',
        },
        10 * n,
      ),
      line(
        'rp_dispatcher_attempts_total',
        {
          operation: 'inboundDirectDebit',
          bank: '470010',
          result: 'RETRYABLE_FAILURE',
          service: 'dispatcher',
        },
        3 * n,
      ),
      line('rp_dispatcher_bank_calls_in_flight', { bank: '250655', service: 'dispatcher' }, 1),
      line(
        'rp_dispatcher_attempt_duration_seconds_sum',
        { operation: 'inboundDirectDebit', bank: '250655', service: 'dispatcher' },
        0.06 * n,
      ),
      line(
        'rp_dispatcher_attempt_duration_seconds_count',
        { operation: 'inboundDirectDebit', bank: '250655', service: 'dispatcher' },
        6 * n,
      ),
      line(
        'rp_dispatcher_attempt_duration_seconds_sum',
        { operation: 'outboundDirectDebitResponse', bank: '250655', service: 'dispatcher' },
        0.14 * n,
      ),
      line(
        'rp_dispatcher_attempt_duration_seconds_count',
        { operation: 'outboundDirectDebitResponse', bank: '250655', service: 'dispatcher' },
        10 * n,
      ),
    ].join('\n'),
    tracker: [
      line(
        'rp_tracker_state_changes_total',
        { outcome: 'applied', event_type: 'DEBIT_COMPLETED', service: 'tracker' },
        5 * n,
      ),
      line(
        'rp_tracker_state_changes_total',
        { outcome: 'repeat', event_type: 'DEBIT_COMPLETED', service: 'tracker' },
        1 * n,
      ),
      line(
        'rp_tracker_state_changes_total',
        { outcome: 'applied', event_type: 'DEBIT_QUEUED', service: 'tracker' },
        8 * n,
      ),
    ].join('\n'),
    'event-publisher': [
      line(
        'rp_events_deliveries_total',
        { member_id: '250655', outcome: 'delivered', service: 'event-publisher' },
        40 * n,
      ),
      line(
        'rp_events_deliveries_total',
        { member_id: '470010', outcome: 'failed', service: 'event-publisher' },
        1 * n,
      ),
      line(
        'rp_events_attempts_total',
        { member_id: '250655', path: 'direct', result: 'delivered', service: 'event-publisher' },
        40 * n,
      ),
      line(
        'rp_events_attempts_total',
        { member_id: '470010', path: 'direct', result: 'final', service: 'event-publisher' },
        1 * n,
      ),
      line('rp_events_parked_lanes', { member_id: '250655', service: 'event-publisher' }, 0),
      line('rp_events_parked_lanes', { member_id: '470010', service: 'event-publisher' }, 0),
      line('rp_events_parked_postings', { member_id: '250655', service: 'event-publisher' }, 0),
      line('rp_events_bank_paused', { member_id: '250655', service: 'event-publisher' }, 0),
      line(
        'rp_events_attempt_duration_seconds_sum',
        { member_id: '250655', result: 'delivered', service: 'event-publisher' },
        0.4 * n,
      ),
      line(
        'rp_events_attempt_duration_seconds_count',
        { member_id: '250655', result: 'delivered', service: 'event-publisher' },
        40 * n,
      ),
    ].join('\n'),
  };
}

export const sampleWindows = {
  now: '2026-03-02T10:00:00.000Z',
  timeZone: 'Africa/Johannesburg',
  businessDate: '2026-03-02',
  isBusinessDay: true,
  debitWindow: {
    state: 'open',
    opensAt: '2026-03-02T06:00:00.000Z',
    closesAt: '2026-03-02T15:00:00.000Z',
    creditsFinalised: true,
    override: 'open',
  },
  reconciliationWindow: { closesAt: '2026-03-02T16:00:00.000Z', closed: false },
  nextBusinessDate: '2026-03-03',
};

export const sampleQueue = {
  depth: 3,
  byWindow: { '2026-03-02': 2, '2026-03-03': 1 },
  awaitingStatusReport: 1,
};

export const sampleReconciliation = {
  windowId: '2026-03-02',
  generatedAt: '2026-03-02T16:00:01.000Z',
  open: 1,
  items: [
    {
      windowId: '2026-03-02',
      uetr: '5e0c2f4a-8f59-4a55-9d8e-0f6c1b2a3d4e',
      row: 5,
      code: 'REPORT_NOT_ACKNOWLEDGED',
      text: 'The status report was not acknowledged',
      stateAtClose: 'DEBIT_STATUS_DELIVERY_PENDING',
      status: 'open',
      createdAt: '2026-03-02T16:00:00.500Z',
    },
  ],
};

export const sampleLanes = {
  lanes: [
    {
      memberId: '470010',
      uetr: '5e0c2f4a-8f59-4a55-9d8e-0f6c1b2a3d4e',
      queued: 3,
      head: 'EVT0123',
      headFailures: 4,
      nextAttemptAt: '2026-03-02T10:00:05.000Z',
      parkedAt: '2026-03-02T09:58:00.000Z',
      lastError: 'HTTP 503: unavailable',
    },
  ],
};

/** A successful on-us debit's snapshot as the tracker answers it (dates as JSON strings). */
export function sampleSnapshot(uetr: string) {
  const at = (ms: number) => new Date(Date.UTC(2026, 2, 2, 10, 0, 0, ms)).toISOString();
  const types: [string, string][] = [
    ['DEBIT_REQUEST_RECEIVED', 'ingress'],
    ['DEBIT_REQUEST_ACCEPTED', 'validator'],
    ['DEBIT_STATUS_DELIVERY_PENDING', 'dispatcher'],
    ['DEBIT_STATUS_DELIVERED', 'dispatcher'],
    ['DEBIT_QUEUED', 'scheduler'],
    ['DEBIT_DELIVERY_PENDING', 'dispatcher'],
    ['DEBIT_DELIVERED', 'dispatcher'],
    ['DEBIT_RESPONSE_ACCEPTED', 'ingress'],
    ['DEBIT_COMPLETED', 'tracker'],
  ];
  // Listed out of order on purpose: the journey is in sequence order whatever the snapshot's order.
  const history = types.map(([eventType, service], index) => ({
    eventId: `00000000-0000-4000-8000-00000000000${index}`,
    seq: index + 1,
    from: index === 0 ? null : `STATE_${index}`,
    to: `STATE_${index + 1}`,
    eventType,
    at: at(index * 100),
    service,
  }));
  return {
    uetr,
    state: 'DEBIT_COMPLETED',
    version: 9,
    lastSeq: 9,
    endToEndIdentification: 'E2E-SAMPLE',
    debtorAgentMemberId: '250655',
    creditorAgentMemberId: '250655',
    history: [...history.slice(4), ...history.slice(0, 4)],
    messages: [
      {
        kind: 'DirectDebit',
        messageIdentification: 'MSG-DD',
        at: at(0),
        bodyJson: '{"amount":{"value":100.25}}',
      },
      { kind: 'PaymentStatusReport', messageIdentification: 'MSG-ACCP', at: at(110), bodyJson: 'not json' },
      {
        kind: 'PaymentStatusReport',
        messageIdentification: 'MSG-REPORT',
        at: at(750),
        bodyJson: '{"status":"ACSC"}',
      },
    ],
    deliveryAttempts: [
      {
        at: at(520),
        messageIdentification: 'MSG-DD',
        memberId: '250655',
        endpoint: 'inbound/direct-debit',
        httpStatus: 503,
        latencyMs: 12,
        outcome: 'retryable',
        error: 'HTTP 503: busy',
      },
      {
        at: at(210),
        messageIdentification: 'MSG-ACCP',
        memberId: '250655',
        endpoint: 'outbound/direct-debit-response',
        httpStatus: 202,
        latencyMs: 7,
        outcome: 'accepted',
      },
      {
        at: at(560),
        messageIdentification: 'MSG-DD',
        memberId: '250655',
        endpoint: 'inbound/direct-debit',
        httpStatus: 202,
        latencyMs: 9,
        outcome: 'accepted',
      },
    ],
    deliveryAttemptCount: 3,
    createdAt: at(0),
    updatedAt: at(800),
  };
}

/**
 * The event publisher's answers for the sample journey's nine state changes (`sampleSnapshot`): each
 * posting delivered to one bank, the fourth after a 500. Sets them as the fake services' routes.
 */
export function sampleDeliveries(routes: Map<string, unknown>, uetr: string): void {
  for (let index = 0; index < 9; index += 1) {
    const eventId = `00000000-0000-4000-8000-00000000000${index}`;
    routes.set(`event-publisher /admin/events/${eventId}/deliveries`, {
      eventId,
      uetr,
      deliveries: [
        {
          memberId: '250655',
          outcome: 'delivered',
          attemptCount: index === 3 ? 2 : 1,
          attempts: [
            ...(index === 3 ? [{ at: '2026-03-02T10:00:00.400Z', httpStatus: 500, latencyMs: 30 }] : []),
            { at: '2026-03-02T10:00:00.410Z', httpStatus: 202, latencyMs: 4 + index },
          ],
        },
      ],
    });
  }
}

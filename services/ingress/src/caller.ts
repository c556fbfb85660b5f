import type { DirectDebit, FieldError, PaymentStatusReport } from '@rp/contracts';
import type { Participant, Participants } from '@rp/pipeline';

/** What the ingress knows about a request when it asks who sent it. */
export interface CallerRequest {
  readonly headers: Headers;
  /** The validated message. */
  readonly message: DirectDebit | PaymentStatusReport;
}

export type CallerOutcome = { ok: true; participant: Participant } | { ok: false; errors: FieldError[] };

/**
 * Who is calling. This is the seam for authentication: today the bank is taken from the message itself;
 * once banks authenticate (mutual TLS or signed requests), a resolver maps the verified identity to the
 * participant and refuses a message whose instructingAgent names another bank.
 */
export type CallerResolver = (request: CallerRequest) => CallerOutcome | Promise<CallerOutcome>;

const pointer = '/instructingAgent/memberId';

/**
 * The interim resolver: the submitting bank is the message's `instructingAgent.memberId`, which must be
 * a configured participant. Until authentication exists, nothing proves the caller is that bank.
 */
export function messageCallerResolver(participants: Participants): CallerResolver {
  return ({ message }) => {
    const memberId = message.instructingAgent?.memberId;
    if (memberId === undefined) {
      return {
        ok: false,
        errors: [{ pointer, detail: 'is required: it identifies the submitting bank' }],
      };
    }
    const participant = participants.get(memberId);
    if (participant === undefined) {
      return { ok: false, errors: [{ pointer, detail: `${memberId} is not a participant of this engine` }] };
    }
    return { ok: true, participant };
  };
}

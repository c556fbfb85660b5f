"""Schemathesis hooks: generated messages name a participant where the engine looks one up.

Each message that passes the schema is then checked against who may send it and whom it is for:

- a bank's messages (a debit it initiates, its status reports) must name the bank of the access token
  as their instructingAgent, or they are refused with 403;
- a clearing house's inbound debit must name a participant as its debtorAgent (the bank that actions
  it), and its inbound credit transfer a participant as its creditorAgent, or they are refused with 422.

Generated member ids would make nearly every valid message such a refusal, so the rules behind it (the
debit's own checks, the report's transaction) would go untested. These hooks put the participant named
by RP_SCHEMATHESIS_BANK in that agent of every positive case whose body is an object: they add the agent
where the body has none, and set its memberId where that is a string or absent.

Negative cases are left as generated: the schema refuses them (422) before the sender or the agents
are looked at, and one of them may be the very memberId that is too long or of the wrong type.
"""

import os

import schemathesis
from schemathesis import GenerationMode

BANK = os.environ["RP_SCHEMATHESIS_BANK"]

# The agent whose memberId the engine looks up, by operationId.
AGENT = {
    "outboundDirectDebit": "instructingAgent",
    "inboundDirectDebitResponse": "instructingAgent",
    "inboundCreditTransferAuthorizationResponse": "instructingAgent",
    "inboundDirectDebitFromScheme": "debtorAgent",
    "inboundCreditTransferAuthorization": "creditorAgent",
}


def name_the_participant(case):
    meta = case.meta
    if meta is not None and meta.generation.mode != GenerationMode.POSITIVE:
        return
    field = AGENT.get(case.operation.definition.raw.get("operationId"))
    body = case.body
    if field is not None and isinstance(body, dict):
        agent = body.setdefault(field, {})
        if isinstance(agent, dict) and isinstance(agent.get("memberId", ""), str):
            agent["memberId"] = BANK


# The coverage and fuzzing phases pass every case through the case hooks; the examples phase does not,
# and hands its cases to the second hook instead.
@schemathesis.hook
def map_case(context, case):
    name_the_participant(case)
    return case


@schemathesis.hook
def before_add_examples(context, examples):
    for case in examples:
        name_the_participant(case)

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkDigitFor, parseWeights } from '@rp/cdv';
import { stackUp } from '@rp/local-stack';
import { formatSeconds } from '../process.ts';

/** The demo bank: synthetic CDV rows of branch 250655 (type 1 current, type 2 savings). */
const bank = '250655';
const services = [
  'bank-simulator',
  'tracker',
  'event-publisher',
  'validator',
  'scheduler',
  'dispatcher',
  'ingress',
];
const basePort = Number(process.env.RP_DEMO_BASE_PORT ?? 18180);
const ports: Record<string, number> = Object.fromEntries(
  services.map((name, index) => [name, basePort + index]),
);

function validAccount(start: number, weights: string, fudge: number): string {
  const parsed = parseWeights(weights);
  if (!parsed.ok) throw new Error(parsed.problem);
  for (let prefix = start; ; prefix += 1) {
    const digit = checkDigitFor(String(prefix).padStart(10, '0'), parsed.weights, 11, fudge);
    if (digit !== undefined) return `${prefix}${digit}`;
  }
}

function johannesburgDate(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Johannesburg' }).format(now);
}

async function waitReady(name: string, deadline: number, alive: () => boolean): Promise<void> {
  const url = `http://127.0.0.1:${ports[name]}/health/${name === 'bank-simulator' ? 'live' : 'ready'}`;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (!alive()) throw new Error(`${name} exited; see its log`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${name} did not become ready; see its log`);
}

/**
 * `rp demo`: the local stack, every service as its own process, the bank simulator as the bank, one on-us
 * debit sent through the whole journey, and its event postings as the bank received them.
 */
export async function demoCommand(root: string): Promise<number> {
  const started = Date.now();
  const stack = await stackUp();
  const run = `demo-${Date.now().toString(36)}`;
  const logDir = join(root, '.local', 'demo', run);
  mkdirSync(logDir, { recursive: true });
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const simulator = `http://127.0.0.1:${ports['bank-simulator']}`;
  const participants = JSON.stringify([
    {
      memberId: bank,
      name: 'Baobab Bank (synthetic)',
      baseUrl: `${simulator}/banks/${bank}`,
      eventsUrl: `${simulator}/banks/${bank}`,
      eventClasses: ['TRANSACTION_STATE', 'ESM_STATE'],
      debitLimits: { ZAR: '500000' },
    },
  ]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    MONGODB_URI: stack.mongodbUri,
    MONGODB_DATABASE: run.replace(/-/g, '_'),
    TOPIC_NAMESPACE: run,
    TOPIC_PARTITIONS: '3',
    PARTICIPANTS: participants,
    SIGNING_SECRETS: JSON.stringify({ [bank]: [secret] }),
    RP_ALLOW_SYNTHETIC_CDV: 'true',
    ENGINE_URL: `http://127.0.0.1:${ports.ingress}`,
    RESPONSE_DELAY: '500ms',
    LOG_LEVEL: 'info',
  };

  console.log(`\nstarting the pipeline (${run}); logs in ${logDir}`);
  const children: ChildProcess[] = [];
  const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
  const stopAll = async () => {
    const live = children.filter(running);
    for (const child of live.reverse()) child.kill('SIGTERM');
    await Promise.all(live.map((child) => new Promise((resolve) => child.once('exit', resolve))));
  };
  try {
    for (const name of services) {
      const log = createWriteStream(join(logDir, `${name}.log`));
      const child = spawn(process.execPath, [join(root, 'services', name, 'dist', 'main.js')], {
        env: { ...env, PORT: String(ports[name]) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.pipe(log);
      child.stderr?.pipe(log);
      children.push(child);
      child.once('exit', (code) => {
        if (code !== 0 && code !== null) console.error(`  ${name} exited with code ${code}; see ${name}.log`);
      });
    }
    const deadline = Date.now() + 120_000;
    for (const name of services) {
      const t0 = Date.now();
      await waitReady(name, deadline, () => running(children[services.indexOf(name)] as ChildProcess));
      console.log(`  ${name.padEnd(16)} ready on :${ports[name]} (${formatSeconds(Date.now() - t0)})`);
    }

    const debit = JSON.parse(
      readFileSync(join(root, 'avro', 'examples', 'DirectDebit.za-eft-on-us.json'), 'utf8'),
    );
    const uetr = randomUUID();
    const today = johannesburgDate(new Date());
    const creditorAccount = validAccount(6_200_000_001, '0A987654321', 3);
    const debtorAccount = validAccount(6_200_000_002, '21987654321', 0);
    debit.messageIdentifiers = {
      messageIdentification: `DEMO${uetr.replaceAll('-', '').slice(0, 24)}`,
      creationDateTime: new Date().toISOString(),
    };
    debit.transactionIdentifiers.uetr = uetr;
    debit.creditorAccount.identification.value = creditorAccount;
    debit.debtorAccount.identification.value = debtorAccount;
    debit.paymentScheme.schemeData.shortenedCreditorAccountNumber = creditorAccount;
    debit.paymentScheme.schemeData.shortenedDebtorAccountNumber = debtorAccount;
    debit.requestedCollectionDate = today;
    debit.settlementDate = today;

    console.log(`\nsending an on-us direct debit, uetr ${uetr}`);
    const response = await fetch(`http://127.0.0.1:${ports.ingress}/api/v1/outbound/direct-debit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(debit),
    });
    console.log(`  POST /api/v1/outbound/direct-debit -> ${response.status} ${await response.text()}`);
    if (response.status !== 202) return 1;

    type Received = {
      posting: {
        class: string;
        type?: string;
        stageVersion?: number;
        messageInfo?: { creationDateTime?: string };
      };
    };
    const postings = async (count: number): Promise<Received[]> => {
      const url = `${simulator}/sim/postings/wait?uetr=${uetr}&count=${count}&timeoutMs=20000`;
      const answer = (await (await fetch(url)).json()) as { postings?: Received[] };
      return answer.postings ?? [];
    };
    const isFinal = (entry: Received) =>
      ['DEBIT_COMPLETED', 'DEBIT_UNPAID'].includes(String(entry.posting.type));
    const queued = await postings(10);
    console.log(`  ${queued.length} postings so far; opening the debit window (admin trigger)`);
    await fetch(`http://127.0.0.1:${ports.scheduler}/admin/windows/debit/open`, { method: 'POST' });
    let journey = queued;
    const journeyDeadline = Date.now() + 90_000;
    while (!journey.some(isFinal) && Date.now() < journeyDeadline) {
      const next = await postings(journey.length + 1);
      if (next.length === journey.length) break;
      journey = next;
    }
    journey = await postings(journey.length + (journey.some(isFinal) ? 1 : 0)).then((all) =>
      all.length >= journey.length ? all : journey,
    );

    console.log(`\nthe journey, as the bank's /events endpoint received it (${journey.length} postings):`);
    for (const { posting } of journey) {
      if (posting.class !== 'TRANSACTION_STATE') continue;
      const at = posting.messageInfo?.creationDateTime ?? '';
      console.log(`  ${String(posting.stageVersion).padStart(2)}  ${String(posting.type).padEnd(32)} ${at}`);
    }
    const esm = journey.filter(({ posting }) => posting.class === 'ESM_STATE').length;
    console.log(`  (and ${esm} ESM_STATE postings for the ZA_EFT record)`);
    const final = journey.some(isFinal);
    const outcome = final ? 'finished: the debit reached a final state' : 'ended before the debit was final';
    console.log(`\ndemo ${outcome} in ${formatSeconds(Date.now() - started)}`);
    return final ? 0 : 1;
  } finally {
    await stopAll();
  }
}

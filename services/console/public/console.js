// The operations console's page: polls /console/api/overview every 2 s and draws it; the search finds a
// transaction by UETR or endToEndIdentification and draws its journey. Plain DOM, no framework, no build.
// Everything from the engine goes in as text (textContent), never as markup.
// Every call on the console's API carries the operator's access token (Authorization: Bearer), kept in
// this tab's sessionStorage only; a 401 signs the operator out.

const pollMs = 2_000;
const requestTimeoutMs = 8_000;
const historyLength = 60;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rates seen per stage, newest last: the sparklines and each stage's peak. */
const rateHistory = new Map();

const $ = (id) => document.getElementById(id);

const tokenKey = 'rp-console-access-token';
let accessToken = sessionStorage.getItem(tokenKey);
/** The poll timer while signed in; undefined while signed out. */
let pollTimer;
let signedIn = false;

/** `el('td', { class: 'num', dataset: { x: '1' } }, 'text', child)`. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const svgNs = 'http://www.w3.org/2000/svg';

function formatCount(value) {
  return value === null || value === undefined ? '–' : Math.round(value).toLocaleString('en-US');
}

function formatRate(value) {
  if (value === null || value === undefined) return '–';
  if (value === 0) return '0/s';
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)}/s`;
}

function formatMs(value) {
  return value === null || value === undefined
    ? '–'
    : `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

function formatTime(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function formatDateTime(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 10)} ${formatTime(iso)}`;
}

/** `08:00` in the windows' own time zone (the scheduler's), whatever the browser's. */
function formatZoned(iso, timeZone) {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return '–';
  try {
    return new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(date);
  } catch {
    return formatTime(iso);
  }
}

function unavailable(section) {
  return el('p', { class: 'unavailable' }, `${section.source} does not answer: ${section.error}`);
}

function table(headers, rows, attributes = {}) {
  return el(
    'table',
    attributes,
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((header) => el('th', {}, header)),
      ),
    ),
    el('tbody', {}, rows),
  );
}

function sparkline(values) {
  const width = 120;
  const height = 28;
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'sparkline');
  svg.setAttribute('aria-hidden', 'true');
  const peak = Math.max(0, ...values);
  if (values.length > 1) {
    const step = width / (historyLength - 1);
    const offset = width - (values.length - 1) * step;
    const points = values
      .map((value, index) => {
        const x = offset + index * step;
        const y = height - 2 - (peak > 0 ? (value / peak) * (height - 4) : 0);
        return `${x.toFixed(1)},${y.toFixed(1)}`;
      })
      .join(' ');
    const line = document.createElementNS(svgNs, 'polyline');
    line.setAttribute('points', points);
    svg.append(line);
  }
  return svg;
}

function renderStatus(overview) {
  const status = $('status');
  status.textContent = overview.status;
  status.dataset.status = overview.status;
  $('updated').textContent = `updated ${formatTime(overview.generatedAt)}`;
  const problems = $('problems');
  problems.replaceChildren(...overview.problems.map((problem) => el('div', {}, problem)));
  problems.hidden = overview.problems.length === 0;
}

function renderServices(services) {
  $('services').replaceChildren(
    ...services.map((service) =>
      el(
        'li',
        {
          class: `service ${service.state}`,
          dataset: { service: service.name, state: service.state },
          title: service.error ?? service.url,
        },
        el('span', { class: 'dot' }),
        el('span', { class: 'name' }, service.name),
        el(
          'span',
          { class: 'muted' },
          service.state === 'down' ? 'down' : `${service.state} · ${service.latencyMs} ms`,
        ),
      ),
    ),
  );
}

function renderStages(stages) {
  $('stages').replaceChildren(
    ...stages.map((stage) => {
      const history = rateHistory.get(stage.id) ?? [];
      if (stage.ratePerSecond !== null) history.push(stage.ratePerSecond);
      while (history.length > historyLength) history.shift();
      rateHistory.set(stage.id, history);
      const peak = Math.max(0, ...history);
      return el(
        'div',
        {
          class: `stage${stage.total === null ? ' missing' : ''}`,
          title: `${stage.help} (${stage.service})`,
          dataset: {
            stage: stage.id,
            total: stage.total ?? '',
            rate: stage.ratePerSecond ?? '',
            peak: String(peak),
          },
        },
        el('div', { class: 'label' }, stage.label),
        el('div', { class: 'rate' }, formatRate(stage.ratePerSecond)),
        sparkline(history),
        el('div', { class: 'total muted' }, `${formatCount(stage.total)} total · peak ${formatRate(peak)}`),
      );
    }),
  );
}

function renderQueue(queue) {
  if (!queue.available) return $('queue').replaceChildren(unavailable(queue));
  const windows = Object.entries(queue.byWindow);
  $('queue').replaceChildren(
    el(
      'div',
      { class: 'big', dataset: { depth: queue.depth } },
      formatCount(queue.depth),
      el('span', { class: 'muted' }, ' queued'),
    ),
    el(
      'dl',
      {},
      windows.flatMap(([date, count]) => [el('dt', {}, `window ${date}`), el('dd', {}, formatCount(count))]),
      el('dt', {}, 'awaiting their status report'),
      el('dd', {}, formatCount(queue.awaitingStatusReport)),
      queue.from === 'metrics'
        ? [el('dt', {}, 'from'), el('dd', {}, 'the scheduler gauge (admin route down)')]
        : [],
    ),
  );
}

function renderWindows(windows) {
  if (!windows.available) return $('windows').replaceChildren(unavailable(windows));
  const debit = windows.debitWindow;
  const reconciliation = windows.reconciliationWindow;
  const zoned = (iso) => formatZoned(iso, windows.timeZone);
  $('windows').replaceChildren(
    el(
      'div',
      { class: 'big' },
      el(
        'span',
        { class: `badge window-${debit.state}`, dataset: { debitWindow: debit.state } },
        `debit window ${debit.state}`,
      ),
    ),
    el(
      'dl',
      {},
      el('dt', {}, 'business date'),
      el(
        'dd',
        {},
        `${windows.businessDate}${windows.isBusinessDay ? '' : ' (not a business day)'} · ${windows.timeZone}`,
      ),
      el('dt', {}, 'debit window'),
      el('dd', {}, `${zoned(debit.opensAt)} – ${zoned(debit.closesAt)}`),
      el('dt', {}, 'credits finalised'),
      el('dd', {}, debit.creditsFinalised ? 'yes' : 'no'),
      debit.override ? [el('dt', {}, 'operator'), el('dd', {}, debit.override)] : [],
      el('dt', {}, 'reconciliation'),
      el(
        'dd',
        {},
        reconciliation.closed
          ? `closed at ${zoned(reconciliation.closedAt)}`
          : `closes at ${zoned(reconciliation.closesAt)}`,
      ),
      el('dt', {}, 'next business date'),
      el('dd', {}, windows.nextBusinessDate),
    ),
  );
}

function renderBanks(banks) {
  if (!banks.available) return $('banks').replaceChildren(unavailable(banks));
  if (banks.items.length === 0)
    return $('banks').replaceChildren(el('p', { class: 'muted' }, 'No delivery to any bank yet.'));
  const rows = banks.items.map((bank) => {
    const d = bank.dispatcher;
    const e = bank.events;
    return el(
      'tr',
      { dataset: { bank: bank.memberId, state: bank.state } },
      el('td', {}, bank.memberId),
      el('td', {}, el('span', { class: `badge bank-${bank.state}` }, bank.state)),
      el(
        'td',
        { class: 'num' },
        d
          ? `${formatCount(d.attempts.acknowledged)} / ${formatCount(d.attempts.retryable)} / ${formatCount(d.attempts.final)}`
          : '–',
      ),
      el('td', { class: 'num' }, d ? formatCount(d.inFlight) : '–'),
      el('td', { class: 'num' }, d ? formatMs(d.meanLatencyMs) : '–'),
      el(
        'td',
        { class: 'num' },
        e
          ? `${formatCount(e.attempts.delivered)} / ${formatCount(e.attempts.retryable)} / ${formatCount(e.attempts.final)}`
          : '–',
      ),
      el('td', { class: 'num' }, e ? formatMs(e.meanLatencyMs) : '–'),
      el(
        'td',
        { class: 'num' },
        e ? `${formatCount(e.parkedLanes)} / ${formatCount(e.parkedPostings)}` : '–',
      ),
      el('td', {}, e ? (e.paused ? 'paused' : 'no') : '–'),
    );
  });
  $('banks').replaceChildren(
    table(
      [
        'bank',
        'state',
        'messages 202 / retry / final',
        'in flight',
        'mean latency',
        'postings 2xx / retry / final',
        'mean latency',
        'parked lanes / postings',
        'paused',
      ],
      rows,
    ),
  );
}

function renderLanes(lanes) {
  if (!lanes.available) return $('lanes').replaceChildren(unavailable(lanes));
  if (lanes.items.length === 0)
    return $('lanes').replaceChildren(
      el('p', { class: 'muted', dataset: { lanes: '0' } }, 'Nothing parked.'),
    );
  $('lanes').replaceChildren(
    table(
      ['bank', 'transaction', 'queued', 'failures', 'next attempt', 'last error'],
      lanes.items.map((lane) =>
        el(
          'tr',
          {},
          el('td', {}, lane.memberId),
          el('td', {}, el('a', { href: `#q=${lane.uetr}`, class: 'uetr' }, lane.uetr)),
          el('td', { class: 'num' }, formatCount(lane.queued)),
          el('td', { class: 'num' }, formatCount(lane.headFailures)),
          el('td', {}, formatTime(lane.nextAttemptAt)),
          el('td', { class: 'error' }, lane.lastError ?? ''),
        ),
      ),
    ),
  );
}

function renderReconciliation(reconciliation) {
  if (!reconciliation.available) return $('reconciliation').replaceChildren(unavailable(reconciliation));
  const open = reconciliation.items.filter((item) => item.status === 'open');
  $('reconciliation').replaceChildren(
    el(
      'div',
      { class: 'big', dataset: { open: reconciliation.open } },
      formatCount(reconciliation.open),
      el('span', { class: 'muted' }, ` open in window ${reconciliation.windowId}`),
    ),
    reconciliation.items.length === 0
      ? el('p', { class: 'muted' }, 'No item raised.')
      : table(
          ['transaction', 'row', 'code', 'state at close', 'status'],
          (open.length > 0 ? open : reconciliation.items).map((item) =>
            el(
              'tr',
              { title: item.text },
              el('td', {}, el('a', { href: `#q=${item.uetr}`, class: 'uetr' }, item.uetr)),
              el('td', { class: 'num' }, item.row),
              el('td', {}, item.code),
              el('td', {}, item.stateAtClose),
              el('td', {}, item.status),
            ),
          ),
        ),
  );
}

async function getJson(path, init = {}) {
  const headers = { accept: 'application/json', ...init.headers };
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  const response = await fetch(path, { ...init, headers, signal: AbortSignal.timeout(requestTimeoutMs) });
  const body = await response.json().catch(() => null);
  if (response.status === 401 && signedIn)
    signOut('Your access token was refused or has expired: sign in again.');
  if (!response.ok) {
    const detail = body && typeof body.detail === 'string' ? body.detail : response.statusText;
    const error = new Error(`${detail} (HTTP ${response.status})`);
    error.status = response.status;
    error.detail = detail;
    throw error;
  }
  return body;
}

async function poll() {
  try {
    const overview = await getJson('api/overview');
    renderStatus(overview);
    renderServices(overview.services);
    renderStages(overview.stages);
    renderQueue(overview.queue);
    renderWindows(overview.windows);
    renderBanks(overview.banks);
    renderLanes(overview.lanes);
    renderReconciliation(overview.reconciliation);
  } catch (error) {
    const status = $('status');
    status.textContent = 'console API unreachable';
    status.dataset.status = 'unreachable';
    const problems = $('problems');
    problems.replaceChildren(el('div', {}, `The console's own API did not answer: ${error.message}`));
    problems.hidden = false;
  } finally {
    if (signedIn) pollTimer = setTimeout(poll, pollMs);
  }
}

// ---- session

function signInMessage(text, kind = '') {
  const message = $('sign-in-message');
  message.textContent = text;
  message.dataset.kind = kind;
}

function showSession(session) {
  signedIn = true;
  $('sign-in').hidden = true;
  $('main').hidden = false;
  const operator = $('operator');
  operator.textContent =
    session.authentication === 'none'
      ? 'no sign-in (ADMIN_AUTH=none)'
      : `${session.operator} · ${session.roles.join(', ') || 'no role'}`;
  operator.hidden = false;
  $('sign-out').hidden = session.authentication === 'none';
  clearTimeout(pollTimer);
  fromHash();
  poll();
}

function signOut(reason) {
  signedIn = false;
  accessToken = null;
  sessionStorage.removeItem(tokenKey);
  clearTimeout(pollTimer);
  pollTimer = undefined;
  $('main').hidden = true;
  $('operator').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  signInMessage(reason ?? '', reason ? 'error' : '');
}

/** Asks the console who the token names; signed in when it answers, the sign-in form when it refuses. */
async function resume(token) {
  accessToken = token;
  try {
    const session = await getJson('api/session');
    if (token) sessionStorage.setItem(tokenKey, token);
    showSession(session);
  } catch (error) {
    signOut(error.status === 401 && !token ? '' : `Not signed in: ${error.message}`);
  }
}

$('sign-in-credentials').addEventListener('submit', async (event) => {
  event.preventDefault();
  signInMessage('Signing in…');
  const secret = $('client-secret');
  try {
    const session = await getJson('api/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: $('client-id').value.trim(), clientSecret: secret.value }),
    });
    secret.value = '';
    accessToken = session.accessToken;
    sessionStorage.setItem(tokenKey, session.accessToken);
    signInMessage('');
    showSession(session);
  } catch (error) {
    signInMessage(`Sign-in refused: ${error.message}`, 'error');
  }
});

$('sign-in-token').addEventListener('submit', (event) => {
  event.preventDefault();
  const field = $('access-token');
  const token = field.value.trim().replace(/^Bearer\s+/i, '');
  field.value = '';
  resume(token);
});

$('sign-out').addEventListener('click', () => signOut());

// ---- search and journey

function searchMessage(text, kind = 'muted') {
  const message = $('search-message');
  message.className = kind;
  message.textContent = text;
}

function postingChip(posting) {
  const status = posting.lastStatus === null ? 'no answer' : `HTTP ${posting.lastStatus}`;
  return el(
    'span',
    {
      class: `chip posting-${posting.outcome}`,
      title: `event posting to bank ${posting.memberId}: ${posting.attemptCount} attempt(s)`,
    },
    `posting → ${posting.memberId}: ${posting.outcome} · ${status} · ${formatMs(posting.lastLatencyMs)}`,
  );
}

function messageItem(message) {
  return el(
    'li',
    { class: 'message', dataset: { kind: message.kind } },
    el('span', { class: 'time' }, formatTime(message.at)),
    el('span', { class: 'tag' }, 'message'),
    el('strong', {}, message.kind),
    el('code', {}, message.messageIdentification),
    el(
      'details',
      {},
      el('summary', {}, 'body'),
      el('pre', {}, typeof message.body === 'string' ? message.body : JSON.stringify(message.body, null, 2)),
    ),
  );
}

function attemptItem(attempt) {
  return el(
    'li',
    {
      class: `attempt attempt-${attempt.outcome}`,
      dataset: { status: attempt.httpStatus ?? 'none', outcome: attempt.outcome },
    },
    el('span', { class: 'time' }, formatTime(attempt.at)),
    el('span', { class: 'tag' }, 'delivery'),
    el('strong', {}, attempt.httpStatus === null ? 'no answer' : `HTTP ${attempt.httpStatus}`),
    el('span', { class: 'latency' }, formatMs(attempt.latencyMs)),
    el('span', {}, `POST /${attempt.endpoint} → bank ${attempt.memberId} (${attempt.outcome})`),
    el('code', {}, attempt.messageIdentification),
    attempt.error ? el('span', { class: 'error' }, attempt.error) : null,
  );
}

function renderJourney(journey) {
  const first = journey.states[0] ? Date.parse(journey.states[0].at) : Number.NaN;
  $('journey-header').replaceChildren(
    el('div', {}, el('span', { class: 'muted' }, 'UETR '), el('code', { id: 'journey-uetr' }, journey.uetr)),
    el(
      'div',
      {},
      el(
        'span',
        { class: `badge state-${journey.state}`, id: 'journey-state' },
        journey.state ?? 'no state yet',
      ),
      ` endToEndIdentification ${journey.endToEndIdentification ?? '–'} · debtor agent ${journey.debtorAgentMemberId ?? '–'} · creditor agent ${journey.creditorAgentMemberId ?? '–'} · ${journey.deliveryAttemptCount} delivery attempt(s)`,
    ),
    ...(journey.problems.length > 0
      ? [el('div', { class: 'unavailable' }, journey.problems.join('; '))]
      : []),
  );
  $('timeline').replaceChildren(
    ...journey.states.map((state) => {
      const offset = Date.parse(state.at) - first;
      return el(
        'li',
        { class: 'state', dataset: { eventType: state.eventType, seq: state.seq, service: state.service } },
        el('div', { class: 'node' }),
        el(
          'div',
          { class: 'state-head' },
          el('span', { class: 'time', title: state.at }, formatTime(state.at)),
          el('span', { class: 'offset muted' }, Number.isNaN(offset) ? '' : `+${offset} ms`),
          el('strong', { class: 'event-type' }, state.eventType),
          el('span', { class: 'emitter' }, state.service),
          el('span', { class: 'muted' }, `${state.from ?? '∅'} → ${state.to}`),
        ),
        state.postings === null ? null : el('div', { class: 'postings' }, state.postings.map(postingChip)),
        state.messages.length + state.attempts.length === 0
          ? null
          : el('ul', { class: 'details' }, state.messages.map(messageItem), state.attempts.map(attemptItem)),
      );
    }),
  );
  $('journey').hidden = false;
}

/** A 404's sentence: the tracker says when a UETR was received and is not yet recorded. */
function notFound(uetr, detail) {
  const received =
    typeof detail === 'string' &&
    detail.toLowerCase().startsWith(`no transaction ${uetr.toLowerCase()} recorded yet`);
  return received ? `N${detail.slice(1)}.` : `No transaction ${uetr}.`;
}

async function showJourney(uetr) {
  searchMessage(`Loading ${uetr}…`);
  try {
    const journey = await getJson(`api/transactions/${encodeURIComponent(uetr)}`);
    renderJourney(journey);
    searchMessage(`${journey.states.length} state(s)`);
  } catch (error) {
    $('journey').hidden = true;
    searchMessage(
      error.status === 404 ? notFound(uetr, error.detail) : `Could not load ${uetr}: ${error.message}`,
      'error',
    );
  }
}

async function search(query) {
  const text = query.trim();
  $('matches').hidden = true;
  if (text === '') return;
  if (uuidPattern.test(text)) return showJourney(text.toLowerCase());
  searchMessage(`Searching for endToEndIdentification ${text}…`);
  try {
    const { transactions } = await getJson(`api/transactions?endToEndId=${encodeURIComponent(text)}`);
    if (transactions.length === 0) {
      $('journey').hidden = true;
      return searchMessage(`No transaction with endToEndIdentification ${text}.`, 'error');
    }
    if (transactions.length === 1) return showJourney(transactions[0].uetr);
    $('journey').hidden = true;
    searchMessage(`${transactions.length} transactions with endToEndIdentification ${text}:`);
    $('matches').replaceChildren(
      ...transactions.map((transaction) =>
        el(
          'li',
          {},
          el('a', { href: `#q=${transaction.uetr}`, class: 'uetr' }, transaction.uetr),
          ` ${transaction.state ?? '–'} · created ${formatDateTime(transaction.createdAt)}`,
        ),
      ),
    );
    $('matches').hidden = false;
  } catch (error) {
    searchMessage(`Search failed: ${error.message}`, 'error');
  }
}

function fromHash() {
  const match = /^#q=(.+)$/.exec(window.location.hash);
  if (!match) return;
  const query = decodeURIComponent(match[1]);
  $('search-input').value = query;
  search(query);
}

$('search').addEventListener('submit', (event) => {
  event.preventDefault();
  const query = $('search-input').value.trim();
  if (window.location.hash === `#q=${encodeURIComponent(query)}`) search(query);
  else window.location.hash = `q=${encodeURIComponent(query)}`;
});
window.addEventListener('hashchange', () => {
  if (signedIn) fromHash();
});

resume(accessToken);

import { type ProblemDetails, parseJsonExact, problem } from '@rp/contracts';

/** Why a request body was refused before schema validation, in the order the checks run. */
export type BodyRefusal = { status: 415 | 413 | 400; problem: ProblemDetails };

export type BodyOutcome = { ok: true; json: unknown } | { ok: false; refusal: BodyRefusal };

/**
 * Checks the media type first: the engine reads JSON only, and says so (415) before it reads any bytes.
 * `application/json` with an optional charset parameter that must name UTF-8 (RFC 8259 section 8.1).
 */
export function checkContentType(
  header: string | null | undefined,
  instance: string,
): BodyRefusal | undefined {
  const refuse = (detail: string): BodyRefusal => ({
    status: 415,
    problem: problem('unsupportedMediaType', detail, instance),
  });
  if (!header) return refuse('Content-Type is missing; send application/json');
  const [mediaType = '', ...parameters] = header.split(';').map((part) => part.trim());
  if (mediaType.toLowerCase() !== 'application/json') {
    return refuse(`Content-Type ${mediaType || '(empty)'} is not supported; send application/json`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
    if (name.toLowerCase() !== 'charset') continue;
    const charset = value.replace(/^"|"$/g, '').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      return refuse(`charset ${value} is not supported; JSON bodies are UTF-8`);
    }
  }
  return undefined;
}

/**
 * Reads at most `limit` bytes: a declared Content-Length above it is refused without reading, and a body
 * without one (chunked) is cut off as soon as it streams past it.
 */
export async function readLimitedBody(
  request: Request,
  limit: number,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; received: number }> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared)) {
    if (declared > limit) return { ok: false, received: declared };
    // The server's HTTP parser ends a body at its declared length, so it is read whole: under
    // @hono/node-server straight from the socket, without a web Request and stream around it. The check
    // after it is for a Request made elsewhere, whose body nothing holds to its header.
    const bytes = new Uint8Array(await request.arrayBuffer());
    return bytes.byteLength > limit ? { ok: false, received: bytes.byteLength } : { ok: true, bytes };
  }
  if (request.body === null) return { ok: true, bytes: new Uint8Array() };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return { ok: false, received: total };
    }
    chunks.push(value);
  }
  return { ok: true, bytes: Buffer.concat(chunks, total) };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body checks of every bank-facing POST, in the order the API documents: 415 media type, 413 size,
 * 400 malformed JSON. Numbers are parsed exactly so that amounts never pass through a binary float.
 */
export async function readJsonBody(request: Request, limit: number, instance: string): Promise<BodyOutcome> {
  const unsupported = checkContentType(request.headers.get('content-type'), instance);
  if (unsupported) return { ok: false, refusal: unsupported };
  const read = await readLimitedBody(request, limit);
  if (!read.ok) {
    return {
      ok: false,
      refusal: {
        status: 413,
        problem: problem('payloadTooLarge', `The body exceeds the limit of ${limit} bytes`, instance),
      },
    };
  }
  const malformed = (detail: string): BodyOutcome => ({
    ok: false,
    refusal: { status: 400, problem: problem('malformedJson', detail, instance) },
  });
  let text: string;
  try {
    text = utf8.decode(read.bytes);
  } catch {
    return malformed('The body is not valid UTF-8');
  }
  if (text.trim() === '') return malformed('The body is empty');
  try {
    return { ok: true, json: parseJsonExact(text) };
  } catch (error) {
    return malformed(error instanceof Error ? error.message : 'The body is not valid JSON');
  }
}

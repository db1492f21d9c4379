import { HttpException } from '@nestjs/common';
import { ZodError } from 'zod';
import { fieldIssues as zodFieldIssues } from '@aoc/errors';

/** RFC 9457 problem details, the one error shape of every HTTP surface. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  /** The fields at fault, when the request was invalid. */
  errors?: { field: string; message: string }[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Content Too Large',
  415: 'Unsupported Media Type', 421: 'Misdirected Request', 422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/** Codes for refusals that carry none of their own (the framework's 404s, parser errors). */
const STATUS_CODES: Record<number, string> = {
  400: 'HTTP.BAD_REQUEST', 401: 'AUTH.UNAUTHENTICATED', 403: 'AUTH.FORBIDDEN', 404: 'HTTP.NOT_FOUND', 405: 'HTTP.METHOD_NOT_ALLOWED', 409: 'HTTP.CONFLICT', 413: 'HTTP.BODY_TOO_LARGE',
  415: 'HTTP.UNSUPPORTED_MEDIA_TYPE', 422: 'HTTP.UNPROCESSABLE', 429: 'HTTP.TOO_MANY_REQUESTS', 503: 'HTTP.UNAVAILABLE',
};

export interface RenderedProblem {
  problem: Problem;
  headers: Record<string, string>;
}

/** Maps anything thrown to a problem; internals (messages of unknown errors, stacks) never leave. */
export function problemOf(error: unknown, instance?: string): RenderedProblem {
  if (error instanceof ZodError) {
    return { problem: build(400, 'HTTP.REQUEST_INVALID', 'the request is invalid', instance, zodFieldIssues(error.issues, '(body)')), headers: {} };
  }
  if (error instanceof HttpException) return fromHttpException(error, instance);
  const status = statusOfParserError(error);
  if (status !== null) {
    const detail = status === 413 ? 'the request body is larger than this route accepts' : status === 415 ? 'this route accepts application/json only' : 'the request body is not valid JSON';
    return { problem: build(status, STATUS_CODES[status] ?? 'HTTP.BAD_REQUEST', detail, instance, status === 400 ? [{ field: '(body)', message: detail }] : undefined), headers: {} };
  }
  return { problem: build(500, 'INTERNAL.UNEXPECTED', 'the request failed inside the service; the error has been logged', instance), headers: {} };
}

function fromHttpException(error: HttpException, instance?: string): RenderedProblem {
  const status = error.getStatus();
  const body = error.getResponse();
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const code = typeof fields['code'] === 'string' ? fields['code'] : (STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL.UNEXPECTED' : 'HTTP.ERROR'));
  const message = typeof fields['message'] === 'string' ? fields['message'] : typeof body === 'string' ? body : status >= 500 ? 'the request failed inside the service' : error.message;
  const issues = fieldIssues(fields);
  const headers = typeof fields['headers'] === 'object' && fields['headers'] !== null ? (fields['headers'] as Record<string, string>) : {};
  // A 5xx's own text may describe internals; only its code leaves.
  const detail = status >= 500 && !fields['code'] ? 'the request failed inside the service; the error has been logged' : message;
  return { problem: build(status, code, detail, instance, issues), headers };
}

function fieldIssues(fields: Record<string, unknown>): Problem['errors'] {
  const list = fields['issues'] ?? fields['errors'];
  if (Array.isArray(list)) {
    return list
      .filter((i): i is { field: unknown; message: unknown } => typeof i === 'object' && i !== null)
      .map((i) => ({ field: String(i.field ?? '(body)'), message: String(i.message ?? 'invalid') }));
  }
  if (typeof fields['field'] === 'string') return [{ field: fields['field'], message: typeof fields['message'] === 'string' ? fields['message'] : 'invalid' }];
  return undefined;
}

/** body-parser errors carry `status` and `type` (`entity.parse.failed`, `entity.too.large`, ...). */
function statusOfParserError(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { status?: unknown; type?: unknown };
  const parserType = typeof e.type === 'string' && (e.type.startsWith('entity.') || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported');
  if (!parserType) return null;
  return typeof e.status === 'number' && e.status >= 400 && e.status < 500 ? e.status : 400;
}

function build(status: number, code: string, detail: string, instance?: string, errors?: Problem['errors']): Problem {
  return {
    type: `urn:aoc:problem:${code.toLowerCase()}`,
    title: TITLES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error'),
    status,
    detail,
    code,
    ...(instance ? { instance } : {}),
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

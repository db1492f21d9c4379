import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { EdgeRequest, EdgeResponse } from '@aoc/auth';
import { errorMessageOf } from '@aoc/errors';
import { PROBLEM_CONTENT_TYPE, problemOf } from './problem';

export interface ProblemLogger {
  error(message: string, fields: Record<string, unknown>): void;
}

export const SIGN_IN_PATH = '/auth/sign-in';

/** A browser asking for a page without a credential is sent to the sign-in page instead of a 401 body. */
export function signInRedirectFor(request: EdgeRequest, status: number): string | null {
  const accept = request.headers['accept'] ?? '';
  return status === 401 && request.method.toUpperCase() === 'GET' && accept.includes('text/html') ? SIGN_IN_PATH : null;
}

/** Sends a problem response; used by the Nest filter and by the body parsers' error handler. */
export function sendProblem(error: unknown, request: EdgeRequest, response: EdgeResponse, logger: ProblemLogger): void {
  const path = (request.originalUrl ?? request.url).split('?')[0];
  const { problem, headers } = problemOf(error, path);
  if (problem.status >= 500) logger.error('http request failed', { path, method: request.method, error: errorMessageOf(error) });
  if (response.headersSent) return;
  const redirect = signInRedirectFor(request, problem.status);
  if (redirect) {
    response.setHeader('location', redirect);
    response.status(303).type('text/plain').send('Sign in first.');
    return;
  }
  for (const [k, v] of Object.entries(headers)) response.setHeader(k, v);
  response.setHeader('cache-control', 'no-store');
  response.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

/** Every error of every HTTP route becomes `application/problem+json` (controllers with their own HTML filter keep it). */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(private readonly logger: ProblemLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    sendProblem(exception, http.getRequest<EdgeRequest>(), http.getResponse<EdgeResponse>(), this.logger);
  }
}

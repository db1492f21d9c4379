import { Access, CurrentPrincipal, RateLimit, TENANCY, principalMay, type Principal, type Tenancy } from '@aoc/auth';
import { AocError } from '@aoc/errors';
import { BadRequestException, Body, ConflictException, Controller, ForbiddenException, HttpCode, Inject, NotFoundException, Post, ServiceUnavailableException, UnprocessableEntityException } from '@nestjs/common';
import { ZodError } from 'zod';
import { TicketIntakeService, type AnalyzeTicketAccepted, type PublishReadResult } from './ticket-intake.service';
import type { TicketOrigin } from './ticket-origin';
import { bodyField } from './request-body';
import { checkTicketTenant } from './ticket-tenant';

/** Maps intake errors to HTTP: bad fields 400, unknown run 404, not yet publishable 409, other refusals 422, source down 503. */
async function respond<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ZodError) {
      throw new BadRequestException({ code: 'INTAKE.REQUEST_INVALID', issues: error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) });
    }
    if (error instanceof AocError) {
      const body = { code: error.code, message: error.message };
      if (error.retryable) throw new ServiceUnavailableException(body);
      if (error.code === 'INTAKE.RUN_NOT_FOUND' || error.code === 'TICKET_SOURCE.NOT_FOUND') throw new NotFoundException(body);
      if (error.code === 'INTAKE.RUN_NOT_PUBLISHED' || error.code === 'INTAKE.WRITE_IN_PROGRESS') throw new ConflictException(body);
      throw new UnprocessableEntityException(body);
    }
    throw error;
  }
}

function isWriteMode(body: unknown): boolean {
  return bodyField(body, 'mode') === 'write';
}

/** A ticket in the body is the caller's word unless an operator imports it; a key is read from the source. */
function originOf(body: unknown, principal: Principal): TicketOrigin {
  if (bodyField(body, 'ticket') === undefined) return { kind: 'source' };
  return bodyField(body, 'import') === true ? { kind: 'import' } : { kind: 'caller', subject: principal.subject };
}

/**
 * POST /v1/tickets/analyze: accepts a ticket (or a ticket key to read from the ticket source)
 * and returns the run id and its trace id. POST /v1/tickets/publish-read: writes a published
 * read-mode answer back to its ticket as one internal comment.
 */
@Controller('v1/tickets')
@Access('support')
export class IntakeController {
  constructor(
    private readonly intake: TicketIntakeService,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  @Post('analyze')
  @HttpCode(202)
  // Each analysis costs provider queries and model calls: a tighter limit than reads.
  @RateLimit(60)
  analyze(@Body() body: unknown, @CurrentPrincipal() principal: Principal): Promise<AnalyzeTicketAccepted> {
    // Writing back into the ticket source is an operator's decision; support analyses in read mode.
    if (isWriteMode(body) && !principalMay(principal, 'operator')) {
      throw new ForbiddenException({ code: 'AUTH.FORBIDDEN', message: `mode "write" needs the operator role; the caller has ${principal.role}` });
    }
    if (bodyField(body, 'import') === true && !principalMay(principal, 'operator')) {
      throw new ForbiddenException({ code: 'AUTH.FORBIDDEN', message: `importing a ticket with its history needs the operator role; the caller has ${principal.role}` });
    }
    checkTicketTenant(this.tenancy, principal, body);
    return respond(() => this.intake.analyze(body as never, originOf(body, principal)));
  }

  @Post('publish-read')
  @HttpCode(200)
  publishRead(@Body() body: unknown, @CurrentPrincipal() principal: Principal): Promise<PublishReadResult> {
    checkTicketTenant(this.tenancy, principal, body);
    return respond(() => this.intake.publishRead(body as never));
  }
}

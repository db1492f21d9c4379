import { AocError } from '@aoc/errors';
import { BadRequestException, Body, Controller, HttpCode, Post, UnprocessableEntityException } from '@nestjs/common';
import { ZodError } from 'zod';
import { TicketIntakeService, type AnalyzeTicketAccepted } from './ticket-intake.service';

/** POST /v1/tickets/analyze: accepts a ticket and returns the run id and its trace id. */
@Controller('v1/tickets')
export class IntakeController {
  constructor(private readonly intake: TicketIntakeService) {}

  @Post('analyze')
  @HttpCode(202)
  async analyze(@Body() body: unknown): Promise<AnalyzeTicketAccepted> {
    try {
      return await this.intake.analyze(body as never);
    } catch (error) {
      if (error instanceof ZodError) {
        throw new BadRequestException({ code: 'INTAKE.REQUEST_INVALID', issues: error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) });
      }
      if (error instanceof AocError && !error.retryable) throw new UnprocessableEntityException({ code: error.code, message: error.message });
      throw error;
    }
  }
}

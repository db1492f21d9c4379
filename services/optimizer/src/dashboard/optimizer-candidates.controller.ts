import { Access, CurrentPrincipal, TENANCY, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { BadRequestException, Controller, Get, Inject, Query } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { CURSOR, decodeCursor, encodeCursor, feedAfter, feedHead } from '../persistence/candidate-feed';

/** The query: an opaque cursor from an earlier answer (absent: start at the head) and a page size. */
export const CandidatesQuery = z
  .object({
    cursor: z.string().regex(CURSOR, 'must be a cursor this endpoint returned').optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

/**
 * `GET /v1/auto-analysis/optimizer-candidates`: the problem signals the optimizer stored, in the
 * order it stored them, for bad-case consumers such as the single-ticket lane. Without a cursor the
 * answer is the current head and no items (a first activation does not backfill history). A
 * principal confined to a tenant sees its tickets' signals only; the cursor still moves past the rest.
 */
@Controller('v1/auto-analysis')
@Access('viewer')
export class OptimizerCandidatesController {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  @Get('optimizer-candidates')
  async candidates(@Query() query: unknown, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    const parsed = CandidatesQuery.safeParse(query ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'query';
      throw new BadRequestException({ statusCode: 400, code: 'OPTIMIZER.INVALID_PARAM', field, message: `${field}: ${issue?.message ?? 'invalid'}` });
    }
    const m = this.dataSource.manager;
    if (parsed.data.cursor === undefined) return { cursor: encodeCursor(await feedHead(m)), items: [] };
    const tenant = tenantScope(this.tenancy, principal);
    const { items, next } = await feedAfter(m, decodeCursor(parsed.data.cursor), parsed.data.limit, tenant ?? undefined);
    return { cursor: encodeCursor(next), items: items.map(({ seq: _seq, ...item }) => item) };
  }
}

import { Access, CurrentPrincipal, TENANCY, tenantScope, type Principal, type Tenancy } from '@aoc/auth';
import { DATA_SOURCE } from '@aoc/service-host';
import { BadRequestException, Controller, Get, Inject, NotFoundException, Param, Query } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { isProblemStatus } from '../focus/problem-status-machine';
import { allRecords, recordById, recordVisibleTo, type StoredRecord } from '../persistence/record-store';
import { InvalidWeekError, weekOf, weeklyAttribution, type WeeklyAttribution } from '../records/weekly-attribution';

export const RECORD_ID = /^opt-[0-9a-f]{16}$/;

/** A query parameter given at most once, or a 400 naming it. */
export function oneParam(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestException({ statusCode: 400, code: 'OPTIMIZER.INVALID_PARAM', field: name, message: `${name}: must be given once` });
  return value;
}

/** Every problem of the records, flat, in the records' order. */
export function problemsOf(records: readonly StoredRecord[]) {
  return records.flatMap(({ record, statuses }) =>
    statuses.map((s) => {
      const p = record.problems.find((x) => x.ref === s.ref);
      return { recordId: record.recordId, focusId: record.focus.focusId, dataVersion: record.data.dataVersion, ticketKey: p?.ticketKey ?? null, signature: p?.signature ?? null, kind: p?.kind ?? null, statement: p?.statement ?? null, ...s };
    }),
  );
}

/**
 * The optimisation records as JSON, and the weekly attribution of improvements to them (what the
 * weekly report reads over HTTP: the reporter never reads the optimizer's tables). Like a Focus, a
 * record gathers many tickets: a principal confined to a tenant sees the records whose tickets are
 * all its tenant's (and only their problems' statuses).
 */
@Controller('v1')
@Access('viewer')
export class RecordsController {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  private async visible(principal: Principal): Promise<StoredRecord[]> {
    const tenant = tenantScope(this.tenancy, principal);
    return (await allRecords(this.dataSource.manager)).filter((r) => recordVisibleTo(r, tenant));
  }

  @Get('optimization-records')
  async list(@CurrentPrincipal() principal: Principal): Promise<unknown> {
    return { records: (await this.visible(principal)).map(({ record, statuses }) => ({ ...record, statuses })) };
  }

  @Get('optimization-records/:recordId')
  async detail(@Param('recordId') recordId: string, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    if (!RECORD_ID.test(recordId)) throw new NotFoundException({ code: 'OPTIMIZER.RECORD_NOT_FOUND', message: 'recordId: must be opt-<16 hex>' });
    const stored = await recordById(this.dataSource.manager, recordId);
    if (!stored || !recordVisibleTo(stored, tenantScope(this.tenancy, principal))) throw new NotFoundException({ code: 'OPTIMIZER.RECORD_NOT_FOUND', message: `no optimisation record ${recordId}` });
    return { ...stored.record, statuses: stored.statuses };
  }

  /** Every problem's status (optionally one status), each with its record; a bad `status` is a 400 naming it. */
  @Get('problem-statuses')
  async problems(@Query('status') status: unknown, @CurrentPrincipal() principal: Principal): Promise<unknown> {
    const wanted = oneParam('status', status);
    if (wanted !== undefined && !isProblemStatus(wanted)) throw new BadRequestException({ statusCode: 400, code: 'OPTIMIZER.INVALID_PARAM', field: 'status', message: 'status: must be candidate, optimized_unverified, optimized_verified or ineffective' });
    return { problems: problemsOf(await this.visible(principal)).filter((p) => wanted === undefined || p.status === wanted) };
  }

  /** Improvements verified in the week (Monday `weekStart`, Asia/Shanghai), each attributed to its record; a bad weekStart is a 400 naming it. */
  @Get('attribution/weekly')
  async weekly(@Query('weekStart') weekStart: unknown, @CurrentPrincipal() principal: Principal): Promise<WeeklyAttribution> {
    try {
      if (Array.isArray(weekStart)) throw new InvalidWeekError('must be given once');
      weekOf(weekStart);
    } catch (error) {
      if (error instanceof InvalidWeekError) throw new BadRequestException({ statusCode: 400, code: 'OPTIMIZER.INVALID_PARAM', field: error.field, message: error.message });
      throw error;
    }
    return weeklyAttribution(await this.visible(principal), weekStart, tenantScope(this.tenancy, principal), new Date());
  }
}
